"""Whoosh's BM25F ranking of term queries, computed a posting block at a time.

Whoosh scores a query by walking matcher objects posting by posting: ~5 µs a posting in Python,
so a word in a third of 87k abstracts costs ~160 ms, and its block-quality skipping rarely skips
(abstract lengths vary little). Queries made only of terms, And, Or, AndNot, Not inside an And,
phrases and expanded multi-terms (fuzzy, prefix, wildcard) are scored here instead: each term's
blocks are decoded whole (w3.blocks) and scored in one comprehension with Whoosh's own formula,
global statistics and length encoding, giving the same documents in the same order
(``tests/search/test_score.py``) at a tenth of the cost. Anything else (ranges, Every)
returns None and Whoosh runs it. Phrase position checks are in phrase.py.
"""

from __future__ import annotations

import heapq
import math
import threading
import weakref
from collections.abc import Collection, Iterable
from typing import Any

from whoosh import query

from tui_reader.search import phrase, stop, w3

Scores = dict[int, float]
Found = tuple[list[tuple[float, int]], int, bool]
PHRASE_CHECKS = 300  # papers holding a phrase's words checked at least (all if fewer: exact count)
MAX_TERMS = 20_000  # an expansion wider than this is left to Whoosh
SKIP_BELOW = 5000  # an AND's other parts matched fewer papers: skip blocks holding none of them

_lengths_cache: weakref.WeakKeyDictionary[Any, dict[Any, list[Any]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class _Unsupported(Exception):
    pass


def search(searcher: Any, q: query.Query, limit: int, exact: bool = True) -> Found | None:
    """The top ``limit`` (score, docnum) pairs, best first, the number of matches and whether
    that number is exact; None when Whoosh's searcher must answer: a query or weighting this
    module does not reproduce, fast paths off (w3's self-check), or an error, which is logged
    and counted (w3.failed), never swallowed. ``exact=False`` (type-ahead only) lets a phrase on
    its own stop checking once its page is full: its count is then the matches verified so far,
    a lower bound."""
    if not w3.status().ok:
        return None
    try:
        return _search(searcher, q, limit, exact)
    except stop.Stopped:  # the deadline passed or a newer search began: the searcher says so
        raise
    except Exception as exc:
        w3.failed(exc, q, lambda: searcher.search(q, limit=1))
        return None


def _search(searcher: Any, q: query.Query, limit: int, exact: bool) -> Found | None:
    params = w3.bm25f_params(searcher.weighting)
    if params is None:
        return None
    scores: Scores = {}
    total, counted = 0, True
    try:
        for reader, base in searcher.reader().leaf_readers():
            leaf = _Leaf(searcher, reader, params, top=None if exact else limit)
            found = leaf.run(q)
            scores.update({base + d: s for d, s in found.items()})
            total += len(found) if leaf.count is None else leaf.count
            counted = counted and leaf.exact
    except _Unsupported:
        return None
    top = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0]))
    return [(s, d) for d, s in top], total, counted


def difference(ix: Any) -> str | None:
    """How this module's answers differ from Whoosh's searcher on ``ix`` (the sample index of
    w3's self-check, build/check.py, which holds these words), or None."""
    t = query.Term
    queries = [
        t("content", "graph"),
        query.And([t("content", "graph"), t("content", "neural")]),
        query.Or([t("content", "graph"), t("content", "vision")]),
        query.AndNot(t("content", "network"), t("content", "graph")),
        query.Phrase("content", ["neural", "network"]),
        query.Phrase("content", ["graph", "neural", "network"]),
        query.Phrase("title", ["neural", "network"], slop=2),
        query.Prefix("content", "gra"),
        query.And([t("title", "model"), query.Not(t("content", "kernel"))]),
    ]
    with ix.searcher() as s:
        for q in queries:
            fast, theirs = _search(s, q, 10, True), s.search(q, limit=10)
            if fast is None:
                return f"{q} is not scored"
            top, total, counted = fast
            if [d for _, d in top] != [hit.docnum for hit in theirs] or not all(
                math.isclose(ours, hit.score, rel_tol=1e-9)
                for (ours, _), hit in zip(top, theirs, strict=True)
            ):
                return f"{q} ranks differently"
            if total != len(theirs) or not counted or not total:
                return f"{q} counts {total}, not {len(theirs)}"
    return None


