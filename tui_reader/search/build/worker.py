"""The worker side of bulk.py: analyse a range of documents, write its posting blocks.

Run as ``python -m tui_reader.search.build.worker``: a header, then chunks of documents until None,
arrive pickled on stdin; progress and the outcome go back as pickled messages on stdout. The
blocks are Whoosh 3's layout, so the parent can stitch them into one segment as they are.
"""

from __future__ import annotations

import contextlib
import pickle
import sys
import traceback
import zlib
from array import array
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from pickle import dumps
from typing import Any

from whoosh import formats
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC, W3Codec, W3TermInfo
from whoosh.filedb.structfile import StructFile
from whoosh.system import pack_int, pack_uint
from whoosh.util.numeric import length_to_byte

Doc = dict[str, Any]

MAGIC_LEN = len(WHOOSH3_HEADER_MAGIC)
_ONE = pack_uint(1)
MIN_COMPRESS = 256  # pickled blocks shorter than this are stored as they are (Whoosh reads both)


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


class Gatherer:
    """One worker's share: the postings of documents base..base+count-1, grouped by term."""

    def __init__(self, schema: Any, base: int) -> None:
        self.schema = schema
        self.base = base
        self.count = 0
        names = [n for n in schema.names() if schema[n].indexed]
        self.index = {n: schema[n].index for n in names}  # fields the fused path does not cover
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
        """``field.index``'s items, made from the fused analyzer's positions and added as they
        are made: the build's innermost loop, so the append below is written out twice."""
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


def part_path(folder: str | Path, base: int) -> Path:
    """Where the postings of the range starting at ``base`` go (then ``.terms``, its table)."""
    return Path(folder) / f"part-{base}.pst"


def main() -> None:
    """A worker process: a header (schema, folder, codec), then chunks of documents until None
    on stdin; progress and outcomes as pickled messages on stdout. A worker may be given several
    ranges one after another: each is written out, and its memory freed, when the next starts."""
    inbox, outbox = sys.stdin.buffer, sys.stdout.buffer

    def send(*msg: Any) -> None:
        pickle.dump(msg, outbox, protocol=pickle.HIGHEST_PROTOCOL)
        outbox.flush()

    def finish(gatherer: Gatherer) -> None:
        base = gatherer.base
        send("lengths", base, gatherer.count, gatherer.lengths)  # the parent writes these meanwhile
        path = part_path(folder, base)
        result = gatherer.write(path, codec, lambda d, t: send("written", d, t))
        with open(f"{path}.terms", "wb") as fh:
            pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        send("done", base)

    try:
        schema_bytes, folder, codec = pickle.load(inbox)
        schema = pickle.loads(schema_bytes)
        gatherer: Gatherer | None = None
        while (chunk := pickle.load(inbox)) is not None:
            first = chunk[0][0]
            if gatherer is None or first != gatherer.base + gatherer.count:
                if gatherer is not None:
                    finish(gatherer)
                gatherer = None  # free one range's postings before gathering the next
                gatherer = Gatherer(schema, first)
            for docnum, doc in chunk:
                gatherer.add(docnum, doc)
            send("added", len(chunk))
        if gatherer is not None:
            finish(gatherer)
    except BaseException:
        with contextlib.suppress(Exception):
            send("error", traceback.format_exc())
        raise


if __name__ == "__main__":
    main()
