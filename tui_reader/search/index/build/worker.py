"""A bulk-build worker: analyse ranges of documents into run files, then merge and encode spans
of terms across them.

Run as ``python -m tui_reader.search.index.build.worker`` (transport.py has the protocol); the
builder also runs the same steps in-process for small collections.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
import traceback

from tui_reader.search.index.build import gather, merge, runs, transport
from tui_reader.search.index.build.gather import Gatherer

PARENT_CHECK_SECONDS = 0.25  # how often a worker looks whether its parent is still there
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """End this worker when the process that started it ends, even while it is busy writing and
    even if its pipes stay open (inherited by a sibling): the kernel's parent-death signal on
    Linux, and everywhere a thread watching the parent pid (which changes when it dies)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # no libc, no prctl: the watch below still works
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGKILL)

    if os.getppid() != parent:  # it died before the signal was asked for
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def main() -> None:
    """A worker process: the header, then chunks of documents until None, each range written
    out as a run file (and its memory freed) when the next starts or the input ends; then the
    runs and merge tasks until None, each task's lists written to a chunk file."""
    parent = os.environ.get(transport.PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else os.getppid())
    pipe = transport.Pipe()
    try:
        schema_bytes, folder, blocklimit = pipe.header()
        schema = pickle.loads(schema_bytes)
        words = gather.numberings(schema)  # each word analysed once in this worker
        gatherer: Gatherer | None = None
        for chunk in pipe.chunks():
            first = chunk[0][0]
            if gatherer is None or first != gatherer.base + gatherer.count:
                if gatherer is not None:
                    _write(pipe, gatherer, folder)
                gatherer = None  # free one range's postings before gathering the next
                words = gather.renewed(schema, words)
                gatherer = Gatherer(schema, first, words)
            for docnum, doc in chunk:
                gatherer.add(docnum, doc)
            pipe.send("added", len(chunk))
        if gatherer is not None:
            _write(pipe, gatherer, folder)
        gatherer = None
        _merge(pipe, folder, blocklimit)
    except BaseException:
        with contextlib.suppress(Exception):
            pipe.send("error", traceback.format_exc())
        raise


def _write(pipe: transport.Pipe, gatherer: Gatherer, folder: str) -> None:
    table = gatherer.write(transport.part_path(folder, gatherer.base))
    runs.write_table(table)
    pipe.send("done", table["path"])


def _merge(pipe: transport.Pipe, folder: str, blocklimit: int) -> None:
    ranges: list[runs.Run] = []
    lengths: merge.Lengths | None = None
    for message in pipe.chunks():
        if message[0] == "runs":
            ranges = [runs.Run(runs.read_table(p)) for p in message[1]]
            lengths = merge.Lengths(ranges, message[2])
            continue
        task: merge.Task = message[1]
        assert lengths is not None
        path = transport.chunk_path(folder, task.number)
        terms, infos = merge.encode(ranges, task, lengths.of(task.field), path, blocklimit)
        pipe.send("chunk", task.number, str(path), terms, infos)


if __name__ == "__main__":
    main()