class _Leaf:
    """One segment: postings and lengths local to it, statistics from the whole index (as
    BM25FScorer takes them from the top-level searcher)."""

    def __init__(
        self, searcher: Any, reader: Any, params: tuple[float, float], top: int | None = None
    ) -> None:
        self.searcher = searcher
        self.reader = reader
        self.b, self.k1 = params
        self.top = top  # the page size, for a query that is a phrase and nothing else
        self.count: int | None = None  # that phrase's matches, beyond the page it returns
        self.exact = True  # False when it stopped checking: count is then an estimate
        self.deleted = reader.deleted_docs_set if reader.has_deletions() else frozenset()

    def run(self, q: query.Query) -> Scores:
        if not isinstance(q, query.Phrase):
            self.top = None
        if isinstance(q, query.Term):
            return self._term(q.fieldname, q.text, q.boost)
        if isinstance(q, query.And) and q.subqueries:
            return _boosted(self._and(q.subqueries), q.boost)
        if isinstance(q, query.Phrase):
            top, self.top = self.top, None  # only the query itself, not a phrase inside it
            return _boosted(self._phrase(q, top), q.boost)
        if isinstance(q, query.Or) and not q.minmatch and not q.scale:
            out: Scores = {}
            for sub in q.subqueries:
                for d, s in self.run(sub).items():
                    out[d] = out.get(d, 0.0) + s
            return _boosted(out, q.boost)
        if isinstance(q, query.AndNot):
            excluded = self.run(q.b)
            return {d: s for d, s in self.run(q.a).items() if d not in excluded}
        if _expandable(q):
            return self._expanded(q)
        if isinstance(q, query.Every) or _every_in_disguise(q):
            return self._every(q.fieldname, q.boost)
        if q is query.NullQuery or isinstance(q, type(query.NullQuery)):
            return {}
        raise _Unsupported(type(q).__name__)

    def _every(self, fieldname: str | None, boost: float) -> Scores:
        """Every.matcher's answer (a ListMatcher weighing each match ``boost``, 1.0 if 0): the
        papers with any term in the field, here those with a length in it (w3.with_field), not
        by reading every posting of every term of the field as Whoosh does (10 s at 87k)."""
        if fieldname is None:
            docs: Collection[int] = range(self.reader.doc_count_all())
        else:
            found = w3.with_field(self.reader, fieldname) if fieldname in self.searcher.schema else None
            if found is None:
                raise _Unsupported("a field without lengths")
            docs = found
        return dict.fromkeys((d for d in docs if d not in self.deleted), float(boost or 1.0))

    def _expanded(self, q: Any) -> Scores:
        """Expanded per segment, as Whoosh's MultiTerm.matcher does with each subsearcher."""
        words = [w for w in w3.expansions(q, self.reader) if w]
        if len(words) > MAX_TERMS:
            raise _Unsupported
        if len(words) == 1:  # MultiTerm.matcher: a lone expansion is a plain, unboosted Term
            return self._term(q.field(), words[0], 1.0)
        if q.constantscore and _preloaded(len(words), self.reader.doc_count_all()):
            # Or._matcher picks an unscored ArrayUnionMatcher: every match scores 1.0
            found: set[int] = set()
            for w in words:
                for ids, _, _ in w3.blocks(self.reader.postings(q.field(), w)):
                    stop.check()
                    found.update(ids)
            return dict.fromkeys(found - set(self.deleted), 1.0)
        return self.run(query.Or([query.Term(q.field(), w) for w in words], boost=q.boost))

    def _and(self, subqueries: list[query.Query]) -> Scores:
        """Intersection, scores summed. Terms (and ORs of terms, such as a typed word with its
        completions) are scored last and only for the documents every other part matched: a
        rare word AND a common one scores the rare word's papers only. A Not part is Whoosh's
        InverseMatcher: it excludes its matches and adds 1.0 to the rest."""
        nots = [q for q in subqueries if isinstance(q, query.Not)]
        subqueries = [q for q in subqueries if not isinstance(q, query.Not)]
        if not subqueries:
            raise _Unsupported("only negations")
        terms = [q for q in subqueries if self._cost(q) is not None]
        others = [q for q in subqueries if self._cost(q) is None]
        if not others:  # start from the rarest
            terms.sort(key=lambda t: self._cost(t) or 0)
            others, terms = terms[:1], terms[1:]
        parts = sorted((self.run(q) for q in others), key=len)
        out = parts[0]
        for other in parts[1:]:
            out = {d: s + other[d] for d, s in out.items() if d in other}
        for t in terms:
            other = self._restricted(t, out)
            out = {d: s + other[d] for d, s in out.items() if d in other}
        for n in nots:
            excluded = self.run(n.query)
            out = {d: s + 1.0 for d, s in out.items() if d not in excluded}
        return out

    def _cost(self, q: query.Query) -> int | None:
        """Postings of a term or an OR of terms (nested), None for anything else."""
        if type(q) is query.Term:
            return self._doc_frequency(q.fieldname, q.text)
        if type(q) is query.Or and q.subqueries and not q.minmatch and not q.scale:
            costs = [self._cost(sub) for sub in q.subqueries]
            return None if None in costs else sum(c or 0 for c in costs)
        return None

    def _restricted(self, q: query.Query, only: Scores) -> Scores:
        """run(q) for the documents in ``only``; q is a term or an OR of terms (see _cost)."""
        if type(q) is query.Term:
            return self._term(q.fieldname, q.text, q.boost, only=only)
        out: Scores = {}
        for sub in q.subqueries:
            for d, s in self._restricted(sub, only).items():
                out[d] = out.get(d, 0.0) + s
        return _boosted(out, q.boost)

    def _doc_frequency(self, fieldname: str, text: Any) -> int:
        try:
            return int(self.reader.doc_frequency(fieldname, text))
        except Exception:
            return 0

    def _phrase(self, q: query.Phrase, top: int | None = None) -> Scores:
        """Phrase.matcher's answer: the words' intersection, scores summed, where the words
        follow each other (phrase.py). With ``top``, papers are checked best first, and the
        check stops once ``top`` phrases are found and PHRASE_CHECKS papers were checked
        (type-ahead only)."""
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
        tfs, raw, common = phrase.gather(
            self.reader, q.fieldname, words, lambda w: self._doc_frequency(q.fieldname, w)
        )
        common -= self.deleted
        long = len(words) > 2 and q.slop == 1  # checked word by word, fast however many words
        if top is None or len(common) <= PHRASE_CHECKS or long:  # every candidate: an exact answer
            held = phrase.holding(words, raw, common, field.format, q.slop)
            return self._summed(q.fieldname, words, tfs, held)  # scored where it holds only
        scores = self._summed(q.fieldname, words, tfs, common)
        kept, self.count, self.exact = phrase.best_holding(
            scores, words, raw, field.format, q.slop, top, PHRASE_CHECKS
        )
        return kept

    def _summed(
        self, fieldname: str, words: list[bytes], tfs: dict[bytes, dict[int, float]], docs: Iterable[int]
    ) -> Scores:
        """The phrase's score for each of ``docs``: its words' BM25F summed, a repeated word
        once per occurrence, in the order Whoosh's matchers add them."""
        docs = list(docs)
        scores: Scores | None = None
        for w in sorted(dict.fromkeys(words), key=lambda w: self._doc_frequency(fieldname, w)):
            found = self._bm25(fieldname, w, {d: tfs[w][d] for d in docs})
            for _ in range(words.count(w)):
                stop.check()  # a phrase may repeat a word hundreds of times
                scores = found if scores is None else {d: s + found[d] for d, s in scores.items()}
        return scores or {}

    def _bm25(self, fieldname: str, btext: bytes, tfs: dict[int, float]) -> Scores:
        """BM25F of one term for the given {docnum: weight}: bm25() of whoosh.scoring, operation
        for operation, with the statistics BM25FScorer takes, so the floats are the same."""
        parent = self.searcher.get_parent()
        idf = parent.idf(fieldname, btext)
        avgfl = parent.avg_field_length(fieldname) or 1
        norms = _field_norms(self.reader, fieldname, avgfl, self.b, self.k1)
        k1p = self.k1 + 1
        return {d: idf * ((tf * k1p) / (tf + norms[d])) for d, tf in tfs.items()}

    def _term(self, fieldname: str, text: Any, boost: float, only: Collection[int] | None = None) -> Scores:
        """BM25F of one term, for the papers in ``only`` if given (an AND's other words)."""
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
        tfs: dict[int, float] = {}
        wanted = sorted(only) if only is not None and len(only) < SKIP_BELOW else None
        for ids, weights, _ in w3.blocks(self.reader.postings(fieldname, btext), wanted=wanted):
            stop.check()
            tfs.update(zip(ids, weights, strict=True))
        if only is not None:
            tfs = {d: tfs[d] for d in only if d in tfs}
        elif self.deleted:
            tfs = {d: tf for d, tf in tfs.items() if d not in self.deleted}
        return _boosted(self._bm25(fieldname, btext, tfs), boost)


