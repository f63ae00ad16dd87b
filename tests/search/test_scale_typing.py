"""Type-ahead on array segments past npbounds.COSTLY (its driver word's best blocks only) and
below it (scored whole), against Whoosh's own searcher with ``limit=None``: every hit a match
with Whoosh's score, in Whoosh's order of equal scores, a count never above Whoosh's and said to
be a lower bound ("N+"); Enter is never bounded. The bulk build's index (array segments)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from whoosh import query

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import bounds, npbounds, npleaf, score
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher, SearchMode

T = query.Term


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    path = corpusgen.write(tmp_path_factory.mktemp("typing") / "papers.jsonl", 600)
    loaded = load_corpus([path], use_cache=False)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchIndex]:
    base = tmp_path_factory.mktemp("typing-index")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        idx = SearchIndex(corpus, root=base / "index")
        idx.ensure()
    yield idx
    idx.close()


def _common(s: Any, n: int) -> list[str]:
    """The n words of the most abstracts."""
    r = s.reader()
    words = [(r.doc_frequency("content", w), w.decode()) for w in r.lexicon("content")]
    return [w for _, w in sorted(words, reverse=True)[:n]]


def _queries(s: Any) -> list[query.Query]:
    a, b, c = _common(s, 3)
    return [
        T("content", a),
        query.And([T("content", a), T("content", b)]),
        query.Or([T("content", a), T("content", c)]),
        query.And([T("content", b), query.Or([T("content", c), T("title", a)])]),
    ]


def test_the_index_is_array_segments(index: SearchIndex) -> None:
    with index.searcher() as s:
        assert all(npleaf.is_array_segment(r) for r, _ in s.reader().leaf_readers())


@pytest.mark.parametrize("budget", [1, 200, 10**9])
def test_costly_keystrokes_read_best_blocks_real_matches(
    index: SearchIndex, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(npbounds, "COSTLY", 0)
    monkeypatch.setattr(npbounds, "TYPING_POSTINGS", budget)
    with index.searcher() as s:
        for q in _queries(s):
            page = score.search(s, q, 10, exact=False, bounded=True)
            assert isinstance(page, bounds.Page) and page.partial, q
            top, total, counted = page
            every = {h.docnum: h.score for h in s.search(q, limit=None)}
            assert 0 < total <= len(every) and (total == len(every) or not counted), q
            assert counted == isinstance(q, query.Term), q  # a lone word's count is its papers
            assert all(every[d] == sc for sc, d in top), q  # the same floats as Whoosh's
            assert top == sorted(top, key=lambda p: (-p[0], p[1]))
            if budget == 10**9 and not isinstance(q, query.Or):  # every block of the driver read
                assert [d for _, d in top] == [h.docnum for h in s.search(q, limit=10)], q
                assert total == len(every), q


def test_below_the_cost_a_keystroke_is_scored_whole(index: SearchIndex) -> None:
    with index.searcher() as s:
        for q in _queries(s):
            page = score.search(s, q, 10, exact=False, bounded=True)
            assert page is not None and not isinstance(page, bounds.Page), q
            top, total, counted = page
            assert counted and total == len(s.search(q, limit=None)), q
            assert [d for _, d in top] == [h.docnum for h in s.search(q, limit=10)], q


def test_enter_and_every_match_are_never_bounded(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(npbounds, "COSTLY", 0)
    monkeypatch.setattr(npbounds, "TYPING_POSTINGS", 1)
    with index.searcher() as s:
        for q in _queries(s):
            want = s.search(q, limit=None)
            for found in (score.search(s, q, 10), score.search(s, q, 10, exact=False)):
                assert found is not None and not isinstance(found, bounds.Page)
                assert found[1] == len(want) and found[2]
            every = score.every_score(s, q)
            assert every is not None and every == {h.docnum: h.score for h in want}


def test_phrases_and_expansions_are_not_weighed(index: SearchIndex) -> None:
    with index.searcher() as s:
        a, b = _common(s, 2)
        r = s.reader().leaf_readers()[0][0]
        assert npbounds.cost(query.Phrase("content", [a, b]), r) is None
        assert npbounds.cost(query.Prefix("content", a[:2]), r) is None
        assert npbounds.cost(query.And([T("content", a), query.Not(T("content", b))]), r) is None
        assert npbounds.cost(T("content", "nosuchwordhere"), r) == (0, ("content", b""))


def test_the_reader_shows_a_bounded_count_as_a_lower_bound(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(npbounds, "COSTLY", 0)
    monkeypatch.setattr(npbounds, "TYPING_POSTINGS", 1)
    searcher = Searcher(index, small_corpus=0)
    with index.searcher() as s:
        word = _common(s, 1)[0]
    typed = searcher.search(word, SearchMode.TYPING, 5)
    entered = searcher.search(word, limit=5)
    assert typed.partial and not typed.exact and typed.count_text.endswith("+")
    assert typed.total <= entered.total
    both = f"{word} {_common_second(index)}"
    typed, entered = searcher.search(both, SearchMode.TYPING, 5), searcher.search(both, limit=5)
    assert typed.partial and typed.count_text.endswith("+") and typed.total <= entered.total
    assert entered.exact and not entered.partial and not entered.count_text.endswith("+")
    assert {h.id for h in typed.hits} <= {h.id for h in searcher.search(word, limit=entered.total).hits}


def _common_second(index: SearchIndex) -> str:
    with index.searcher() as s:
        return _common(s, 2)[1]
