"""The bulk builder: a whole collection into one NpCodec segment, its postings made by workers.

Whoosh's ``IndexWriter`` costs ~30 µs per posting at 87k papers (11M postings): a pool of tuples,
sorted runs on disk, a field-length lookup and a Python call per posting into the block writer.
Here worker processes (worker.py) each analyse contiguous ranges of documents (plan.py) into flat
arrays, sorted once per range into a run file (gather.py, runs.py). Then the workers merge the
runs a span of terms at a time and encode the spans' posting lists with numpy (merge.py,
listwriter.encode_lists): the lists Whoosh's writer writes through NpCodec, byte for byte. The
parent writes the per-document data meanwhile, then copies the spans' bytes into the segment of
an ordinary ``SegmentWriter`` in term order and adds each term's info (stitch.py); it commits
as usual.
"""

from __future__ import annotations

import contextlib
import pickle
import queue
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tui_reader.search.fast import health as fast_health
from tui_reader.search.fast import w3
from tui_reader.search.fast.codec import NpCodec
from tui_reader.search.index.build import gather, merge, runs, stitch, terms, transport
from tui_reader.search.index.build.plan import CHUNK, Plan
from tui_reader.search.index.build.transport import BulkFailed, Doc

__all__ = ["BulkBuild", "BulkFailed", "BulkUnsupported", "check_writer"]

Progress = Callable[[int, int, str], None]
OUTSTANDING = 2  # merge tasks a worker holds at once (one being encoded, one waiting)


class BulkUnsupported(Exception):
    """The writer or schema is not one this builder reproduces exactly, or the fast paths are
    off (w3's self-check): use Whoosh's writer."""


def check_writer(writer: Any) -> None:
    """Raise BulkUnsupported unless the segment writer is the NpCodec this module writes for."""
    problem = w3.writer_problem(writer)
    if problem:
        raise BulkUnsupported(problem)
    if not isinstance(writer.codec, NpCodec):
        raise BulkUnsupported("not an NpCodec segment writer")
    for name in writer.schema.names():
        field = writer.schema[name]
        if field.vector or field.separate_spelling() or field.column_type:
            raise BulkUnsupported(f"field {name!r} has vectors, a spelling field or a column")
        if field.indexed and gather.value_kind(field) is None:
            raise BulkUnsupported(f"field {name!r} has a posting format the bulk build does not write")


