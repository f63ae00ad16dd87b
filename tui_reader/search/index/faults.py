"""Faults the index meets in the cache folder: no room, a write lock a failed writer left held,
an index swapped in by another process while it was opened, what a failed update left."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from pathlib import Path
from typing import Any

from tui_reader.corpus.text import clean_label
from tui_reader.errors import CacheUnusable


def cache_problem(exc: OSError, base: Path) -> str | None:
    """One line for an error writing in the cache folder (no filename: a write, most likely out
    of room), None for another file's (a corpus file's)."""
    if isinstance(exc, CacheUnusable):
        return str(exc)
    where = Path(os.fsdecode(exc.filename)) if exc.filename else None
    if where is not None and not (where.is_relative_to(base) or base.is_relative_to(where)):
        return None
    detail = f" ({clean_label(str(where))})" if where is not None and where != base else ""
    return f"cannot use the cache folder {clean_label(str(base))}: {exc.strerror or exc}{detail}"


FULL = (errno.ENOSPC, errno.EDQUOT)


def disk_full(exc: BaseException) -> bool:
    """No room in the cache: an OSError of ours, or a worker's (its traceback's last line)."""
    if isinstance(exc, OSError):
        return exc.errno in FULL
    from tui_reader.search.index.build import BulkFailed  # the build's: loaded when one ran

    return isinstance(exc, BulkFailed) and any(f"[Errno {n}]" in str(exc) for n in FULL)


def release(writer: Any) -> None:
    """Whoosh's write lock, which a cancel that failed (no room to flush) leaves held."""
    with contextlib.suppress(Exception):
        writer.cancel()
    lock = getattr(writer, "writelock", None)
    if lock is not None:
        with contextlib.suppress(Exception):
            lock.release()


def folder_id(folder: Path) -> tuple[int, int] | None:
    try:
        st = folder.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def drop_strays(folder: Path, known: object) -> None:
    """Remove what a failed update wrote beside the index (files its manifest, ``known``, does
    not list), so the index there stays as it was."""
    if not isinstance(known, dict):
        return
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            name = entry.name
            if entry.is_file() and name not in known and name != "manifest.json" and "LOCK" not in name:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def index_files(folder: Path) -> dict[str, str]:
    """Size, modification time and a hash of the first and last 4 KiB of each Whoosh file: a
    deleted, truncated or overwritten segment shows here for a few reads, where hashing 200 MB
    would cost a second (Whoosh never rewrites a file it wrote: any write is damage)."""
    out = {}
    for entry in os.scandir(folder):
        if not entry.is_file() or entry.name.endswith(("LOCK", ".lock")):
            continue
        if entry.name == "manifest.json":
            continue
        size = entry.stat().st_size
        with open(entry.path, "rb") as fh:
            head = fh.read(4096)
            fh.seek(max(0, size - 4096))
            tail = fh.read(4096)
        digest = hashlib.blake2b(head + tail, digest_size=8).hexdigest()
        out[entry.name] = f"{size}:{digest}:{entry.stat().st_mtime_ns}"
    return out


def same_files(recorded: object, now: dict[str, str]) -> bool:
    """The manifest's record of the files against what is there; a record from before times
    were kept ("size:hash") is compared without them."""
    if not isinstance(recorded, dict) or recorded.keys() != now.keys():
        return False
    return all(
        was == this if was.count(":") == 2 else was == this.rsplit(":", 1)[0]
        for was, this in ((str(recorded[name]), now[name]) for name in now)
    )
