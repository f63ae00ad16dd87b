"""Issue 22's index and file-handle faults: a stale index stamped fresh, a descriptor per file, a
full cache disk during a build, a search waiting on another's rebuild, workers outliving their
parent."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_reader.atomic import file_lock
from tui_reader.corpus import outcomes, parse_cache
from tui_reader.corpus.formats import file_signature
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index import leftovers
from tui_reader.search.index.persistent import SearchIndex, UpdateReport
from tui_reader.search.searcher import Searcher

HEADER = "ICML 2026 Papers"


def seed_text(words: list[str]) -> str:
    """A seed file: one paper per word, each abstract naming its word."""
    body = "\n\n".join(f"A study of {w} in sparse transformer models, with results on {w}." for w in words)
    return f"{HEADER}\n\n{body}\n"


def rewrite(path: Path, text: str) -> None:
    """Write ``text`` and move the mtime on, so the change shows however coarse the clock."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, max(st.st_mtime_ns, before) + 5_000_000_000))


def cli(
    *args: str, cwd: Path, nofile: int | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m tui_reader ARGS`` in the test's isolated environment, under a lowered limit of
    open files if asked."""

    def lower() -> None:
        if nofile is not None:
            _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    return subprocess.run(
        [sys.executable, "-m", "tui_reader", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=lower,
        check=False,
    )


OLD = [f"oldword{n}" for n in range(5)]
NEW = [f"newword{n}" for n in range(50)]


# -- item 2: an index stamped with the signature of content it was not built from ----------------
def test_a_file_rewritten_between_parse_and_build_leaves_the_index_stale(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    export = folder / "zotero.txt"
    rewrite(export, seed_text(OLD))
    corpus = load_corpus([folder])
    rewrite(export, seed_text(OLD + NEW))  # the auto-export rewrites it before the build
    index = SearchIndex(corpus)
    assert index.ensure().action == "built"
    index.close()

    shown = cli("index", str(folder), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "up to date" not in shown.stdout
    assert "updated the index: 50 added" in shown.stdout
    found = cli("search", "newword17", str(folder), "--time-limit", "0", cwd=tmp_path)  # no stop under load
    assert "A study of newword17" in found.stdout


def test_a_file_rewritten_while_it_is_parsed_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    export = folder / "zotero.txt"
    rewrite(export, seed_text(OLD))
    real_build = outcomes.build
    calls = [0]

    def build_then_rewrite(path: Path, payload: object) -> object:  # mid-parse, in the real path
        calls[0] += 1
        if calls[0] == 2:
            rewrite(export, seed_text(OLD + NEW))
        return real_build(path, payload)

    monkeypatch.setattr(outcomes, "build", build_then_rewrite)  # one process: a .txt file
    corpus = load_corpus([folder])
    monkeypatch.setattr(outcomes, "build", real_build)
    assert len(corpus) == len(OLD) + len(NEW)
    assert corpus.files[0].signature == file_signature(export)
    index = SearchIndex(corpus)
    index.ensure()
    hits = Searcher(index).search("newword3").hits
    assert [h.id for h in hits if "newword3" in corpus.abstract(corpus.index_of[h.id])] == [hits[0].id]
    index.close()
    again = load_corpus([folder])
    assert SearchIndex(again).status() == "fresh"


def test_a_file_rewritten_after_its_papers_were_shown_is_read_again_next_time(tmp_path: Path) -> None:
    """Papers already streamed to the list cannot be taken back: the file keeps the signature
    from before its read, so the next load reads it again and the index updates."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    export = folder / "big.txt"
    many = [f"w{n}x" for n in range(parse_cache.STREAM_ROWS + 10)]
    rewrite(export, seed_text(many))
    rewritten = [False]

    def on_batch(corpus: object, count: int) -> None:
        if not rewritten[0]:
            rewritten[0] = True
            rewrite(export, seed_text(many + NEW))

    corpus = load_corpus([folder], on_batch=on_batch)
    assert rewritten[0] and len(corpus) == len(many)
    assert corpus.files[0].signature != file_signature(export)
    index = SearchIndex(corpus)
    index.ensure()
    index.close()
    again = load_corpus([folder])
    assert len(again) == len(many) + len(NEW)
    index = SearchIndex(again)
    assert index.status() == "stale"
    assert index.ensure().added == len(NEW)
    index.close()


# -- item 5: one descriptor per file ---------------------------------------------------------------
FILES = 300
LIMIT = 100  # open files: far fewer than FILES, as 1,024 is than 20,000


def many_files(folder: Path) -> None:
    folder.mkdir()
    for n in range(FILES):
        (folder / f"f{n:04d}.txt").write_text(seed_text([f"tok{n}z"]), encoding="utf-8")


READER_INDEX = """
import resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, hard))
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher
corpus = load_corpus([sys.argv[1]])
index = SearchIndex(corpus)
index.ensure()
searcher = Searcher(index)
hits = [searcher.search(f"tok{{n}}z").hits for n in range(0, {files}, 7)]
assert all(len(h) == 1 for h in hits), hits
print("papers", len(corpus), "abstracts", sum(len(corpus.abstract(i)) > 0 for i in range(len(corpus))))
"""


def test_more_files_than_the_descriptor_limit_list_and_search(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    many_files(folder)
    listed = cli("list", str(folder), cwd=tmp_path, nofile=LIMIT)
    assert listed.returncode == 0 and "Too many open files" not in listed.stderr, listed.stderr
    assert len(listed.stdout.splitlines()) == FILES
    for _ in range(2):  # the first parses and builds, the second reads the caches
        found = cli("search", "tok123z", str(folder), "--time-limit", "0", cwd=tmp_path, nofile=LIMIT)
        assert found.returncode == 0 and "Too many open files" not in found.stderr, found.stderr
        assert "A study of tok123z" in found.stdout


def test_more_files_than_the_descriptor_limit_in_the_readers_index(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    many_files(folder)
    script = READER_INDEX.format(limit=LIMIT, files=FILES)
    for _ in range(2):
        run = subprocess.run(
            [sys.executable, "-c", script, str(folder)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.split() == ["papers", str(FILES), "abstracts", str(FILES)]


# -- item 7: build workers outliving their parent --------------------------------------------------
BUILD_THEN_HANG = """
import os, sys, time
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex

def children():
    out = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == os.getpid():
            out.append(int(entry))
    return out

def progress(done, total, phase):
    if phase == "indexing" and total:
        workers = children()
        holder = os.fork()  # holds the workers' pipes open, as any inherited copy would
        if holder == 0:
            time.sleep(60)
            os._exit(0)
        print(" ".join(map(str, [holder, *workers])), flush=True)
        time.sleep(60)

SearchIndex(load_corpus([sys.argv[1]])).ensure(progress=progress, procs=2)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_build_workers_end_with_their_parent(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    rewrite(folder / "big.txt", seed_text([f"w{n}x" for n in range(1200)]))
    parent = subprocess.Popen(
        [sys.executable, "-c", BUILD_THEN_HANG, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    holder, *workers = map(int, parent.stdout.readline().split())
    try:
        assert len(workers) == 2 and all(map(_alive, workers))
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_alive, workers))
    finally:
        for pid in (holder, *workers):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


# -- item 9: a search waiting for another process's rebuild ----------------------------------------
def _hold_build_lock(index: SearchIndex) -> contextlib.AbstractContextManager[None]:
    """What a rebuild in another process holds for its whole length."""
    return file_lock(leftovers.lock_path(index.base, index.corpus.key))


def test_a_search_uses_the_complete_old_index_while_another_rebuilds(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    export = folder / "papers.txt"
    rewrite(export, seed_text(OLD))
    index = SearchIndex(load_corpus([folder]))
    index.ensure()
    index.close()
    rewrite(export, seed_text(OLD + NEW))  # stale: the other process is updating it
    with _hold_build_lock(index):
        # no time limit: on a loaded machine the 1.5 s one can stop it before its first hit
        found = cli("search", "--time-limit", "0", "oldword3", str(folder), cwd=tmp_path, timeout=60)
    assert found.returncode == 0, found.stderr
    assert "A study of oldword3" in found.stdout
    assert "another tui-reader is updating the search index: searching the previous one" in found.stderr


def test_a_missing_index_waits_for_the_build_under_way(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    rewrite(folder / "papers.txt", seed_text(OLD))
    index = SearchIndex(load_corpus([folder]))
    told = threading.Event()
    reports: list[UpdateReport] = []

    def progress(done: int, total: int, phase: str) -> None:
        if phase == "waiting for another tui-reader":
            told.set()

    with _hold_build_lock(index):
        ensuring = threading.Thread(target=lambda: reports.append(index.ensure(progress=progress)))
        ensuring.start()
        assert told.wait(60)  # it waits, rather than search no index
        assert not reports
    ensuring.join(60)
    assert [r.action for r in reports] == ["built"]
    assert {h.id for h in Searcher(index).search("oldword3").hits}
    index.close()


# -- item 6: a full cache disk during a build ------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real 3 MB file system for the cache (tmpfs: needs root; skipped without)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    monkeypatch.setenv("XDG_CACHE_HOME", str(disk))
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path) -> None:
    """Leave no room on ``disk``."""
    with open(disk / "filler", "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()


@pytest.mark.parametrize("how", ["update", "bulk rebuild"])
def test_a_full_cache_disk_keeps_the_old_index_in_use(small_disk: Path, tmp_path: Path, how: str) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    export = folder / "papers.txt"
    words = [f"w{n}x" for n in range(600)]
    rewrite(export, seed_text(words))
    index = SearchIndex(load_corpus([folder]))
    index.ensure()
    index.close()
    rewrite(export, seed_text(words + NEW))
    fill(small_disk)
    index = SearchIndex(load_corpus([folder]))
    report = index.ensure() if how == "update" else index.ensure(rebuild=True, procs=2)
    assert report.action == "unchanged"
    assert report.reason.startswith("the cache disk is full (")
    assert report.reason.endswith("): searching the previous index")
    assert len(Searcher(index).search("w17x").hits) == 1  # the old index, searched
    index.close()
    (small_disk / "filler").unlink()
    index = SearchIndex(load_corpus([folder]))
    assert index.status() == "stale"
    assert index.ensure().action == "updated"
    index.close()
