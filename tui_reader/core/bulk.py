"""A whole collection into one Whoosh segment, its postings written by worker processes.

Whoosh's ``IndexWriter`` costs ~30 µs per posting at 87k papers (11M postings): a pool of tuples,
sorted runs on disk, a field-length lookup and a Python call per posting into the block writer.
Its multiprocess writer splits that over two processes but leaves two segments, and merging them
costs twice the build. Here each worker analyses a contiguous range of documents, gathers every
term's postings in arrays and writes them with Whoosh's own W3 block writer, a block at a time.
The parent writes the per-document data (stored fields, field lengths) and stitches the workers'
posting lists, term by term, into the segment of an ordinary ``SegmentWriter``, which then commits
as usual (compound file, TOC, lock). The segment holds what Whoosh would have written itself;
``tests/core/test_bulk.py`` compares the two posting by posting.
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
import traceback
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import groupby, pairwise
from operator import itemgetter
from pathlib import Path
from pickle import dumps
from typing import Any

from whoosh import formats
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC, W3Codec, W3FieldWriter, W3PerDocWriter, W3TermInfo
from whoosh.filedb.structfile import StructFile
from whoosh.system import pack_int, pack_long, pack_uint, pack_ushort, unpack_int
from whoosh.util.numeric import length_to_byte

Doc = dict[str, Any]
Progress = Callable[[int, int, str], None]
Items = Iterable[tuple[bytes, int, float, bytes]]

CHUNK = 200  # documents per message to a worker
_MAGIC_LEN = 4
_ONE = pack_uint(1)
_INFO_SIZE = W3TermInfo._struct.size  # then the postings' offset (long) and length (int)
MIN_COMPRESS = 256  # pickled blocks shorter than this are stored as they are (Whoosh reads both)


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


# -- analysis (in the workers) ------------------------------------------------------------------
def _fused(field: Any) -> Callable[[str], dict[str, list[int]]] | None:
    """The fused analyzer's ``positions`` when it alone decides the field's postings."""
    positions = getattr(field.analyzer, "positions", None)
    if type(field.format) in (formats.Positions, formats.Frequency) and field.format.field_boost == 1.0:
        return positions
    return None


def _positions_value(poslist: list[int], once: dict[int, bytes]) -> bytes:
    """``Positions.encode``: the count, then the pickled position deltas. Most words occur once
    in a paper, and those values are shared from ``once``."""
    if len(poslist) == 1:
        pos = poslist[0]
        encoded = once.get(pos)
        if encoded is None:
            encoded = once[pos] = _ONE + dumps(poslist, 2)
        return encoded
    return pack_uint(len(poslist)) + dumps([poslist[0], *(b - a for a, b in pairwise(poslist))], 2)


def _indexer(field: Any) -> Callable[[Any], Items]:
    """``field.index``, or the same items made in one pass from a fused analyzer's positions."""
    positions = _fused(field)
    if positions is None:
        return field.index  # type: ignore[no-any-return]
    once: dict[int, bytes] = {}
    encode = (lambda p: pack_uint(len(p))) if type(field.format) is formats.Frequency \
        else (lambda p: _positions_value(p, once))
    return lambda value: [(w.encode("utf-8"), len(p), float(len(p)), encode(p))
                          for w, p in positions(value).items()]


