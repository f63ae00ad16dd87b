"""score.py's faster paths against Whoosh's own searcher, query by query, on many queries drawn
from the papers themselves: ANDs of words met as sets (intersect.py), phrases checked in bulk
(phrase.py), groups of one part, and type-ahead's best-blocks-first pages (bounds.py).

Each runs on an index written by the bulk build (SearchIndex) and on one written by Whoosh's own
writer, and on both sides of SKIP_BELOW (blocks skipped by docnum, or every block read)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import whoosh.index
from whoosh import query

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import bounds, score
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.schema import document, make_schema
from tui_reader.search.searcher import Searcher

T = query.Term


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    path = corpusgen.write(tmp_path_factory.mktemp("fast") / "papers.jsonl", 400)
    loaded = load_corpus([path], use_cache=False)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module", params=["bulk", "whoosh"])
def ix(
    request: pytest.FixtureRequest, corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """The same papers indexed by the bulk build (SearchIndex) or by Whoosh's writer."""
    base = tmp_path_factory.mktemp(f"fast-{request.param}")
    if request.param == "bulk":
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
            index = SearchIndex(corpus, root=base / "index")
            index.ensure()
        yield index.index()
        index.close()
        return
    made = whoosh.index.create_in(str(base), make_schema())
    writer = made.writer()
    for i in range(len(corpus)):
        writer.add_document(**document(corpus, i))
    writer.commit()
    yield made
    made.close()


