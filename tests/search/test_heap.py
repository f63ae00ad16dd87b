"""The reader's malloc arena readied for the first keystroke (heap.py): a new thread's first
arrays of a few MB come without fresh pages, in a fresh process each way (the settings are
the process's)."""

from __future__ import annotations

import platform
import resource
import subprocess
import sys

import pytest

from tui_reader.search.index import heap

pytestmark = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or not hasattr(resource, "RUSAGE_THREAD"),
    reason="glibc's allocator and per-thread rusage only (Linux)",
)

# the reader's threads at 2.7M: the index worker settles and ends, the read-ahead thread ends
# after it, then a keystroke's new thread makes arrays of ~3 MB (below numpy's huge-page line)
_CHILD = """
import resource, sys, threading
import numpy as np
from tui_reader.search.index import heap
settled = sys.argv[1] == "1"
if settled:
    print(heap.one_arena())
def run(work):
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
run(lambda: print(heap.settle()) if settled else None)
run(lambda: bytearray(1 << 20))  # the read-ahead thread, ending last
faults = []
def keystroke():
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    arrays = [np.ones(3 << 17) for _ in range(8)]
    faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
    del arrays
run(keystroke)
print(faults[0])
"""


def _faults(settled: bool) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, "1" if settled else "0"], capture_output=True, text=True, check=True
    )
    return run.stdout.split()


def test_a_keystrokes_new_thread_reuses_the_settled_arena() -> None:
    (fresh,) = _faults(False)
    one, done, settled = _faults(True)
    assert one == done == "True"
    pages = 8 * (3 << 20) // 4096  # 24 MB of fresh pages: one fault each
    assert int(fresh) > pages // 2  # without: the pages are fresh (the cost being removed)
    assert int(settled) < pages // 10  # with: the arena's touched pages are reused


def test_settle_does_nothing_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap.platform, "libc_ver", lambda: ("", ""))
    assert heap.settle.__wrapped__() is False
    assert heap.one_arena() is False
