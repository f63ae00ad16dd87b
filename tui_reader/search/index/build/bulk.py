"""The bulk builder: a whole collection into one Whoosh segment, its postings written by workers.

Whoosh's ``IndexWriter`` costs ~30 µs per posting at 87k papers (11M postings): a pool of tuples,
sorted runs on disk, a field-length lookup and a Python call per posting into the block writer.
Its multiprocess writer splits that over two processes but leaves two segments, and merging them
costs twice the build. Here worker processes (worker.py) each analyse contiguous ranges of
documents (plan.py), gather every term's postings in arrays and write them in Whoosh 3's block
layout, a block at a time (blocks.PartWriter). The parent writes the per-document data meanwhile,
then stitches the ranges' posting lists, term by term, into the segment of an ordinary
``SegmentWriter`` (stitch.py), which commits as usual.
"""

from __future__ import annotations

import contextlib
import pickle
import queue
import tempfile
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tui_reader.search.fast import health as fast_health
from tui_reader.search.fast import w3
from tui_reader.search.index.build import stitch, transport
from tui_reader.search.index.build.plan import CHUNK, Plan
from tui_reader.search.index.build.transport import BulkFailed, Doc, Part
from tui_reader.search.index.build.worker import Gatherer

__all__ = ["BulkBuild", "BulkFailed", "BulkUnsupported", "check_writer"]

Progress = Callable[[int, int, str], None]


class BulkUnsupported(Exception):
    """The writer or schema is not one this builder reproduces exactly, or the fast paths are
    off (w3's self-check): use Whoosh's writer."""


def check_writer(writer: Any) -> None:
    """Raise BulkUnsupported unless the segment writer is the W3 codec this module writes for."""
    problem = w3.writer_problem(writer)
    if problem:
        raise BulkUnsupported(problem)
    for name in writer.schema.names():
        field = writer.schema[name]
        if field.vector or field.separate_spelling():
            raise BulkUnsupported(f"field {name!r} has vectors or a spelling field")