def _expandable(q: query.Query) -> bool:
    """A fuzzy, prefix, wildcard or pattern query whose matcher is MultiTerm's own expansion."""
    return (
        isinstance(q, query.MultiTerm)
        and not isinstance(q, query.Every)
        and q.matcher.__func__
        in (query.MultiTerm.matcher, query.PatternQuery.matcher, query.Prefix.matcher, query.Wildcard.matcher)
        and getattr(q, "text", "x") not in ("", "*")
    )


def _every_in_disguise(q: query.Query) -> bool:
    """A prefix ``""`` or a wildcard ``*``: their matchers are Every's."""
    if isinstance(q, query.Prefix):
        return q.text == "" and q.matcher.__func__ is query.Prefix.matcher
    if isinstance(q, query.Wildcard):
        return q.text == "*" and q.matcher.__func__ is query.Wildcard.matcher
    return False


def _preloaded(clauses: int, doccount: int) -> bool:
    """Whether Whoosh's Or._matcher (AUTO_MATCHER, at the top of a search, where no parent
    needs the current match) reads the clauses into an array rather than a tree of unions."""
    return clauses >= query.Or.TOO_MANY_CLAUSES or not (clauses == 2 or doccount > 5000)


def _boosted(scores: Scores, boost: float) -> Scores:
    return scores if boost == 1.0 else {d: s * boost for d, s in scores.items()}


def _field_norms(reader: Any, fieldname: str, avgfl: float, b: float, k1: float) -> list[float]:
    """``K1 * ((1 - B) + B * fl / avgfl)`` of bm25() for every document: the part of the score
    that depends on the paper alone, computed once per segment reader and statistics."""
    key = (fieldname, avgfl, b, k1)
    with _lock:
        cached = _lengths_cache.setdefault(reader, {}).get(key)
    if cached is None:
        omb = 1 - b
        cached = [k1 * (omb + b * fl / avgfl) for fl in _field_lengths(reader, fieldname)]
        with _lock:
            _lengths_cache[reader][key] = cached
    return cached


def _field_lengths(reader: Any, fieldname: str) -> list[int]:
    """Each document's length in the field (w3.doc_lengths), read once per segment reader
    (~10 ms at 87k papers)."""
    with _lock:
        per_reader = _lengths_cache.setdefault(reader, {})
        lengths = per_reader.get(fieldname)
        if lengths is None:
            lengths = per_reader[fieldname] = w3.doc_lengths(reader, fieldname)
        return lengths
