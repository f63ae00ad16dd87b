"""Enter, the command line and type-ahead against Whoosh's own searcher on the same index, on
both sides of every size switch in the search code.

Each switch is a module constant; the "large" side sets every one of them so that a 400-paper
collection takes the paths an 87k one takes (title-word completion, no block skipping in ANDs,
expansions left to Whoosh, phrase checks stopped early while typing, bounded prefixes) and a 300k
one takes (type-ahead reading its best-bounded posting blocks only: best-so-far pages)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import run_cli_many

from bench import corpusgen
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import score
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.query import caps, completion, querytext, terms
from tui_reader.search.searcher import Searcher, SearchMode

QUERIES = {
    "term": ["learning", "model", "robust", "zzzzunknownword"],
    "and": ["graph neural", "learning AND robust", "policy gradient learning"],
    "or": ["graph OR policy", "(graph OR policy) learning"],
    "not": ["learning NOT graph", "graph NOT neural", "NOT learning"],
    "phrase": ['"neural network"', '"learning model"~3', '"neural network" AND learning'],
    "field": ["title:learning", "authors:li", "venue:icml", "year:[2015 TO 2018]", "year:2019 learning"],
    "fuzzy": ["robust~", "lerning~2"],
    "prefix": ["gra*", "title:mod*", "lea* robust", "l*"],
    # the language's limits (caps.py): every paper with a field, a wildcard, too many edits, a
    # range of words refused (plain words)
    "limits": ["*", "title:*", "authors:* learning", "*ea*", "lerning~9", "title:[a TO m] learning"],
}
ALL = [q for qs in QUERIES.values() for q in qs]
TYPED = [
    "graph neural networks",
    "learning NOT graph",
    "title:learning robust",
    '"neural network" model',
    "graph OR policy learning",
    "venue:icml learning",
    "lea* robust",
    "(graph OR policy) gradient",
]

LARGE = {  # (module, constant, value on the large side)
    "small_corpus": (completion, "SMALL_CORPUS", 0),
    "completion_postings": (completion, "COMPLETION_POSTINGS", 1),
    "skip_below": (score, "SKIP_BELOW", 0),
    "max_terms": (score, "MAX_TERMS", 1),
    "phrase_checks": (score, "PHRASE_CHECKS", 2),
    "prefix_expansions": (terms, "PREFIX_EXPANSIONS", 2),
    "scan_cap": (terms, "_SCAN_CAP", 3),
    "max_expansions": (caps, "MAX_EXPANSIONS", 3),
    "bounded_typing": (score, "BOUNDED_TYPING", 0),  # type-ahead reads its best blocks first
    "typing_postings": (score, "TYPING_POSTINGS", 1),  # ... one block's worth: best-so-far pages
}


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpusgen.write(tmp_path_factory.mktemp("faithful") / "papers.jsonl", 400)


@pytest.fixture(scope="module")
def index(corpus_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchIndex]:
    base = tmp_path_factory.mktemp("faithful-index")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        corpus = load_corpus([corpus_file], use_cache=False)
        idx = SearchIndex(corpus, root=base / "index")
        idx.ensure()
    yield idx
    idx.close()


@pytest.fixture(params=["small", "large"])
def searcher(request: pytest.FixtureRequest, index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> Searcher:
    if request.param == "large":
        for module, name, value in LARGE.values():
            monkeypatch.setattr(module, name, value)
    s = Searcher(index)
    assert s.completer.small == (request.param == "small")
    return s


def whoosh(searcher: Searcher, text: str) -> list[str]:
    """Whoosh's own answer to the parsed query, every match, best first."""
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        return [hit["id"] for hit in s.search(q, limit=None)]


@pytest.mark.parametrize("text", ALL)
def test_enter_is_whooshs_answer(searcher: Searcher, text: str) -> None:
    expected = whoosh(searcher, text)
    every = searcher.search(text, limit=100_000)
    assert [h.id for h in every.hits] == expected
    assert every.total == len(expected) and every.exact and not every.partial
    page = searcher.search(text, limit=10)
    assert [h.id for h in page.hits] == expected[:10]
    assert page.total == len(expected) and page.exact


