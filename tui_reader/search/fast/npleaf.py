"""score.py's segment scorer for array segments (codec.NpCodec): every query shape it covers,
computed a whole posting list at a time in numpy, with no Python per posting.

A query's answer in one segment is a pair of arrays, docnums ascending and their scores. The
sums follow Whoosh's own matcher trees, so the floats, and the order of equal scores, are its:
an And's parts are added in ``make_weighted_tree``'s order (weighted by minus each part's
``estimate_size`` in the segment), a Phrase's words in ``make_binary_tree``'s, an Or's parts
in ``make_weighted_tree``'s of unions, or, where Whoosh preloads them (``score.preloaded``),
one after another into an array, each times the Or's boost. Anything else raises
``Unsupported`` and Whoosh's searcher answers the whole query.

``wanted`` (sorted docnums) narrows any part to those papers: an And reads its cheapest part
whole and each next one only in the blocks where the papers so far are (columns.read).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import numpy as np
from whoosh import query

from tui_reader.search import stop
from tui_reader.search.fast import blocks_np, phrasekeys, w3
from tui_reader.search.fast.npphrase import Unsupported, holding

Arrays = tuple[np.ndarray, np.ndarray]  # (docnums ascending, float64 scores)
EMPTY: Arrays = (blocks_np.EMPTY_I, blocks_np.EMPTY_F)
MAX_TERMS = 20_000  # an expansion wider than this is left to Whoosh (as score.py's)


def is_array_segment(reader: Any) -> bool:
    """Whether the segment was written by NpCodec (its postings read by numpy)."""
    from tui_reader.search.fast.codec import NpCodec

    codec = getattr(reader, "codec", None)
    return callable(codec) and isinstance(codec(), NpCodec)


class NpLeaf:
    """One array segment: postings local to it, statistics from the whole index (as Whoosh's
    BM25FScorer takes them from the top-level searcher)."""

    def __init__(self, searcher: Any, reader: Any) -> None:
        self.searcher = searcher
        self.reader = reader
        self.deleted = blocks_np.deleted_docs(reader)
        self.doccount = reader.doc_count_all()

    def run(self, q: query.Query, wanted: np.ndarray | None = None) -> Arrays:
        """``q``'s matches in the segment and their scores (those among ``wanted`` if given)."""
        stop.check()
        if lone(q):  # CompoundQuery.matcher: a lone part's own matcher, the group's boost unused
            return self.run(q.subqueries[0], wanted)
        if isinstance(q, query.Term):
            return _boosted(self.term(q.fieldname, q.text, wanted), q.boost)
        if isinstance(q, query.And) and q.subqueries:
            return _boosted(self._and(q.subqueries, wanted), q.boost)
        if isinstance(q, query.Phrase):
            return _boosted(self._phrase(q, wanted), q.boost)
        if isinstance(q, query.Or) and not q.minmatch and not q.scale and q.subqueries:
            return self._or(q.subqueries, q.boost, wanted)
        if isinstance(q, query.AndNot):
            found = self.run(q.a, wanted)
            excluded, _ = self.run(q.b, found[0])
            return _without(found, excluded)
        if expandable(q):
            return self._expanded(q, wanted)
        if isinstance(q, query.Every) or every_in_disguise(q):
            return self._every(q.fieldname, q.boost, wanted)
        if q is query.NullQuery or isinstance(q, type(query.NullQuery)):
            return EMPTY
        raise Unsupported(type(q).__name__)

    # -- terms --------------------------------------------------------------------------------
    def term(self, fieldname: str, text: Any, wanted: np.ndarray | None = None) -> Arrays:
        """A term's BM25F (WeightScorer's weight for a field without lengths)."""
        btext = self._btext(fieldname, text)
        if btext is None:
            return EMPTY
        arrays = blocks_np.block_arrays(
            self.reader, fieldname, btext, wanted, positions=False, deleted=self.deleted, only=True
        )
        return arrays.ids, blocks_np.term_scores(self.searcher, fieldname, btext, arrays)

    def _btext(self, fieldname: str, text: Any) -> bytes | None:
        schema = self.searcher.schema
        if fieldname not in schema:
            return None
        try:
            btext = schema[fieldname].to_bytes(text) if isinstance(text, str) else text
        except ValueError:
            return None
        return btext if (fieldname, btext) in self.reader else None

    def _size(self, q: query.Query) -> int:
        """Whoosh's estimate_size in this segment: its matcher trees' weights."""
        try:
            return int(q.estimate_size(self.reader))
        except Exception as exc:
            raise Unsupported(f"no size for {q!r}") from exc

    # -- And, Or, Not ---------------------------------------------------------------------------
    def _and(self, subqueries: list[query.Query], wanted: np.ndarray | None) -> Arrays:
        """IntersectionMatchers in make_weighted_tree's order. The smallest part (by Whoosh's
        estimate) is run first, each next only where the papers so far are. A Not part is
        Whoosh's InverseMatcher: it excludes its matches and scores 1.0 where it does not."""
        nots = [q for q in subqueries if isinstance(q, query.Not)]
        positive = [q for q in subqueries if not isinstance(q, query.Not)]
        if not positive:
            raise Unsupported("only negations")
        sizes = [self._size(q) for q in subqueries]
        ids = wanted
        found: dict[int, Arrays] = {}
        for i in sorted(range(len(subqueries)), key=lambda i: (sizes[i], i)):
            q = subqueries[i]
            if isinstance(q, query.Not):
                continue
            part = self.run(q, ids)
            found[i] = part
            ids = part[0]
            if not ids.size:
                return EMPTY
        assert ids is not None
        for n in nots:
            excluded, _ = self.run(n.query, ids)
            ids = _without((ids, ids), excluded)[0]
        if not ids.size:
            return EMPTY
        parts: list[tuple[int, np.ndarray]] = []
        for i, q in enumerate(subqueries):
            if isinstance(q, query.Not):
                scores = np.ones(ids.size)
            else:
                docs, values = found[i]
                scores = values if docs.size == ids.size else values[blocks_np.members(docs, ids)]
            parts.append((-sizes[i], scores))
        return ids, _weighted(parts, np.add)

    def _or(self, subqueries: list[query.Query], boost: float, wanted: np.ndarray | None) -> Arrays:
        """UnionMatchers in make_weighted_tree's order (by estimate_size), or where Whoosh's
        Or preloads its parts (ArrayUnionMatcher), each part's scores times the boost added
        into an array in the parts' order."""
        parts = [self.run(q, wanted) for q in subqueries]
        if preloaded(len(subqueries), self.doccount):
            return _accumulated(parts, boost)
        tree = _weighted([(self._size(q), p) for q, p in zip(subqueries, parts, strict=True)], union)
        return _boosted(tree, boost)

    # -- phrases ------------------------------------------------------------------------------
    def _phrase(self, q: query.Phrase, wanted: np.ndarray | None) -> Arrays:
        """Phrase.matcher's SpanNear2: the words' intersection where each word stands within
        ``slop`` positions after the one before (ordered, mindist 1), scored by the words'
        BM25F summed in make_binary_tree's order."""
        schema = self.searcher.schema
        if q.fieldname not in schema or not q.words:
            return EMPTY
        field = schema[q.fieldname]
        if not field.format or not field.format.supports("positions"):
            raise Unsupported("phrase without positions")
        btexts = []
        for word in q.words:
            btext = self._btext(q.fieldname, word)
            if btext is None:
                return EMPTY
            btexts.append(btext)
        if len(btexts) == 1:  # one word: it holds wherever the word is, no positions to read
            return self.term(q.fieldname, btexts[0], wanted)
        distinct = sorted(dict.fromkeys(btexts), key=lambda b: self.reader.doc_frequency(q.fieldname, b))
        keyed = None
        if self.reader.doc_frequency(q.fieldname, distinct[0]) >= phrasekeys.KEYED_MIN:
            keyed = phrasekeys.phrase(
                self.reader, q.fieldname, btexts, distinct, wanted, self.deleted, q.slop
            )
        if keyed is not None:  # every word's list an array list: read once (phrasekeys.py)
            docs, postings = keyed
            if not docs.size:
                return EMPTY
            scored = {b: blocks_np.term_scores(self.searcher, q.fieldname, b, postings[b]) for b in postings}
            return docs, blocks_np.binary_sum([scored[b] for b in btexts])
        ids = wanted
        last = None
        for k, btext in enumerate(distinct):  # the papers with every word, rarest word first
            if k < len(distinct) - 1:
                ids = self._ids(q.fieldname, btext, ids)
            else:  # the commonest word's positions read here, in the blocks of those papers only
                last = self._positions(q.fieldname, btext, ids)
                ids = last.ids
            if not ids.size:
                return EMPTY
        assert ids is not None and last is not None
        chosen = {b: self._positions(q.fieldname, b, ids) for b in distinct[:-1]}
        chosen[distinct[-1]] = last
        held = holding([chosen[b] for b in btexts], ids.size, q.slop)
        if not held.size:
            return EMPTY
        scored = {
            b: blocks_np.term_scores(self.searcher, q.fieldname, b, chosen[b].select(held)) for b in chosen
        }
        return ids[held], blocks_np.binary_sum([scored[b] for b in btexts])

    def _positions(self, fieldname: str, btext: bytes, wanted: np.ndarray | None) -> blocks_np.TermArrays:
        """A word's postings with positions, those of ``wanted``'s papers only if given."""
        return blocks_np.block_arrays(self.reader, fieldname, btext, wanted, deleted=self.deleted, only=True)

    # -- expansions and Every -------------------------------------------------------------------
    def _expanded(self, q: Any, wanted: np.ndarray | None) -> Arrays:
        """MultiTerm.matcher per segment: a lone word its plain Term, else an Or of the words;
        constant scores (every match 1.0) where Whoosh's Or preloads them unscored."""
        words = [w for w in w3.expansions(q, self.reader) if w]
        if len(words) > MAX_TERMS:
            raise Unsupported("too many words")
        if not words:
            return EMPTY
        if len(words) == 1:
            return self.term(q.field(), words[0], wanted)
        if q.constantscore and preloaded(len(words), self.doccount):
            ids = [self._ids(q.field(), w, wanted) for w in words]
            docs = np.unique(np.concatenate(ids)) if ids else blocks_np.EMPTY_I
            return docs, np.ones(docs.size)
        return self.run(query.Or([query.Term(q.field(), w) for w in words], boost=q.boost), wanted)

    def _ids(self, fieldname: str, btext: bytes, wanted: np.ndarray | None) -> np.ndarray:
        arrays = blocks_np.block_arrays(
            self.reader, fieldname, btext, wanted, positions=False, deleted=self.deleted, only=True
        )
        return arrays.ids

    def _every(self, fieldname: str | None, boost: float, wanted: np.ndarray | None) -> Arrays:
        """Every.matcher: the papers with any term in the field (a length byte), each ``boost``
        (1.0 if 0)."""
        if fieldname is None:
            docs = np.arange(self.doccount, dtype=np.int64)
        else:
            if fieldname not in self.searcher.schema:
                raise Unsupported("Every of an unknown field")
            found = w3.field_docs(self.reader, fieldname)
            if found is None:
                raise Unsupported("a field without lengths")
            docs = found
        docs = _without((docs, docs), self.deleted)[0]
        if wanted is not None:
            docs = docs[blocks_np.members(docs, wanted)]
        return docs, np.full(docs.size, float(boost or 1.0))