class Gatherer:
    """One worker's share: the postings of documents base..base+count-1, grouped by term."""

    def __init__(self, schema: Any, base: int) -> None:
        self.schema = schema
        self.base = base
        self.count = 0
        names = [n for n in schema.names() if schema[n].indexed]
        self.index = {n: _indexer(schema[n]) for n in names}
        self.fused = {n: (f, type(schema[n].format) is formats.Positions)
                      for n in names if (f := _fused(schema[n])) is not None}
        self.scorable = {n for n in names if schema[n].scorable}
        # term -> (docnums, weights, values); values are mostly shared (see _positions_value)
        self.postings: dict[str, dict[bytes, tuple[array, array, list[bytes]]]] = {n: {} for n in names}
        self.lengths = {n: array("I") for n in names}
        self._once: dict[int, bytes] = {}
        self._floats = [float(n) for n in range(256)]

    def add(self, docnum: int, doc: Doc) -> None:
        if docnum != self.base + self.count:
            raise ValueError(f"document {docnum} out of order (expected {self.base + self.count})")
        self.count += 1
        for lengths in self.lengths.values():
            lengths.append(0)
        for name, value in doc.items():
            if value is None or name.startswith("_") or name not in self.index:
                continue
            post = self.postings[name]
            fused = self.fused.get(name)
            if fused is not None and isinstance(value, str):
                length = self._add_fused(post, docnum, fused[0](value), fused[1])
            else:
                length = 0
                for btext, freq, weight, vbytes in self.index[name](value):
                    entry = post.get(btext)
                    if entry is None:
                        post[btext] = (array("I", (docnum,)), array("f", (weight,)), [vbytes])
                    else:
                        entry[0].append(docnum)
                        entry[1].append(weight)
                        entry[2].append(vbytes)
                    length += freq
            if name in self.scorable:
                self.lengths[name][-1] = length

    def _add_fused(self, post: dict[bytes, tuple[array, array, list[bytes]]], docnum: int,
                   positions: dict[str, list[int]], with_positions: bool) -> int:
        """``_indexer``'s items, added as they are made: the build's innermost loop."""
        once, floats = self._once, self._floats
        length = 0
        for word, poslist in positions.items():
            n = len(poslist)
            vbytes = _positions_value(poslist, once) if with_positions else pack_uint(n)
            weight = floats[n] if n < 256 else float(n)
            btext = word.encode("utf-8")
            entry = post.get(btext)
            if entry is None:
                post[btext] = (array("I", (docnum,)), array("f", (weight,)), [vbytes])
            else:
                entry[0].append(docnum)
                entry[1].append(weight)
                entry[2].append(vbytes)
            length += n
        return length

    def write(self, path: Path, codec: W3Codec, report: Callable[[int, int], None] | None = None
              ) -> dict[str, Any]:
        """Write every posting list to ``path``; return the term table the parent stitches."""
        total = sum(len(p) for p in self.postings.values())
        done = 0
        out = StructFile(open(path, "wb", buffering=1 << 20))  # noqa: SIM115 (StructFile closes it)
        fields: dict[str, tuple[list[bytes], list[bytes], array]] = {}
        try:
            for name in sorted(self.postings):
                post = self.postings.pop(name)  # free each field's arrays once it is written
                terms = sorted(post)
                infos: list[bytes] = []
                lasts = array("Q")
                fixed = self.schema[name].format.fixed_value_size()
                fixed = None if fixed is not None and fixed < 0 else fixed
                lengths = self.lengths[name]
                for btext in terms:
                    info, last = _write_term(out, fixed, post.pop(btext), lengths, self.base,
                                             codec._blocklimit, codec._compression)
                    infos.append(info)
                    lasts.append(last)
                    done += 1
                    if report and done % 20000 == 0:
                        report(done, total)
                fields[name] = (terms, infos, lasts)
        finally:
            out.close()
        return {"base": self.base, "count": self.count, "fields": fields, "path": str(path)}


def _write_term(out: StructFile, fixed: int | None, entry: tuple[array, array, list[bytes]],
                lengths: array, base: int, limit: int, compression: int) -> tuple[bytes, int]:
    """One term's posting blocks, in the layout of ``W3PostingsWriter._write_block`` (a block's
    pickled ids, weights and values; its info tuple; its length, negative on the last block).
    Small blocks are not compressed, which Whoosh's reader allows (a per-block flag) and which
    is most of the saving on rare words. Returns the term info and the offset, from the term's
    start, of its last block's length (flipped when another worker's blocks follow)."""
    docs, weights, values = entry
    info = W3TermInfo()
    info._offset = start = out.tell()
    out.write(WHOOSH3_HEADER_MAGIC)
    n, lo, last = len(docs), 0, 0
    while lo < n:
        hi = min(lo + limit, n)
        ids = docs[lo:hi]
        ws = weights[lo:hi]
        dls = [x for x in (lengths[d - base] for d in ids) if x]
        minlength = min(dls) if dls else None
        maxlength = max(dls) if dls else 0
        maxweight = max(ws)
        count = hi - lo
        if fixed == 0:
            vals: Any = None
        elif fixed is not None:
            vals = b"".join(values[lo:hi])
        else:  # add_posting keeps only non-empty values
            vals = tuple(v for v in values[lo:hi] if v)
        mini_ids = (ids[0],) if count == 1 else (ids[0], *(b - a for a, b in pairwise(ids)))
        if ws.count(1.0) == count:
            mini_weights: Any = None
        elif ws.count(ws[0]) == count:
            mini_weights = ws[0]
        else:
            mini_weights = tuple(ws)
        # Protocol 2 (Whoosh's) pickles each bytes value through a str: 10x slower; loads() reads any
        data = dumps((mini_ids, mini_weights, vals), pickle.HIGHEST_PROTOCOL)
        comp = compression if len(data) >= MIN_COMPRESS else 0
        if comp:
            data = zlib.compress(data, comp)
        head = dumps((count, ids[-1], maxweight, comp, length_to_byte(minlength),
                      length_to_byte(maxlength)), 2)
        size = len(head) + len(data)
        if hi == n:
            last = out.tell() - start
            size = -size
        out.write(pack_int(size) + head + data)
        # W3TermInfo.add_block, in the same order of operations
        info._weight += sum(ws)
        info._df += count
        info._minlength = minlength if info._minlength is None else (
            info._minlength if minlength is None else min(info._minlength, minlength))
        info._maxlength = max(info._maxlength, maxlength)
        info._maxweight = max(info._maxweight, maxweight)
        if info._minid is None:
            info._minid = ids[0]
        info._maxid = ids[-1]
        lo = hi
    info._length = out.tell() - start
    return info.to_bytes(), last


