"""A whole collection into one Whoosh segment, its postings written by worker processes.

Whoosh's ``IndexWriter`` costs ~30 µs per posting at 87k papers (11M postings): a pool of tuples,
sorted runs on disk, a field-length lookup and a Python call per posting into the block writer.
Its multiprocess writer splits that over two processes but leaves two segments, and merging them
costs twice the build. Here each worker (build/worker.py) analyses a contiguous range of documents,
gathers every term's postings in arrays and writes them in Whoosh 3's block layout, a block at a
time. The parent writes the per-document data (stored fields, field lengths) meanwhile, then
stitches the workers' posting lists, term by term, into the segment of an ordinary
``SegmentWriter``, which commits as usual (compound file, TOC, lock). The segment holds what
Whoosh would have written itself; ``tests/search/test_bulk.py`` compares the two posting by posting.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import groupby, pairwise
from operator import itemgetter
from pathlib import Path
from typing import Any

from whoosh.codec.whoosh3 import W3Codec, W3FieldWriter, W3PerDocWriter, W3TermInfo
from whoosh.system import pack_int, pack_long, pack_ushort, unpack_int, unpack_long

from tui_reader.search.build.worker import MAGIC_LEN, Doc, Gatherer, part_path

Progress = Callable[[int, int, str], None]

CHUNK = 200  # documents per message to a worker
ROUND = 15_000  # documents a worker holds at once: ~100 MB of postings at 87k papers
_STOP = object()  # tells a feeder thread to end
_TERMINFO = W3TermInfo._struct  # flags, weight, doc count, length bytes, max weight, first/last id
_INFO_SIZE = _TERMINFO.size  # then the postings' offset (long) and length (int)


class BulkUnsupported(Exception):
    """The writer or schema is not one this builder reproduces exactly: use Whoosh's writer."""


class BulkFailed(RuntimeError):
    """A worker process could not start or stopped: use Whoosh's writer (slower, in-process)."""


def check_writer(writer: Any) -> None:
    """Raise BulkUnsupported unless the segment writer is the W3 codec this module writes for."""
    codec = getattr(writer, "codec", None)
    fw, pdw = getattr(writer, "fieldwriter", None), getattr(writer, "perdocwriter", None)
    if not isinstance(codec, W3Codec) or not isinstance(fw, W3FieldWriter) \
            or not isinstance(pdw, W3PerDocWriter) or codec._inlinelimit > 1:
        raise BulkUnsupported("not a Whoosh 3 segment writer")
    if not all(hasattr(fw, a) for a in ("_postfile", "_tindex", "_fieldmap")):
        raise BulkUnsupported("unexpected W3FieldWriter internals")
    for name in writer.schema.names():
        field = writer.schema[name]
        if field.vector or field.separate_spelling():
            raise BulkUnsupported(f"field {name!r} has vectors or a spelling field")

def python() -> str:
    """The interpreter for worker processes (tests swap it for one that fails)."""
    return sys.executable