def _weighted(parts: list[tuple[int, Any]], combine: Callable[[Any, Any], Any]) -> Any:
    """make_weighted_tree: the two lightest combined first, ties in the parts' order."""
    ls = sorted(parts, key=itemgetter(0))
    while len(ls) > 1:
        (wa, a), (wb, b) = ls.pop(0), ls.pop(0)
        insort(ls, (wa + wb, combine(a, b)), key=itemgetter(0))
    return ls[0][1]


def union(a: Arrays, b: Arrays) -> Arrays:
    """UnionMatcher: every doc of either, the two scores added where both match. An OR with
    its title phrase (titlefirst.py) meets the case where one holds the other's papers."""
    if not a[0].size:
        return b
    if not b[0].size:
        return a
    if a[0].size < b[0].size:
        b, a = a, b  # a + b == b + a: the larger one first
    at = blocks_np.members(a[0], b[0])  # a's papers that b has
    scores = a[1].copy()
    if at.size == b[0].size:  # b's papers all in a
        scores[at] = scores[at] + b[1]
        return a[0], scores
    shared = np.zeros(b[0].size, bool)
    shared[blocks_np.members(b[0], a[0])] = True
    scores[at] = scores[at] + b[1][shared]
    docs = np.concatenate((a[0], b[0][~shared]))
    order = np.argsort(docs, kind="stable")  # two sorted runs: merged
    return docs[order], np.concatenate((scores, b[1][~shared]))[order]


