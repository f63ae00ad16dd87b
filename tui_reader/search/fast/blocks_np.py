"""A term's postings as numpy arrays straight from NpCodec's blocks, and Whoosh's BM25F, AND and
phrase matching computed on them a whole posting list at a time.

``block_arrays`` reads an array segment's posting list with one ``get`` and a fixed number of
numpy calls whatever its length (columns.py, from the list's block directory); a W3 segment (or
any other) is read through Whoosh's matcher, so a mixed index answers too, only slower. Scores
are BM25FScorer's formula operation for operation in float64, with its statistics from the
top-level searcher (idf, average field length) and each posting's length byte through a
256-entry table of ``byte_to_length``; sums go in the order of Whoosh's matcher trees, so the
floats, and the ranking of equal scores, are Whoosh's.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
from whoosh import scoring
from whoosh.matching.wrappers import FilterMatcher
from whoosh.util.numeric import byte_to_length, length_to_byte

from tui_reader.search.fast import columns
from tui_reader.search.fast.codec import NpLeafMatcher
from tui_reader.search.fast.docsets import intersect, members

LENGTHS = np.array([byte_to_length(i) for i in range(256)], dtype=np.float64)
EMPTY_I = np.zeros(0, np.int64)
EMPTY_F = np.zeros(0, np.float64)


@dataclass(frozen=True, slots=True)
class TermArrays:
    """One term's postings in one segment, deleted documents left out."""

    ids: np.ndarray  # int64 docnums in the segment, ascending
    weights: np.ndarray  # float64
    lengths: np.ndarray  # uint8 length bytes (0: the field keeps no lengths)
    positions: np.ndarray | None  # int64, every posting's positions one after another
    offsets: np.ndarray | None  # int64, n + 1: posting i's are positions[offsets[i]:offsets[i + 1]]

    def select(self, keep: np.ndarray) -> TermArrays:
        """The postings at ``keep`` (indices, ascending, or a boolean mask)."""
        positions = offsets = None
        if self.positions is not None and self.offsets is not None:
            positions, offsets = gather(self.positions, self.offsets, keep)
        return TermArrays(self.ids[keep], self.weights[keep], self.lengths[keep], positions, offsets)


def gather(positions: np.ndarray, offsets: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the postings at ``keep``, and their offsets, with no loop."""
    starts = offsets[:-1][keep]
    counts = (offsets[1:] - offsets[:-1])[keep]
    new = np.zeros(counts.size + 1, np.int64)
    np.cumsum(counts, out=new[1:])
    idx = np.arange(int(new[-1]), dtype=np.int64) + np.repeat(starts - new[:-1], counts)
    return positions[idx], new


def empty(with_positions: bool) -> TermArrays:
    zero = np.zeros(1, np.int64)
    return TermArrays(EMPTY_I, EMPTY_F, np.zeros(0, np.uint8), EMPTY_I if with_positions else None,
                      zero if with_positions else None)  # fmt: skip


def block_arrays(
    reader: Any,
    fieldname: str,
    text: str | bytes,
    wanted: np.ndarray | None = None,
    positions: bool = True,
    deleted: np.ndarray | None = None,
    only: bool = False,
) -> TermArrays:
    """(ids, weights, lengths, positions, offsets) of a term in a leaf (segment) reader; with
    ``wanted`` (sorted docnums) an array segment decodes only the blocks that may hold them,
    so the arrays hold every wanted posting and maybe others. Without ``positions`` they are
    not decoded (None). ``deleted``: the segment's deleted docnums, sorted, if known. ``only``:
    the postings of ``wanted``'s papers and no others (an array segment decodes only their
    positions)."""
    fieldobj = reader.schema[fieldname]
    btext = fieldobj.to_bytes(text) if isinstance(text, str) else text
    has_positions = positions and fieldobj.format is not None and fieldobj.format.supports("positions")
    if (fieldname, btext) not in reader:
        return empty(has_positions)
    m = reader.postings(fieldname, btext)
    raw = m.child if isinstance(m, FilterMatcher) else m
    if not isinstance(raw, NpLeafMatcher):
        arrays = by_matcher(reader, fieldname, m, has_positions)
        return arrays.select(members(arrays.ids, wanted)) if only and wanted is not None else arrays
    arrays = from_blocks(raw.list_bytes(), has_positions, wanted, only)
    if deleted is None:
        deleted = deleted_docs(reader)
    if deleted.size:
        arrays = arrays.select(~np.isin(arrays.ids, deleted, assume_unique=True))
    return arrays


def deleted_docs(reader: Any) -> np.ndarray:
    """A segment's deleted docnums, sorted (empty if none)."""
    if not reader.has_deletions():
        return EMPTY_I
    found = reader.deleted_docs_set
    return np.sort(np.fromiter(found, np.int64, len(found)))


