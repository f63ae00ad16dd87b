"""Issue 19: a sort and a view's restriction are part of the request the searcher answers.

Every answer is checked against Whoosh's own searcher with ``limit=None`` and the same
``sortedby`` facet, filter and mask, built here from the stored ids (not from ordering.py): a
page is the prefix of that whole answer, its total the whole answer's length. Each runs on a
freshly built index (document number = row) and on one updated in place (two segments, deleted
documents, changed papers at the end: document number != row), by score.py's path and by
Whoosh's (score.py turned off), and on both sides of each size switch.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from support import index_state
from whoosh import query, sorting

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.sorting import SortColumns, arrange
from tui_reader.search import ordering, subsets
from tui_reader.search import searcher as searcher_module
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.schema import document
from tui_reader.search.ordering import Order
from tui_reader.search.searcher import Searcher, SearchMode
from tui_reader.search.subsets import Only

PAPERS = 600
CHANGED = (0, 3, 10, 11, 250)  # re-added at the end of the updated index, in a second segment

TEXTS = [
    "models",  # most papers: a heap of a page, or a sort of the whole (ordering.first)
    "convergence",
    "models convergence",  # an AND of words (intersect.py)
    '"language models"',  # a phrase
    "convergence~1",  # fuzzy: an expanded multi-term
    "year:2016",  # unscorable: Whoosh's path, every match scores the same
    "year:[2015 TO 2017]",  # a range: Whoosh's path, constant score
    "venue:aaai",
    "models -convergence",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    path = corpusgen.write(tmp_path_factory.mktemp("sorted") / "papers.jsonl", PAPERS)
    loaded = load_corpus([path], use_cache=False)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module", params=["fresh", "updated"])
def searcher(
    request: pytest.FixtureRequest, corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp(f"sorted-{request.param}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
    if request.param == "updated":
        writer = index.index().writer()
        for row in CHANGED:
            writer.update_document(**document(corpus, row))
        writer.commit(merge=False)
        index.close()  # reopened on first use: the new segment and the deletions
    found = Searcher(index)
    with found.index.searcher() as s:
        assert (len(s.reader().leaf_readers()) > 1) == (request.param == "updated")
    yield found
    index.close()


@pytest.fixture(params=["fast", "whoosh"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, searcher: Searcher) -> str:
    """score.py's path, or Whoosh's collectors (score.py answering nothing)."""
    if request.param == "whoosh":
        monkeypatch.setattr(searcher_module, "every_score", lambda s, q: None)
    searcher.invalidate()
    return str(request.param)


@pytest.fixture(scope="module")
def columns(corpus: Corpus) -> SortColumns:
    return SortColumns.build(corpus, [row % 7 for row in range(len(corpus))])


@pytest.fixture(scope="module")
def orders(columns: SortColumns) -> dict[str, Order]:
    made = {name: Order(name, columns.ranks(name) or []) for name in ("year", "title", "venue", "added")}
    made["same"] = Order("same", [0] * len(columns.titles))  # every row ties: relevance, then row
    return made


_REFERENCES: dict[tuple[Any, ...], list[str]] = {}


def reference(
    searcher: Searcher,
    text: str,
    rank: list[int] | None,
    among: frozenset[str] | None = None,
    besides: frozenset[str] = frozenset(),
) -> list[str]:
    """Whoosh's own whole answer (below), kept per index state and question: each is asked on
    both of our paths and both row look-ups, and was most of these tests' time."""
    state = index_state(searcher.index.index())
    if state is None:
        return whooshs_answer(searcher, text, rank, among, besides)
    key = (state, text, None if rank is None else tuple(rank), among, besides)
    if key not in _REFERENCES:
        _REFERENCES[key] = whooshs_answer(searcher, text, rank, among, besides)
    return list(_REFERENCES[key])


