"""Phrase checks for score.py: which papers hold a phrase's words in order, from their positions.

Whoosh's Phrase.matcher is SpanNear2(terms, slop, ordered, mindist=1): the terms' intersection,
kept where each word follows the one before it within ``slop`` positions. Here the words' postings
are read a block at a time into lists aligned on the papers holding every word (``gather``), and
checked in bulk; score.py sums the words' BM25F where the phrase holds.

Most words occur once in a paper, and a value holding one position is one of a few hundred
distinct byte strings: ``_single`` maps each to its position, so that for most candidates the
check is a subtraction done in C. The others are decoded in one ``loads`` per word and compared
as sets of positions.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, compress, pairwise, repeat
from operator import add, and_, contains, methodcaller, not_, sub
from typing import Any

from whoosh import formats
from whoosh.system import pack_uint

from tui_reader.search import stop
from tui_reader.search.fast import bm25, w3

Scores = dict[int, float]
NOT_ONE = -(1 << 62)  # "not at one position": a difference with it is never 1
_ONE = pack_uint(1)  # Positions.encode's count for a word that occurs once
_single: dict[bytes, int] = {}  # an encoded value holding one position -> that position
_SINGLE_MAX = 1 << 16
_among: Callable[[Any, int], bool] = contains  # ``x in positions``, positions an iterator (in C)
_once = methodcaller("startswith", _ONE)  # a value holding one position


@dataclass(slots=True)
class Candidates:
    """The papers holding every word of a phrase (docnums ascending, deletions left out), and
    each word's weights and encoded positions there, in the same order."""

    docs: list[int]
    weights: dict[bytes, list[float]]
    values: dict[bytes, list[Any]]


def gather(
    reader: Any,
    fieldname: str,
    words: list[bytes],
    key: Callable[[bytes], int],
    deleted: frozenset[int] | set[int],
    skip_below: int,
) -> Candidates:
    """Each distinct word's postings, rarest word first, narrowed to the papers holding every
    word; a word's blocks holding none of fewer than ``skip_below`` candidates are not read."""
    distinct = sorted(dict.fromkeys(words), key=key)
    docs: list[int] | None = None
    weights: dict[bytes, list[float]] = {}
    values: dict[bytes, list[Any]] = {}
    for w in distinct:
        wanted = docs if docs is not None and len(docs) < skip_below else None
        ids, ws, vals = bm25.postings(reader, fieldname, w, wanted, values=True)
        if docs is None:
            keep = list(map(not_, map(deleted.__contains__, ids))) if deleted else None
            docs = ids if keep is None else list(compress(ids, keep))
        else:
            keep = list(map(set(docs).__contains__, ids))  # this word's postings among the candidates
            ids = list(compress(ids, keep))
            if len(ids) < len(docs):  # candidates without this word: out
                narrowed = list(map(set(ids).__contains__, docs))
                docs = ids
                for seen in weights:
                    weights[seen] = list(compress(weights[seen], narrowed))
                    values[seen] = list(compress(values[seen], narrowed))
        if keep is not None:
            ws, vals = list(compress(ws, keep)), list(compress(vals, keep))
        weights[w], values[w] = ws, vals
        if not docs:
            return Candidates([], {w: [] for w in distinct}, {w: [] for w in distinct})
    return Candidates(docs or [], weights, values)


def holding(words: list[bytes], found: Candidates, fmt: Any, slop: int) -> list[bool]:
    """Whether the phrase holds in each candidate (aligned with ``found.docs``), every one checked."""
    if slop == 1 and type(fmt) is formats.Positions:
        return _adjacent(words, found, fmt)
    decode = w3.positions_decoder(fmt)
    held = []
    for i in range(len(found.docs)):
        if not i % 1024:
            stop.check()
        held.append(_holds(i, words, found.values, decode, slop))
    return held


def best_holding(
    scores: list[float], words: list[bytes], found: Candidates, fmt: Any, slop: int, top: int, checks: int
) -> tuple[Scores, int, bool]:
    """Type-ahead only: the best-scored ``top`` papers where the phrase holds, checked best first
    (lower docnum first on ties) until the page is full and ``checks`` papers were checked; the
    matches verified, and whether every candidate was (else that count is a lower bound)."""
    decode = w3.positions_decoder(fmt)
    kept: Scores = {}
    heap = [(-s, d, i) for i, (d, s) in enumerate(zip(found.docs, scores, strict=True))]
    heapq.heapify(heap)
    tried = extra = 0
    while heap:
        negative, d, i = heapq.heappop(heap)
        tried += 1
        if not tried % 1024:
            stop.check()
        if _holds(i, words, found.values, decode, slop):
            if len(kept) < top:
                kept[d] = -negative
            else:
                extra += 1
        if len(kept) >= top and tried >= checks:
            break
    return kept, len(kept) + extra, not heap


def _holds(
    i: int,
    words: list[bytes],
    values: dict[bytes, list[Any]],
    decode: Callable[[bytes], list[int]],
    slop: int,
) -> bool:
    """SpanNear2's test for candidate ``i``: each word within ``slop`` positions after the one before."""
    ends = set(decode(values[words[0]][i]))
    for w in words[1:]:
        where = decode(values[w][i])
        ends = (
            {p for p in where if p - 1 in ends}
            if slop == 1
            else {p for p in where if any(1 <= p - e <= slop for e in ends)}
        )
        if not ends:
            return False
    return True