def test_the_queries_exercise_both_paths(index: SearchIndex) -> None:
    """The query set matches papers, and reaches the block scorer (score.py) and Whoosh's fallback alike."""
    searcher = Searcher(index)
    assert all(whoosh(searcher, q) for q in ALL if q != "zzzzunknownword")
    with index.searcher() as s:
        covered = [score.search(s, searcher.parse(q)[0], 10) is not None for q in ALL]
    assert any(covered) and not all(covered)


def test_a_two_term_prefix_is_scored_as_whoosh_scores_it(index: SearchIndex) -> None:
    """Whoosh scores a prefix with two expansions by BM25 and one with more by a constant: the
    switch in Or._matcher, tested on both sides."""
    searcher = Searcher(index)
    with index.searcher() as s:
        found: dict[int, str] = {}
        for word in s.reader().field_terms("content"):
            prefix = word[:4]
            count = sum(1 for _ in s.reader().expand_prefix("content", prefix))
            found.setdefault(min(count, 3), prefix)
            if 2 in found and 3 in found:
                break
    for prefix in (found[2], found[3]):
        expected = whoosh(searcher, prefix + "*")
        result = searcher.search(prefix + "*", limit=100_000)
        assert [h.id for h in result.hits] == expected and result.total == len(expected)
    scores = {h.score for h in searcher.search(found[3] + "*", limit=1000).hits}
    assert scores == {1.0}


@pytest.mark.parametrize("text", TYPED)
def test_typeahead_shows_every_paper_the_typed_words_match(searcher: Searcher, text: str) -> None:
    for end in range(1, len(text) + 1):
        typed = text[:end]
        if querytext.problem(typed.strip(), searcher.fields) is not None:
            continue  # an open quote or a dangling operator: not yet a query
        expected = set(whoosh(searcher, typed))
        result = searcher.search(typed, SearchMode.TYPING, 100_000)
        if result.partial:  # stopped early: it must say so, and its count is a lower bound
            assert not result.exact and result.total >= len(result.hits)
            continue
        assert expected <= {h.id for h in result.hits}, typed
        assert result.total >= len(expected), typed


@pytest.mark.parametrize("text", TYPED)
def test_typeahead_pages_are_whooshs_unless_said_best_so_far(searcher: Searcher, text: str) -> None:
    """A page of 10 while typing: real matches of the query typing makes; Whoosh's own top 10
    of it unless it says it is a best-so-far; a count that is exact only if it says so."""
    with searcher.index.searcher() as s:
        for end in range(2, len(text) + 1):
            typed = text[:end]
            if querytext.problem(typed.strip(), searcher.fields) is not None:
                continue
            q, _ = searcher.reading.typing(typed, s.reader())
            every = [hit["id"] for hit in s.search(q, limit=None)]
            result = searcher.search(typed, SearchMode.TYPING, 10)
            assert {h.id for h in result.hits} <= set(every), typed
            if not result.partial:
                assert [h.id for h in result.hits] == every[:10], typed
            if result.exact:
                assert result.total >= len(whoosh(searcher, typed)), typed


def test_large_side_typeahead_says_when_it_stopped(searcher: Searcher) -> None:
    """A bounded prefix or an early-stopped phrase while typing is a best-so-far, said so."""
    result = searcher.search("l*", SearchMode.TYPING, 100_000)
    if not searcher.completer.small:
        assert result.partial and not result.exact
        assert result.count_text.endswith("+")
    phrase = searcher.search('"neural network"', SearchMode.TYPING, 3)
    expected = whoosh(searcher, '"neural network"')
    assert [h.id for h in phrase.hits] == expected[:3]
    assert phrase.exact == (phrase.total == len(expected))
    assert phrase.total <= len(expected)


def test_cli_is_whooshs_answer(corpus_file: Path, index: SearchIndex, tmp_path: Path) -> None:
    searcher = Searcher(index)
    texts = ["learning", "graph NOT neural", '"neural network"', "venue:icml", "gra*", "robust~", "*ea*"]
    runs = run_cli_many(
        *[("search", t, str(corpus_file), "--json", "--limit", "500") for t in texts], cwd=tmp_path
    )
    for text, run in zip(texts, runs, strict=True):
        assert run.returncode == 0, run.stderr
        out = json.loads(run.stdout)
        expected = whoosh(searcher, text)
        assert out["total"] == len(expected) and out["total_exact"] is True, text
        assert [h["id"] for h in out["hits"]] == expected[:500], text