def whooshs_answer(
    searcher: Searcher,
    text: str,
    rank: list[int] | None,
    among: frozenset[str] | None,
    besides: frozenset[str],
) -> list[str]:
    """Whoosh's own whole answer: sortedby (rank, score, row) for an order; for relevance its
    default order, or by row when every match scores the same."""
    index_of = searcher.corpus.index_of
    with searcher.index.searcher() as s:
        q = searcher.parse(text)[0] if text.strip() else query.Every()
        row_of = {d: index_of[s.stored_fields(d)["id"]] for d in s.reader().all_doc_ids()}

        def numbers(ids: frozenset[str] | None) -> set[int] | None:
            return None if ids is None else {d for d, r in row_of.items() if searcher.corpus.ids[r] in ids}

        by_row = sorting.FunctionFacet(lambda _s, d: row_of[d])
        kwargs: dict[str, Any] = {"limit": None, "filter": numbers(among), "mask": numbers(besides) or None}
        if rank is None:
            scored = s.search(q, **kwargs)
            scores = {hit.score for hit in scored}
            if len(scored) > 1 and len(scores) == 1:
                scored = s.search(q, sortedby=by_row, **kwargs)
        else:
            by_rank = sorting.FunctionFacet(lambda _s, d: rank[row_of[d]])
            scored = s.search(q, sortedby=[by_rank, sorting.ScoreFacet(), by_row], **kwargs)
        return [hit["id"] for hit in scored]


def ids(result: Any) -> list[str]:
    return [h.id for h in result.hits]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("name", ["year", "title", "venue", "added", "same"])
def test_a_sorted_page_is_the_prefix_of_whooshs_sorted_answer(
    searcher: Searcher, path: str, orders: dict[str, Order], text: str, name: str
) -> None:
    order = orders[name]
    expected = reference(searcher, text, list(order.rank))
    assert expected, text
    for limit in (1, 7, 50, len(expected) + 5):  # a heap of a few, or a sort of all
        result = searcher.search(text, SearchMode.ENTER, limit, order=order)
        assert ids(result) == expected[:limit], (text, name, limit)
        assert (result.total, result.exact, result.order) == (len(expected), True, name)


@pytest.mark.parametrize("text", TEXTS)
def test_relevance_is_whooshs_own_order_or_collection_order_when_all_scores_tie(
    searcher: Searcher, path: str, text: str
) -> None:
    expected = reference(searcher, text, None)
    for limit in (5, 50, len(expected) + 5):
        result = searcher.search(text, SearchMode.ENTER, limit)
        assert ids(result) == expected[:limit], (text, limit)
        assert result.total == len(expected)
    with searcher.index.searcher() as s:  # every match scores the same (fields only)
        level = len({hit.score for hit in s.search(searcher.parse(text)[0], limit=None)}) == 1
    assert level == (text.startswith(("year:", "venue:")))
    assert result.order == (ordering.COLLECTION if level else ordering.RELEVANCE)
    if level:  # collection order: by row, whatever the index's document numbers
        rows = [h.row for h in result.hits]
        assert rows == sorted(rows)


def test_paging_continues_in_the_same_order(searcher: Searcher, path: str, orders: dict[str, Order]) -> None:
    for order in (orders["year"], orders["title"], None):
        pages = [ids(searcher.search("models", SearchMode.ENTER, n, order=order)) for n in (10, 40, 160)]
        assert pages[1][:10] == pages[0]
        assert pages[2][:40] == pages[1]
        assert len(set(pages[2])) == 160


