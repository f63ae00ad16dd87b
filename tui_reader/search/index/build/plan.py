"""How the bulk build deals a collection to its workers: contiguous ranges of documents.

A worker gathers one range's postings in memory, writes them out (a part file) and frees them
before its next range, so its memory holds about ROUND documents' postings whatever the size of
the collection. Ranges go to the workers in turn, and the parent feeds them CHUNK documents at a
time, interleaved, so that every worker is busy; the parts are stitched back in docnum order.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from itertools import pairwise

CHUNK = 200  # documents per message to a worker
ROUND = 15_000  # documents a worker holds at once: ~100 MB of postings at 87k papers


class Plan:
    """Documents 0..total-1 in ``ranges`` contiguous ranges (by default, about ROUND each and a
    multiple of the workers), range r going to worker r % procs. ``procs`` is at most one
    worker per CHUNK documents; 1 builds in-process."""

    def __init__(self, total: int, procs: int, ranges: int | None = None) -> None:
        self.total = total
        self.procs = max(1, min(procs, total // CHUNK or 1))
        if ranges is None:
            ranges = self.procs * max(1, -(-total // (self.procs * ROUND))) if self.procs > 1 else 1
            ranges = min(ranges, max(1, total // CHUNK))
        self.bounds = [total * k // ranges for k in range(ranges + 1)]
        self.ranges = list(pairwise(self.bounds))

    def range_of(self, docnum: int) -> int:
        return bisect_right(self.bounds, docnum) - 1

    def worker_of(self, r: int) -> int:
        return r % self.procs

    def ranges_of(self, worker: int) -> range:
        """The ranges (by index) a worker is given, in the order it gets them."""
        return range(worker, len(self.ranges), self.procs)

    def order(self) -> Iterator[int]:
        """The docnums in the order to feed them: a round of ranges at a time, one per worker,
        their chunks interleaved so that every worker is busy."""
        for first in range(0, len(self.ranges), self.procs):
            active = self.ranges[first : first + self.procs]
            starts = [lo for lo, _ in active]
            while any(s < hi for s, (_, hi) in zip(starts, active, strict=True)):
                for k, (_, hi) in enumerate(active):
                    stop = min(starts[k] + CHUNK, hi)
                    yield from range(starts[k], stop)
                    starts[k] = stop
