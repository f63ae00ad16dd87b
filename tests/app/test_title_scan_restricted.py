"""The titles' scan before the index is ready honours the view's restriction: what it counts is
what the list shows (bookmarked only, unread only), never the whole collection's count."""

from __future__ import annotations

import json
from pathlib import Path

from tui_reader.app.model import Restriction, View
from tui_reader.app.screens.answers import TITLES, Ask, answer
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.titlescan import scan
from tui_reader.library.sorting import SortColumns


def test_scan_lists_and_counts_only_the_rows_kept() -> None:
    titles = ["Graph nets", "Trees", "graph of graphs", "Graphs again"] * 10
    rows, total = scan(titles, "graph", 3, keep=lambda row: row % 2 == 0) or ([], 0)
    assert total == 20 and rows == [0, 2, 4]  # every 'graph' title at an even row, first three


def _corpus(tmp_path: Path) -> object:
    path = tmp_path / "papers.jsonl"
    lines = [
        {"title": f"Graph study {n}" if n % 3 else f"Tree study {n}", "abstract": f"Abstract number {n}."}
        for n in range(30)
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return load_corpus([path])


def _ask(corpus: object, restriction: Restriction, marked: frozenset[str], read: frozenset[str]) -> Ask:
    view = View(query="graph", restriction=restriction)
    return Ask(
        number=1,
        view=view,
        corpus=corpus,  # type: ignore[arg-type]
        searcher=None,  # the index is not ready: the titles are scanned
        sets={},
        visible=5,
        marked=marked,
        read=read,
        columns=lambda: SortColumns.__new__(SortColumns),
        order=lambda: None,
    )


def test_bookmarks_and_unread_restrict_the_scans_count(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    ids, titles = corpus.ids, corpus.titles  # type: ignore[attr-defined]
    graph = [r for r in range(len(titles)) if "graph" in titles[r].casefold()]
    marked = frozenset(ids[r] for r in range(0, 30, 4))
    read = frozenset(ids[r] for r in range(0, 30, 5))

    whole = answer(_ask(corpus, Restriction.ALL, marked, read))
    assert whole.result is not None and whole.result.kind == TITLES
    assert whole.result.total == len(graph) and list(whole.rows) == graph

    kept = [r for r in graph if ids[r] in marked]
    only = answer(_ask(corpus, Restriction.BOOKMARKS, marked, read))
    assert only.result is not None and only.result.total == len(kept) and list(only.rows) == kept

    unread = [r for r in graph if ids[r] not in read]
    fresh = answer(_ask(corpus, Restriction.UNREAD, marked, read))
    assert fresh.result is not None and fresh.result.total == len(unread) and list(fresh.rows) == unread
    assert 0 < len(kept) < len(unread) < len(graph)  # the three answers differ