def test_ties_are_deterministic(searcher: Searcher, path: str, orders: dict[str, Order]) -> None:
    """Equal ranks go by relevance, then collection order; asking again gives the same."""
    same = orders["same"]
    tied = searcher.search("models", limit=1000, order=same)
    assert {h.id for h in tied.hits} == set(ids(searcher.search("models", limit=1000)))
    keys = [(-h.score, h.row) for h in tied.hits]  # score ties by row, not by document number
    assert keys == sorted(keys)
    by_year = searcher.search("year:[2015 TO 2017]", limit=1000, order=orders["year"])
    searcher.invalidate()
    assert ids(searcher.search("year:[2015 TO 2017]", limit=1000, order=orders["year"])) == ids(by_year)
    years = [searcher.corpus.paper(h.row).year for h in by_year.hits]
    assert years == sorted(years, reverse=True)
    for year in set(years):  # within a year (equal ranks, equal scores): collection order
        rows = [h.row for h, y in zip(by_year.hits, years, strict=True) if y == year]
        assert rows == sorted(rows)


def some_ids(corpus: Corpus, share: float, seed: int) -> frozenset[str]:
    rng = random.Random(seed)
    return frozenset(pid for pid in corpus.ids if rng.random() < share)


@pytest.mark.parametrize("by_rows", [0, 10**9])  # ids looked up through the rows, or one by one
@pytest.mark.parametrize("share", [0.05, 1.0])  # fewer ids than matches, or more
@pytest.mark.parametrize("text", ["models", "convergence", "year:2016", "venue:aaai", ""])
@pytest.mark.parametrize("name", [None, "year"])
def test_a_restricted_answer_counts_and_pages_the_restricted_papers(
    searcher: Searcher,
    path: str,
    orders: dict[str, Order],
    share: float,
    text: str,
    name: str | None,
    by_rows: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subsets, "BY_ROWS", by_rows)
    monkeypatch.setattr(subsets, "_docnums", weakref.WeakKeyDictionary())  # looked up afresh
    corpus = searcher.corpus
    order = orders[name] if name else None
    rank = list(order.rank) if order else None
    marked = some_ids(corpus, share, 7)
    for only in (
        Only(among=marked),
        Only(besides=marked),
        Only(among=marked, besides=some_ids(corpus, 0.3, 8)),
    ):
        if not text and order is None:  # nothing to sort the whole collection by: check by row
            expected = [
                pid
                for pid in corpus.ids
                if pid not in only.besides and (only.among is None or pid in only.among)
            ]
        else:
            expected = reference(searcher, text, rank, only.among, only.besides)
        everything = reference(searcher, text, rank) if text else list(corpus.ids)
        direct = [
            pid for pid in everything if (only.among is None or pid in only.among) and pid not in only.besides
        ]
        assert sorted(expected) == sorted(direct)  # the reference restricts what it should
        for limit in (3, 50, len(expected) + 1):
            result = searcher.search(text, SearchMode.ENTER, limit, order=order, only=only)
            assert ids(result) == expected[:limit], (text, name, limit)
            assert result.total == len(direct)


@pytest.mark.parametrize("by_rows", [0, 10**9])
def test_a_view_and_is_filters_narrow_together(
    searcher: Searcher, path: str, by_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subsets, "BY_ROWS", by_rows)
    monkeypatch.setattr(subsets, "_docnums", weakref.WeakKeyDictionary())
    corpus = searcher.corpus
    bookmarked, read = some_ids(corpus, 0.4, 1), some_ids(corpus, 0.5, 2)
    sets = {"bookmarked": bookmarked, "read": read}
    result = searcher.search("models is:bookmarked", limit=1000, sets=sets, only=Only(besides=read))
    expected = reference(searcher, "models", None, bookmarked, read)
    assert ids(result) == expected and result.total == len(expected)


def test_typing_in_a_view_is_restricted_and_exact(
    searcher: Searcher, path: str, orders: dict[str, Order]
) -> None:
    marked = some_ids(searcher.corpus, 0.2, 3)
    result = searcher.search("convergence", SearchMode.TYPING, 20, only=Only(among=marked))
    assert set(ids(result)) <= marked
    whole = searcher.search("convergence", SearchMode.ENTER, 1000, only=Only(among=marked))
    assert result.total == whole.total and result.exact