def from_blocks(
    buf: bytes, has_positions: bool, wanted: np.ndarray | None = None, only: bool = False
) -> TermArrays:
    cols = columns.read(buf, wanted, positions=has_positions, only=only)
    if not has_positions:
        return TermArrays(cols.ids, cols.weights, cols.lengths, None, None)
    if cols.counts is None or cols.deltas is None:
        raise ValueError("a positions field without array positions")
    offsets = np.zeros(cols.counts.size + 1, np.int64)
    np.cumsum(cols.counts, out=offsets[1:])
    running = np.cumsum(cols.deltas)  # W3's deltas restart at each posting: take off what came before
    before = np.concatenate(([0], running))[offsets[:-1]]
    return TermArrays(cols.ids, cols.weights, cols.lengths, running - np.repeat(before, cols.counts), offsets)


def by_matcher(reader: Any, fieldname: str, m: Any, has_positions: bool) -> TermArrays:
    """The slow way, for segments of other codecs: Whoosh's matcher, a posting at a time."""
    ids: list[int] = []
    weights: list[float] = []
    counts: list[int] = []
    flat: list[int] = []
    while m.is_active():
        ids.append(m.id())
        weights.append(m.weight())
        if has_positions:
            pos = m.value_as("positions")
            counts.append(len(pos))
            flat += pos
        m.next()
    lengths = np.array([length_to_byte(reader.doc_field_length(d, fieldname)) for d in ids], np.uint8)
    arrays = TermArrays(np.array(ids, np.int64), np.array(weights, np.float64), lengths, None, None)
    if not has_positions:
        return arrays
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(np.array(counts, np.int64), out=offsets[1:])
    return TermArrays(arrays.ids, arrays.weights, lengths, np.array(flat, np.int64), offsets)


# -- scoring --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Scored:
    docnums: np.ndarray  # int64, the index's docnums, ascending
    scores: np.ndarray  # float64

    def ranked(self) -> list[tuple[int, float]]:
        """(docnum, score), best first, the lower docnum first on a tie: Whoosh's order."""
        order = np.lexsort((self.docnums, -self.scores))
        return list(zip(self.docnums[order].tolist(), self.scores[order].tolist(), strict=True))


def bm25f(searcher: Any, fieldname: str, btext: bytes) -> tuple[float, float, float, float] | None:
    """(idf, avgfl, B, K1) of the BM25FScorer Whoosh makes for the term (its statistics from the
    top-level searcher, the field's B), None for WeightScorer's plain weight (a field without
    lengths); ValueError for a weighting other than Whoosh's BM25F."""
    top = searcher.get_parent()
    if type(top.weighting) is not scoring.BM25F or top.weighting.use_final:
        raise ValueError(f"not BM25F: {top.weighting!r}")
    scorer = top.weighting.scorer(top, fieldname, btext)
    if type(scorer) is scoring.WeightScorer:
        return None
    if type(scorer) is not scoring.BM25FScorer:
        raise ValueError(f"not BM25F's scorer: {scorer!r}")
    return scorer.idf, scorer.avgfl, scorer.B, scorer.K1


def term_scores(searcher: Any, fieldname: str, btext: bytes, arrays: TermArrays) -> np.ndarray:
    """BM25FScorer's score for each posting: ``idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) +
    B * fl / avgfl)))`` (WeightScorer's weight for a field without lengths)."""
    if not arrays.ids.size:
        return EMPTY_F
    params = bm25f(searcher, fieldname, btext)
    if params is None:
        return arrays.weights
    idf, avgfl, b, k1 = params
    tf = arrays.weights
    # the paper's part, ``K1 * ((1 - B) + B * fl / avgfl)``, for each of the 256 length bytes:
    # the same operations on the same values, so the same floats as per posting
    norms = k1 * ((1 - b) + b * LENGTHS / avgfl)
    return idf * ((tf * (k1 + 1)) / (tf + norms[arrays.lengths]))


def btext_of(searcher: Any, fieldname: str, text: str | bytes) -> bytes:
    return searcher.schema[fieldname].to_bytes(text) if isinstance(text, str) else text


def leaves(searcher: Any) -> list[tuple[Any, int]]:
    return [(r, offset) for r, offset in searcher.reader().leaf_readers() if r.doc_count_all()]


