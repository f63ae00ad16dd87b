"""A whole posting list of NpCodec blocks decoded at once, with no Python per block or posting.

Decoding block by block costs a dozen numpy calls a block (~15 µs: more than its 128 postings'
data). Here the list's directory (codec.DIRECTORY, after its last block) is read as one
structured array; each section's place in every block -- docnum deltas, weights, length bytes,
position counts, position deltas -- follows from it by array arithmetic, and each section is
gathered from all blocks with one fancy index per item width found (1, 2, 4 bytes). With
``wanted`` docnums only the blocks whose id range holds one of them are decoded: an AND reads
the common word's blocks where the rare word's papers are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tui_reader.search.fast.codec import (
    COUNT,
    DIRECTORY,
    HAS_LENGTHS,
    MAGIC,
    POSHEAD,
    V_POSITIONS,
    W_F32,
    W_U16,
    decode,
)
from tui_reader.search.fast.docsets import members
from tui_reader.search.fast.rowgather import picked_deltas, put_rows

WEIGHT_BYTES = np.array([0, 2, 4], np.int64)  # by weight kind: W_ONES, W_U16, W_F32
ITEM_TYPES: dict[int, np.dtype[Any]] = {1: np.dtype("u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}
WEIGHT_TYPES: dict[int, np.dtype[Any]] = {W_U16: np.dtype("<u2"), W_F32: np.dtype("<f4")}
BYTES: dict[int, np.dtype[Any]] = {1: np.dtype("u1")}


@dataclass(frozen=True, slots=True)
class Columns:
    ids: np.ndarray  # int64 docnums, ascending
    weights: np.ndarray  # float64
    lengths: np.ndarray  # uint8 length bytes (0 where a block stores none)
    counts: np.ndarray | None  # int64 positions per posting; None if any block has no positions
    deltas: np.ndarray | None  # int64 position deltas as W3 encodes them, every posting's


def directory(buf: bytes) -> np.ndarray:
    if buf[: len(MAGIC)] != MAGIC:
        raise ValueError("not an array posting list")
    (n,) = COUNT.unpack_from(buf, len(buf) - COUNT.size)
    return np.frombuffer(buf, DIRECTORY, n, len(buf) - COUNT.size - n * DIRECTORY.itemsize)


def spans(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, sizes)])``, without the loop."""
    before = np.cumsum(sizes) - sizes
    return np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - before, sizes)


def gather(raw: np.ndarray, offsets: np.ndarray, items: np.ndarray, widths: np.ndarray,
           out: np.ndarray, starts: np.ndarray, kinds: dict[int, np.dtype]) -> None:  # fmt: skip
    """Block b's ``items[b]`` values of ``kinds[widths[b]]`` at byte ``offsets[b]`` of ``raw``
    (uint8) into ``out[starts[b]:]``; blocks with widths not in ``kinds`` are left as they are."""
    first = int(widths[0]) if widths.size else 0
    one = bool((widths == first).all())
    for w in [first] if one else list(kinds):
        dtype = kinds.get(w)
        if dtype is None:
            continue
        sel = np.arange(widths.size) if one else np.flatnonzero(widths == w)
        rows = put_rows(raw, offsets[sel], items[sel], dtype, out, starts[sel])  # full blocks
        sel = sel[~rows]  # the others (a list's last block), by an index per item
        n = items[sel]
        values = raw[spans(offsets[sel], n * dtype.itemsize)].view(dtype)
        if values.size == out.size:
            out[:] = values
        elif values.size:
            out[spans(starts[sel], n)] = values


def one_block(buf: bytes, entry: np.void, positions: bool = True) -> Columns:
    head = tuple(entry.tolist()[1:12])
    block = decode(buf, int(entry["offset"]), head, raw=False, positions=positions)
    lengths = block.lengths if block.lengths is not None else np.zeros(block.ids.size, np.uint8)
    return Columns(block.ids, block.weights, lengths, block.counts, block.deltas)


