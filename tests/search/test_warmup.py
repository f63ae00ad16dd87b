"""The index's files read ahead by the kernel (warmup.py): every byte of every segment and meta
file asked for, in the background, and nothing asked for where the memory is short."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.parse_cache import meta_path
from tui_reader.search.index import warmup
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here (not Linux)")


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[int, int]]]:
    """The WILLNEED ranges asked for, per file (the real call still made)."""
    out: dict[str, list[tuple[int, int]]] = {}
    real = os.posix_fadvise

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert advice == os.POSIX_FADV_WILLNEED
        out.setdefault(os.readlink(f"/proc/self/fd/{fd}"), []).append((offset, length))
        real(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", advise)
    return out


@pytest.fixture
def built() -> Searcher:
    """The seeds read through the parse cache (its meta files) and indexed, in the test's cache."""
    index = SearchIndex(load_corpus())
    index.ensure()
    return Searcher(index, warm=False)


def _covered(ranges: list[tuple[int, int]], size: int) -> bool:
    end = 0
    for offset, length in sorted(ranges):
        if offset > end:
            return False
        end = max(end, offset + length)
    return end >= size


def test_every_segment_and_meta_is_asked_for(
    built: Searcher, asked: dict[str, list[tuple[int, int]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "PIECE", 4096)  # several pieces a file
    metas = [meta_path(data.path) for data in built.corpus.files]
    files = warmup.index_files(built.index.dir, metas)
    assert files[0].suffix == ".seg" and all(m.exists() for m in metas)
    thread = warmup.warm_up(files)
    assert thread is not None and thread.daemon
    thread.join(30)
    assert set(asked) == {str(f.resolve()) for f in files}
    for f in files:
        assert _covered(asked[str(f.resolve())], f.stat().st_size), f
    assert max(len(r) for r in asked.values()) > 1


def test_nothing_is_asked_for_where_memory_is_short(
    built: Searcher, asked: dict[str, list[tuple[int, int]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # not the shared warm searcher: its own warm-up thread may still be asking (CI saw it)
    files = warmup.index_files(built.index.dir)
    size = sum(f.stat().st_size for f in files)
    monkeypatch.setattr(warmup, "available_memory", lambda: int(size / warmup.SHARE) - 1)
    assert warmup.warm_up(files) is None
    monkeypatch.setattr(warmup, "available_memory", lambda: None)  # unknown: not risked
    assert warmup.warm_up(files) is None
    assert not {str(f.resolve()) for f in files} & set(asked)  # (another test's thread may ask for its own)


def test_missing_files_are_passed_over(tmp_path: Path, asked: dict[str, list[tuple[int, int]]]) -> None:
    real = tmp_path / "a.seg"
    real.write_bytes(b"x" * 10_000)
    thread = warmup.warm_up([tmp_path / "gone.seg", real, tmp_path / "gone.meta"])
    assert thread is not None
    thread.join(30)
    assert list(asked) == [str(real.resolve())]
    assert warmup.warm_up([tmp_path / "gone.seg"]) is None


def test_the_readers_warm_searcher_reads_its_files_ahead(
    built: Searcher, asked: dict[str, list[tuple[int, int]]]
) -> None:
    Searcher(built.index)  # warm, as the reader's index worker makes it
    for thread in [t for t in threading.enumerate() if t.name == "index-warm-up"]:
        thread.join(30)
    assert any(name.endswith(".seg") for name in asked)
    assert any(name.endswith(".meta") for name in asked)


def test_no_thread_to_be_had_is_only_a_hint_lost(
    built: Searcher, asked: dict[str, list[tuple[int, int]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A limit on tasks refuses the thread: the warm searcher still opens (no "damaged index")."""

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert warmup.warm_up(warmup.index_files(built.index.dir)) is None
    searcher = Searcher(built.index)  # warm, as the reader's index worker makes it
    assert searcher.search("graph").total > 0 and asked == {}


def test_a_fifo_among_the_files_is_passed_over(
    tmp_path: Path, asked: dict[str, list[tuple[int, int]]]
) -> None:
    fifo = tmp_path / "x.meta"
    os.mkfifo(fifo)
    real = tmp_path / "a.seg"
    real.write_bytes(b"x" * 5000)
    thread = warmup.warm_up([fifo, real])
    assert thread is not None
    thread.join(30)
    assert not thread.is_alive() and list(asked) == [str(real.resolve())]
