"""Whoosh's BM25F ranking of term queries, computed a posting block at a time.

Whoosh scores a query by walking matcher objects posting by posting: ~5 µs a posting in Python,
so a word in a third of 87k abstracts costs ~160 ms, and its block-quality skipping rarely skips
(abstract lengths vary little). Queries made only of terms, And, Or, AndNot, Not inside an And,
phrases and expanded multi-terms (fuzzy, prefix, wildcard) are scored here instead: each term's
blocks are decoded whole (w3.blocks) into flat lists and scored in one comprehension with
Whoosh's own formula, global statistics and length encoding (bm25.py), giving the same documents
in the same order (``tests/search/test_score.py``, ``test_fast_paths.py``, and fastcheck.py at
run time) at a tenth of the cost. An AND of words is met as sets and scored on the shared papers
only (intersect.py); phrase position checks are in phrase.py. Anything else (ranges, Every)
returns None and Whoosh runs it. While typing, a query with many postings may read only its
best-bounded blocks (bounds.py; npbounds.py on array segments) and say so.

At 300k papers the floor is decoding: ~0.2 µs a posting (zlib, then one pickle per block of
128 ids, weights and position values), half of an AND or a phrase of two common words.
"""

from __future__ import annotations

import gc
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from itertools import compress
from operator import add
from typing import Any

from whoosh import query

from tui_reader.search import stop
from tui_reader.search.fast import arrays, bm25, bounds, health, intersect, npbounds, npleaf, phrase, w3
from tui_reader.search.fast.arrays import as_scores, top_arrays

Scores = dict[int, float]
Arrays = npleaf.Arrays  # (the index's docnums ascending, their scores): array segments' answers
Found = tuple[list[tuple[float, int]], int, bool]
PHRASE_CHECKS = 300  # papers holding a phrase's words checked at least (all if fewer: exact count)
MAX_TERMS = 20_000  # an expansion wider than this is left to Whoosh
BOUNDED_TYPING = 60_000  # while typing, a query reading more postings reads its best blocks first (bounds.py)
TYPING_POSTINGS = 32_000  # postings such a keystroke reads: its page may be a best-so-far
SKIP_BELOW = 5000  # an AND's other parts matched fewer papers: skip blocks holding none of them
_Unsupported = npleaf.Unsupported  # a query this module does not reproduce: Whoosh answers it


def search(
    searcher: Any,
    q: query.Query,
    limit: int,
    exact: bool = True,
    bounded: bool = False,
    every: list[Any] | None = None,
) -> Found | None:
    """The top ``limit`` (score, docnum) pairs, best first, the number of matches and whether
    that number is exact; None when Whoosh's searcher must answer: a query or weighting this
    module does not reproduce, fast paths off (w3's self-check), or an error, which is logged
    and counted (health.failed), never swallowed. ``exact=False`` (type-ahead only) lets a phrase on
    its own stop checking once its page is full: its count is then the matches verified so far,
    a lower bound. ``bounded`` (type-ahead only) lets a query with more than BOUNDED_TYPING
    postings read TYPING_POSTINGS of them, its best-bounded blocks (bounds.py): the answer is
    then a ``bounds.Page`` whose ``partial`` says whether its page is a best-so-far."""
    if not health.status().ok:
        return None
    try:
        with _collection_paused():
            return answer(searcher, q, limit, exact, bounded, every)
    except stop.Stopped:  # the deadline passed or a newer search began: the searcher says so
        raise
    except Exception as exc:
        health.failed(exc, q, lambda: searcher.search(q, limit=1))
        return None


