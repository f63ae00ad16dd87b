"""A whole posting list of NpCodec blocks decoded at once, not a block at a time.

Decoding block by block costs a dozen numpy calls a block (~15 µs: more than its 128 postings'
data). Here one Python pass reads only the block headers (a ``struct`` unpack and some offsets a
block); then each section -- docnum deltas, weights, length bytes, position counts, position
deltas -- is joined from every block (``bytes.join`` of memoryview slices, in C) and decoded with
one ``frombuffer`` per width found, scattered into place by index arrays when widths differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_reader.search.fast.codec import (
    HAS_LENGTHS,
    HEAD,
    LAST,
    MAGIC,
    POSHEAD,
    V_POSITIONS,
    W_F32,
    W_ONES,
    W_U16,
    WIDTHS,
)  # fmt: skip

WEIGHT_TYPES = {W_ONES: None, W_U16: np.dtype("<u2"), W_F32: np.dtype("<f4")}


@dataclass(frozen=True, slots=True)
class Columns:
    ids: np.ndarray  # int64 docnums, ascending
    weights: np.ndarray  # float64
    lengths: np.ndarray  # uint8 length bytes (0 where a block stores none)
    counts: np.ndarray | None  # int64 positions per posting; None if any block has no positions
    deltas: np.ndarray | None  # int64 position deltas as W3 encodes them, every posting's


@dataclass(slots=True)
class Section:
    """Where one section lies in each block: byte offset, item count, item type (None: absent)."""

    offsets: list[int]
    counts: list[int]
    types: list[np.dtype | None]

    def add(self, offset: int, count: int, dtype: np.dtype | None) -> int:
        self.offsets.append(offset)
        self.counts.append(count)
        self.types.append(dtype)
        return offset + (count * dtype.itemsize if dtype is not None else 0)


def section() -> Section:
    return Section([], [], [])


def fill(buf: memoryview, sec: Section, out: np.ndarray, starts: np.ndarray) -> None:
    """Write block b's items to ``out[starts[b]:]``: one ``frombuffer`` per item type."""
    groups: dict[np.dtype, list[int]] = {}
    for b, dtype in enumerate(sec.types):
        if dtype is not None and sec.counts[b]:
            groups.setdefault(dtype, []).append(b)
    for dtype, blocks in groups.items():
        size = dtype.itemsize
        offs, counts = sec.offsets, sec.counts
        data = b"".join([buf[offs[b] : offs[b] + counts[b] * size] for b in blocks])
        values = np.frombuffer(data, dtype)
        if values.size == out.size:
            out[:] = values
            continue
        n = np.array([counts[b] for b in blocks], np.int64)
        first = starts[np.array(blocks, np.int64)]
        before = np.cumsum(n) - n
        out[np.arange(values.size, dtype=np.int64) + np.repeat(first - before, n)] = values


def read(buf: bytes) -> Columns:
    """Every posting of the list in ``buf`` (its bytes from the magic on)."""
    if buf[: len(MAGIC)] != MAGIC:
        raise ValueError("not an array posting list")
    mv = memoryview(buf)
    firsts: list[int] = []
    maxids: list[int] = []
    ns: list[int] = []
    ids, weights, lengths, counts, deltas = section(), section(), section(), section(), section()
    positions = True
    pos = len(MAGIC)
    while True:
        _size, n, first, maxid, _mw, _mn, _mx, idw, wkind, vkind, flags = head = HEAD.unpack_from(buf, pos)
        firsts.append(first)
        maxids.append(maxid)
        ns.append(n)
        p = ids.add(pos + HEAD.size, n - 1, WIDTHS[idw] if n > 1 else None)
        p = weights.add(p, n, WEIGHT_TYPES[wkind])
        p = lengths.add(p, n, np.dtype("u1") if flags & HAS_LENGTHS else None)
        if vkind == V_POSITIONS:
            total, cw, dw = POSHEAD.unpack_from(buf, p)
            p = counts.add(p + POSHEAD.size, n, WIDTHS[cw])
            deltas.add(p, total, WIDTHS[dw])
        else:
            positions = False
        pos += HEAD.size + head[0]
        if flags & LAST:
            break
    return assemble(mv, firsts, maxids, ns, (ids, weights, lengths, counts, deltas), positions)


def assemble(
    mv: memoryview,
    firsts: list[int],
    maxids: list[int],
    ns: list[int],
    sections: tuple[Section, Section, Section, Section, Section],
    positions: bool,
) -> Columns:
    ids_s, weights_s, lengths_s, counts_s, deltas_s = sections
    n = np.array(ns, np.int64)
    total = int(n.sum())
    starts = np.cumsum(n) - n
    steps = np.zeros(total, np.int64)
    fill(mv, ids_s, steps, starts + 1)
    steps[starts] = np.array(firsts, np.int64) - np.concatenate(([0], np.array(maxids[:-1], np.int64)))
    ids = np.cumsum(steps)
    weights = np.ones(total, np.float64)
    fill(mv, weights_s, weights, starts)
    lengths = np.zeros(total, np.uint8)
    fill(mv, lengths_s, lengths, starts)
    if not positions:
        return Columns(ids, weights, lengths, None, None)
    counts = np.zeros(total, np.int64)
    fill(mv, counts_s, counts, starts)
    nd = np.array(deltas_s.counts, np.int64)
    deltas = np.zeros(int(nd.sum()), np.int64)
    fill(mv, deltas_s, deltas, np.cumsum(nd) - nd)
    return Columns(ids, weights, lengths, counts, deltas)
