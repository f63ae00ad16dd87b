"""Shared by every test: isolation from the user's real data, cache and config; the seed fixtures."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from support import SEED_FILES

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher

# Where PYTHONDONTWRITEBYTECODE is set, each xdist worker and each CLI subprocess (a few hundred)
# compiled tui_reader and the rewritten test modules again: ~0.15 s of CPU a subprocess, ~5 s a
# worker. The suite keeps the bytecode (in the ignored __pycache__ folders) as Python does by default.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Hypothesis's deadline (200 ms an example) failed a test whose example was slow only because both
# cores were busy (a FlakyFailure when the replay was quick): the suite asserts no timings.
settings.register_profile("suite", deadline=None)
if os.environ.get("HYPOTHESIS_PROFILE") != "fuzz":  # make fuzz's own (tests/fuzz/fuzzing.py)
    settings.load_profile("suite")

_CPU_LOG = os.environ.get("TUI_READER_TEST_CPU")  # a file: each test's CPU and wall seconds, appended


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With TUI_READER_TEST_CPU set, log the CPU (this process's threads and the children it
    waited for, and the forked CLI runs: cli_fork.child_cpu) and the wall time each test took,
    setup to teardown: wall time alone misleads under a shared load."""
    if not _CPU_LOG:
        yield
        return
    import resource

    import cli_fork

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + cli_fork.child_cpu

    import time

    start, wall = cpu(), time.monotonic()
    yield
    with open(_CPU_LOG, "a", encoding="utf-8") as log:
        log.write(f"{cpu() - start:.3f} {time.monotonic() - wall:.3f} {item.nodeid}\n")


# The files that take longest (wall, measured: Pilot tests wait), handed to the xdist workers first
# (pyproject: --dist loadfile --no-loadscope-reorder; xdist's own order, most tests first, left the
# files of a few slow tests to the end, where one worker ran them alone). The rest keep their order.
SLOW_FIRST = (
    "tests/corpus/test_compact.py",
    "tests/app/test_issue19_findings.py",
    "tests/app/test_snapshots.py",
    "tests/app/test_reader.py",
    "tests/app/test_issue19_widgets.py",
    "tests/app/test_history_session_config.py",
    "tests/search/test_bulk.py",
    "tests/app/test_robustness.py",
    "tests/search/test_issue19_sorted.py",
    "tests/test_build_child.py",
    "tests/test_bench_smoke.py",
    "tests/app/test_foryou.py",
    "tests/app/test_issue19_library.py",
    "tests/app/test_inbox.py",
    "tests/app/test_tags_notes_cite.py",
    "tests/search/test_np_score.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the XDG folders into tmp_path and drop the overrides and display variables."""
    home = tmp_path / "xdg"
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        folder = home / name.split("_")[1].lower()
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(folder))
    for name in ("TUI_READER_CACHE_DIR", "TUI_READER_BOOKMARKS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    return home


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
