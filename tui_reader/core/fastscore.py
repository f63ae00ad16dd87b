"""Whoosh's BM25F ranking of term queries, computed a posting block at a time.

Whoosh scores a query by walking matcher objects posting by posting: ~5 µs a posting in Python,
so a word in a third of 87k abstracts costs ~160 ms, and its block-quality skipping rarely skips
(abstract lengths vary little). Queries made only of terms, And, Or, AndNot and expanded
multi-terms (fuzzy, prefix, wildcard) are scored here instead: each term's blocks are decoded
whole and scored in one comprehension with Whoosh's own formula, global statistics and length
encoding, giving the same documents in the same order (``tests/core/test_fastscore.py``) at a
tenth of the cost. Anything else (phrases, ranges, Every) returns None and Whoosh runs it.
"""

from __future__ import annotations

import heapq
import threading
import weakref
from collections.abc import Iterator
from itertools import accumulate
from pickle import loads
from typing import Any

from whoosh import formats, query, scoring
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.util.numeric import byte_to_length

Scores = dict[int, float]
MAX_TERMS = 1024  # an expansion wider than this is left to Whoosh (it bounds its own)

_LENGTH = [1] + [byte_to_length(b) for b in range(1, 256)]  # a missing length counts as 1
_lengths_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class _Unsupported(Exception):
    pass


def search(searcher: Any, q: query.Query, limit: int) -> tuple[list[tuple[float, int]], int] | None:
    """The top ``limit`` (score, docnum) pairs, best first, and the exact number of matches;
    None when the query or weighting is one this module does not reproduce."""
    if type(searcher.weighting) is not scoring.BM25F or searcher.weighting._field_B:
        return None
    scores: Scores = {}
    try:
        for reader, base in searcher.reader().leaf_readers():
            leaf = _Leaf(searcher, reader)
            scores.update({base + d: s for d, s in leaf.run(q).items()})
    except _Unsupported:
        return None
    top = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0]))
    return [(s, d) for d, s in top], len(scores)


class _Leaf:
    """One segment: postings and lengths local to it, statistics from the whole index (as
    BM25FScorer takes them from the top-level searcher)."""

    def __init__(self, searcher: Any, reader: Any) -> None:
        self.searcher = searcher
        self.reader = reader
        self.deleted = reader.deleted_docs_set if reader.has_deletions() else frozenset()

    def run(self, q: query.Query) -> Scores:
        if isinstance(q, query.Term):
            return self._term(q.fieldname, q.text, q.boost)
        if isinstance(q, query.And) and q.subqueries:
            return _boosted(self._and(q.subqueries), q.boost)
        if isinstance(q, query.Phrase):
            return _boosted(self._phrase(q), q.boost)
        if isinstance(q, query.Or) and not q.minmatch and not q.scale:
            out: Scores = {}
            for sub in q.subqueries:
                for d, s in self.run(sub).items():
                    out[d] = out.get(d, 0.0) + s
            return _boosted(out, q.boost)
        if isinstance(q, query.AndNot):
            excluded = self.run(q.b)
            return {d: s for d, s in self.run(q.a).items() if d not in excluded}
        if isinstance(q, query.MultiTerm) and not isinstance(q, query.Every) and q.matcher.__func__ \
                in (query.MultiTerm.matcher, query.PatternQuery.matcher, query.Prefix.matcher,
                    query.Wildcard.matcher) and getattr(q, "text", "x") not in ("", "*"):
            words = [w for w in q._btexts(self.searcher.reader()) if w]
            if len(words) > MAX_TERMS:
                raise _Unsupported
            if len(words) == 1:  # MultiTerm.matcher: a lone expansion is a plain, unboosted Term
                return self._term(q.field(), words[0], 1.0)
            return self.run(query.Or([query.Term(q.field(), w) for w in words], boost=q.boost))
        if q is query.NullQuery or isinstance(q, type(query.NullQuery)):
            return {}
        raise _Unsupported(type(q).__name__)

    def _and(self, subqueries: list[query.Query]) -> Scores:
        """Intersection, scores summed. Terms are scored last and only for the documents every
        other part matched: a rare word AND a common one scores the rare word's papers only.
        A Not part is Whoosh's InverseMatcher: it excludes its matches and adds 1.0 to the rest."""
        nots = [q for q in subqueries if isinstance(q, query.Not)]
        subqueries = [q for q in subqueries if not isinstance(q, query.Not)]
        if not subqueries:
            raise _Unsupported("only negations")
        terms = [q for q in subqueries if type(q) is query.Term]
        others = [q for q in subqueries if type(q) is not query.Term]
        if not others:  # start from the rarest term
            terms.sort(key=lambda t: self._doc_frequency(t.fieldname, t.text))
            others, terms = terms[:1], terms[1:]
        parts = sorted((self.run(q) for q in others), key=len)
        out = parts[0]
        for other in parts[1:]:
            out = {d: s + other[d] for d, s in out.items() if d in other}
        for t in terms:
            other = self._term(t.fieldname, t.text, t.boost, only=out)
            out = {d: s + other[d] for d, s in out.items() if d in other}
        for n in nots:
            excluded = self.run(n.query)
            out = {d: s + 1.0 for d, s in out.items() if d not in excluded}
        return out

    def _doc_frequency(self, fieldname: str, text: Any) -> int:
        try:
            return int(self.reader.doc_frequency(fieldname, text))
        except Exception:
            return 0

    def _phrase(self, q: query.Phrase) -> Scores:
        """SpanNear2(terms, slop, ordered, mindist=1), as Phrase.matcher builds it: the terms'
        intersection (scores summed), kept where each word follows the one before it within
        ``slop`` positions."""
        schema = self.searcher.schema
        if q.fieldname not in schema or not q.words:
            raise _Unsupported("phrase")
        field = schema[q.fieldname]
        if not field.format or not field.format.supports("positions"):
            raise _Unsupported("phrase without positions")
        try:
            words = [field.to_bytes(w) for w in q.words]
        except ValueError:
            return {}
        if any((q.fieldname, w) not in self.reader for w in words):
            return {}
        scores = self._and([query.Term(q.fieldname, w) for w in words])
        if not scores:
            return scores
        decode = _position_decoder(field.format)
        where = [self._positions(q.fieldname, w, scores, decode) for w in dict.fromkeys(words)]
        by_word = dict(zip(dict.fromkeys(words), where, strict=True))
        slop = q.slop
        kept: Scores = {}
        for d, score in scores.items():
            ends = set(by_word[words[0]][d])
            for w in words[1:]:
                ends = {p for p in by_word[w][d] if any(1 <= p - e <= slop for e in ends)} \
                    if slop != 1 else {p for p in by_word[w][d] if p - 1 in ends}
                if not ends:
                    break
            else:
                kept[d] = score
        return kept

    def _positions(self, fieldname: str, btext: bytes, only: Scores, decode: Any
                   ) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for ids, _weights, values in _blocks(self.reader.postings(fieldname, btext), values=True):
            for d, v in zip(ids, values, strict=True):
                if d in only:
                    out[d] = decode(v)
        return out

    def _term(self, fieldname: str, text: Any, boost: float, only: Scores | None = None) -> Scores:
        schema = self.searcher.schema
        if fieldname not in schema:
            return {}
        field = schema[fieldname]
        try:
            btext = field.to_bytes(text)
        except ValueError:
            return {}
        if (fieldname, btext) not in self.reader:
            return {}
        if not field.scorable:
            raise _Unsupported("unscorable field")
        parent = self.searcher.get_parent()
        idf = parent.idf(fieldname, btext)
        avgfl = parent.avg_field_length(fieldname) or 1
        weighting = self.searcher.weighting
        b, k1 = weighting.B, weighting.K1
        lengths = _field_lengths(self.reader, fieldname)
        k1p, omb, deleted = k1 + 1, 1 - b, self.deleted
        out: Scores = {}
        keep = only if only is not None else None
        for ids, weights, _values in _blocks(self.reader.postings(fieldname, btext)):
            # bm25() of whoosh.scoring, operation for operation, so the floats are the same
            if keep is None:
                out.update({d: idf * ((tf * k1p) / (tf + k1 * (omb + b * lengths[d] / avgfl)))
                            for d, tf in zip(ids, weights, strict=True) if d not in deleted})
            else:
                out.update({d: idf * ((tf * k1p) / (tf + k1 * (omb + b * lengths[d] / avgfl)))
                            for d, tf in zip(ids, weights, strict=True) if d in keep})
        return _boosted(out, boost)


