"""A file's encoded rows (one JSON row per paper), and the sink a parse writes them to.

The rows of a file being parsed are readable while it is parsed: the reader lists papers and
shows their abstracts as they arrive (corpus.load_corpus streams them). The sink's ``rows`` is
that live view, and stays the file's ``Rows`` once the parse is done: the same object, whether
its file is then moved into the cache (``moved``) or kept in memory (``to_memory``), so a reader
holding it never reads a closed or reused descriptor.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import resource
import tempfile
import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_reader.corpus.formats import shown

# (id, title, abstract, authors, venue, year, url, title_generated[, extra]), as JSON decodes it;
# extra (doi, arxiv, keywords, kind) is present only when one of them is set
Row = tuple[Any, ...]


class _Descriptors:
    """The open descriptors of every rows file, so that 20,000 files work under the common limit
    of 1,024: a descriptor in use, or pinned (a file being written, which may be renamed or
    removed while it is read), stays open; of the others, the ``cap`` used last stay open and
    older ones are closed, to be opened again by path when next read. One lock for all: a
    descriptor is never closed while a thread reads through it."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # re-entrant: a Rows' __del__ may run inside acquire
        self.idle: OrderedDict[Rows, None] = OrderedDict()  # open, unused, unpinned; oldest first
        self.cap = 0  # set on first use, from the limit in force then

    def _cap(self) -> int:
        if not self.cap:
            soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            limit = soft if soft != resource.RLIM_INFINITY else 4096
            self.cap = max(4, min(IDLE_DESCRIPTORS, limit // 8))
        return self.cap

    def acquire(self, rows: Rows) -> int:
        with self.lock:
            self.idle.pop(rows, None)
            if rows._fd is None:
                assert rows._path is not None
                rows._fd = os.open(rows._path, os.O_RDONLY | os.O_CLOEXEC)
            rows._uses += 1
            return rows._fd

    def release(self, rows: Rows) -> None:
        with self.lock:
            rows._uses -= 1
            if rows._uses:
                return
            if rows._closing or rows._blobs is not None:
                self.drop(rows)
            elif not rows._pinned:
                self.idle[rows] = None
                while len(self.idle) > self._cap():
                    oldest, _ = self.idle.popitem(last=False)
                    self.drop(oldest)

    def drop(self, rows: Rows) -> None:
        """Close ``rows``' descriptor now, or when the read under way ends."""
        with self.lock:
            self.idle.pop(rows, None)
            if rows._uses:
                rows._closing = True
                return
            fd, rows._fd, rows._closing = rows._fd, None, False
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)


IDLE_DESCRIPTORS = 128  # at most this many unused rows files stay open (an eighth of the limit)
_DESCRIPTORS = _Descriptors()


class Rows:
    """Encoded rows, in memory or in a file read with pread (thread-safe, no shared seek). A
    file's descriptor is opened on demand and may be closed between reads (_Descriptors)."""

    def __init__(
        self, blobs: list[bytes] | None = None, path: Path | None = None, offsets: Sequence[int] | None = None
    ) -> None:
        self._blobs = blobs
        self._path = path
        self._offsets = offsets
        self._fd: int | None = None
        self._uses = 0  # reads under way through _fd
        self._pinned = False  # _fd stays open until close (the file may go while it is read)
        self._closing = False  # close _fd once the reads under way end

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def offsets(self) -> Sequence[int] | None:
        return self._offsets

    @property
    def in_memory(self) -> bool:
        return self._blobs is not None

    def __len__(self) -> int:
        return len(self._blobs) if self._blobs is not None else len(self._offsets or ()) - 1

    def open(self) -> None:
        """Open the file now and keep it open until ``unpin`` or ``close`` (a file being written
        may be renamed or removed while it is read)."""
        if self._blobs is None and self._path is not None:
            with _DESCRIPTORS.lock:
                _DESCRIPTORS.acquire(self)
                self._pinned = True
                _DESCRIPTORS.release(self)

    def unpin(self) -> None:
        """The file is in its place for good (moved into the cache): its descriptor may be
        closed between reads, and opened again by path."""
        with _DESCRIPTORS.lock:
            if self._pinned:
                self._pinned = False
                if self._fd is not None and not self._uses:
                    _DESCRIPTORS.acquire(self)
                    _DESCRIPTORS.release(self)

    def raw(self, i: int) -> bytes:
        blobs = self._blobs
        if blobs is not None:
            return blobs[i]
        assert self._offsets is not None and self._path is not None
        start, end = self._offsets[i], self._offsets[i + 1]
        fd = _DESCRIPTORS.acquire(self)
        try:  # without the newline that ends it: a row reused by the next parse gains none
            return os.pread(fd, end - start - 1, start)
        finally:
            _DESCRIPTORS.release(self)

    def raw_range(self, start: int, stop: int) -> list[bytes]:
        """Rows start..stop as ``raw`` gives them, in one read (a row at a time costs a system
        call and a lock each: most of a second file's identities at 2.7M rows)."""
        blobs = self._blobs
        if blobs is not None:
            return blobs[start:stop]
        assert self._offsets is not None and self._path is not None
        if start >= stop:
            return []
        ends = self._offsets[start : stop + 1]
        fd = _DESCRIPTORS.acquire(self)
        try:
            chunk = os.pread(fd, ends[-1] - ends[0], ends[0])
        finally:
            _DESCRIPTORS.release(self)
        base = ends[0]
        return [chunk[a - base : b - base - 1] for a, b in itertools.pairwise(ends)]

    def get(self, i: int) -> Row:
        return tuple(json.loads(self.raw(i)))

    def moved(self, path: Path) -> None:
        """The file was renamed (into the cache): an open descriptor reads on, a new one opens
        the new name."""
        self._path = path

    def to_memory(self, count: int | None = None) -> None:
        """Keep the first ``count`` rows (all) in memory; the file may then go. The descriptor
        is closed once no thread reads through it."""
        n = len(self) if count is None else count
        if self._blobs is None:
            self._blobs = [self.raw(i) for i in range(n)]
            _DESCRIPTORS.drop(self)
        else:
            del self._blobs[n:]

    def close(self) -> None:
        if getattr(self, "_fd", None) is not None:
            with _DESCRIPTORS.lock:
                self._pinned = False
                _DESCRIPTORS.drop(self)

    def __del__(self) -> None:
        if _DESCRIPTORS is not None:  # None at interpreter shutdown: the process closes the fd
            self.close()


def reason(folder: Path, exc: OSError) -> str:
    return f"{shown(exc.filename or folder)}: {exc.strerror or exc}"


class CacheWriteError(Exception):
    """Writing a parse-cache rows file failed (not reading the source: that is a warning)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RowSink:
    """Encoded rows go straight to a temp file in the cache as they are made (so a first parse of
    87k papers does not hold them all in memory); in memory if the cache cannot be written. The
    temp file is flock-ed until released, so ``sweep`` never removes a live one. ``rows`` reads
    every row added before the last ``flush``."""

    def __init__(self, folder: Path | None, error: str = "") -> None:
        self.blobs: list[bytes] = []
        self.offsets = array("Q", [0])
        self.fh: Any = None
        self.path: Path | None = None
        self.error = error
        self.folder = folder or Path(".")
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(prefix=".parse-", suffix=".rows", dir=folder)
                self.fh, self.path = os.fdopen(fd, "wb"), Path(name)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.rows = Rows(path=self.path, offsets=self.offsets)
                self.rows.open()
                return
            except OSError as exc:
                self.error = reason(folder, exc)
                self.discard()
        self.rows = Rows(self.blobs)

    def add(self, blob: bytes) -> None:
        if self.fh is None:
            self.blobs.append(blob)
            return
        try:
            self.fh.write(blob)
            self.fh.write(b"\n")
        except OSError as exc:
            raise CacheWriteError(reason(self.folder, exc)) from exc
        self.offsets.append(self.offsets[-1] + len(blob) + 1)

    def flush(self) -> None:
        """Make the rows added so far readable through ``rows``."""
        if self.fh is not None:
            try:
                self.fh.flush()
            except OSError as exc:
                raise CacheWriteError(reason(self.folder, exc)) from exc

    def finish(self) -> Rows:
        if self.fh is not None:
            try:
                self.fh.flush()
                os.fsync(self.fh.fileno())
            except OSError as exc:
                raise CacheWriteError(reason(self.folder, exc)) from exc
        return self.rows

    def release(self) -> None:
        """Close the temp file (and with it the lock) once it has been moved or discarded."""
        if self.fh is not None:
            with contextlib.suppress(OSError):  # a failed flush of a file we no longer need
                self.fh.close()
            self.fh = None

    def discard(self) -> None:
        """Remove the temp file (rows read through ``rows`` so far stay readable: its
        descriptor is open)."""
        self.release()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.path = None