def _adjacent(words: list[bytes], found: Candidates, fmt: Any) -> list[bool]:
    """_holds' answer for slop 1, for every candidate at once. Where each word occurs once, the
    phrase holds when each position is one after the one before: differences taken in C. The
    candidates where some word occurs more often are compared as sets of positions."""
    decode = w3.positions_decoder(fmt)
    at = {w: _positions(found.values[w], decode) for w in dict.fromkeys(words)}
    held: list[bool] | None = None
    for a, b in pairwise(at[w] for w in words):
        step = map((1).__eq__, map(sub, b, a))
        held = list(step) if held is None else list(map(and_, held, step))
    if held is None:  # one word: it holds wherever the word is
        held = [True] * len(found.docs)
    stop.check()
    several = list(map(any, zip(*(map(NOT_ONE.__eq__, p) for p in at.values()), strict=True)))
    for i in _spread(words, found.values, at, list(compress(range(len(found.docs)), several))):
        held[i] = True
    return held


def _spread(
    words: list[bytes], values: dict[bytes, list[Any]], at: dict[bytes, list[int]], rest: list[int]
) -> list[int]:
    """The candidates of ``rest`` (where some word occurs more than once) holding the phrase.
    The values of words that occur more than once in a candidate are decoded in one ``loads``
    per word; comparisons are made in C, by map, never a Python loop per paper."""
    if not rest:
        return []
    if len(words) == 2:
        return _pair(words, values, at, rest)
    # one word at a time, each after a deadline check: a phrase of 150 "model"s decodes its
    # word 150 times, and stops as soon as no candidate is left
    ends = list(map(frozenset, _shifted(values[words[0]], at[words[0]], rest, 0)))
    left = list(range(len(rest)))
    for j, w in enumerate(words[1:], 1):
        stop.check()
        positions = _shifted(values[w], at[w], rest, j)
        both = list(map(frozenset.intersection, ends, (positions[k] for k in left)))
        left, ends = list(compress(left, both)), list(filter(None, both))
        if not left:
            break
    return [rest[k] for k in left]


def _pair(
    words: list[bytes], values: dict[bytes, list[Any]], at: dict[bytes, list[int]], rest: list[int]
) -> list[int]:
    """Two words, one of them more than once: where the first is at one position p, whether
    p + 1 is among the second's positions; where the second is at one position q, whether q - 1
    is among the first's; else whether their position sets, the second's shifted by -1, meet."""
    first, second = words
    a = list(map(at[first].__getitem__, rest))
    b = list(map(at[second].__getitem__, rest))
    a_many = list(map(NOT_ONE.__eq__, a))
    b_many = list(map(NOT_ONE.__eq__, b))
    held: list[int] = []
    # the first once, the second several times: p + 1 among the second's positions
    only_b = list(map(and_, b_many, map(not_, a_many)))
    deltas = w3.position_deltas([values[second][k] for k in compress(rest, only_b)])
    targets = map(add, compress(a, only_b), repeat(1))
    held += compress(compress(rest, only_b), map(_among, map(accumulate, deltas), targets))
    # the second once, the first several times: q - 1 among the first's positions
    only_a = list(map(and_, a_many, map(not_, b_many)))
    deltas = w3.position_deltas([values[first][k] for k in compress(rest, only_a)])
    targets = map(sub, compress(b, only_a), repeat(1))
    held += compress(compress(rest, only_a), map(_among, map(accumulate, deltas), targets))
    # both several times: accumulate(deltas, initial=-1) yields -1 first, never a position
    both = list(map(and_, a_many, b_many))
    ones = w3.position_deltas([values[first][k] for k in compress(rest, both)])
    twos = w3.position_deltas([values[second][k] for k in compress(rest, both)])
    apart = map(
        frozenset.isdisjoint,
        map(frozenset, map(accumulate, ones)),
        map(partial(accumulate, initial=-1), twos),
    )
    held += compress(compress(rest, both), map(not_, apart))
    return sorted(held)


def _shifted(values: list[Any], ones: list[int], rest: list[int], j: int) -> list[Iterable[int]]:
    """A word's positions minus ``j`` in each candidate of ``rest``. accumulate(deltas,
    initial=-j) yields -j first, never a position: harmless, as the first word's are >= 0."""
    out: list[Iterable[int]] = [(ones[k] - j,) for k in rest]
    several = list(compress(range(len(rest)), (ones[k] == NOT_ONE for k in rest)))
    deltas = w3.position_deltas([values[rest[i]] for i in several])
    for i, d in zip(several, deltas, strict=True):
        out[i] = accumulate(d, initial=-j) if j else list(accumulate(d))
    return out


def _positions(values: list[Any], decode: Callable[[bytes], list[int]]) -> list[int]:
    """Each value's one position, or NOT_ONE for a word that occurs more than once there."""
    found = list(map(_single.get, values, repeat(NOT_ONE)))
    missed = list(compress(range(len(found)), map(NOT_ONE.__eq__, found)))
    for i in compress(missed, map(_once, map(values.__getitem__, missed))):  # not seen yet
        value = values[i]
        (found[i],) = decode(value)
        if len(_single) < _SINGLE_MAX:
            _single[value] = found[i]
    return found
