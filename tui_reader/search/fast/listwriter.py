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
    HAS_LENGTHS,
    HEAD,
    LAST,
    MAGIC,
    POSHEAD,
    RAWHEAD,
    V_NONE,
    V_POSITIONS,
    V_RAW,
    W_F32,
    W_ONES,
    W_U16,
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


# -- many posting lists at once --------------------------------------------------------------------
HEAD_DTYPE = np.dtype(
    [("size", "<u4"), ("count", "<u4"), ("first", "<u4"), ("maxid", "<u4"), ("maxweight", "<f8"),
     ("minlen", "u1"), ("maxlen", "u1"), ("idw", "u1"), ("wkind", "u1"), ("vkind", "u1"), ("flags", "u1")]
)  # fmt: skip
POSHEAD_DTYPE = np.dtype([("npos", "<u4"), ("cw", "u1"), ("dw", "u1")])
RAWHEAD_DTYPE = np.dtype([("total", "<u4"), ("lw", "u1")])
# W3TermInfo.to_bytes for a list that is not inlined: its struct, then the extent (pack_long, pack_int)
TERMINFO_DTYPE = np.dtype(
    [("flags", "u1"), ("weight", ">f4"), ("df", ">u4"), ("minlen", "u1"), ("maxlen", "u1"),
     ("maxweight", ">f4"), ("minid", ">u4"), ("maxid", ">u4"), ("offset", ">i8"), ("length", ">i4")]
)  # fmt: skip
assert HEAD_DTYPE.itemsize == HEAD.size and POSHEAD_DTYPE.itemsize == 6 and RAWHEAD_DTYPE.itemsize == 5
assert TERMINFO_DTYPE.itemsize == 35  # struct "!BfIBBfII", then "!q" and "!i"


@dataclass(frozen=True, slots=True)
class Lists:
    """Many terms' postings one term after another (``df`` postings each, docnums ascending
    within a term). ``kind`` says the values: V_NONE, V_POSITIONS (``counts`` and the
    ``positions`` of every posting in turn) or V_RAW for a ``Frequency`` field (``counts``:
    each value is ``pack_uint(count)``)."""

    df: np.ndarray
    ids: np.ndarray
    weights: np.ndarray  # float32
    lengths: np.ndarray  # length bytes
    kind: int = V_NONE
    counts: np.ndarray | None = None
    positions: np.ndarray | None = None


def _widths(top: np.ndarray) -> np.ndarray:
    """``width`` of each value: 1, 2 or 4 bytes."""
    return np.where(top < 1 << 8, 1, np.where(top < 1 << 16, 2, 4)).astype(np.int64)


def _put(out: np.ndarray, at: np.ndarray, values: np.ndarray, widths: np.ndarray) -> None:
    """Each value little-endian in its width (1, 2 or 4 bytes) at its offset of ``out``."""
    for w, dtype in ((1, "u1"), (2, "<u2"), (4, "<u4")):
        sel = widths == w
        n = int(np.count_nonzero(sel))
        if not n:
            continue
        where, these = (at, values) if n == sel.size else (at[sel], values[sel])
        if w == 1:
            out[where] = these
        else:
            _columns(out, where, these.astype(dtype).view(np.uint8).reshape(-1, w))


def _rows(out: np.ndarray, at: np.ndarray, rows: np.ndarray) -> None:
    """Records of a structured array, each at its offset of ``out``."""
    _columns(out, at, rows.view(np.uint8).reshape(rows.size, rows.dtype.itemsize))


def _columns(out: np.ndarray, at: np.ndarray, raw: np.ndarray) -> None:
    """Row i of ``raw`` (uint8) at ``out[at[i]:]``, a byte column at a time: an index per byte
    of every row would take 8 bytes per byte written (a list of one posting is ~80)."""
    for j in range(raw.shape[1]):
        out[at + j] = raw[:, j]


def _starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64) if sizes.size else sizes