class _Child:
    """One worker process, a thread that feeds it and one that reads its messages into the
    shared queue. A plain subprocess, not multiprocessing: nothing forks the app's threads, and
    the caller's main module is never re-imported. The feeder keeps a few chunks queued so the
    parent goes on preparing documents while a worker's pipe is full (workers never wait)."""

    def __init__(self, k: int, header: tuple[Any, ...], messages: queue.Queue, tmp: Path) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # where tui_reader is importable from
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        self.errfile = tmp / f"worker{k}.err"
        try:
            with open(self.errfile, "wb") as err:
                self.proc = subprocess.Popen(
                    [python(), "-m", "tui_reader.search.build.worker"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err, env=env, close_fds=True)
        except OSError as exc:
            raise BulkFailed(f"could not start an indexing process ({exc})") from exc
        self.k = k
        self.broken = False
        self._outgoing: queue.Queue = queue.Queue(maxsize=3)
        self.reader = threading.Thread(target=self._read, args=(messages,), daemon=True,
                                       name=f"tui-reader-index-{k}")
        self.feeder = threading.Thread(target=self._feed, daemon=True, name=f"tui-reader-feed-{k}")
        self.reader.start()
        self.feeder.start()
        self.send(header)

    def send(self, obj: Any) -> None:
        while True:
            if self.broken:
                raise BulkFailed(f"an indexing process stopped: {self.error()}")
            try:
                self._outgoing.put(obj, timeout=0.2)
                return
            except queue.Full:
                continue

    def _feed(self) -> None:
        assert self.proc.stdin is not None
        try:
            while (obj := self._outgoing.get()) is not _STOP:
                pickle.dump(obj, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):  # the worker ended (or was stopped)
            self.broken = True

    def _read(self, messages: queue.Queue) -> None:
        assert self.proc.stdout is not None
        try:
            while True:
                messages.put(pickle.load(self.proc.stdout))
        except Exception:  # EOF: the process ended; the parent checks how
            messages.put(("exit", self.k))

    def error(self) -> str:
        try:
            text = self.errfile.read_text("utf-8", "replace").strip()
        except OSError:
            text = ""
        code = self.proc.poll()
        return text.splitlines()[-1] if text else f"exit code {code}"

    def stop(self) -> None:
        with contextlib.suppress(queue.Full):
            self._outgoing.put_nowait(_STOP)
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                pipe.close()  # type: ignore[union-attr]


# -- the parent ---------------------------------------------------------------------------------
class BulkBuild:
    """Feed documents to ``add`` in ``order()``; ``finish`` completes the writer's segment (the
    caller commits it). ``procs`` > 1 analyses in that many processes. The documents are cut into
    contiguous ranges of about ROUND, dealt to the workers in turn, so a worker's memory holds one
    range's postings, whatever the size of the collection."""

    def __init__(self, writer: Any, total: int, procs: int = 1, progress: Progress | None = None,
                 tempdir: Path | None = None) -> None:
        check_writer(writer)
        self.writer = writer
        self.total = total
        self.procs = max(1, min(procs, total // CHUNK or 1))
        self.progress = progress
        self._tmp = tempfile.TemporaryDirectory(prefix="tui-reader-bulk-", dir=tempdir)
        self._stored: list[dict[str, Any] | None] = [None] * total
        self._present: list[tuple[str, ...]] = [()] * total
        self._shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
        ranges = self.procs * max(1, -(-total // (self.procs * ROUND))) if self.procs > 1 else 1
        ranges = min(ranges, max(1, total // CHUNK))
        self._bounds = [total * k // ranges for k in range(ranges + 1)]
        self._ranges = list(pairwise(self._bounds))
        self._chunks: list[list[tuple[int, Doc]]] = [[] for _ in self._ranges]
        self._fed = 0
        self._added = 0
        self._children: list[_Child] = []
        self._messages: queue.Queue = queue.Queue()
        self._local: Gatherer | None = None
        self._done: set[int] = set()  # ranges (by first docnum) written by their worker
        self._lengths: dict[int, tuple[int, dict[str, array]]] = {}  # ranges waiting their turn
        self._per_doc_done = 0  # documents whose stored fields and lengths are written
        schema = writer.schema
        self._stored_names = {n for n in schema.names() if schema[n].stored}
        if self.procs == 1:
            self._local = Gatherer(schema, 0)
        else:
            blob = pickle.dumps(schema)
            try:
                for k in range(self.procs):
                    header = (blob, self._tmp.name, writer.codec)
                    self._children.append(_Child(k, header, self._messages, Path(self._tmp.name)))
            except BaseException:
                self.close()
                raise

    def _part(self, base: int) -> Path:
        return part_path(self._tmp.name, base)

    # -- feeding ------------------------------------------------------------------------------
    def add(self, docnum: int, doc: Doc) -> None:
        """Documents come in ``order()``: each worker's range ascending, the ranges interleaved."""
        self._fed += 1
        names = tuple(sorted(n for n, v in doc.items() if v is not None and not n.startswith("_")))
        self._present[docnum] = self._shapes.setdefault(names, names)
        stored = {n: doc[n] for n in names if n in self._stored_names}
        self._stored[docnum] = stored or None
        if self._local is not None:
            self._local.add(docnum, doc)
            self._added += 1
            return
        r = bisect_right(self._bounds, docnum) - 1
        self._chunks[r].append((docnum, doc))
        if len(self._chunks[r]) >= CHUNK or docnum == self._ranges[r][1] - 1:
            self._send(r)

    def order(self) -> Iterator[int]:
        """The docnums in the order to feed them: a round of ranges at a time, one per worker,
        their chunks interleaved so that every worker is busy."""
        for first in range(0, len(self._ranges), self.procs):
            active = self._ranges[first:first + self.procs]
            starts = [lo for lo, _ in active]
            while any(s < hi for s, (_, hi) in zip(starts, active, strict=True)):
                for k, (_, hi) in enumerate(active):
                    stop = min(starts[k] + CHUNK, hi)
                    yield from range(starts[k], stop)
                    starts[k] = stop

    def _send(self, r: int) -> None:
        chunk, self._chunks[r] = self._chunks[r], []
        self._children[r % self.procs].send(chunk)  # blocks while the worker is busy
        while self._poll() is not None:
            pass

    def _poll(self, timeout: float = 0.0) -> tuple | None:
        """Take a worker message: progress counts, errors and exits (raised here), 'done'."""
        try:
            msg = self._messages.get(timeout=timeout) if timeout else self._messages.get_nowait()
        except queue.Empty:
            return None
        if msg[0] == "added":
            self._added += msg[1]
            if self.progress:
                self.progress(self._added, self.total, "indexing")
        elif msg[0] == "written":
            if self.progress:
                self.progress(msg[1], msg[2], "writing the index")
        elif msg[0] == "lengths":
            self._lengths[msg[1]] = (msg[2], msg[3])
            while self._per_doc_done in self._lengths:  # per-document data goes in docnum order
                count, part_lengths = self._lengths.pop(self._per_doc_done)
                self._write_per_doc(self._per_doc_done, count, part_lengths)
                self._per_doc_done += count
        elif msg[0] == "done":
            self._done.add(msg[1])
        elif msg[0] == "error":
            raise BulkFailed(f"an indexing process failed:\n{msg[1]}")
        elif msg[0] == "exit" and any(self._ranges[r][0] not in self._done
                                      for r in range(msg[1], len(self._ranges), self.procs)):
            raise BulkFailed(f"an indexing process stopped: {self._children[msg[1]].error()}")
        return msg  # type: ignore[no-any-return]

    # -- finishing ----------------------------------------------------------------------------
    def finish(self) -> None:
        """Wait for the workers, writing per-document data meanwhile, then stitch the postings."""
        if self._fed != self.total:
            raise ValueError(f"{self._fed} documents added, {self.total} announced")
        parts = self._local_part() if self._local is not None else self._collect()
        if self.progress:
            self.progress(self.total, self.total, "finishing")
        _stitch(self.writer.fieldwriter, parts)
        self.writer.docnum = self.total
        self.writer._added = True

    def _local_part(self) -> list[dict[str, Any]]:
        assert self._local is not None
        if self.progress:
            self.progress(self.total, self.total, "writing the index")
        local, self._local = self._local, None
        self._write_per_doc(0, local.count, local.lengths)
        return [local.write(self._part(0), self.writer.codec)]

    def _collect(self) -> list[dict[str, Any]]:
        for child in self._children:
            child.send(None)
        while len(self._done) < len(self._ranges):
            self._poll(timeout=0.5)
        if self._per_doc_done != self.total:
            raise BulkFailed("an indexing process did not report its documents")
        parts = []
        for lo, _ in self._ranges:  # in docnum order: the stitch appends blocks in this order
            with open(f"{self._part(lo)}.terms", "rb") as fh:
                parts.append(pickle.load(fh))
        for child in self._children:
            child.stop()
        return parts

    def _write_per_doc(self, base: int, count: int, lengths: dict[str, array]) -> None:
        """Stored fields and field lengths of documents base..base+count-1, as add_document
        would have written them."""
        schema, pdw = self.writer.schema, self.writer.perdocwriter
        fields = {n: schema[n] for n in schema.names()}
        for j in range(count):
            docnum = base + j
            stored = self._stored[docnum] or {}
            pdw.start_doc(docnum)
            for name in self._present[docnum]:
                field = fields[name]
                pdw.add_field(name, field, stored.get(name), lengths[name][j] if name in lengths else 0)
                column = field.column_type
                if column and name in stored:
                    pdw.add_column_value(name, column, field.to_column_value(stored[name]))
            pdw.finish_doc()

    def close(self) -> None:
        """End the workers (if still running) and remove the temporary files."""
        for child in self._children:
            child.stop()
        self._children = []
        with contextlib.suppress(OSError):
            self._tmp.cleanup()


def _stitch(fw: W3FieldWriter, parts: list[dict[str, Any]]) -> None:
    """Copy each term's blocks from the workers' files into the segment, in term order; a term
    found in several ranges gets their blocks back to back (docnums ascend: ranges are in order)
    and the sum of their statistics, combined at the level of W3TermInfo's bytes."""
    postfile, tindex, fieldmap = fw._postfile, fw._tindex, fw._fieldmap
    offset = postfile.tell()
    # Workers write fields and terms in sorted order, the order read here: each file is read
    # front to back, never held whole in memory.
    files = [open(p["path"], "rb", buffering=1 << 20) for p in parts]  # noqa: SIM115 (closed below)
    where = [0] * len(parts)
    try:
        for name in sorted({n for p in parts for n in p["fields"]}):
            prefix = pack_ushort(fieldmap.setdefault(name, len(fieldmap)))
            tables = {k: p["fields"][name] for k, p in enumerate(parts) if name in p["fields"]}
            streams = [_keyed(table[0], k) for k, table in tables.items()]
            for btext, group in groupby(heapq.merge(*streams), key=itemgetter(0)):
                entries = list(group)
                start = offset
                stats: list[Any] = []
                for m, (_, k, j) in enumerate(entries):
                    _terms, infos, lasts = tables[k]
                    raw = infos[j]
                    (at,) = unpack_long(raw[_INFO_SIZE: _INFO_SIZE + 8])
                    (length,) = unpack_int(raw[_INFO_SIZE + 8: _INFO_SIZE + 12])
                    if at != where[k]:
                        raise BulkFailed(f"postings of {name}:{btext!r} out of order")
                    where[k] += length
                    data = files[k].read(length)
                    if len(entries) == 1:  # one range's term: copy it, move its offset
                        postfile.write(data)
                        offset += length
                        tindex.add(prefix + btext, raw[:_INFO_SIZE] + pack_long(start) + raw[_INFO_SIZE + 8:])
                        break
                    if m < len(entries) - 1:  # another range's blocks follow: not the last block
                        data = bytearray(data)
                        block = lasts[j]
                        (size,) = unpack_int(bytes(data[block: block + 4]))
                        data[block: block + 4] = pack_int(abs(size))
                    if m:
                        data = data[MAGIC_LEN:]
                    postfile.write(bytes(data))
                    offset += len(data)
                    stats.append(_TERMINFO.unpack_from(raw))
                else:
                    tindex.add(prefix + btext, _combined(stats) + pack_long(start) + pack_int(offset - start))
    finally:
        for fh in files:
            fh.close()


def _keyed(terms: list[bytes], k: int) -> Iterator[tuple[bytes, int, int]]:
    return ((t, k, j) for j, t in enumerate(terms))


def _combined(stats: list[tuple]) -> bytes:
    """W3TermInfo's header for posting lists laid end to end (docnums ascending): weights and
    document counts add up, length bytes and the weight take min/max, ids the first and last."""
    return _TERMINFO.pack(0, sum(s[1] for s in stats), sum(s[2] for s in stats),
                          min(s[3] for s in stats), max(s[4] for s in stats),
                          max(s[5] for s in stats), stats[0][6], stats[-1][7])
