"""Safe file access shared by every layer: crash-safe writes, an inter-process lock, reads that
never block on a FIFO, and the removal of temp files a killed writer left behind."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a stat mode is, in words for a warning ("a FIFO")."""
    return next(
        (word for test, word in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "?"
    )


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket or folder: reading it could block forever or never end."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({file_kind(mode)})", os.fspath(path))


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for reading (symlinks followed). Never blocks: a FIFO is opened with
    O_NONBLOCK, seen by fstat and refused with NotRegularFile (an OSError), as is anything else
    that is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def real_path(path: Path) -> Path:
    """The file a path names, symlinks followed (a link that leads nowhere yet: its target)."""
    return Path(os.path.realpath(path))


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for every thread)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o077  # unknown: as private as mkstemp's files


def new_file_mode(path: Path, mode: int | None = None) -> int:
    """The permission bits a rewrite of ``path`` keeps: the file's own when it exists (a 644
    file stays 644), else ``mode``, else what open() would give a new file (0666 minus umask)."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(os.stat(path).st_mode)
    return mode if mode is not None else 0o666 & ~_umask()


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write via a temp file in the same folder, fsync, then os.replace: readers see old or new.
    See ``atomic_write_parts``."""
    atomic_write_parts(path, (data,), mode)


Part = bytes | bytearray | memoryview


def atomic_write_parts(path: Path, parts: Iterable[Part], mode: int | None = None) -> None:
    """``atomic_write_bytes`` of the parts one after another: a big file (a parse cache's meta,
    ~0.45 GB at 2.7M papers) is written from its sections' own buffers, not joined into one.

    A symlink is written through (its target is replaced, the link stays). The file keeps its
    mode (a new one: ``mode``, else the umask's). The temp file is flock-ed while it is written,
    so ``remove_leftovers`` can tell a live write from a dead one.
    """
    path = real_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    keep = new_file_mode(path, mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.fchmod(fh.fileno(), keep)
            for part in parts:
                fh.write(part)
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def file_lock(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` + ".lock" (released by the OS if we die). A symlink
    is locked at its target, so two links to one file share the lock. ``on_wait`` is called once
    if another process holds it, before we block. Raises OSError if the lock file cannot be made
    (a read-only folder)."""
    target = real_path(path)
    lock_path = target.with_name(target.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "r+b") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def remove_leftovers(folder: Path, patterns: Iterable[str], min_age: float = 60.0) -> list[Path]:
    """Delete temp files matching ``patterns`` that a killed writer left: regular files older than
    ``min_age`` seconds that no live process holds (writers flock their temp files). Errors are
    ignored: this is housekeeping. Returns what was removed."""
    removed: list[Path] = []
    now = time.time()
    try:
        candidates = {p for pattern in patterns for p in folder.glob(pattern)}
    except OSError:
        return removed
    for path in sorted(candidates):
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < min_age:
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: a live writer
                os.unlink(path)
                removed.append(path)
            finally:
                os.close(fd)
    return removed
