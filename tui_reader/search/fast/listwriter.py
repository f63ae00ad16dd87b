"""A whole posting list in NpCodec's layout from numpy arrays: for a build that has each term's
postings as arrays (the bulk build's workers) and wants no Python per posting.

``encode_list`` gives the same bytes as Whoosh's writer through ``NpCodec`` (NpPostingsWriter)
for the same postings, and the W3TermInfo Whoosh would store (tests/search/test_codec.py): a
build may write a segment's posting file from arrays and its term table as Whoosh does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from whoosh.codec import whoosh3
from whoosh.util.numeric import byte_to_length

from tui_reader.search.fast.codec import (
    COUNT,
    DIRECTORY,
    ENTRY,
    HEAD,
    LAST,
    MAGIC,
    V_NONE,
    V_POSITIONS,
    encode_block,
    positions_part,
)
from tui_reader.search.fast.columns import directory


@dataclass(frozen=True, slots=True)
class Postings:
    """One term's postings: docnums ascending, weights (float32 values), length bytes, and for a
    ``Positions`` field each posting's position count and all positions one after another."""

    ids: np.ndarray
    weights: np.ndarray
    lengths: np.ndarray
    counts: np.ndarray | None = None
    positions: np.ndarray | None = None


def w3_deltas(counts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Positions as W3 encodes them: each posting's first as it is, then the differences."""
    deltas = np.diff(positions, prepend=0)
    starts = (np.cumsum(counts) - counts)[counts > 0]
    deltas[starts] = positions[starts]
    return deltas


def encode_list(p: Postings, blocklimit: int = 128) -> tuple[bytes, whoosh3.W3TermInfo]:
    """The posting list's bytes (magic, blocks, directory) and its term info, extent unset (the
    caller sets it: ``info.set_extent(offset, len(data))``)."""
    ids = p.ids.astype(np.int64)
    weights = p.weights.astype(np.float32)
    lengths = p.lengths.astype(np.uint8)
    counts = deltas = starts = None
    if p.counts is not None and p.positions is not None:
        counts = p.counts.astype(np.int64)
        deltas = w3_deltas(counts, p.positions.astype(np.int64))
        starts = np.concatenate(([0], np.cumsum(counts)))
    parts, entries = [MAGIC], []
    offset = len(MAGIC)
    totals = Stats()
    for lo in range(0, ids.size, blocklimit):
        hi = min(lo + blocklimit, ids.size)
        bl = lengths[lo:hi]
        nonzero = bl[bl > 0]
        minlen = int(nonzero.min()) if nonzero.size else 0
        stats = (float(weights[lo:hi].max()), minlen, int(bl.max()))
        values = (V_NONE, b"")
        if counts is not None and deltas is not None and starts is not None:
            values = (V_POSITIONS, positions_part(counts[lo:hi], deltas[starts[lo] : starts[hi]]))
        head, data, poshead = encode_block(
            ids[lo:hi], weights[lo:hi], bl.tobytes(), values, stats, hi == ids.size
        )
        parts += [head, data]
        offset += HEAD.size
        entries.append(ENTRY.pack(offset, *HEAD.unpack(head), *poshead))
        offset += len(data)
        totals.add(ids[lo:hi], weights[lo:hi], minlen, stats)
    parts += [*entries, COUNT.pack(len(entries))]
    return b"".join(parts), totals.info()


@dataclass(slots=True)
class Stats:
    """W3TermInfo.add_block's running statistics, in its order of operations (the same floats)."""

    weight: float = 0.0
    df: int = 0
    minlength: int | None = None
    maxlength: int = 0
    maxweight: float = 0.0
    minid: int | None = None
    maxid: int = 0

    def add(self, ids: np.ndarray, weights: np.ndarray, minlen: int, stats: tuple[float, int, int]) -> None:
        maxweight, _, maxlen = stats
        self.weight += sum(weights.tolist())
        self.df += ids.size
        if minlen:
            ml = byte_to_length(minlen)
            self.minlength = ml if self.minlength is None else min(self.minlength, ml)
        self.maxlength = max(self.maxlength, byte_to_length(maxlen))
        self.maxweight = max(self.maxweight, maxweight)
        if self.minid is None:
            self.minid = int(ids[0])
        self.maxid = int(ids[-1])

    def info(self) -> whoosh3.W3TermInfo:
        return whoosh3.W3TermInfo(
            self.weight, self.df, self.minlength, self.maxlength, self.maxweight, self.minid, self.maxid
        )


def join_lists(parts: Sequence[bytes]) -> bytes:
    """One posting list from one term's lists over consecutive docnum ranges (the bulk build's
    workers each encode a range): their blocks one after another (docnums are absolute, so none
    is rewritten), one directory, the LAST flag kept on the final block only. A range's last
    block may be short: Whoosh's reader and the directory allow any block size."""
    out: list[bytes] = [MAGIC]
    entries: list[bytes] = []
    base = len(MAGIC)
    for k, buf in enumerate(parts):
        d = directory(buf).copy()
        end = len(buf) - COUNT.size - len(d) * DIRECTORY.itemsize
        body = bytearray(buf[len(MAGIC) : end])
        if k < len(parts) - 1:
            body[int(d["offset"][-1]) - len(MAGIC) - 1] &= 0xFF ^ LAST  # flags: HEAD's last byte
            d["flags"][-1] &= 0xFF ^ LAST
        d["offset"] += base - len(MAGIC)
        out.append(bytes(body))
        entries.append(d.tobytes())
        base += len(body)
    return b"".join([*out, *entries, COUNT.pack(sum(len(e) // DIRECTORY.itemsize for e in entries))])