def _boosted(scores: Scores, boost: float) -> Scores:
    return scores if boost == 1.0 else {d: s * boost for d, s in scores.items()}


def _blocks(m: Any, values: bool = False) -> Iterator[tuple[Any, Any, Any]]:
    """(docnums, weights, values or None) a block at a time from a W3 posting list; deletions
    are filtered by the caller. Any other matcher (inlined postings) is read posting by posting."""
    if isinstance(m, FilterMatcher):
        m = m.child
    if type(m) is not W3LeafMatcher:
        ids, weights, vals = [], [], []
        while m.is_active():
            ids.append(m.id())
            weights.append(m.weight())
            if values:
                vals.append(m.value())
            m.next()
        yield ids, weights, vals if values else None
        return
    while m.is_active():
        m._read_ids()
        m._read_weights()
        if values:
            m._read_values()
        yield m._ids, m._weights, m._values if values else None
        m._next_block()


def _position_decoder(fmt: Any) -> Any:
    """Positions.decode_positions, remembered per distinct value: most words occur once in a
    paper, so a phrase search decodes a few hundred distinct values, not one per paper."""
    if type(fmt) is not formats.Positions:
        return fmt.decoder("positions")
    memo: dict[bytes, list[int]] = {}

    def decode(value: bytes) -> list[int]:
        found = memo.get(value)
        if found is None:
            raw = value if value.endswith(b".") else value + b"."
            found = memo[value] = list(accumulate(loads(raw[4:])))
        return found
    return decode


def _field_lengths(reader: Any, fieldname: str) -> list[int]:
    """Each document's length in the field, as doc_field_length(docnum, field, 1) gives it;
    read once per segment reader (~10 ms at 87k papers)."""
    with _lock:
        per_reader = _lengths_cache.setdefault(reader, {})
        lengths = per_reader.get(fieldname)
        if lengths is None:
            count = reader.doc_count_all()
            column = reader._perdoc._cached_reader(f"_{fieldname}_len", _lengths_column())
            raw = column.load() if column is not None else bytes(count)
            lengths = per_reader[fieldname] = [_LENGTH[x] for x in raw]
            lengths.extend([1] * (count + 1 - len(lengths)))
        return lengths


def _lengths_column() -> Any:
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN

    return LENGTHS_COLUMN