@pytest.fixture(params=["skip", "read-all"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "read-all":
        monkeypatch.setattr(score, "SKIP_BELOW", 0)
    return str(request.param)


def _tokens(s: Any, text: str) -> list[str]:
    return [t.text for t in s.schema["content"].analyzer(text)]


def _drawn(s: Any, corpus: Corpus, seed: int) -> dict[str, list[query.Query]]:
    """ANDs and phrases made of the words of random papers, in their order."""
    rng = random.Random(seed)
    out: dict[str, list[query.Query]] = {"and": [], "phrase": []}
    for _ in range(60):
        row = rng.randrange(len(corpus))
        words = _tokens(s, f"{corpus.titles[row]} {corpus.abstract(row)}")
        if len(words) < 6:
            continue
        n = rng.choice((2, 2, 3, 4))
        at = rng.randrange(len(words) - n)
        window = words[at : at + n]
        boosted = [T("content", w, boost=rng.choice((1.0, 1.0, 2.0, 0.5))) for w in set(window)]
        out["and"].append(query.And(boosted) if len(boosted) > 1 else boosted[0])
        out["phrase"].append(query.Phrase("content", window, slop=rng.choice((1, 1, 1, 2))))
    repeated = [w for w in words if words.count(w) > 1][:1] or words[:1]
    out["phrase"].append(query.Phrase("content", repeated * 3))  # a word after itself
    return out


def _same(s: Any, q: query.Query, limit: int = 10_000) -> None:
    fast = score.search(s, q, limit)
    assert fast is not None, q
    top, total, counted = fast
    theirs = s.search(q, limit=None)
    assert [d for _, d in top] == [hit.docnum for hit in theirs][:limit], q
    assert all(math.isclose(a, hit.score, rel_tol=1e-9) for (a, _), hit in zip(top, theirs, strict=False)), q
    assert counted and total == len(theirs), q


def test_ands_of_words_are_whooshs(ix: Any, corpus: Corpus, side: str) -> None:
    with ix.searcher() as s:
        queries = _drawn(s, corpus, seed=7)["and"]
        assert sum(1 for q in queries if s.search(q, limit=None)) > 40
        for q in queries:
            _same(s, q)
            _same(s, q, limit=3)


def test_phrases_are_whooshs(ix: Any, corpus: Corpus, side: str) -> None:
    """Two to four words, slop 1 and 2, words that occur once and many times in a paper."""
    with ix.searcher() as s:
        queries = _drawn(s, corpus, seed=11)["phrase"]
        matched = [q for q in queries if s.search(q, limit=None)]
        assert len(matched) > 40 and any(len(q.words) > 2 for q in matched)
        for q in [*queries, query.Phrase("content", ["neural", "network"])]:
            _same(s, q)


def test_a_group_of_one_part_is_the_part_unboosted(ix: Any) -> None:
    """Whoosh's CompoundQuery.matcher runs a lone part alone: the group's boost is not used."""
    with ix.searcher() as s:
        for q in [
            query.Or([T("content", "learn"), query.Or([T("content", "graph")], boost=0.5)]),
            query.And([T("content", "learn"), query.Or([T("content", "graph")], boost=3.0)]),
            query.And([query.And([T("content", "model")], boost=2.0)]),
            query.Or([query.Phrase("content", ["neural", "network"])], boost=0.25),
        ]:
            _same(s, q)


def _typed(corpus: Corpus, searcher: Searcher, reader: Any) -> list[query.Query]:
    """Type-ahead's queries for every keystroke of a few titles' first words."""
    out = []
    for row in range(0, len(corpus), 40):
        opening = " ".join(corpus.titles[row].split()[:3])
        for end in range(2, len(opening) + 1):
            q, _ = searcher.reading.typing(opening[:end], reader)
            if not isinstance(q, type(query.NullQuery)):
                out.append(q)
    return out


@pytest.fixture
def typing_searcher(ix: Any, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Searcher:
    monkeypatch.setenv("TUI_READER_CACHE_DIR", str(tmp_path / "cache"))
    index = SearchIndex(corpus, root=tmp_path / "index")
    index.ensure()
    return Searcher(index, small_corpus=0)


@pytest.mark.parametrize("budget", [1, 300, 10**9])
def test_typeahead_pages_by_blocks_are_real_matches(
    ix: Any, corpus: Corpus, typing_searcher: Searcher, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hit is a match with Whoosh's score; a page not marked partial is Whoosh's page; a
    count is Whoosh's when said to be exact and never more; with every block read, all exact.
    On array segments (the bulk build's) a keystroke is scored exactly: never a partial page."""
    monkeypatch.setattr(score, "BOUNDED_TYPING", 0)
    monkeypatch.setattr(score, "TYPING_POSTINGS", budget)
    partial = proven = 0
    arrays = _arrays(ix)
    with ix.searcher() as s:
        for q in _typed(corpus, typing_searcher, s.reader()):
            page = score.search(s, q, 5, exact=False, bounded=True)
            assert page is not None, q
            top, total, counted = page
            every = {hit.docnum: hit.score for hit in s.search(q, limit=None)}
            assert all(d in every and math.isclose(sc, every[d], rel_tol=1e-9) for sc, d in top), q
            assert total <= len(every) and (total == len(every) or not counted), q
            assert len({d for _, d in top}) == len(top) and top == sorted(top, key=lambda p: (-p[0], p[1]))
            is_partial = bool(getattr(page, "partial", False))
            if not is_partial:
                assert [d for _, d in top] == [hit.docnum for hit in s.search(q, limit=5)], q
            partial += is_partial
            proven += isinstance(page, bounds.Page) and not is_partial
            assert not arrays or (counted and total == len(every) and not isinstance(page, bounds.Page))
    if arrays:
        return
    assert proven > 0
    if budget == 10**9:
        assert partial == 0
    if budget == 1:
        assert partial > 0


def test_bounded_pages_only_while_typing(ix: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter (bounded=False, the default) always reads every posting: no Page, an exact count."""
    monkeypatch.setattr(score, "BOUNDED_TYPING", 0)
    monkeypatch.setattr(score, "TYPING_POSTINGS", 1)
    with ix.searcher() as s:
        q = query.And([T("content", "learn"), T("content", "model")])
        assert not isinstance(score.search(s, q, 3), bounds.Page)
        assert not isinstance(score.search(s, q, 3, exact=False), bounds.Page)
        page = score.search(s, q, 3, exact=False, bounded=True)
        assert (isinstance(page, bounds.Page) and page.partial) or (_arrays(ix) and page is not None)
        _same(s, q, limit=3)


def test_a_query_of_many_words_is_never_bounded(ix: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounds weigh each interval word by word: past MAX_WORDS (200 prefixes OR'ed is ~10,000
    words) the exact path answers, which its deadline can stop; the answer is still Whoosh's."""
    monkeypatch.setattr(score, "BOUNDED_TYPING", 0)
    monkeypatch.setattr(score, "TYPING_POSTINGS", 1)
    with ix.searcher() as s:
        words = [w for w in s.reader().field_terms("content")][: bounds.MAX_WORDS + 1]
        assert len(words) > bounds.MAX_WORDS
        few = query.Or([T("content", w) for w in words[: bounds.MAX_WORDS]])
        many = query.Or([T("content", w) for w in words])
        assert isinstance(score.search(s, few, 3, exact=False, bounded=True), bounds.Page) != _arrays(ix)
        assert not isinstance(score.search(s, many, 3, exact=False, bounded=True), bounds.Page)
        _same(s, many, limit=3)


def _arrays(ix: Any) -> bool:
    """Whether the index is array segments (the bulk build's): bounds.py is W3's alone."""
    from tui_reader.search.fast import npleaf

    with ix.searcher() as s:
        return any(npleaf.is_array_segment(r) for r, _ in s.reader().leaf_readers())


def test_the_garbage_collector_is_back_on_after_a_search(ix: Any) -> None:
    """Scoring pauses the cyclic collector (its lists hold no cycles) and never leaves it off."""
    import gc

    assert gc.isenabled()
    with ix.searcher() as s:
        assert score.search(s, query.And([T("content", "learn"), T("content", "model")]), 3) is not None
    assert gc.isenabled()
