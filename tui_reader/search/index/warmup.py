"""The index's files brought into the page cache ahead of the first searches.

After a boot (or once other work pushed the index out of memory), the first keystrokes at 2.7M
papers read their posting blocks from the disk. The reader's index worker, once the index is
open, asks the kernel to read every segment and parse cache meta file ahead (``posix_fadvise``
WILLNEED, in 2 MB pieces: the kernel caps one request at its readahead window): the requests
take ~1.5 s for 3.4 GB (~60 ms when cached), the pages ~7 s to come in from a cold disk here,
in file order (what a keystroke reads first, then the postings, measured worse: README). The
pages are not mapped into this process (its memory does not grow) and no answer changes: a
hint to the kernel, nothing more.
Files larger than half the memory available together are left alone (they would only push
other files out, or each other). ``python -m bench.cold_start`` measures it (README).
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

PIECE = 1 << 21  # bytes a WILLNEED asks for at once (the kernel reads at most its window a call)
SHARE = 0.5  # of the memory available: segments larger than that together are not read ahead


def available_memory() -> int | None:
    """MemAvailable (what can be had without swapping), else the free pages; None if unknown."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    with contextlib.suppress(OSError, ValueError, AttributeError):
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return None


def index_files(folder: Path, extra: Iterable[Path] = ()) -> list[Path]:
    """The index's segments, then ``extra`` (the parse caches' meta files: the titles and ids a
    page of hits shows)."""
    return [*sorted(folder.glob("*.seg")), *extra]


def warm_up(files: list[Path]) -> threading.Thread | None:
    """Start reading ``files`` ahead, in a daemon thread (returned; None when there is nothing
    to do, no way to do it, or not memory enough for them all)."""
    advise = getattr(os, "posix_fadvise", None)
    size = 0
    for f in files:
        with contextlib.suppress(OSError):
            size += f.stat().st_size
    memory = available_memory()
    if advise is None or not size or memory is None or size > SHARE * memory:
        return None
    thread = threading.Thread(target=_advise, args=(files,), name="index-warm-up", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # no thread to be had (a limit on tasks): only a hint lost
        return None
    return thread


def _advise(files: Iterable[Path]) -> None:
    for path in files:
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO there: no wait for a writer
            try:
                st = os.fstat(fd)
                for offset in range(0, st.st_size if stat.S_ISREG(st.st_mode) else 0, PIECE):
                    os.posix_fadvise(fd, offset, PIECE, os.POSIX_FADV_WILLNEED)
            finally:
                os.close(fd)
