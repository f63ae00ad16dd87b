"""score.py ranks exactly as Whoosh's own search does, on one segment and on several."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from whoosh import query

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import npleaf, score
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher

QUERIES = [
    "learning",
    "model",
    "graph neural",
    "learning AND robust",
    "graph OR policy",
    "learning NOT graph",
    "(graph OR policy) AND learning",
    "title:learning",
    "authors:li",
    "robust~",
    "learnin~2",
    "gra*",
    "title:mod*",
    '"neural network"',
    '"learning model"~3',
    '"of the"',
    "title:learning^3 graph",
    "zzzzunknownword",
    "learning AND zzzzunknownword",
    '"learning" AND model',
    "venue:icml learning",
    '"neural network" AND learning',
    '"neural network" OR "learning model"',
    'graph NOT "neural network"',
    "*",  # Every: the papers with a length in the field, not every posting read
    "title:*",
    "authors:*",
    "learning *",
    "*ing",  # a wildcard, capped to its most frequent words
    "lerning~9",  # at most two edits
]


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpusgen.write(tmp_path_factory.mktemp("score") / "papers.jsonl", 400)


def _open(corpus_file: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Corpus, SearchIndex]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    corpus = load_corpus([corpus_file])
    index = SearchIndex(corpus)
    index.ensure()
    return corpus, index


def _compare(
    index: SearchIndex, searcher: Searcher, text: str, limit: int = 50, exact: bool = True
) -> tuple[int, bool]:
    with index.searcher() as s:
        q, _ = searcher.parse(text)
        ours = score.search(s, q, limit, exact=exact)
        assert ours is not None, f"{text!r} ({q!r}) fell back to Whoosh"
        top, total, counted = ours
        theirs = s.search(q, limit=limit)
        expected = [
            (round(score, 9), docnum) for docnum, score in ((hit.docnum, hit.score) for hit in theirs)
        ]
        assert sorted((round(sc, 9), -d) for sc, d in top) == sorted((sc, -d) for sc, d in expected), text
        assert [d for _, d in top] == [d for _, d in expected], text
        if counted:
            assert total == len(theirs), text  # the count Whoosh finds by re-running the match
        else:  # type-ahead: a phrase alone stops once its page is full; its count a lower bound
            assert not exact and text.startswith('"') and len(top) == limit <= total < len(theirs)
        return total, counted


def test_same_ranking_as_whoosh_on_one_segment(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter's counts are exact whatever the number of candidates."""
    _, index = _open(corpus_file, tmp_path, monkeypatch)
    assert len(index.index()._segments()) == 1
    searcher = Searcher(index)
    totals = {text: _compare(index, searcher, text)[0] for text in QUERIES}
    assert totals["learning"] > 50 and totals['"neural network"'] > 0  # the queries do match
    assert totals["zzzzunknownword"] == 0
    # Past PHRASE_CHECKS candidates: Enter still checks every one; type-ahead checks the best
    # first and stops once its page is full, with the same top hits and a lower-bound count.
    monkeypatch.setattr(score, "PHRASE_CHECKS", 5)
    for text in ['"neural network"', '"of the"', '"learning model"~3']:
        assert _compare(index, searcher, text, limit=3)[1], text
    stopped = [
        _compare(index, searcher, text, limit=3, exact=False) for text in ['"neural network"', '"of the"']
    ]
    with index.searcher() as s:  # array segments (the bulk build's) check every candidate anyway
        arrays = any(npleaf.is_array_segment(r) for r, _ in s.reader().leaf_readers())
    assert any(not counted for _, counted in stopped) != arrays
    index.close()


def test_same_ranking_after_an_update_with_deletions(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An incremental update adds a segment and deletes replaced papers in the first one."""
    work = tmp_path / "papers.jsonl"
    shutil.copy(corpus_file, work)
    _open(work, tmp_path / "cache", monkeypatch)[1].close()
    lines = work.read_text("utf-8").splitlines()
    lines[3] = lines[3].replace("learning", "relearning")  # an edited paper: delete + add
    del lines[10]
    extra = corpusgen.jsonl(corpusgen.papers(30, seed=7, start=900)).decode()
    work.write_text("\n".join(lines) + "\n" + extra, "utf-8")
    _, index = _open(work, tmp_path / "cache", monkeypatch)
    with index.searcher() as s:
        assert not s.is_atomic() or s.reader().has_deletions()
    searcher = Searcher(index)
    for text in QUERIES:
        _compare(index, searcher, text)
    index.close()


def test_queries_it_does_not_cover_go_to_whoosh(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, index = _open(corpus_file, tmp_path, monkeypatch)
    with index.searcher() as s:
        assert score.search(s, query.Every("year"), 10) is None  # no lengths: not scorable
        assert score.search(s, query.NumericRange("year", 2000, 2030), 10) is None
        assert score.search(s, query.Or([query.Term("content", "learn")], scale=0.5), 10) is None
    searcher = Searcher(index)
    assert searcher.search("year:>2000 learning").hits  # still answered, by Whoosh
    index.close()