class BulkBuild:
    """Feed documents to ``add`` in ``order()``; ``finish`` completes the writer's segment (the
    caller commits it). ``procs`` > 1 analyses in that many processes, ranges of about ROUND
    documents dealt to them in turn (plan.py); ``ranges`` sets how many (w3's self-check builds
    two ranges in-process)."""

    def __init__(
        self,
        writer: Any,
        total: int,
        procs: int = 1,
        progress: Progress | None = None,
        tempdir: Path | None = None,
        ranges: int | None = None,
        prefix: str = "tui-reader-bulk-",
    ) -> None:
        check_writer(writer)
        health = fast_health.status()  # the index ran the self-check (selfcheck.status) first
        if not health.ok:
            raise BulkUnsupported(f"fast paths off: {health.reason}")
        self.writer = writer
        self.segment = w3.Segment(writer)
        self.total = total
        self.plan = Plan(total, procs, ranges)
        self.procs = self.plan.procs
        self.progress = progress
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix, dir=tempdir)  # see search/leftovers.py
        self._params = w3.block_params(writer.codec)
        self._stored: list[dict[str, Any] | None] = [None] * total
        self._present: list[tuple[str, ...]] = [()] * total
        self._shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._chunks: list[list[tuple[int, Doc]]] = [[] for _ in self.plan.ranges]
        self._fed = 0
        self._added = 0
        self._written = 0  # papers whose range a worker has written
        self._children: list[transport.Child] = []
        self._messages: queue.Queue[Any] = queue.Queue()
        self._local: Gatherer | None = None  # in-process: the range being gathered
        self._parts: list[Part] = []  # in-process: the ranges written
        self._done: set[int] = set()  # ranges (by first docnum) written by their worker
        self._lengths: dict[int, tuple[int, dict[str, array[int]]]] = {}  # ranges waiting their turn
        self._per_doc_done = 0  # documents whose stored fields and lengths are written
        schema = writer.schema
        self._stored_names = {n for n in schema.names() if schema[n].stored}
        if self.procs > 1:
            header = (pickle.dumps(schema), self._tmp.name, self._params)
            try:
                for k in range(self.procs):
                    self._children.append(transport.Child(k, header, self._messages, Path(self._tmp.name)))
            except BaseException:
                self.close()
                raise

    # -- feeding ------------------------------------------------------------------------------
    def add(self, docnum: int, doc: Doc) -> None:
        """Documents come in ``order()``: each worker's range ascending, the ranges interleaved."""
        self._fed += 1
        names = tuple(sorted(n for n, v in doc.items() if v is not None and not n.startswith("_")))
        self._present[docnum] = self._shapes.setdefault(names, names)
        stored = {n: doc[n] for n in names if n in self._stored_names}
        self._stored[docnum] = stored or None
        r = self.plan.range_of(docnum)
        if self.procs == 1:
            if self._local is None or self._local.base != self.plan.ranges[r][0]:
                self._write_local()
                self._local = Gatherer(self.writer.schema, self.plan.ranges[r][0])
            self._local.add(docnum, doc)
            self._added += 1
            return
        self._chunks[r].append((docnum, doc))
        if len(self._chunks[r]) >= CHUNK or docnum == self.plan.ranges[r][1] - 1:
            self._send(r)

    def order(self) -> Iterator[int]:
        return self.plan.order()

    def _send(self, r: int) -> None:
        chunk, self._chunks[r] = self._chunks[r], []
        self._children[self.plan.worker_of(r)].send(chunk)  # blocks while the worker is busy
        while self._poll() is not None:
            pass

    def _poll(self, timeout: float = 0.0) -> tuple[Any, ...] | None:
        """Take a worker message: progress counts, errors and exits (raised here), 'done'."""
        try:
            msg = self._messages.get(timeout=timeout) if timeout else self._messages.get_nowait()
        except queue.Empty:
            return None
        if msg[0] == "added":
            self._added += msg[1]
            self._tell_indexing()
        elif msg[0] == "written":  # a range's postings being written: counted once it is done
            pass
        elif msg[0] == "lengths":
            self._lengths[msg[1]] = (msg[2], msg[3])
            while self._per_doc_done in self._lengths:  # per-document data goes in docnum order
                count, part_lengths = self._lengths.pop(self._per_doc_done)
                self._write_per_doc(self._per_doc_done, count, part_lengths)
        elif msg[0] == "done":
            self._done.add(msg[1])
            self._written += next(hi - lo for lo, hi in self.plan.ranges if lo == msg[1])
            self._tell_indexing()
        elif msg[0] == "error":
            raise BulkFailed(f"an indexing process failed:\n{msg[1]}")
        elif msg[0] == "exit" and any(
            self.plan.ranges[r][0] not in self._done for r in self.plan.ranges_of(msg[1])
        ):
            raise BulkFailed(f"an indexing process stopped: {self._children[msg[1]].error()}")
        return msg

    def _tell_indexing(self) -> None:
        """One rising figure for the workers' part: each paper counts once analysed and once
        written (ranges are written while others are still analysed, so two phases would
        take turns on the status line)."""
        if self.progress:
            self.progress(self._added + self._written, 2 * self.total, "indexing")

    # -- finishing ----------------------------------------------------------------------------
    def finish(self) -> None:
        """Wait for the workers, writing per-document data meanwhile, then stitch the postings."""
        if self._fed != self.total:
            raise ValueError(f"{self._fed} documents added, {self.total} announced")
        if self.procs == 1:
            self._write_local()
            parts = self._parts
        else:
            parts = self._collect()
        if self.progress:
            self.progress(self.total, self.total, "finishing")
        stitch.postings(self.segment, parts)
        self.segment.finish(self.total)

    def _write_local(self) -> None:
        """In-process: the range gathered so far, its per-document data then its part file."""
        local, self._local = self._local, None
        if local is None:
            return
        if self.progress and local.base + local.count == self.total:
            self.progress(self.total, self.total, "writing the index")
        self._write_per_doc(local.base, local.count, local.lengths)
        self._parts.append(local.write(transport.part_path(self._tmp.name, local.base), self._params))

    def _collect(self) -> list[Part]:
        for child in self._children:
            child.send(None)
        while len(self._done) < len(self.plan.ranges):
            self._poll(timeout=0.5)
        if self._per_doc_done != self.total:
            raise BulkFailed("an indexing process did not report its documents")
        # in docnum order: the stitch appends blocks in this order
        parts = [transport.read_table(self._tmp.name, lo) for lo, _ in self.plan.ranges]
        for child in self._children:
            child.stop()
        return parts

    def _write_per_doc(self, base: int, count: int, lengths: dict[str, array[int]]) -> None:
        end = base + count
        stitch.per_doc(
            self.segment, self.writer.schema, base, lengths, self._stored[base:end], self._present[base:end]
        )
        self._per_doc_done = end

    def close(self) -> None:
        """End the workers (if still running) and remove the temporary files."""
        for child in self._children:
            child.stop()
        self._children = []
        with contextlib.suppress(OSError):
            self._tmp.cleanup()
