"""Posting blocks in Whoosh 3's layout, written by the bulk build's workers (worker.py).

Only Whoosh's public names are used here (its W3TermInfo, the header magic, the length byte);
what the layout is, and that it still is, is checked by w3's self-check (fast/selfcheck.py) like the rest.
"""

from __future__ import annotations

import pickle
import zlib
from array import array
from itertools import pairwise
from pathlib import Path
from typing import Any

from whoosh.codec import whoosh3
from whoosh.system import pack_int, pack_uint
from whoosh.util.numeric import length_to_byte

MIN_COMPRESS = 256  # pickled blocks shorter than this are stored as they are (Whoosh reads both)
_ONE = pack_uint(1)


def positions_value(poslist: list[int], once: dict[int, bytes]) -> bytes:
    """``Positions.encode``: the count, then the pickled position deltas. Most words occur once
    in a paper, and those values are shared from ``once``."""
    if len(poslist) == 1:
        pos = poslist[0]
        encoded = once.get(pos)
        if encoded is None:
            encoded = once[pos] = _ONE + pickle.dumps(poslist, 2)
        return encoded
    return pack_uint(len(poslist)) + pickle.dumps([poslist[0], *(b - a for a, b in pairwise(poslist))], 2)


frequency_value = pack_uint  # Frequency.encode


class PartWriter:
    """One range's posting lists in the layout of ``W3PostingsWriter._write_block`` (a block's
    pickled ids, weights and values; its info tuple; its length, negative on the last block).
    Small blocks are not compressed, which Whoosh's reader allows (a per-block flag) and which
    is most of the saving on rare words."""

    def __init__(self, path: Path, params: tuple[int, int]) -> None:
        self._out = open(path, "wb", buffering=1 << 20)  # noqa: SIM115 (closed by close())
        self.limit, self.compression = params
        self._fixed: int | None = None

    def start_field(self, fmt: Any) -> None:
        fixed = fmt.fixed_value_size()
        self._fixed = None if fixed is not None and fixed < 0 else fixed

    def term(
        self, docs: array, weights: array, values: list[bytes], lengths: array, base: int
    ) -> tuple[bytes, int]:
        """Write one term's blocks; return its term info and the offset, from the term's start,
        of its last block's length (flipped when another range's blocks follow)."""
        out, limit, fixed = self._out, self.limit, self._fixed
        start = out.tell()
        out.write(whoosh3.WHOOSH3_HEADER_MAGIC)
        n, lo, last = len(docs), 0, 0
        weight, df, tminlength, tmaxlength, tmaxweight = 0.0, 0, None, 0, 0.0
        while lo < n:
            hi = min(lo + limit, n)
            ids = docs[lo:hi]
            ws = weights[lo:hi]
            dls = [x for x in (lengths[d - base] for d in ids) if x]
            minlength = min(dls) if dls else None
            maxlength = max(dls) if dls else 0
            maxweight = max(ws)
            count = hi - lo
            chunk = values[lo:hi]  # fixed sizes are joined; add_posting keeps only non-empty values
            vals: Any = None if fixed == 0 else b"".join(chunk) if fixed else tuple(v for v in chunk if v)
            mini_ids = (ids[0],) if count == 1 else (ids[0], *(b - a for a, b in pairwise(ids)))
            same = ws.count(ws[0]) == count
            mini_weights: Any = None if same and ws[0] == 1.0 else ws[0] if same else tuple(ws)
            # Protocol 2 (Whoosh's) pickles each bytes value through a str: 10x slower; loads() reads any
            data = pickle.dumps((mini_ids, mini_weights, vals), pickle.HIGHEST_PROTOCOL)
            comp = self.compression if len(data) >= MIN_COMPRESS else 0
            if comp:
                data = zlib.compress(data, comp)
            head = pickle.dumps(
                (count, ids[-1], maxweight, comp, length_to_byte(minlength), length_to_byte(maxlength)), 2
            )
            size = len(head) + len(data)
            if hi == n:
                last = out.tell() - start
                size = -size
            out.write(pack_int(size) + head + data)
            # W3TermInfo.add_block, in the same order of operations
            weight += sum(ws)
            df += count
            if minlength is not None:
                tminlength = minlength if tminlength is None else min(tminlength, minlength)
            tmaxlength = max(tmaxlength, maxlength)
            tmaxweight = max(tmaxweight, maxweight)
            lo = hi
        info = whoosh3.W3TermInfo(weight, df, tminlength, tmaxlength, tmaxweight, docs[0], docs[-1])
        info.set_extent(start, out.tell() - start)
        return info.to_bytes(), last

    def close(self) -> None:
        self._out.close()