def _accumulated(parts: list[Arrays], boost: float) -> Arrays:
    """ArrayUnionMatcher: 0.0 plus each part's scores times the boost, in the parts' order."""
    nonempty = [p for p in parts if p[0].size]
    if not nonempty:
        return EMPTY
    docs = np.unique(np.concatenate([p[0] for p in nonempty]))
    scores = np.zeros(docs.size)
    for ids, values in nonempty:
        at = np.searchsorted(docs, ids)
        scores[at] = scores[at] + values * boost
    return docs, scores


def _without(found: Arrays, excluded: np.ndarray) -> Arrays:
    if not excluded.size or not found[0].size:
        return found
    keep = np.ones(found[0].size, bool)
    keep[blocks_np.members(found[0], excluded)] = False
    return found[0][keep], found[1][keep]


def _boosted(found: Arrays, boost: float) -> Arrays:
    return found if boost == 1.0 else (found[0], found[1] * boost)


def lone(q: query.Query) -> bool:
    if isinstance(q, query.Or) and (q.minmatch or q.scale):
        return False
    return isinstance(q, query.And | query.Or) and len(q.subqueries) == 1


def preloaded(clauses: int, doccount: int) -> bool:
    """Whether Whoosh's Or._matcher (no parent needing the current match) preloads its parts
    into an array (ArrayUnionMatcher) rather than a tree of unions."""
    return clauses >= query.Or.TOO_MANY_CLAUSES or not (clauses == 2 or doccount > 5000)


def expandable(q: query.Query) -> bool:
    return (
        isinstance(q, query.MultiTerm)
        and not isinstance(q, query.Every)
        and q.matcher.__func__
        in (query.MultiTerm.matcher, query.PatternQuery.matcher, query.Prefix.matcher, query.Wildcard.matcher)
        and getattr(q, "text", "x") not in ("", "*")
    )


def every_in_disguise(q: query.Query) -> bool:
    if isinstance(q, query.Prefix):
        return q.text == "" and q.matcher.__func__ is query.Prefix.matcher
    if isinstance(q, query.Wildcard):
        return q.text == "*" and q.matcher.__func__ is query.Wildcard.matcher
    return False
