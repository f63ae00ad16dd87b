"""Fixtures for the core tests: copies of the seed corpus and one shared seed index."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_reader.core.corpus import Corpus, load_corpus
from tui_reader.core.index import SearchIndex
from tui_reader.core.search import Searcher

from .support import SEED_FILES


@pytest.fixture
def seed_copy(tmp_path: Path) -> Path:
    """A folder holding copies of the two seed files (free to edit)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for f in SEED_FILES:
        shutil.copy2(f, folder / f.name)
    return folder


@pytest.fixture(scope="session")
def seed_searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """A real index of the bundled seeds, built once per session in a temp folder.

    Session fixtures run before the per-test env isolation, so this one isolates itself and uses
    neither the parse cache nor the default index location.
    """
    base = tmp_path_factory.mktemp("shared-index")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        mp.setenv("XDG_CACHE_HOME", str(base / "xdg-cache"))
        mp.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
        corpus = load_corpus(use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        report = index.ensure()
        assert report.action == "built"
        searcher = Searcher(index)
    yield searcher
    index.close()
    corpus.close()


@pytest.fixture(scope="session")
def seed_corpus(seed_searcher: Searcher) -> Corpus:
    return seed_searcher.corpus
