"""A cold build in a child process (search/index/isolated.py, buildchild.py): the same index as
one built in-process, its progress relayed, a cancel that leaves no process and no folder behind,
a child that fails or dies reported and replaced by an in-process build; the reader shows the
child's progress and then searches its index."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest
import whoosh.index
from whoosh.qparser import QueryParser

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index import isolated
from tui_reader.search.index.persistent import SearchIndex

QUERIES = ["vision", "graph retrieval", '"diffusion models"', "retrieval AND convergence", "title:knowledge"]
PAPERS = 1500


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    loaded = load_corpus([corpusgen.write(tmp_path / "papers.jsonl", PAPERS)])
    yield loaded
    loaded.close()


def child(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setenv(isolated.CHILD_ENV, "1" if on else "0")


def answers(folder: Path) -> list[tuple[str, int, list[tuple[str, float]]]]:
    """Whoosh's own answer and count for each query (limit=None), on the index in ``folder``."""
    ix = whoosh.index.open_dir(str(folder))
    try:
        with ix.searcher() as s:
            out = []
            for text in QUERIES:
                hits = s.search(QueryParser("content", ix.schema).parse(text), limit=None)
                out.append((text, len(hits), [(h["id"], round(h.score, 9)) for h in hits]))
            return out
    finally:
        ix.close()


def processes_of(pid: int) -> list[int]:
    """Living processes whose parent is ``pid`` or that were started as its build workers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        ppid = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
        state = next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))
        worker = f"TUI_READER_BUILD_PARENT={pid}".encode() in environ.split(b"\0")
        if state != "Z" and (ppid == str(pid) or worker):
            found.append(int(entry.name))
    return found


def build_children() -> list[int]:
    """This process's build children (python -m tui_reader.search.index.buildchild)."""
    out = []
    for pid in processes_of(os.getpid()):
        try:
            if b"buildchild" in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(pid)
        except OSError:
            pass
    return out


def leftovers(base: Path) -> list[str]:
    return sorted(p.name for p in base.iterdir() if ".build-" in p.name or ".bulk-" in p.name)


def test_a_child_builds_the_index_an_in_process_build_would(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = {}
    for on in (True, False):
        child(monkeypatch, on)
        index = SearchIndex(corpus, root=tmp_path / f"index-{on}")
        report = index.ensure(procs=2)
        assert report.action == "built" and report.added == PAPERS and report.reason == ""
        assert index.status() == "fresh"
        made[on] = index
    assert answers(made[True].dir) == answers(made[False].dir)
    assert all(count for _, count, _ in answers(made[True].dir))
    assert made[True]._manifest(docs=True)["docs"] == made[False]._manifest(docs=True)["docs"]
    for index in made.values():
        index.close()
        assert leftovers(index.base) == []


def test_the_childs_progress_reaches_the_caller(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child(monkeypatch, True)
    calls: list[tuple[int, int, str]] = []
    pids: set[int] = set()

    def progress(done: int, total: int, phase: str) -> None:
        calls.append((done, total, phase))
        pids.update(build_children())

    index = SearchIndex(corpus, root=tmp_path / "index")
    assert index.ensure(procs=2, progress=progress).action == "built"
    index.close()
    assert pids and pids.isdisjoint(build_children())  # it ran in a child, which has ended
    phases = [p for _, _, p in calls]
    assert "indexing" in phases and phases[-1] == "finishing"
    indexing = [d / t for d, t, p in calls if p == "indexing"]
    assert indexing == sorted(indexing) and indexing[-1] == 1.0


class Quit(Exception):
    """What the reader's progress raises when it closes."""


def test_a_cancel_stops_the_child_and_its_workers_and_leaves_no_folder(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child(monkeypatch, True)
    seen: list[int] = []

    def progress(done: int, total: int, phase: str) -> None:
        if done and phase == "indexing":  # the child's workers have documents
            seen.extend(build_children())
            raise Quit

    index = SearchIndex(corpus, root=tmp_path / "index")
    with pytest.raises(Quit):
        index.ensure(procs=2, progress=progress)
    assert seen
    for pid in seen:
        assert processes_of(pid) == []  # its workers ended with it
    assert build_children() == []
    assert leftovers(index.base) == [] and index.status() == "missing"


def failing_python(tmp_path: Path) -> str:
    script = tmp_path / "python-that-fails"
    script.write_text("#!/bin/sh\necho 'MemoryError: no room for the stitch' >&2\nexit 3\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_a_failing_child_is_reported_and_the_index_is_built_here(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    child(monkeypatch, True)
    script = failing_python(tmp_path)
    monkeypatch.setattr(isolated, "python", lambda: script)
    index = SearchIndex(corpus, root=tmp_path / "index")
    report = index.ensure(procs=2)
    assert report.action == "built" and index.status() == "fresh"
    assert "the indexing process stopped: MemoryError: no room for the stitch" in report.reason
    assert "indexed in the reader's process instead" in report.reason
    assert "no room for the stitch" in caplog.text
    with index.searcher() as s:
        assert s.doc_count() == PAPERS
    index.close()
    assert leftovers(index.base) == []


def test_a_child_killed_midway_is_reported_and_its_folders_removed(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child(monkeypatch, True)
    killed: list[int] = []

    def progress(done: int, total: int, phase: str) -> None:
        if done and phase == "indexing" and not killed:
            killed.extend(build_children())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer would

    index = SearchIndex(corpus, root=tmp_path / "index")
    report = index.ensure(procs=2, progress=progress)
    assert killed and "the indexing process stopped: killed by signal 9" in report.reason
    assert report.action == "built" and index.status() == "fresh"
    index.close()
    assert leftovers(index.base) == [] and build_children() == []


def test_a_collection_changed_under_the_child_is_built_here(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child(monkeypatch, True)
    corpusgen.write(tmp_path / "papers.jsonl", PAPERS + 10)  # the file now holds more papers
    index = SearchIndex(corpus, root=tmp_path / "index")
    report = index.ensure()
    assert "the collection changed since the reader read it" in report.reason
    assert report.action == "built" and report.added == PAPERS
    with index.searcher() as s:
        assert s.doc_count() == PAPERS  # the caller's collection, not the one on disk now
    index.close()


def test_small_or_uncached_collections_build_in_process(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(isolated.CHILD_ENV, raising=False)
    assert not isolated.wanted(corpus, asked=True)  # below CHILD_PAPERS
    monkeypatch.setattr(isolated, "CHILD_PAPERS", PAPERS)
    assert isolated.wanted(corpus, asked=True) and not isolated.wanted(corpus, asked=False)
    uncached = load_corpus([corpus.files[0].path], use_cache=False)
    assert not isolated.cached(uncached) and not isolated.wanted(uncached, asked=True)
    uncached.close()