def python() -> str:
    """The interpreter for worker processes (tests swap it for one that fails)."""
    return sys.executable


def _child_main() -> None:
    """A worker process (``python -m tui_reader.core.bulk``): a header, then chunks of documents
    until None, on stdin; progress and the outcome as pickled messages on stdout."""
    inbox, outbox = sys.stdin.buffer, sys.stdout.buffer

    def send(*msg: Any) -> None:
        pickle.dump(msg, outbox, protocol=pickle.HIGHEST_PROTOCOL)
        outbox.flush()

    try:
        schema_bytes, base, path, codec = pickle.load(inbox)
        gatherer = Gatherer(pickle.loads(schema_bytes), base)
        while (chunk := pickle.load(inbox)) is not None:
            for docnum, doc in chunk:
                gatherer.add(docnum, doc)
            send("added", len(chunk))
        send("lengths", base, gatherer.count, gatherer.lengths)  # the parent writes these meanwhile
        result = gatherer.write(Path(path), codec, lambda d, t: send("written", d, t))
        with open(path + ".terms", "wb") as fh:
            pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        send("done", base)
    except BaseException:
        with contextlib.suppress(Exception):
            send("error", traceback.format_exc())
        raise


class _Child:
    """One worker process and the thread that reads its messages into the shared queue. A plain
    subprocess, not multiprocessing: nothing forks the app's threads, and the caller's main
    module is never re-imported."""

    def __init__(self, k: int, header: tuple[Any, ...], messages: queue.Queue, tmp: Path) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # where tui_reader is importable from
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        self.errfile = tmp / f"worker{k}.err"
        try:
            with open(self.errfile, "wb") as err:
                self.proc = subprocess.Popen(
                    [python(), "-m", "tui_reader.core.bulk"], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err, env=env, close_fds=True)
        except OSError as exc:
            raise BulkFailed(f"could not start an indexing process ({exc})") from exc
        self.k = k
        self.send(header)
        self.reader = threading.Thread(target=self._read, args=(messages,), daemon=True,
                                       name=f"tui-reader-index-{k}")
        self.reader.start()

    def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        try:
            pickle.dump(obj, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise BulkFailed(f"an indexing process stopped: {self.error()}") from exc

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
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                pipe.close()  # type: ignore[union-attr]


# -- the parent ---------------------------------------------------------------------------------
class BulkBuild:
    """Feed documents in docnum order to ``add``; ``finish`` completes the writer's segment (the
    caller commits it). ``procs`` > 1 analyses in that many processes, each a contiguous range."""

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
        bounds = [total * k // self.procs for k in range(self.procs + 1)]
        self._ranges = list(pairwise(bounds))
        self._chunks: list[list[tuple[int, Doc]]] = [[] for _ in self._ranges]
        self._fed = 0
        self._added = 0
        self._children: list[_Child] = []
        self._messages: queue.Queue = queue.Queue()
        self._local: Gatherer | None = None
        self._done: set[int] = set()
        schema = writer.schema
        self._stored_names = {n for n in schema.names() if schema[n].stored}
        if self.procs == 1:
            self._local = Gatherer(schema, 0)
        else:
            blob = pickle.dumps(schema)
            try:
                for k, (lo, _) in enumerate(self._ranges):
                    header = (blob, lo, str(self._part(k)), writer.codec)
                    self._children.append(_Child(k, header, self._messages, Path(self._tmp.name)))
            except BaseException:
                self.close()
                raise

    def _part(self, k: int) -> Path:
        return Path(self._tmp.name) / f"part{k}.pst"

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
        k = next(i for i, (lo, hi) in enumerate(self._ranges) if lo <= docnum < hi)
        self._chunks[k].append((docnum, doc))
        if len(self._chunks[k]) >= CHUNK or docnum == self._ranges[k][1] - 1:
            self._send(k)

    def order(self) -> Iterator[int]:
        """The docnums in the order to feed them: every worker is busy from the start."""
        starts = [lo for lo, _ in self._ranges]
        while any(s < hi for s, (_, hi) in zip(starts, self._ranges, strict=True)):
            for k, (_, hi) in enumerate(self._ranges):
                stop = min(starts[k] + CHUNK, hi)
                yield from range(starts[k], stop)
                starts[k] = stop

    def _send(self, k: int) -> None:
        chunk, self._chunks[k] = self._chunks[k], []
        self._children[k].send(chunk)  # blocks while the worker is busy: the pipe is the queue
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
        elif msg[0] == "error":
            raise BulkFailed(f"an indexing process failed:\n{msg[1]}")
        elif msg[0] == "exit" and msg[1] not in self._done:
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
        lengths: dict[int, tuple[int, dict[str, array]]] = {}
        next_base = 0
        while len(self._done) < len(self._children):
            msg = self._poll(timeout=0.5)
            if msg is None:
                continue
            if msg[0] == "written":
                if self.progress:
                    self.progress(msg[1], msg[2], "writing the index")
            elif msg[0] == "lengths":
                lengths[msg[1]] = (msg[2], msg[3])
                while next_base in lengths:  # per-document data goes in docnum order
                    count, part_lengths = lengths.pop(next_base)
                    self._write_per_doc(next_base, count, part_lengths)
                    next_base += count
            elif msg[0] == "done":
                self._done.add(next(k for k, (lo, _) in enumerate(self._ranges) if lo == msg[1]))
        if next_base != self.total:
            raise BulkFailed("an indexing process did not report its documents")
        parts = []
        for k in range(len(self._children)):
            with open(str(self._part(k)) + ".terms", "rb") as fh:
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
    found by several workers gets their blocks back to back (docnums ascend: ranges are in order)."""
    postfile, tindex, fieldmap = fw._postfile, fw._tindex, fw._fieldmap
    # Workers write fields and terms in sorted order, the order read here: each file is read
    # front to back, never held whole in memory.
    files = [open(p["path"], "rb", buffering=1 << 20) for p in parts]  # noqa: SIM115 (closed below)
    try:
        names = sorted({n for p in parts for n in p["fields"]})
        for name in names:
            fid = fieldmap.setdefault(name, len(fieldmap))
            prefix = pack_ushort(fid)
            tables = [(k, p["fields"][name]) for k, p in enumerate(parts) if name in p["fields"]]
            streams = [_keyed(table[0], k) for k, table in tables]
            by_part = dict(tables)
            for btext, group in groupby(heapq.merge(*streams), key=itemgetter(0)):
                entries = list(group)
                offset = postfile.tell()
                if len(entries) == 1:  # one worker's term: copy it, move its offset
                    _, k, j = entries[0]
                    raw = by_part[k][1][j]
                    length = unpack_int(raw[_INFO_SIZE + 8: _INFO_SIZE + 12])[0]
                    postfile.write(files[k].read(length))
                    tindex.add(prefix + btext, raw[:_INFO_SIZE] + pack_long(offset) + raw[_INFO_SIZE + 8:])
                    continue
                merged: W3TermInfo | None = None
                for m, (_, k, j) in enumerate(entries):
                    _terms, infos, lasts = by_part[k]
                    info = W3TermInfo.from_bytes(infos[j])
                    length = info._length[0] if isinstance(info._length, tuple) else info._length
                    if files[k].tell() != info._offset:
                        raise BulkFailed(f"postings of {name}:{btext!r} out of order")
                    data = files[k].read(length)
                    if m < len(entries) - 1:  # another worker's blocks follow: not the last block
                        data = bytearray(data)
                        at = lasts[j]
                        (size,) = unpack_int(bytes(data[at: at + 4]))
                        data[at: at + 4] = pack_int(abs(size))
                    if m:
                        data = data[_MAGIC_LEN:]
                    postfile.write(bytes(data))
                    merged = info if merged is None else _combine(merged, info)
                assert merged is not None
                merged._offset = offset
                merged._length = postfile.tell() - offset
                tindex.add(prefix + btext, merged.to_bytes())
    finally:
        for fh in files:
            fh.close()


def _keyed(terms: list[bytes], k: int) -> Iterator[tuple[bytes, int, int]]:
    return ((t, k, j) for j, t in enumerate(terms))


def _combine(a: W3TermInfo, b: W3TermInfo) -> W3TermInfo:
    """Term statistics of a posting list followed by another with higher docnums."""
    a._weight += b._weight
    a._df += b._df
    a._minlength = b._minlength if a._minlength is None else (
        a._minlength if b._minlength is None else min(a._minlength, b._minlength))
    a._maxlength = max(a._maxlength, b._maxlength)
    a._maxweight = max(a._maxweight, b._maxweight)
    a._maxid = b._maxid
    return a


if __name__ == "__main__":
    _child_main()