def encode_lists(p: Lists, blocklimit: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """Every term's list as ``encode_list`` writes it, one after another, with numpy (no Python
    per posting, block or term): the bytes, and the terms' W3TermInfo records (TERMINFO_DTYPE,
    the extents from the start of the bytes)."""
    df = p.df.astype(np.int64)
    n, terms = int(df.sum()), df.size
    if not n:
        return np.zeros(0, np.uint8), np.zeros(0, TERMINFO_DTYPE)
    ids = p.ids.astype(np.int64)
    w = p.weights.astype(np.float32)
    lb = p.lengths.astype(np.int64)
    tstart = _starts(df)
    term_of = np.repeat(np.arange(terms), df)
    nb = (df + blocklimit - 1) // blocklimit
    bbase = _starts(nb)
    block_of = bbase[term_of] + (np.arange(n) - tstart[term_of]) // blocklimit
    bstart = np.flatnonzero(np.concatenate(([True], block_of[1:] != block_of[:-1])))
    bcount = np.diff(np.append(bstart, n))
    k = np.arange(n) - np.repeat(bstart, bcount)  # index in the block
    bterm = term_of[bstart]
    blocks = bstart.size
    # the block's statistics and layout
    maxweight = np.maximum.reduceat(w, bstart).astype(np.float64)
    minlen = np.minimum.reduceat(np.where(lb == 0, 256, lb), bstart)
    minlen[minlen == 256] = 0
    maxlen = np.maximum.reduceat(lb, bstart)
    deltas = np.diff(ids, prepend=0)
    deltas[bstart] = 0
    idw = _widths(np.maximum.reduceat(deltas, bstart))
    ones = np.minimum.reduceat((w == 1.0).astype(np.int8), bstart) == 1
    whole = np.minimum.reduceat(((w >= 0) & (w <= 65535) & (w == np.floor(w))).astype(np.int8), bstart) == 1
    wkind = np.where(ones, W_ONES, np.where(whole, W_U16, W_F32))
    wsz = np.where(wkind == W_ONES, 0, np.where(wkind == W_U16, 2, 4)) * bcount
    haslen = maxlen > 0
    idsz = (bcount - 1) * idw
    lensz = np.where(haslen, bcount, 0)
    npos = cw = dw = np.zeros(blocks, np.int64)
    if p.kind == V_POSITIONS:
        assert p.counts is not None and p.positions is not None
        counts = p.counts.astype(np.int64)
        pdeltas = w3_deltas(counts, p.positions.astype(np.int64))
        pstart = _starts(counts)
        npos = np.add.reduceat(counts, bstart)
        cw = _widths(np.maximum.reduceat(counts, bstart))
        dw = _widths(np.maximum.reduceat(pdeltas, pstart[bstart]))
        vsz = POSHEAD.size + bcount * cw + npos * dw
    elif p.kind == V_RAW:
        vsz = RAWHEAD.size + 5 * bcount
    else:
        vsz = np.zeros(blocks, np.int64)
    dsize = idsz + wsz + lensz + vsz
    btotal = HEAD.size + dsize
    # where everything goes
    lsize = len(MAGIC) + np.add.reduceat(btotal, bbase) + nb * DIRECTORY.itemsize + COUNT.size
    lstart = _starts(lsize)
    bsum = _starts(btotal)
    boff = len(MAGIC) + bsum - bsum[bbase][bterm]  # a block's HEAD, from its list's start
    dpos = lstart[bterm] + boff + HEAD.size  # its data, in the output
    out = np.zeros(int(lsize.sum()), np.uint8)
    _columns(out, lstart, np.frombuffer(MAGIC, np.uint8)[None, :].repeat(terms, 0))
    last = np.zeros(blocks, bool)
    last[bbase + nb - 1] = True
    head = np.zeros(blocks, HEAD_DTYPE)
    head["size"], head["count"], head["first"], head["maxid"] = (
        dsize,
        bcount,
        ids[bstart],
        ids[bstart + bcount - 1],
    )
    head["maxweight"], head["minlen"], head["maxlen"] = maxweight, minlen, maxlen
    head["idw"], head["wkind"], head["vkind"] = idw, wkind, p.kind
    head["flags"] = np.where(last, LAST, 0) | np.where(haslen, HAS_LENGTHS, 0)
    _rows(out, dpos - HEAD.size, head)
    entries = np.zeros(blocks, DIRECTORY)
    entries["offset"] = boff + HEAD.size
    for name in HEAD_DTYPE.names or ():
        entries[name] = head[name]
    entries["npos"], entries["cw"], entries["dw"] = npos, cw, dw
    dirpos = (
        lstart[bterm]
        + lsize[bterm]
        - COUNT.size
        - (nb[bterm] - (np.arange(blocks) - bbase[bterm])) * DIRECTORY.itemsize
    )
    _rows(out, dirpos, entries)
    _put(out, lstart + lsize - COUNT.size, nb, np.full(terms, 4))
    # the postings
    pb = block_of
    more = k > 0
    _put(out, (dpos[pb] + (k - 1) * idw[pb])[more], deltas[more], idw[pb][more])
    wat = dpos[pb] + idsz[pb] + k * np.where(wkind[pb] == W_U16, 2, 4)
    u16, f32 = wkind[pb] == W_U16, wkind[pb] == W_F32
    _put(out, wat[u16], w[u16].astype(np.int64), np.full(int(u16.sum()), 2))
    if f32.any():
        _columns(out, wat[f32], w[f32].astype("<f4").view(np.uint8).reshape(-1, 4))
    withlen = haslen[pb]
    out[(dpos[pb] + idsz[pb] + wsz[pb] + k)[withlen]] = lb[withlen]
    vstart = dpos + idsz + wsz + lensz
    if p.kind == V_POSITIONS:
        poshead = np.zeros(blocks, POSHEAD_DTYPE)
        poshead["npos"], poshead["cw"], poshead["dw"] = npos, cw, dw
        _rows(out, vstart, poshead)
        _put(out, vstart[pb] + POSHEAD.size + k * cw[pb], counts, cw[pb])
        qb = np.repeat(pb, counts)  # each position's block
        j = np.arange(pdeltas.size) - np.repeat(pstart[bstart], npos)
        _put(out, vstart[qb] + POSHEAD.size + bcount[qb] * cw[qb] + j * dw[qb], pdeltas, dw[qb])
    elif p.kind == V_RAW:
        assert p.counts is not None
        rawhead = np.zeros(blocks, RAWHEAD_DTYPE)
        rawhead["total"], rawhead["lw"] = 4 * bcount, 1
        _rows(out, vstart, rawhead)
        out[vstart[pb] + RAWHEAD.size + k] = 4
        at = vstart[pb] + RAWHEAD.size + bcount[pb] + 4 * k
        _columns(out, at, p.counts.astype(">u4").view(np.uint8).reshape(-1, 4))
    return out, _infos(p, df, tstart, lstart, lsize, ids, w, lb)


def _infos(
    p: Lists,
    df: np.ndarray,
    tstart: np.ndarray,
    lstart: np.ndarray,
    lsize: np.ndarray,
    ids: np.ndarray,
    w: np.ndarray,
    lb: np.ndarray,
) -> np.ndarray:
    """W3TermInfo's fields as Stats gives them, packed as its to_bytes packs them."""
    info = np.zeros(df.size, TERMINFO_DTYPE)
    info["weight"] = np.add.reduceat(w.astype(np.float64), tstart)
    info["df"] = df
    minlen = np.minimum.reduceat(np.where(lb == 0, 256, lb), tstart)
    info["minlen"] = np.where(minlen == 256, 0, minlen)
    info["maxlen"] = np.maximum.reduceat(lb, tstart)
    info["maxweight"] = np.maximum.reduceat(w, tstart)
    info["minid"] = ids[tstart]
    info["maxid"] = ids[tstart + df - 1]
    info["offset"], info["length"] = lstart, lsize
    return info