class BulkBuild:
    """Feed documents to ``add`` in ``order()``; ``finish`` completes the writer's segment (the
    caller commits it). ``procs`` > 1 analyses in that many processes, ranges of about ROUND
    documents dealt to them in turn (plan.py); ``ranges`` sets how many (w3's self-check builds
    two ranges in-process); ``slice_postings`` the size of a merge task (merge.SLICE)."""

    def __init__(
        self,
        writer: Any,
        total: int,
        procs: int = 1,
        progress: Progress | None = None,
        tempdir: Path | None = None,
        ranges: int | None = None,
        prefix: str = "tui-reader-bulk-",
        slice_postings: int | None = None,
    ) -> None:
        health = fast_health.status()  # the index ran the self-check (selfcheck.status) first
        if not health.ok:
            raise BulkUnsupported(f"fast paths off: {health.reason}")
        check_writer(writer)
        self.writer = writer
        self.segment = w3.Segment(writer)
        self.segment.swap_terms(terms.CompactTable)
        self.total = total
        self.plan = Plan(total, procs, ranges)
        self.procs = self.plan.procs
        self.progress = progress
        self.slice_postings = slice_postings
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix, dir=tempdir)  # see search/leftovers.py
        self._blocklimit = w3.block_params(writer.codec)[0]
        self._per_doc = stitch.PerDoc(self.segment, writer.schema, total)
        self._chunks: list[list[tuple[int, Doc]]] = [[] for _ in self.plan.ranges]
        self._fed = 0
        self._added = 0
        self._written = 0  # papers whose range's run is written
        self._merged = 0  # merge tasks done
        self._tasks: list[merge.Task] = []
        self._children: list[transport.Child] = []
        self._messages: queue.Queue[Any] = queue.Queue()
        self._local: gather.Gatherer | None = None  # in-process: the range being gathered
        self._words = gather.numberings(writer.schema) if self.procs == 1 else {}
        self.words_limit = gather.WORDS  # in-process: words remembered across ranges (tests lower it)
        self._tables: dict[int, runs.Table] = {}  # ranges (by first docnum) written
        self._chunks_done: dict[int, tuple[str, list[bytes], bytes]] = {}
        self._ending = False  # the workers were told to end: their exit is expected
        if self.procs > 1:
            header = (pickle.dumps(writer.schema), self._tmp.name, self._blocklimit)
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
        self._per_doc.stored(docnum, doc)
        r = self.plan.range_of(docnum)
        if self.procs == 1:
            if self._local is None or self._local.base != self.plan.ranges[r][0]:
                self._write_local()
                self._words = gather.renewed(self.writer.schema, self._words, self.words_limit)
                self._local = gather.Gatherer(self.writer.schema, self.plan.ranges[r][0], self._words)
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
        """Take a worker message: progress counts, errors and exits (raised here), results."""
        try:
            msg = self._messages.get(timeout=timeout) if timeout else self._messages.get_nowait()
        except queue.Empty:
            return None
        if msg[0] == "added":
            self._added += msg[1]
            self._tell_indexing()
        elif msg[0] == "done":  # a range's run file
            self._range_written(runs.read_table(msg[1]))
        elif msg[0] == "chunk":  # a merge task's lists
            self._chunks_done[msg[1]] = (msg[2], msg[3], msg[4])
            self._merged += 1
            self._tell_indexing()
        elif msg[0] == "error":
            raise BulkFailed(f"an indexing process failed:\n{msg[1]}")
        elif msg[0] == "exit" and not self._ending:
            raise BulkFailed(f"an indexing process stopped: {self._children[msg[1]].error()}")
        return msg

    def _range_written(self, table: runs.Table) -> None:
        self._tables[table["base"]] = table
        self._written += table["count"]
        self._per_doc.lengths_from(self._tables)  # in docnum order, as ranges come in
        self._tell_indexing()

    def _tell_indexing(self) -> None:
        """One rising figure for the workers' part: each paper counts once analysed, once
        written in its range's run, and once merged (the tasks' share); ranges are written
        while others are still analysed, so separate phases would take turns."""
        if self.progress:
            merged = self.total * self._merged // len(self._tasks) if self._tasks else 0
            self.progress(self._added + self._written + merged, 3 * self.total, "indexing")

    # -- finishing ----------------------------------------------------------------------------
    def finish(self) -> None:
        """Wait for the ranges' runs (writing per-document data meanwhile), merge and encode
        them a span of terms at a time, and copy the spans into the segment in term order."""
        if self._fed != self.total:
            raise ValueError(f"{self._fed} documents added, {self.total} announced")
        if self.procs == 1:
            self._write_local()
        else:
            for child in self._children:
                child.send(None)  # no more documents
            while len(self._tables) < sum(hi > lo for lo, hi in self.plan.ranges):
                self._poll(timeout=0.5)
        if not self._per_doc.complete():
            raise BulkFailed("an indexing process did not report its documents")
        tables = [self._tables[lo] for lo, hi in self.plan.ranges if hi > lo]  # none if no papers
        paths = [t["path"] for t in tables]
        ranges = [runs.Run(t) for t in tables]
        self._tasks = merge.tasks(ranges, self.slice_postings)
        if self.procs == 1:
            self._merge_local(ranges)
        else:
            self._merge(paths)
        self._tell_indexing()
        if self.progress:
            self.progress(self.total, self.total, "finishing")
        self._per_doc.finish()
        self.segment.finish(self.total)

    def _write_local(self) -> None:
        """In-process: the range gathered so far, into its run file."""
        local, self._local = self._local, None
        if local is None:
            return
        table = local.write(transport.part_path(self._tmp.name, local.base))
        self._range_written(table)

    def _merge_local(self, ranges: list[runs.Run]) -> None:
        lengths = merge.Lengths(ranges, self.total)
        for task in self._tasks:
            path = transport.chunk_path(self._tmp.name, task.number)
            terms, infos = merge.encode(ranges, task, lengths.of(task.field), path, self._blocklimit)
            self._merged += 1
            stitch.copy_chunk(self.segment, task.field, path, terms, infos)

    def _merge(self, paths: list[str]) -> None:
        """Deal the tasks to the workers (OUTSTANDING each at a time) and copy their chunks
        into the segment in task order as they come in."""
        for child in self._children:
            child.send(("runs", paths, self.total))
        pending = list(reversed(self._tasks))
        held = {child.k: 0 for child in self._children}
        owner: dict[int, int] = {}
        copied = 0
        while copied < len(self._tasks):
            for child in self._children:
                while pending and held[child.k] < OUTSTANDING:
                    task = pending.pop()
                    owner[task.number] = child.k
                    held[child.k] += 1
                    child.send(("task", task))
            while copied in self._chunks_done:
                path, terms, infos = self._chunks_done.pop(copied)
                stitch.copy_chunk(self.segment, self._tasks[copied].field, Path(path), terms, infos)
                copied += 1
            msg = self._poll(timeout=0.5)
            if msg is not None and msg[0] == "chunk":
                held[owner[msg[1]]] -= 1
        self._ending = True
        for child in self._children:
            child.send(None)
            child.stop()

    def close(self) -> None:
        """End the workers (if still running) and remove the temporary files."""
        self._ending = True
        for child in self._children:
            child.stop()
        self._children = []
        with contextlib.suppress(OSError):
            self._tmp.cleanup()
