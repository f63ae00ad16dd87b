"""Enter in an order other than relevance: the sort in the search request (``order=``, one
search answering the first page of the whole sorted answer) against the app's old way (a page,
then every match searched again and sorted in Python with library/sorting.arrange).

``python -m bench.sorted_search [CORPUS] [--reps N]``: each query in each order, a fresh answer
each time (the searcher's cache is cleared). ``rows(searcher, columns)`` gives the table's rows.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from bench.report import Budget, Row, Summary
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.sorting import SortColumns, arrange
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.ordering import Order
from tui_reader.search.query.modes import PAGE
from tui_reader.search.searcher import Searcher, SearchMode, SearchResult
from tui_reader.search.subsets import Only

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "paperlists-87k.jsonl.gz"
TEXTS = ("learning", "neural", "model", "network", "data", "graph", "reinforcement learning", "year:2020")
SORTS = ("year", "title")
OLD_ALL_TIME_LIMIT = 10.0  # the app's ALL_TIME_LIMIT for every match


def old_way(searcher: Searcher, corpus: Corpus, text: str, sort: str, columns: SortColumns) -> SearchResult:
    """search_flow.run_search + arranged before issue 19: a page, then every match, sorted."""
    result = searcher.search(text, SearchMode.ENTER, PAGE)
    if len(result.hits) < result.total and not result.stopped:
        result = searcher.search(text, SearchMode.ENTER, max(len(corpus), 1), time_limit=OLD_ALL_TIME_LIMIT)
    rows = arrange([h.row for h in result.hits], sort, columns)
    by_row = {h.row: h for h in result.hits}
    return dataclasses.replace(result, hits=[by_row[r] for r in rows])


def new_way(searcher: Searcher, text: str, order: Order, only: Only | None = None) -> SearchResult:
    return searcher.search(text, SearchMode.ENTER, PAGE, order=order, only=only)


def timed(fn: object, reps: int, searcher: Searcher) -> list[float]:
    out = []
    for _ in range(reps):
        searcher.invalidate()
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append((time.perf_counter() - started) * 1000)
    return out


def rows(searcher: Searcher, columns: SortColumns, reps: int = 5) -> list[Row]:
    corpus = searcher.corpus
    started = time.perf_counter()
    orders = {sort: Order(sort, columns.ranks(sort) or []) for sort in SORTS}
    ranks_ms = (time.perf_counter() - started) * 1000 / len(SORTS)
    for order in orders.values():  # the first sorted search reads docnum -> row once per index
        new_way(searcher, "learning", order)
    new: list[float] = []
    old: list[float] = []
    for text in TEXTS:
        for sort, order in orders.items():
            fresh = new_way(searcher, text, order)
            before = old_way(searcher, corpus, text, sort, columns)
            same = [h.id for h in fresh.hits] == [h.id for h in before.hits[:PAGE]]
            print(f"{text!r:26} by {sort:5}: {fresh.total:6,} matches, first page same as before: {same}")
            new += timed(lambda t=text, o=order: new_way(searcher, t, o), reps, searcher)
            old += timed(lambda t=text, s=sort: old_way(searcher, corpus, t, s, columns), reps, searcher)
    unread = Only(besides=frozenset(corpus.ids[::3]))
    view = []
    for text in TEXTS:
        view += timed(lambda t=text: new_way(searcher, t, orders["year"], unread), reps, searcher)
    return [
        Row(
            "sorted.enter",
            "Enter, sorted by year/title (order= in the search)",
            "ms",
            new,
            [Budget("p95", 300)],
        ),
        Row("sorted.enter_old", "  before: a page + every match + sort in Python", "ms", old),
        Row("sorted.enter_view", "Enter, by year, in the unread view (only=)", "ms", view),
        Row("sorted.ranks", "ranks for one order (SortColumns.ranks, once per sort)", "ms", [ranks_ms]),
    ]


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.sorted_search", description=__doc__)
    p.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    corpus = load_corpus([args.corpus])
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    columns = SortColumns.build(corpus)
    for row in rows(searcher, columns, args.reps):
        s = Summary.of(row.values)
        print(
            f"{row.label:58} median {s.median:7.1f}  p95 {s.p95:7.1f}  max {s.max:7.1f} {row.unit} (n={s.n})"
        )
    index.close()


if __name__ == "__main__":
    main()