@pytest.mark.parametrize("n", [0, 5, 77, 300])
def test_similar_is_whooshs_more_like(searcher: Searcher, path: str, n: int) -> None:
    """Scored by score.py or by Whoosh, similar papers are Whoosh's more_like answer."""
    corpus = searcher.corpus
    row = n % len(corpus)
    text = f"{corpus.titles[row]}\n{corpus.abstract(row)}"
    with searcher.index.searcher() as s:
        docnum = s.document_number(id=corpus.ids[row])
        like = s.more_like(docnum, "content", text=text, top=40, numterms=12)
        expected = [(hit["id"], hit.score) for hit in like]
    found = searcher.similar(row, 40)
    assert [h.id for h in found.hits] == [pid for pid, _ in expected]
    assert [h.score for h in found.hits] == pytest.approx([score for _, score in expected], rel=1e-12)


def test_similar_keeps_to_the_view_and_the_order(searcher: Searcher, orders: dict[str, Order]) -> None:
    corpus = searcher.corpus
    row = corpus.index_of[ids(searcher.search("models", limit=1))[0]]
    plain = searcher.similar(row, 30)
    assert plain.hits and all(h.row != row for h in plain.hits)
    marked = some_ids(corpus, 0.5, 4)
    within = searcher.similar(row, 30, only=Only(among=marked))
    assert within.hits and {h.id for h in within.hits} <= marked
    assert [h.id for h in within.hits] == [h.id for h in searcher.similar(row, 1000).hits if h.id in marked][
        :30
    ]
    by_year = searcher.similar(row, 30, order=orders["year"])
    assert {h.id for h in by_year.hits} == {h.id for h in plain.hits} and by_year.order == "year"
    rank = orders["year"].rank
    keys = [(rank[h.row], -h.score, h.row) for h in by_year.hits]
    assert keys == sorted(keys)


def test_an_order_alone_lists_every_paper(
    searcher: Searcher, orders: dict[str, Order], columns: SortColumns
) -> None:
    result = searcher.search("", limit=PAPERS, order=orders["title"])
    assert [h.row for h in result.hits] == arrange(range(PAPERS), "title", columns)
    assert result.total == PAPERS


@pytest.mark.parametrize("sort", ["year", "venue", "title", "added"])
def test_ranks_sort_as_arrange_does(columns: SortColumns, sort: str) -> None:
    """A stable sort by rank is the app's arrange: equal keys, equal ranks."""
    ranks = columns.ranks(sort)
    assert ranks is not None
    rows = list(range(len(ranks)))
    random.Random(5).shuffle(rows)
    assert sorted(rows, key=ranks.__getitem__) == arrange(rows, sort, columns)
    assert columns.ranks("relevance") is None


def test_a_new_order_is_a_new_answer(searcher: Searcher, corpus: Corpus) -> None:
    """The cache tells orders apart even when their names are the same."""
    up = Order("custom", list(range(len(corpus))))
    down = Order("custom", list(range(len(corpus)))[::-1])
    first = searcher.search("models", limit=5, order=up)
    second = searcher.search("models", limit=5, order=down)
    assert [h.row for h in first.hits] == sorted(h.row for h in first.hits)
    assert [h.row for h in second.hits] == sorted((h.row for h in second.hits), reverse=True)


def test_prepare_reads_the_rows_and_the_ranks_ahead(searcher: Searcher, corpus: Corpus) -> None:
    order = Order("prepared", list(range(len(corpus)))[::-1])
    searcher.prepare(order)
    with searcher.index.searcher() as s:
        ranks = ordering._doc_ranks[s.reader()][order.token]
        live = list(s.reader().all_doc_ids())  # a deleted document ranks after every paper
        assert [ranks[d] for d in live] == [
            len(corpus) - 1 - corpus.index_of[s.stored_fields(d)["id"]] for d in live
        ]
        assert all(ranks[d] == len(corpus) for d in set(range(len(ranks))) - set(live))