@contextmanager
def _collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a query is scored: its temporary lists hold no
    cycles (reference counting frees them), yet allocating them set off collections that walked
    them, up to 60 ms of a common phrase's 190 at 300k papers. Switched back on only if it was
    on (another thread's search may have switched it off meanwhile: it switches it back on)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def every_score(searcher: Any, q: query.Query) -> Scores | None:
    """Every match's score (docnum -> score; answer() gives it to ``every``) for an answer
    sorted or restricted whole (ordering.py); None when Whoosh must answer, as with search()."""
    found = every_match(searcher, q)
    return as_scores(found) if isinstance(found, tuple) else found


def every_match(searcher: Any, q: query.Query) -> Scores | Arrays | None:
    """every_score's answer, as arrays when the index has array segments (Enter's answer:
    its page is found by ``top_arrays``, no dict of every match built)."""
    every: list[Scores | Arrays] = []
    return every[0] if search(searcher, q, 0, every=every) is not None and every else None


def answer(
    searcher: Any,
    q: query.Query,
    limit: int,
    exact: bool,
    bounded: bool,
    every: list[Any] | None = None,
) -> Found | None:
    """search() without its gate (w3's verdict) and its error handling: the self-check's."""
    params = w3.bm25f_params(searcher.weighting)
    if params is None:
        return None
    leaves = searcher.reader().leaf_readers()
    if any(npleaf.is_array_segment(reader) for reader, _ in leaves):
        page = npbounds.search(searcher, q, leaves, limit, bounded and not exact and every is None)
        if page is not None:  # a costly keystroke: its best blocks only (npbounds.py)
            return page
        matched = arrays.answer(searcher, q, leaves, lambda reader, q: _w3_leaf(searcher, reader, params, q))
        if matched is None:
            return None
        if every is not None:
            every.append(matched)
        return top_arrays(matched, limit), int(matched[0].size), True
    scores: Scores = {}
    total, counted = 0, True
    try:
        if bounded and not exact and len(leaves) == 1 and not leaves[0][0].has_deletions():
            reader = leaves[0][0]
            if bounds.reads(q, reader, SKIP_BELOW) > max(BOUNDED_TYPING, 4 * limit):
                page = bounds.search(Leaf(searcher, reader, params), q, limit, TYPING_POSTINGS)
                if page is not None:
                    return page
        for reader, base in leaves:
            leaf = Leaf(searcher, reader, params, top=None if exact else limit)
            found = leaf.run(q)
            if not base and not scores:
                scores = found
            else:
                scores.update({base + d: s for d, s in found.items()})
            total += len(found) if leaf.count is None else leaf.count
            counted = counted and leaf.exact
    except _Unsupported:
        return None
    if every is not None:
        every.append(scores)
    return bm25.top(scores, limit), total, counted


def _w3_leaf(searcher: Any, reader: Any, params: tuple[float, float], q: query.Query) -> Scores | None:
    """A W3 segment's scores beside array segments, every match; None where Leaf declines."""
    try:
        return Leaf(searcher, reader, params).run(q)
    except _Unsupported:
        return None


class Leaf:
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
        self.source: bounds.Postings | None = None  # postings to score instead of the reader's

    def run(self, q: query.Query) -> Scores:
        if not isinstance(q, query.Phrase):
            self.top = None
        if npleaf.lone(q):  # CompoundQuery.matcher: a lone part's own matcher, the group's boost unused
            return self.run(q.subqueries[0])
        if isinstance(q, query.Term):
            return self._term(q.fieldname, q.text, q.boost)
        if isinstance(q, query.And) and q.subqueries:
            return _boosted(self._and(q.subqueries), q.boost)
        if isinstance(q, query.Phrase):
            top, self.top = self.top, None  # only the query itself, not a phrase inside it
            return _boosted(self._phrase(q, top), q.boost)
        if isinstance(q, query.Or) and not q.minmatch and not q.scale:
            return _boosted(_added(self.run(sub) for sub in q.subqueries), q.boost)
        if isinstance(q, query.AndNot):
            excluded = self.run(q.b)
            return {d: s for d, s in self.run(q.a).items() if d not in excluded}
        if npleaf.expandable(q):
            return self._expanded(q)
        if isinstance(q, query.Every) or npleaf.every_in_disguise(q):
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
        if q.constantscore and npleaf.preloaded(len(words), self.reader.doc_count_all()):
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
        if not nots and all(type(q) is query.Term for q in subqueries):
            return intersect.scored(self, subqueries)
        terms = [q for q in subqueries if self.cost(q) is not None]
        others = [q for q in subqueries if self.cost(q) is None]
        if not others:  # start from the rarest
            terms.sort(key=lambda t: self.cost(t) or 0)
            others, terms = terms[:1], terms[1:]
        parts = sorted((self.run(q) for q in others), key=len)
        out = parts[0]
        for other in parts[1:]:
            out = {d: s + other[d] for d, s in out.items() if d in other}
        for t in terms:
            other = self._restricted(t, out)  # its documents are among out's
            out = {d: out[d] + s for d, s in other.items()}
        for n in nots:
            excluded = self.run(n.query)
            out = {d: s + 1.0 for d, s in out.items() if d not in excluded}
        return out

    def cost(self, q: query.Query) -> int | None:
        """Postings of a term or an OR of terms (nested), None for anything else."""
        if type(q) is query.Term:
            return self._doc_frequency(q.fieldname, q.text)
        if type(q) is query.Or and q.subqueries and not q.minmatch and not q.scale:
            costs = [self.cost(sub) for sub in q.subqueries]
            return None if None in costs else sum(c or 0 for c in costs)
        return None

    def _restricted(self, q: query.Query, only: Scores) -> Scores:
        """run(q) for the documents in ``only``; q is a term or an OR of terms (see _cost)."""
        if type(q) is query.Term:
            return self._term(q.fieldname, q.text, q.boost, only=only)
        if npleaf.lone(q):
            return self._restricted(q.subqueries[0], only)
        return _boosted(_added(self._restricted(sub, only) for sub in q.subqueries), q.boost)

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
        found = phrase.gather(
            self.reader,
            q.fieldname,
            words,
            lambda w: self._doc_frequency(q.fieldname, w),
            self.deleted,
            SKIP_BELOW,
        )
        long = len(words) > 2 and q.slop == 1  # checked word by word, fast however many words
        if top is None or len(found.docs) <= PHRASE_CHECKS or long:  # every candidate: exact
            held = phrase.holding(words, found, field.format, q.slop)
            return self._summed(q.fieldname, words, found, held)  # scored where it holds only
        scores = self._summed(q.fieldname, words, found)
        kept, self.count, self.exact = phrase.best_holding(
            list(scores.values()), words, found, field.format, q.slop, top, PHRASE_CHECKS
        )
        return kept

    def _summed(
        self, fieldname: str, words: list[bytes], found: phrase.Candidates, held: list[bool] | None = None
    ) -> Scores:
        """The phrase's score for each candidate (or those ``held`` marks): its words' BM25F
        added in make_binary_tree's order of the words (SpanNear2's IntersectionMatchers), a
        repeated word once per occurrence, so the floats are Whoosh's."""
        docs = found.docs if held is None else list(compress(found.docs, held))
        scored: dict[bytes, list[float]] = {}
        for w in dict.fromkeys(words):
            weights = found.weights[w] if held is None else list(compress(found.weights[w], held))
            scored[w] = self.weigh(fieldname, w, docs, weights)
        if not words:
            return {}
        return dict(zip(docs, _binary_sum([scored[w] for w in words]), strict=True))

    def weigh(self, fieldname: str, btext: bytes, ids: list[int], weights: list[float]) -> list[float]:
        """BM25F of one term for the given postings, with the statistics BM25FScorer takes."""
        parent = self.searcher.get_parent()
        idf = parent.idf(fieldname, btext)
        avgfl = parent.avg_field_length(fieldname) or 1
        norms = bm25.field_norms(self.reader, fieldname, avgfl, self.b, self.k1)
        return bm25.weigh(idf, norms, self.k1, ids, weights)

    def lists(
        self, fieldname: str, text: Any, wanted: Collection[int] | None = None
    ) -> tuple[bytes, list[int], list[float]] | None:
        """A term's postings, docnums ascending, deletions left out; those of ``wanted`` only
        if given (blocks holding none of fewer than SKIP_BELOW are not read); None if absent."""
        schema = self.searcher.schema
        if fieldname not in schema:
            return None
        field = schema[fieldname]
        try:
            btext = field.to_bytes(text)
        except ValueError:
            return None
        if (fieldname, btext) not in self.reader:
            return None
        if not field.scorable:
            raise _Unsupported("unscorable field")
        if self.source is not None:  # some blocks only (bounds.py); their papers have no deletions
            ids, weights = self.source.get((fieldname, btext), ([], []))
        else:
            skip = sorted(wanted) if wanted is not None and len(wanted) < SKIP_BELOW else None
            ids, weights, _ = bm25.postings(self.reader, fieldname, btext, skip)
        if wanted is not None:
            ids, weights = bm25.kept(ids, weights, wanted)
        else:
            ids, weights = bm25.undeleted(ids, weights, self.deleted)
        return btext, ids, weights

    def _term(self, fieldname: str, text: Any, boost: float, only: Collection[int] | None = None) -> Scores:
        """BM25F of one term, for the papers in ``only`` if given (an AND's other words)."""
        found = self.lists(fieldname, text, only)
        if found is None:
            return {}
        btext, ids, weights = found
        return _boosted(dict(zip(ids, self.weigh(fieldname, btext, ids, weights), strict=True)), boost)


def _binary_sum(parts: list[list[float]]) -> list[float]:
    """make_binary_tree's sum of equal-length lists: halves added, recursively."""
    if len(parts) == 1:
        return parts[0]
    stop.check()  # a phrase may repeat a word hundreds of times
    half = len(parts) // 2
    return list(map(add, _binary_sum(parts[:half]), _binary_sum(parts[half:])))


def _added(parts: Iterable[Scores]) -> Scores:
    """Or's scores: each document's parts added in order (0.0 + s is s: the first is copied)."""
    out: Scores | None = None
    for part in parts:
        if out is None:
            out = dict(part)
            continue
        get = out.get
        for d, s in part.items():
            out[d] = get(d, 0.0) + s
    return out or {}


def _boosted(scores: Scores, boost: float) -> Scores:
    return scores if boost == 1.0 else {d: s * boost for d, s in scores.items()}