def joined(parts: list[tuple[np.ndarray, np.ndarray]]) -> Scored:
    if not parts:
        return Scored(EMPTY_I, EMPTY_F)
    return Scored(np.concatenate([d for d, _ in parts]), np.concatenate([s for _, s in parts]))


def term(searcher: Any, fieldname: str, text: str | bytes) -> Scored:
    """A Term query's matches and scores, as ``searcher.search(Term(...), limit=None)``."""
    btext = btext_of(searcher, fieldname, text)
    parts = []
    for reader, offset in leaves(searcher):
        arrays = block_arrays(reader, fieldname, btext)
        parts.append((arrays.ids + offset, term_scores(searcher, fieldname, btext, arrays)))
    return joined(parts)


def conjunction(
    searcher: Any, reader: Any, terms: Sequence[tuple[str, bytes]]
) -> tuple[np.ndarray, list[TermArrays], list[np.ndarray]]:
    """The docnums every term matches in one segment, each term's postings there and scores.
    The rarest term is read whole, each other only in the blocks where the docnums so far are."""
    order = sorted(range(len(terms)), key=lambda i: reader.doc_frequency(*terms[i]))
    arrays: list[TermArrays] = [empty(False)] * len(terms)
    ids: np.ndarray | None = None
    for i in order:
        arrays[i] = block_arrays(reader, *terms[i], wanted=ids)
        ids = arrays[i].ids if ids is None else ids[intersect(ids, arrays[i].ids)[0]]
    assert ids is not None
    chosen = [a.select(intersect(a.ids, ids)[0]) for a in arrays]
    scores = [term_scores(searcher, f, t, a) for (f, t), a in zip(terms, chosen, strict=True)]
    return ids, chosen, scores


def binary_sum(parts: list[np.ndarray]) -> np.ndarray:
    """The sum in make_binary_tree's order (a phrase's IntersectionMatchers): equal floats."""
    if len(parts) == 1:
        return parts[0]
    half = len(parts) // 2
    return binary_sum(parts[:half]) + binary_sum(parts[half:])


def weighted_sum(weights: list[int], parts: list[np.ndarray]) -> np.ndarray:
    """The sum in make_weighted_tree's order (And's IntersectionMatchers, weighted by minus each
    term's document frequency in the segment): equal floats, so equal scores rank alike."""
    ls = sorted(zip(weights, parts, strict=True), key=itemgetter(0))
    while len(ls) > 1:
        (wa, a), (wb, b) = ls.pop(0), ls.pop(0)
        insort(ls, (wa + wb, a + b), key=itemgetter(0))
    return ls[0][1]


def conjoined(searcher: Any, terms: Sequence[tuple[str, str | bytes]]) -> Scored:
    """An And of Term queries: the documents that have every term, scored by the sum."""
    bterms = [(f, btext_of(searcher, f, t)) for f, t in terms]
    parts = []
    for reader, offset in leaves(searcher):
        ids, _, scores = conjunction(searcher, reader, bterms)
        weights = [-reader.doc_frequency(f, t) for f, t in bterms]
        parts.append((ids + offset, weighted_sum(weights, scores)))
    return joined(parts)


def phrase(searcher: Any, fieldname: str, words: Sequence[str | bytes]) -> Scored:
    """A Phrase (slop 1): the And of its words where they stand at consecutive positions,
    scored as Whoosh does, by the sum of the words' scores."""
    bterms = [(fieldname, btext_of(searcher, fieldname, w)) for w in words]
    parts = []
    for reader, offset in leaves(searcher):
        ids, chosen, scores = conjunction(searcher, reader, bterms)
        held = phrase_holds(chosen, ids.size)
        parts.append((ids[held] + offset, binary_sum(scores)[held]))
    return joined(parts)


def phrase_holds(chosen: list[TermArrays], n: int) -> np.ndarray:
    """Indices of the documents (0..n-1; each term's postings are those n, in order) where word i
    stands at p + i for some p: each word's (document, position - i) keys intersected."""
    common: np.ndarray | None = None
    for i, arrays in enumerate(chosen):
        if arrays.positions is None or arrays.offsets is None:
            raise ValueError("a phrase over a field without positions")
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(arrays.offsets))
        start = arrays.positions - i
        keys = (owner << 32) | np.where(start >= 0, start, 0)
        keys = np.unique(keys[start >= 0])
        common = keys if common is None else np.intersect1d(common, keys, assume_unique=True)
    if common is None:
        return EMPTY_I
    return np.unique(common >> 32)
