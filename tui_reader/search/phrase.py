"""Phrase checks for score.py: which papers hold a phrase's words in order, from their positions.

Whoosh's Phrase.matcher is SpanNear2(terms, slop, ordered, mindist=1): the terms' intersection,
kept where each word follows the one before it within ``slop`` positions. Here the candidates'
position values are read a block at a time (w3.blocks) and checked in bulk; score.py sums the
words' BM25F where the phrase holds.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Callable, Iterable
from functools import partial
from itertools import accumulate, compress
from operator import itemgetter
from typing import Any

from whoosh import formats

from tui_reader.search import stop, w3

Scores = dict[int, float]
Weights = dict[bytes, dict[int, float]]  # word -> {docnum: weight}
Values = dict[bytes, dict[int, bytes]]  # word -> {docnum: encoded positions}


def gather(
    reader: Any, fieldname: str, words: list[bytes], key: Callable[[bytes], int]
) -> tuple[Weights, Values, set[int]]:
    """Each distinct word's postings as {docnum: weight} and {docnum: positions value}, built by
    dict.update in C, and the papers holding every word (deletions included)."""
    distinct = sorted(dict.fromkeys(words), key=key)
    tfs: Weights = {}
    raw: Values = {}
    for w in distinct:
        tfs[w], raw[w] = {}, {}
        for ids, weights, vals in w3.blocks(reader.postings(fieldname, w), values=True):
            stop.check()
            tfs[w].update(zip(ids, weights, strict=True))
            raw[w].update(zip(ids, vals, strict=True))
    common = set(tfs[distinct[0]]).intersection(*(tfs[w].keys() for w in distinct[1:]))
    return tfs, raw, common


def holding(words: list[bytes], raw: Values, docs: Iterable[int], fmt: Any, slop: int) -> list[int]:
    """The papers of ``docs`` where the phrase holds, every one checked."""
    if slop == 1 and type(fmt) is formats.Positions:
        return _adjacent(words, raw, list(docs))
    decode = w3.positions_decoder(fmt)
    held = []
    for n, d in enumerate(docs):
        if not n % 1024:
            stop.check()
        if _holds(d, words, raw, decode, slop):
            held.append(d)
    return held


def best_holding(
    scores: Scores, words: list[bytes], raw: Values, fmt: Any, slop: int, top: int, checks: int
) -> tuple[Scores, int, bool]:
    """Type-ahead only: the best-scored ``top`` papers where the phrase holds, checked best first
    (lower docnum first on ties) until the page is full and ``checks`` papers were checked; the
    matches verified, and whether every candidate was (else that count is a lower bound)."""
    decode = w3.positions_decoder(fmt)
    kept: Scores = {}
    heap = [(-s, d) for d, s in scores.items()]
    heapq.heapify(heap)
    tried = extra = 0
    while heap:
        negative, d = heapq.heappop(heap)
        tried += 1
        if not tried % 1024:
            stop.check()
        if _holds(d, words, raw, decode, slop):
            if len(kept) < top:
                kept[d] = -negative
            else:
                extra += 1
        if len(kept) >= top and tried >= checks:
            break
    return kept, len(kept) + extra, not heap


def _holds(d: int, words: list[bytes], raw: Values, decode: Callable[[bytes], list[int]], slop: int) -> bool:
    """SpanNear2's test for one paper: each word within ``slop`` positions after the one before."""
    ends = set(decode(raw[words[0]][d]))
    for w in words[1:]:
        where = decode(raw[w][d])
        ends = (
            {p for p in where if p - 1 in ends}
            if slop == 1
            else {p for p in where if any(1 <= p - e <= slop for e in ends)}
        )
        if not ends:
            return False
    return True


def _adjacent(words: list[bytes], raw: Values, docs: list[int]) -> list[int]:
    """The papers of ``docs`` where the words stand side by side (slop 1), checked together:
    word i's positions are decoded for the candidates left in one ``loads`` and shifted by -i,
    so a paper holds the phrase where the shifted sets share a position. This is _holds' answer at a
    fraction of its cost: a phrase of two common words has ~20k candidates at 87k papers."""
    if len(words) == 2:
        decoded = [w3.position_deltas([raw[w][d] for d in docs]) for w in words]
        # Most papers hold each word once: its one delta is its position, and the pair is a
        # phrase where the second stands one after the first. Sets only for the others.
        first, second = decoded
        one = (1).__eq__
        single = list(map(operator.and_, map(one, map(len, first)), map(one, map(len, second))))
        gaps = map(operator.sub, map(itemgetter(0), second), map(itemgetter(0), first))
        found = list(compress(docs, map(operator.and_, single, map(one, gaps))))  # all in C
        found += [
            docs[i]
            for i in compress(range(len(docs)), map(operator.not_, single))
            if not frozenset(accumulate(first[i])).isdisjoint(accumulate(second[i], initial=-1))
        ]
        return found
    # Three words or more: word by word, the candidates where the phrase still holds, with the
    # positions where it may go on (a repeated or common word quickly leaves few). Word i's
    # positions minus i: accumulate(deltas, initial=-i) yields -i first, never a position.
    at = list(range(len(docs)))
    ends = list(map(frozenset, map(accumulate, w3.position_deltas([raw[words[0]][d] for d in docs]))))
    for i, w in enumerate(words[1:], 1):
        stop.check()
        lists = w3.position_deltas([raw[w][docs[j]] for j in at])
        shifted = map(frozenset, map(partial(accumulate, initial=-i), lists))
        held = list(map(frozenset.intersection, ends, shifted))
        at, ends = list(compress(at, held)), list(filter(None, held))
        if not at:
            break
    return [docs[j] for j in at]
