"""What a search reads once: read ahead by the reader's index worker (so its first search costs
what the next ones do), put off by a one-shot command line search (which reads only what its one
search needs), and the same answers either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import health
from tui_reader.search.fast import selfcheck as check
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher, SearchMode

TEXTS = ["graph neural", '"neural networks"', "learn*", "title:graph", "grpah", "lerning~", "authors:li"]


@pytest.fixture
def index(tmp_path: Path) -> SearchIndex:
    ix = SearchIndex(load_corpus(use_cache=False), root=tmp_path / "index")
    ix.ensure()
    return ix


def test_a_warm_searcher_reads_ahead_a_cold_one_when_needed(index: SearchIndex) -> None:
    warm = Searcher(index)
    assert "vocabulary" in warm.completer.__dict__  # read in the constructor (the index worker)
    cold = Searcher(index, warm=False)
    assert "vocabulary" not in cold.completer.__dict__
    for text in TEXTS:
        for mode in (SearchMode.ENTER, SearchMode.TYPING):
            a, b = warm.search(text, mode, 100), cold.search(text, mode, 100)
            assert [(h.id, h.score) for h in a.hits] == [(h.id, h.score) for h in b.hits], text
            assert (a.total, a.suggestion, a.notice) == (b.total, b.suggestion, b.notice), text
    assert "vocabulary" in cold.completer.__dict__  # the suggestion for "grpah" needed it
    assert cold.completer.vocabulary.words == warm.completer.vocabulary.words


@pytest.fixture
def remember(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "REMEMBER", True)
    health.reset()


def _verdict() -> dict[str, object]:
    return dict(json.loads((paths.cache_dir() / check.VERDICT_FILE).read_text("utf-8")))


def test_the_verdict_is_kept_for_the_same_code_only(remember: None) -> None:
    assert check.run() is None  # checked, and kept
    kept = _verdict()
    assert kept["problem"] is None and kept["key"] == check._code_key()
    planted = {"key": kept["key"], "problem": "planted by the test"}
    (paths.cache_dir() / check.VERDICT_FILE).write_text(json.dumps(planted), "utf-8")
    assert check.run() == "planted by the test"  # the same code: the kept verdict, not a check
    (paths.cache_dir() / check.VERDICT_FILE).write_text(
        json.dumps({"key": "other code", "problem": "stale"}), "utf-8"
    )
    assert check.run() is None and _verdict() == kept  # other code: checked again, kept anew
    (paths.cache_dir() / check.VERDICT_FILE).write_text("{not json", "utf-8")
    assert check.run() is None and _verdict() == kept


def test_without_remember_the_check_always_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "REMEMBER", False)
    paths.cache_dir().mkdir(parents=True, exist_ok=True)
    planted = {"key": check._code_key(), "problem": "planted by the test"}
    (paths.cache_dir() / check.VERDICT_FILE).write_text(json.dumps(planted), "utf-8")
    assert check.run() is None
    assert _verdict() == planted  # neither read nor written


def test_a_changed_file_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key follows the files' sizes and times: an edited module means checking again."""
    import tui_reader.search

    fake = tmp_path / "search"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "score.py").write_text("x = 1\n")
    monkeypatch.setattr(tui_reader.search, "__file__", str(fake / "__init__.py"))
    before = check._code_key()
    (fake / "score.py").write_text("x = 22\n")
    assert check._code_key() != before