def read(buf: bytes, wanted: np.ndarray | None = None, positions: bool = True, only: bool = False) -> Columns:
    """Every posting of the list in ``buf`` (its bytes from the magic on), or with ``wanted``
    (sorted docnums) those of the blocks that may hold one of them; with ``only`` too, just the
    postings of ``wanted``'s papers, whose positions alone are decoded (a phrase's commoner word:
    the blocks of its candidates are most of the list, the candidates a few of its postings).
    Without ``positions`` (a term or an AND scored, no phrase) counts and deltas are None."""
    d = directory(buf)
    if wanted is not None:
        lo = np.searchsorted(wanted, d["first"], "left")
        d = d[np.searchsorted(wanted, d["maxid"], "right") > lo]
    if len(d) == 1:  # a third of the numpy calls: most terms are rare
        cols = one_block(buf, d[0], positions)
        return _selected(cols, members(cols.ids, wanted)) if only and wanted is not None else cols
    raw = np.frombuffer(buf, np.uint8)
    n = d["count"].astype(np.int64)
    total = int(n.sum())
    starts = np.cumsum(n) - n
    idw = d["idw"].astype(np.int64)
    wkind = d["wkind"].astype(np.int64)
    has_lengths = (d["flags"] & HAS_LENGTHS) > 0
    id_at = d["offset"].astype(np.int64)
    w_at = id_at + (n - 1) * idw
    len_at = w_at + n * WEIGHT_BYTES[wkind]
    after = len_at + np.where(has_lengths, n, 0)

    steps = np.zeros(total, np.int64)
    gather(raw, id_at, n - 1, idw, steps, starts + 1, ITEM_TYPES)
    maxids = d["maxid"].astype(np.int64)
    steps[starts] = d["first"].astype(np.int64) - np.concatenate(([0], maxids[:-1]))
    ids = np.cumsum(steps)
    weights = np.ones(total, np.float64)
    gather(raw, w_at, n, wkind, weights, starts, WEIGHT_TYPES)
    lengths = np.zeros(total, np.uint8)
    gather(raw, len_at, n, has_lengths.astype(np.int64), lengths, starts, BYTES)
    keep = members(ids, wanted) if only and wanted is not None else None
    if not positions or not bool((d["vkind"] == V_POSITIONS).all()):
        cols = Columns(ids, weights, lengths, None, None)
        return cols if keep is None else _selected(cols, keep)
    cw = d["cw"].astype(np.int64)
    counts = np.zeros(total, np.int64)
    counts_at = after + POSHEAD.size
    gather(raw, counts_at, n, cw, counts, starts, ITEM_TYPES)
    npos = d["npos"].astype(np.int64)
    deltas_at = counts_at + n * cw
    dw = d["dw"].astype(np.int64)
    if keep is not None:
        return _picked(raw, Columns(ids[keep], weights[keep], lengths[keep], counts, None), keep,
                       (n, npos, deltas_at, dw))  # fmt: skip
    deltas = np.zeros(int(npos.sum()), np.int64)
    gather(raw, deltas_at, npos, dw, deltas, np.cumsum(npos) - npos, ITEM_TYPES)
    return Columns(ids, weights, lengths, counts, deltas)


def _picked(raw: np.ndarray, cols: Columns, keep: np.ndarray, blocks: tuple[np.ndarray, ...]) -> Columns:
    """The position deltas of the postings at ``keep`` only, read byte by byte where each
    block puts them (``cols.counts``: every posting's count in the blocks read)."""
    assert cols.counts is not None
    picked, deltas = picked_deltas(raw, cols.counts, keep, blocks)  # rowgather.py
    return Columns(cols.ids, cols.weights, cols.lengths, picked, deltas)


def _selected(cols: Columns, keep: np.ndarray) -> Columns:
    """The columns of the postings at ``keep`` (indices, ascending)."""
    counts = deltas = None
    if cols.counts is not None and cols.deltas is not None:
        counts = cols.counts[keep]
        deltas = cols.deltas[spans((np.cumsum(cols.counts) - cols.counts)[keep], counts)]
    return Columns(cols.ids[keep], cols.weights[keep], cols.lengths[keep], counts, deltas)
