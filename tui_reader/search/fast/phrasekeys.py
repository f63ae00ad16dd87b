"""A phrase's papers on array segments from (candidate << 32 | position) keys, each word's list
read once and only what the test needs decoded.

npleaf's first phrase path read each word's list twice (its ids to intersect, then again with
positions), decoded the weights and lengths of every posting of the blocks it read, turned
position deltas into positions with a cumsum, a gather and a repeat, and checked papers in
three groups with copies of their positions. At 2.7M papers the worst phrases pair words in
0.7-1.8M papers, ~450k candidates: ~150 ms. Here each word's blocks are read once
(``Listing``: docnums of every posting, position counts when asked), the candidates' position
deltas become sorted keys with one segmented cumsum, slop 1 is a merge of two sorted arrays,
and weights and lengths are read only for the postings that hold the phrase (the ones scored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from whoosh.matching.wrappers import FilterMatcher

from tui_reader.search import stop
from tui_reader.search.fast import blocks_np, columns
from tui_reader.search.fast.codec import HAS_LENGTHS, POSHEAD, V_POSITIONS, W_F32, W_U16, NpLeafMatcher
from tui_reader.search.fast.docsets import members
from tui_reader.search.fast.rowgather import wide_deltas

# npleaf uses this module for phrases whose rarest word is in this many papers of the segment or
# more: below, its first path (npphrase.holding) is as fast or faster (at 87k papers within
# +-0.3 ms either way, fewer numpy calls); above, ~1.5x faster at 1M and 2.7M.
KEYED_MIN = 8192
SMALL = 4  # paired's rows: postings of at most this many positions (groups in int16)
SHIFT = 32  # a key's candidate number above its position (a position is far below 2**32)
WEIGHTS: dict[int, np.dtype[Any]] = {W_U16: np.dtype("<u2"), W_F32: np.dtype("<f4")}


@dataclass(slots=True)
class Listing:
    """The blocks of one posting list that may hold some wanted papers: every posting's docnum
    decoded, the rest of a posting read on demand (``keys``, ``arrays``)."""

    raw: np.ndarray  # uint8, the list's bytes
    ids: np.ndarray  # int64 docnums of every posting of the blocks read
    ends: np.ndarray  # int64, one past each block's last posting in ``ids``
    d: np.ndarray  # the blocks' directory entries (codec.DIRECTORY)
    counts: np.ndarray | None = None  # position counts of every posting, read on first need
    before: np.ndarray | None = None  # the deltas of the blocks read before each posting's

    def _blocks(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each posting's block, and its place in that block."""
        block = np.searchsorted(self.ends, keep, "right")
        return block, keep - (self.ends - self.d["count"].astype(np.int64))[block]

    def _geometry(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Byte offsets of each block's weights, length bytes and position counts."""
        d = self.d
        n = d["count"].astype(np.int64)
        w_at = d["offset"].astype(np.int64) + (n - 1) * d["idw"].astype(np.int64)
        len_at = w_at + n * columns.WEIGHT_BYTES[d["wkind"].astype(np.int64)]
        counts_at = len_at + np.where((d["flags"] & HAS_LENGTHS) > 0, n, 0) + POSHEAD.size
        return w_at, len_at, counts_at

    def firsts(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """For the postings at ``keep`` (indices into ``ids``, ascending): their position counts,
        the byte of each one's first delta, and each one's delta width (None: all 1 byte)."""
        d = self.d
        n = d["count"].astype(np.int64)
        counts_at = self._geometry()[2]
        cw = d["cw"].astype(np.int64)
        npos = d["npos"].astype(np.int64)
        if self.counts is None or self.before is None:  # 32 bits where they fit: half the memory
            kind = np.int32 if int(npos.sum()) < 1 << 31 else np.int64
            self.counts = np.zeros(self.ids.size, kind)
            columns.gather(self.raw, counts_at, n, cw, self.counts, self.ends - n, columns.ITEM_TYPES)
            self.before = np.cumsum(self.counts, dtype=kind)  # among the deltas of the blocks read
            self.before -= self.counts
        block = np.repeat(np.arange(n.size), np.diff(np.searchsorted(keep, self.ends), prepend=0))
        width = d["dw"].astype(np.int64)
        first = self.before[keep].astype(np.int64)
        w_post = width[block] if bool((width > 1).any()) else None
        if w_post is not None:
            first *= w_post
        first += (counts_at + n * cw - width * (np.cumsum(npos) - npos))[block]
        return self.counts[keep].astype(np.int64), first, w_post

    def keys(self, keep: np.ndarray) -> np.ndarray:
        """The positions of the postings at ``keep`` (indices into ``ids``, ascending) as
        ``i << SHIFT | position`` for the i-th of them: ascending, one array. One byte index
        per delta as if every width were 1, the few postings in blocks of wider deltas read
        again a byte at a time; then one cumsum of the deltas, each posting's raised by its
        key's base less the last position of the posting before."""
        picked, first, w_post = self.firsts(keep)
        total = int(picked.sum())
        if not total:
            return blocks_np.EMPTY_I
        out_at = np.cumsum(picked) - picked
        at = np.repeat(first - out_at, picked)
        at += np.arange(total)
        if w_post is not None:
            deltas = _widened(self.raw, at, w_post, first, picked, out_at)
        else:
            deltas = self.raw[at].astype(np.int64)
        running = np.cumsum(deltas, out=deltas)
        before = np.where(out_at > 0, running[out_at - 1], 0)  # the postings before's last position
        running += np.repeat((np.arange(keep.size, dtype=np.int64) << SHIFT) - before, picked)
        return running

    def arrays(self, keep: np.ndarray) -> blocks_np.TermArrays:
        """The docnums, weights and length bytes of the postings at ``keep`` (no positions)."""
        block, j = self._blocks(keep)
        w_at, len_at, _ = self._geometry()
        weights = np.ones(keep.size, np.float64)
        wkind = self.d["wkind"][block]
        for kind, dtype in WEIGHTS.items():
            at = np.flatnonzero(wkind == kind)
            if at.size:
                first = w_at[block[at]] + j[at] * dtype.itemsize
                grid = first[:, None] + np.arange(dtype.itemsize)
                weights[at] = self.raw[grid].view(dtype).ravel()  # rows of itemsize bytes
        lengths = np.zeros(keep.size, np.uint8)
        has = np.flatnonzero((self.d["flags"][block] & HAS_LENGTHS) > 0)
        lengths[has] = self.raw[len_at[block[has]] + j[has]]
        return blocks_np.TermArrays(self.ids[keep], weights, lengths, None, None)


def listing(reader: Any, fieldname: str, btext: bytes, wanted: np.ndarray | None) -> Listing | None:
    """The list's blocks that may hold ``wanted``'s papers (all if None); None where it is not
    an array list of positions in every block (inlined, another codec: npleaf's other path)."""
    if (fieldname, btext) not in reader:
        return None
    m = reader.postings(fieldname, btext)
    m = m.child if isinstance(m, FilterMatcher) else m  # deletions
    if not isinstance(m, NpLeafMatcher):
        return None
    buf = m.list_bytes()
    d = columns.directory(buf)
    if wanted is not None:
        lo = np.searchsorted(wanted, d["first"], "left")
        d = d[np.searchsorted(wanted, d["maxid"], "right") > lo]
    if not len(d) or not bool((d["vkind"] == V_POSITIONS).all()):
        return None
    raw = np.frombuffer(buf, np.uint8)
    n = d["count"].astype(np.int64)
    ends = np.cumsum(n)
    steps = np.zeros(int(ends[-1]), np.int64)
    id_at = d["offset"].astype(np.int64)
    columns.gather(raw, id_at, n - 1, d["idw"].astype(np.int64), steps, ends - n + 1, columns.ITEM_TYPES)
    maxids = d["maxid"].astype(np.int64)
    steps[ends - n] = d["first"].astype(np.int64) - np.concatenate(([0], maxids[:-1]))
    return Listing(raw, np.cumsum(steps), ends, d)


def _widened(raw: np.ndarray, at: np.ndarray, w_post: np.ndarray, first: np.ndarray, picked: np.ndarray,
             out_at: np.ndarray) -> np.ndarray:  # fmt: skip
    """Listing.keys's deltas where some blocks' are 2 or 4 bytes wide (``at`` is each delta's
    byte as if 1 wide, ``first`` each posting's first byte): those read a byte at a time."""
    wide = np.flatnonzero(w_post > 1)
    sizes = picked[wide]
    rows = np.repeat(out_at[wide] - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
    w = np.repeat(w_post[wide], sizes)
    at[rows] = np.repeat(first[wide], sizes) + (rows - np.repeat(out_at[wide], sizes)) * w
    return wide_deltas(raw, at, rows, w)


def chained(keys: list[np.ndarray], slop: int) -> np.ndarray:
    """The candidates (ascending) where each word's key stands 1..slop after a kept key of the
    word before, the first word's keys all kept: SpanNear2's ordered test, as npphrase's
    _chained. Slop 1 merges two sorted arrays (the keys one past the ends, and the next word's:
    each set has no repeats, so a key in both is a repeat in the merge)."""
    ends = keys[0]
    for nxt in keys[1:]:
        if slop == 1:
            merged = np.concatenate((ends + 1, nxt))
            merged.sort(kind="stable")  # two sorted runs: a merge
            ends = merged[1:][merged[1:] == merged[:-1]]
        else:
            floor = np.maximum(nxt - slop, (nxt >> SHIFT) << SHIFT)  # within the same candidate
            ends = nxt[np.searchsorted(ends, nxt, "left") > np.searchsorted(ends, floor, "left")]
        stop.check()
        if not ends.size:
            return blocks_np.EMPTY_I
    docs = ends >> SHIFT
    return docs[np.concatenate(([True], docs[1:] != docs[:-1]))]


def paired(
    first: Listing, at_first: np.ndarray, second: Listing, at_second: np.ndarray, slop: int
) -> np.ndarray:
    """The candidates (ascending; candidate i's postings of the phrase's two words at
    ``at_first[i]`` and ``at_second[i]``) where the second word stands 1..slop after the first.
    Those whose two postings hold at most SMALL positions each (most papers) are grouped by
    their two counts (and 1-byte deltas or not) and read as rows of positions, every pair
    compared at once: no key per position, no repeat. The others go to ``chained``'s keys."""
    ca, fa, wa = first.firsts(at_first)
    cb, fb, wb = second.firsts(at_second)
    small = (ca <= SMALL) & (cb <= SMALL) & (ca > 0) & (cb > 0)
    group = (ca - 1) * SMALL + cb - 1
    wide = [w > 1 for w in (wa, wb) if w is not None]  # apart: 1-byte deltas read a byte a delta
    if wide:
        group += (wide[0] | wide[-1]) * (SMALL * SMALL)
    groups = 2 * SMALL * SMALL
    group[~small] = groups
    group = group.astype(np.int16)
    order = np.argsort(group, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(group, minlength=groups + 1))))
    held = []
    for g in range(groups):
        sel = order[bounds[g] : bounds[g + 1]]
        if sel.size:
            pa = _rows(
                first.raw,
                fa[sel],
                None if g < SMALL * SMALL or wa is None else wa[sel],
                g // SMALL % SMALL + 1,
            )
            pb = _rows(
                second.raw, fb[sel], None if g < SMALL * SMALL or wb is None else wb[sel], g % SMALL + 1
            )
            held.append(sel[_near(pa, pb, slop)])
            stop.check()
    rest = order[bounds[-2] :]
    if rest.size:
        held.append(rest[chained([first.keys(at_first[rest]), second.keys(at_second[rest])], slop)])
    return np.sort(np.concatenate(held)) if held else blocks_np.EMPTY_I


def _rows(raw: np.ndarray, first: np.ndarray, width: np.ndarray | None, n: int) -> list[np.ndarray]:
    """The positions of postings of ``n`` deltas of ``width[i]`` bytes (1, 2 or 4; None: all 1)
    from byte ``first[i]``: the j-th position of every posting as one array, for j in 0..n-1.
    (A delta's bytes past its width are read and ignored: the list's directory follows.)"""
    at = first.copy()
    rows: list[np.ndarray] = []
    for _ in range(n):
        delta = raw[at].astype(np.int32 if width is None else np.int64)
        if width is not None:
            delta += (raw[at + 1].astype(np.int64) << 8) * (width > 1)
            four = width > 2
            delta += ((raw[at + 2].astype(np.int64) << 16) | (raw[at + 3].astype(np.int64) << 24)) * four
        rows.append(delta if not rows else rows[-1] + delta)
        at += 1 if width is None else width
    return rows


def _near(pa: list[np.ndarray], pb: list[np.ndarray], slop: int) -> np.ndarray:
    """Where some position of ``pb`` stands 1..slop after one of ``pa`` (every pair)."""
    ok = np.zeros(pa[0].size, bool)
    for a in pa:
        for b in pb:
            step = b - a
            ok |= (step == 1) if slop == 1 else (step >= 1) & (step <= slop)
    return ok


def phrase(
    reader: Any, fieldname: str, btexts: list[bytes], distinct: list[bytes], wanted: np.ndarray | None,
    deleted: np.ndarray, slop: int,
) -> tuple[np.ndarray, dict[bytes, blocks_np.TermArrays]] | None:  # fmt: skip
    """The docnums holding the phrase ``btexts`` (``distinct``: its words, rarest first) and
    each word's postings there (no positions), among ``wanted`` if given; None where a word's
    list is not read here (npleaf's other path answers)."""
    ids = wanted
    found: dict[bytes, Listing] = {}
    at: np.ndarray | None = None
    for btext in distinct:  # the papers with every word, rarest word first
        listed = listing(reader, fieldname, btext, ids)
        if listed is None:
            return None
        found[btext] = listed
        at = np.arange(listed.ids.size) if ids is None else members(listed.ids, ids)
        ids = listed.ids[at]
        if not ids.size:
            return blocks_np.EMPTY_I, {}
    assert ids is not None and at is not None
    if deleted.size:
        ids = np.delete(ids, members(ids, deleted))
        at = members(found[distinct[-1]].ids, ids)
    keep = {b: members(found[b].ids, ids) for b in distinct[:-1]}
    keep[distinct[-1]] = at
    if len(btexts) == 2:
        a, b = btexts
        held = paired(found[a], keep[a], found[b], keep[b], slop)
    else:
        held = chained([found[b].keys(keep[b]) for b in btexts], slop)
    return ids[held], {b: found[b].arrays(keep[b][held]) for b in distinct}
