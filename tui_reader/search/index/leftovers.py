"""What killed builds leave under the index folder, and its removal on the next ``ensure()``.

A build writes into ``<key>.build-XXXX`` (a staging folder swapped in when complete) and its
workers into ``<key>.bulk-XXXX`` (``tui-reader-bulk-XXXX`` before they were named by key); a
rebuild moves the previous index aside to ``<key>.old-XXXX``. A build killed halfway leaves the
first two (up to ~180 MB at 87k papers); every rebuild leaves the third. Each is removed once it is
LEFTOVER_AGE old and no build of its collection is running: builds hold the ``<key>.build.lock``
of their collection, so a free lock means the folder is nobody's. A reader that still has an
``.old`` index open keeps its open files (and reopens the new index by its own path).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

LEFTOVER_AGE = 60.0  # seconds since a leftover folder last changed
_NAME = re.compile(r"(?P<key>[0-9a-f]+)\.(?:build|bulk|old)-\w+")
_LEGACY = re.compile(r"tui-reader-bulk-\w+")  # bulk folders of builds before they carried a key


def lock_path(base: Path, key: str) -> Path:
    """What a build of collection ``key`` locks (atomic.file_lock locks it + ``.lock``)."""
    return base / f"{key}.build"


def sweep(base: Path, held: str, now: float | None = None) -> list[Path]:
    """Remove the leftover folders under ``base``: those of collection ``held`` (whose build lock
    the caller holds) and of any other collection whose lock is free. Errors are ignored (this is
    housekeeping); returns what was removed."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        legacy = match is None and _LEGACY.fullmatch(entry.name) is not None
        if match is None and not legacy:
            continue
        with contextlib.suppress(OSError):
            if not entry.is_dir(follow_symlinks=False) or now - entry.stat().st_mtime < LEFTOVER_AGE:
                continue
            keys = [match.group("key")] if match else _all_keys(base)
            with _free(base, [k for k in keys if k != held]) as free:
                if free:
                    shutil.rmtree(entry.path)
                    removed.append(Path(entry.path))
    return removed


def _all_keys(base: Path) -> list[str]:
    """Every collection that has a build lock: a legacy bulk folder may be any one's."""
    return [p.name.removesuffix(".build.lock") for p in base.glob("*.build.lock")]


@contextlib.contextmanager
def _free(base: Path, keys: list[str]) -> Iterator[bool]:
    """Whether no build of these collections is running, their locks held meanwhile."""
    fds: list[int] = []
    try:
        for key in keys:
            fd = os.open(base / f"{key}.build.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
        yield True
    finally:
        for fd in fds:
            os.close(fd)
