"""The reader's first keystroke without the cost of fresh memory.

Each keystroke's search runs in a new worker thread, and at 2.7M papers a type-ahead makes
arrays of a few MB. glibc serves an allocation that size with a fresh ``mmap`` until the first
such block is freed (its mmap threshold then slides up, at most to 32 MB, and its trim threshold
to twice that), and gives threads arenas of their own, reused last freed first: the first "gr"
after the index opened took whichever thread's arena had ended last (the read-ahead's, say),
and touched ~6,000 fresh pages (minor faults, ~5 µs each in this VM), 50-110 ms of its time.

Two steps, both glibc's own settings, no answer changed:
- ``one_arena()``, before the reader starts a thread: every thread allocates from the main
  arena (the GIL serialises Python's threads anyway; fewer arenas also hold less memory);
- ``settle()``, once the index is open (the reader's index worker, ahead.py): the two thresholds
  set where glibc's sliding would leave them after the first large search, and TOUCH bytes
  touched and freed, so they stay in the arena for the first keystrokes (below the trim
  threshold). The reader keeps what glibc would keep after one large search.
Where the C library is not glibc, nothing is done.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import platform

M_TRIM_THRESHOLD = -1  # malloc.h
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: where its sliding threshold stops
TRIM = 2 * MMAP  # and the trim threshold it sets beside it
TOUCH = 48 << 20  # bytes touched (in PIECE blocks): more than a first type-ahead's arrays at 2.7M
PIECE = 8 << 20


def _mallopt(option: int, value: int) -> bool:
    """glibc's ``mallopt``; False where there is none or it refuses."""
    if platform.libc_ver()[0] != "glibc":
        return False
    with contextlib.suppress(OSError, AttributeError):
        return bool(ctypes.CDLL(None).mallopt(option, value))
    return False


def one_arena() -> bool:
    """One malloc arena for every thread: call before the first thread starts (an arena made
    before stays in use)."""
    return _mallopt(M_ARENA_MAX, 1)


@functools.cache
def settle() -> bool:
    """glibc's thresholds at their ceilings, and TOUCH bytes touched in the arena and freed;
    False (nothing done) where the C library is not glibc or refuses. Once a process: the
    settings are the process's, and the memory stays in its one arena."""
    if not (_mallopt(M_MMAP_THRESHOLD, MMAP) and _mallopt(M_TRIM_THRESHOLD, TRIM)):
        return False
    touched = [bytearray(PIECE) for _ in range(TOUCH // PIECE)]  # zeroed: every page written
    del touched
    return True
