"""npleaf.py's phrase test: which candidate papers hold a phrase's words in order, within its
slop (SpanNear2's test), from each word's positions as arrays, with no Python per paper.

Most papers hold each word once: the test is then a difference of two positions. Two words
where one occurs once and the other more often: the lone position against each of the
other's. Anything else: (paper, position) keys, each next word's kept where an end so far
stands 1..slop before it (``_chained``).
"""

from __future__ import annotations

import numpy as np

from tui_reader.search import stop
from tui_reader.search.fast import blocks_np


class Unsupported(Exception):
    """A query, or a part of one, the array scorer does not reproduce: Whoosh answers it."""


def holding(chosen: list[blocks_np.TermArrays], n: int, slop: int) -> np.ndarray:
    """Indices of the documents (0..n-1, each word's postings being those n in order) where
    word i + 1 stands within ``slop`` positions after word i, for a chain through every word:
    SpanNear2's test. Where every word occurs once (most papers), it is a difference of their
    positions; the other papers are checked on (paper, position) keys (``_chained``)."""
    for arrays in chosen:
        if arrays.positions is None or arrays.offsets is None:
            raise Unsupported("a phrase over a field without positions")
    if len(chosen) == 1 or not n:
        return np.arange(n, dtype=np.int64)
    once = np.ones(n, bool)
    for arrays in chosen:
        assert arrays.offsets is not None
        once &= np.diff(arrays.offsets) == 1
    single = np.flatnonzero(once)
    held = np.ones(single.size, bool)
    before: np.ndarray | None = None
    for arrays in chosen:
        assert arrays.positions is not None and arrays.offsets is not None
        at = arrays.positions[arrays.offsets[:-1][single]]
        if before is not None:
            step = at - before
            held &= (step >= 1) & (step <= slop)
        before = at
    rest = np.flatnonzero(~once)
    if not rest.size:
        return single[held]
    found = _paired(chosen, rest, slop) if len(chosen) == 2 else None
    if found is None:
        found = rest[_chained([a.select(rest) for a in chosen], rest.size, slop)]
    return np.sort(np.concatenate((single[held], found)))


def _paired(chosen: list[blocks_np.TermArrays], rest: np.ndarray, slop: int) -> np.ndarray | None:
    """holding's test for two words where one occurs once and the other more often (most of
    the rest of a common phrase's papers): the lone position against each of the other's, no
    keys sorted or searched; the papers where both recur go to ``_chained``. None where a
    posting has no positions (not met: _chained decides)."""
    a, b = chosen
    assert a.offsets is not None and b.offsets is not None
    counts_a, counts_b = np.diff(a.offsets)[rest], np.diff(b.offsets)[rest]
    if not (counts_a.all() and counts_b.all()):
        return None
    lone_a = rest[counts_a == 1]  # b after a's one position
    lone_b = rest[(counts_a != 1) & (counts_b == 1)]  # a before b's one position
    both = rest[(counts_a != 1) & (counts_b != 1)]
    found = [
        lone_a[_against(a, b, lone_a, slop, 1)],
        lone_b[_against(b, a, lone_b, slop, -1)],
        both[_chained([x.select(both) for x in chosen], both.size, slop)] if both.size else both,
    ]
    return np.concatenate(found)


def _against(one: blocks_np.TermArrays, other: blocks_np.TermArrays, docs: np.ndarray, slop: int,
             sign: int) -> np.ndarray:  # fmt: skip
    """Indices into ``docs`` where one of ``other``'s positions stands 1..slop after (sign 1) or
    before (sign -1) ``one``'s lone position."""
    if not docs.size:
        return blocks_np.EMPTY_I
    assert one.positions is not None and one.offsets is not None
    lone = one.positions[one.offsets[:-1][docs]]
    many = other.select(docs)
    assert many.positions is not None and many.offsets is not None
    step = (many.positions - np.repeat(lone, np.diff(many.offsets))) * sign
    ok = (step >= 1) & (step <= slop)
    return np.flatnonzero(np.logical_or.reduceat(ok, many.offsets[:-1]))


def _chained(chosen: list[blocks_np.TermArrays], n: int, slop: int) -> np.ndarray:
    """holding's test for any papers, on (document << 32 | position) keys, sorted as they
    come: each next word's keys kept where an end so far stands 1..slop before it."""
    ends: np.ndarray | None = None
    for arrays in chosen:
        assert arrays.positions is not None and arrays.offsets is not None
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(arrays.offsets))
        keys = (owner << 32) | arrays.positions  # ascending: owners ascending, positions within
        if ends is None:
            ends = keys
            continue
        if slop == 1:  # the word before at p - 1 (p - 1 < 0 is another paper's key: never a position)
            before = keys - 1
            at = np.minimum(np.searchsorted(ends, before), ends.size - 1)
            found = ends[at] == before
        else:
            floor = np.maximum(keys - slop, owner << 32)  # within the same document
            found = np.searchsorted(ends, keys, "left") > np.searchsorted(ends, floor, "left")
        ends = keys[found]
        stop.check()
        if not ends.size:
            return blocks_np.EMPTY_I
    if ends is None:
        return blocks_np.EMPTY_I
    docs = ends >> 32
    return docs[np.concatenate(([True], docs[1:] != docs[:-1]))]
