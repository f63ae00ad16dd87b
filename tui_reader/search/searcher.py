"""Running queries: one entry point, where a SearchMode decides between Enter's and typing's path.

Enter and the command line return Whoosh's own answer, scored a block at a time by score.py where
it can (same papers, order and count). Type-ahead may complete the word being typed, bound an
explicit prefix or stop Whoosh's scoring after a time budget: each of these adds papers or says
it stopped early (``partial``, a count that is a lower bound), and none reaches Enter.

No search runs for long: each runs under a deadline (stop.py) that also fires when a newer search
starts (or ``cancel()``), so the newer one never waits for the older. A stopped search says so
(``stopped``, a notice, and a count that is a lower bound); it never passes for a whole answer.
A failure to read Whoosh's own files raises IndexDamaged: the caller rebuilds the index.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable

from whoosh import query
from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.errors import IndexDamaged
from tui_reader.search import facets, ordering, stop, subsets
from tui_reader.search.fast import ahead, arrays, bounds, health, selfcheck
from tui_reader.search.fast.score import every_match as every_score  # arrays or a dict (tests steer it)
from tui_reader.search.fast.score import search as fast_search
from tui_reader.search.highlight import match_spans, snippet
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.schema import DEFAULT_FIELD
from tui_reader.search.ordering import Order
from tui_reader.search.query import caps, querytext
from tui_reader.search.query.completion import Completer
from tui_reader.search.query.language import QueryReader
from tui_reader.search.query.modes import PAGE, SearchMode
from tui_reader.search.query.suggest import suggest
from tui_reader.search.results import Hit, SearchResult, highlight_terms, hits
from tui_reader.search.similar import more_like

__all__ = ["PAGE", "Hit", "Order", "SearchMode", "SearchResult", "Searcher", "match_spans", "snippet"]

logger = logging.getLogger("tui_reader.search")
TYPEAHEAD_BUDGET = 0.018  # seconds of Whoosh's own scoring per keystroke
TIME_LIMIT = 1.5  # seconds a search on Enter or the command line runs before it stops, and says so
TYPING_TIME_LIMIT = 1.0  # seconds a keystroke's search may run (the next keystroke stops it sooner)
_DEFAULT = -1.0
CACHE_MAX_HITS = 2_000  # answers longer than this are not kept: the cache's size stays bounded


class Searcher:
    """Runs queries for one index; safe to call from worker threads (calls are serialised, and
    a newer call stops an older one still running: see ``search`` and ``cancel``).

    Enter (``SearchMode.ENTER``) and the command line get Whoosh's answer to ``parse(text)``: the
    same papers, count and order as ``searcher.search(parse(text))``. Type-ahead searches what
    was typed so far, the word being typed included as typed, and adds that word's completions;
    its devices (completion, bounded prefixes, a time budget) only ever add papers or, when they
    stop early, say so (``partial``, and a count that is a lower bound).
    """

    def __init__(self, index: SearchIndex, small_corpus: int | None = None, *, warm: bool = True) -> None:
        """``warm`` (the reader's index worker): read the completion vocabulary (which also
        finds word lists that do not read), run the fast paths' self-check and load what the
        first search would load (``warm()``), so the first search costs what the next ones do.
        Without it (a one-shot command line search) each is read when first needed."""
        self.index = index
        self.corpus = index.corpus
        self._cache: OrderedDict[tuple[object, ...], SearchResult] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._latest = 0  # the newest search's number: an older one stops at its next check
        self.completer: Completer = ahead.LazyCompleter(index, small_corpus)
        try:
            schema = index.index().schema
        except IndexDamaged:
            raise
        except Exception as exc:  # the files open but do not read
            raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc
        self.reading = QueryReader(schema, self.completer)
        if warm:
            self.warm()

    def warm(self) -> None:
        """Read now what the first search would (see ahead.py); IndexDamaged for files that do
        not read."""
        try:
            ahead.read_ahead(self.index, self.completer)
        except IndexDamaged:
            raise
        except Exception as exc:
            raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc

    def invalidate(self) -> None:
        """Forget cached results (the bench calls this; an index update does too)."""
        with self._cache_lock:
            self._cache.clear()

    # -- public -----------------------------------------------------------------------------
    def parse(self, text: str) -> tuple[query.Query, str | None]:
        """Enter's reading of the text (see QueryReader.parse)."""
        return self.reading.parse(text)

    @property
    def fields(self) -> frozenset[str]:
        """The field names the query language knows."""
        return self.reading.fields

    def search(
        self,
        text: str,
        mode: SearchMode = SearchMode.ENTER,
        limit: int = PAGE,
        time_limit: float | None = _DEFAULT,
        sets: subsets.Sets | None = None,
        order: Order | None = None,
        only: subsets.Only | None = None,
    ) -> SearchResult:
        """Search ``text`` the way ``mode`` says; the first ``limit`` hits, best first. It stops
        after ``time_limit`` seconds (default: TIME_LIMIT, TYPING_TIME_LIMIT while typing; None:
        never) or when a newer search begins, and then says so (``stopped``). ``is:read``,
        ``is:unread``, ``is:bookmarked``, ``is:new``, ``is:tagged`` and ``tag:name`` in the text
        filter by ``sets``.

        ``order`` (ordering.Order) sorts the whole answer, ``only`` (subsets.Only) restricts it to
        a view's papers: the hits are the first ``limit`` of that answer and ``total`` its exact
        count, so a larger ``limit`` continues the same order. Either one makes any mode read
        every match (no typing budget). With either, an empty ``text`` is every paper. Enter's
        relevance answer whose matches all score the same comes in collection order
        (``SearchResult.order`` says which order the hits are in; see ordering.py)."""
        deadline = self._begin(TYPING_TIME_LIMIT if mode is SearchMode.TYPING else TIME_LIMIT, time_limit)
        text = text.strip("\n")
        key = (text, mode, limit, subsets.key(sets), ordering.key(order), only and only.key())
        started = time.perf_counter()
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached.again((time.perf_counter() - started) * 1000)
        result = self._search(text, mode, limit, deadline, sets, order, only)
        # a cut answer or suggestion is not for next time; nor every match for a sort (87k: ~6 MB)
        if result.stopped or deadline.passed() or len(result.hits) > CACHE_MAX_HITS:
            return result
        with self._cache_lock:
            self._cache[key] = result
            while len(self._cache) > 256:
                self._cache.popitem(last=False)
        return result

    def prepare(self, order: Order | None = None) -> None:
        """Read what a sorted or restricted search reads first (each document's row, ~0.3 s at
        87k papers, once per index; ``order``'s rank per document, ~10 ms): for the worker that
        builds an Order, so the search that follows costs what the next ones do."""
        with self.index.searcher() as s:
            facets.doc_rows(s.reader(), self)
            if order is not None:
                self._ranks(s, order)

    @property
    def generation(self) -> int:
        """Counts the searches begun: work done between searches (facets) stops when it moves."""
        return self._latest

    def cancel(self) -> None:
        """Stop the search running now, if any, at its next check (it returns, ``stopped``)."""
        self._begin(None, None)

    def _begin(self, default: float | None, given: float | None) -> stop.Deadline:
        """A new search: the one before it (and any older) stops at its next check."""
        with self._cache_lock:
            self._latest += 1
            mine = self._latest
        return stop.Deadline(default if given == _DEFAULT else given, lambda: self._latest != mine)

    def similar(
        self, row: int, limit: int = 50, order: Order | None = None, only: subsets.Only | None = None
    ) -> SearchResult:
        """Papers like this one: Whoosh more-like-this over the abstract's key terms, among
        ``only``'s papers if given; its ``limit`` best, in ``order`` if given (ties by
        similarity, then collection order)."""
        self._begin(None, None)  # it waits for the lock: an older search stops now
        try:
            return self._similar(row, limit, order, only)
        except IndexDamaged:
            raise
        except Exception as exc:
            raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc

    def _similar(self, row: int, limit: int, order: Order | None, only: subsets.Only | None) -> SearchResult:
        selfcheck.status()
        started = time.perf_counter()
        pid = self.corpus.ids[row]
        abstract = self.corpus.abstract(row)
        with self.index.searcher() as s:
            docnum = s.document_number(id=pid)
            text = f"{self.corpus.titles[row]}\n{abstract}"
            keys = s.key_terms_from_text(DEFAULT_FIELD, text, numterms=12, normalize=False)  # more_like's
            if docnum is None:
                return SearchResult(
                    f"similar to {pid}", kind="similar", notice="this paper is not in the index yet"
                )
            view = subsets.narrowed(s, None, only, self._numbering(s))
            found = more_like(s, docnum, keys, limit, view)
            if order is not None and found:
                rows = facets.doc_rows(s.reader(), self)
                ranks = ordering.doc_ranks(s.reader(), rows, order)
                found, _ = ordering.first(dict((d, sc) for sc, d in found), rows, ranks, None)
            hits = self._hits((s.stored_fields(d)["id"], sc) for sc, d in found)
        took = (time.perf_counter() - started) * 1000
        return SearchResult(
            f"similar to: {self.corpus.titles[row]}",
            hits,
            len(hits),
            True,
            took,
            terms=frozenset(t for t, _ in keys),
            kind="similar",
            order=ordering.RELEVANCE if order is None else order.name,
        )

    # -- internals --------------------------------------------------------------------------
    def _search(
        self,
        text: str,
        mode: SearchMode,
        limit: int,
        deadline: stop.Deadline,
        sets: subsets.Sets | None,
        order: Order | None = None,
        only: subsets.Only | None = None,
    ) -> SearchResult:
        started = time.perf_counter()
        result = SearchResult(text, kind=mode.value)
        if not text.strip() and order is None and only is None:
            return result
        try:
            with stop.watching(deadline), self.index.searcher() as s:
                deadline.check()  # replaced while it waited for the lock: stop at once
                self._answer(s, text, mode, limit, result, sets, order, only)
        except stop.Stopped as halt:  # what was found so far, said to be so
            result.stopped, result.exact = halt.reason, False
            result.partial = result.typing
            result.total = max(result.total, len(result.hits))
            why = (
                "a newer search replaced this one"
                if halt.reason == "replaced"
                else f"stopped after {deadline.seconds:g} s, too costly at this size"
            )
            result.notice = _joined(result.notice, f"{why}: {result.count_text} matches so far")
        except IndexDamaged:
            raise
        except Exception as exc:  # Whoosh failing to read its own files: rebuild, don't guess
            logger.error("a search failed reading the index: %r", text[:200], exc_info=exc)
            raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    def _answer(
        self,
        s: WhooshSearcher,
        text: str,
        mode: SearchMode,
        limit: int,
        result: SearchResult,
        sets: subsets.Sets | None,
        order: Order | None = None,
        view: subsets.Only | None = None,
        suggesting: bool = True,
    ) -> None:
        typeahead = mode is not SearchMode.ENTER
        reader = s.reader()
        typed = text  # "did you mean" keeps the filters, so accepting it keeps them too
        text, wanted, unknown = querytext.split_filters(text)
        if typeahead:
            # a filter being typed (is:unr) is not yet unknown
            unknown = tuple(w for w in unknown if not any(f.startswith(w) for f in querytext.IS_FILTERS))
            q, result.partial = self.reading.typing(text, reader)
        else:
            q, result.notice = self.reading.parse(text)
        numbering = self._numbering(s)
        only = subsets.restriction(s, wanted, unknown, sets, numbering) if wanted or unknown else None
        if only is not None:
            result.notice = _joined(result.notice, only.notice)
        only = subsets.narrowed(s, only, view, numbering)
        if not text.strip() and (only is not None or order is not None):
            q = query.Every()  # "is:unread" alone, or a view or an order alone: every paper
        if typeahead and isinstance(q, type(query.NullQuery)):
            result.incomplete = True
            return
        # Enter, a sort or a view: the whole answer, then its first ``limit`` (ordering.py).
        whole = not typeahead or order is not None or only is not None
        ranks = None if order is None else self._ranks(s, order)
        # None: Whoosh's path below answers, and says what is wrong with unreadable files. fast_search
        # logs and counts a fast-path error; health.take_notice tells the reader once. A keystroke may
        # read only a query's best blocks (bounds.py); Enter, "more" and the command line read them all.
        selfcheck.status()  # the gate: the self-check on the first search of the process
        every = every_score(s, q) if whole else None
        page = arrays.page_of(every, limit) if ranks is None and only is None else None
        scores = arrays.as_scores(every) if isinstance(every, tuple) and page is None else every
        fast = None if whole else fast_search(s, q, limit, not typeahead, mode is SearchMode.TYPING)
        if page is not None:  # array segments, by relevance: the page found in the arrays, no dict
            top, result.total, result.exact, result.order = *page, not result.partial, ordering.RELEVANCE
            result.hits = self._hits((s.stored_fields(docnum)["id"], sc) for sc, docnum in top)
        elif isinstance(scores, dict):  # every match scored a block at a time, then ordered
            scores = scores if only is None else only.kept(scores)
            level = ranks is None and ordering.level(scores.values())
            rows = facets.doc_rows(reader, self) if ranks is not None or level else []
            top, arranged = ordering.first(scores, rows, ranks, limit)
            result.total, result.exact = len(scores), not result.partial
            result.order = arranged if order is None else order.name
            result.hits = self._hits((s.stored_fields(docnum)["id"], score) for score, docnum in top)
        elif fast is not None:  # terms, And, Or, fuzzy, phrases: scored a block at a time
            top, result.total, exact = fast
            result.partial = result.partial or (isinstance(fast, bounds.Page) and fast.partial)
            result.exact = exact and not result.partial
            result.hits = self._hits((s.stored_fields(docnum)["id"], score) for score, docnum in top)
        else:
            keystroke = mode is SearchMode.TYPING and order is None and view is None
            budget = TYPEAHEAD_BUDGET if keystroke else 0.0
            self._whoosh(s, q, text, limit, budget, result, only, ranks if whole else None, whole)
            if order is not None:
                result.order = order.name
        result.notice = _joined(result.notice or health.take_notice(), caps.was_cut(q))
        result.terms = highlight_terms(q, reader)
        if suggesting and not typeahead:  # offered only if it finds more (suggest.py)
            count = lambda t: self._total(s, t, sets, view)  # noqa: E731 (runs on this searcher)
            result.suggestion = suggest(typed, s, self, result.total, count)

    def _total(
        self, s: WhooshSearcher, text: str, sets: subsets.Sets | None, view: subsets.Only | None
    ) -> int:
        """Enter's count for a "did you mean", on the same searcher, sets and view."""
        result = SearchResult(text)
        self._answer(s, text, SearchMode.ENTER, 1, result, sets, None, view, suggesting=False)
        return result.total

    def _whoosh(
        self,
        s: WhooshSearcher,
        q: query.Query,
        text: str,
        limit: int,
        budget: float,
        result: SearchResult,
        only: subsets.Restriction | None = None,
        ranks: list[int] | None = None,
        whole: bool = False,
    ) -> None:
        """Whoosh's own search, for what score.py does not cover (ranges, unscorable fields).
        While typing it stops after ``budget`` seconds and shows what it found so far. With
        ``ranks`` it sorts by Whoosh's own ``sortedby`` facet (ordering.facet); ``whole`` (Enter,
        a sort, a view) lists an answer whose matches all score the same in collection order."""
        rows = facets.doc_rows(s.reader(), self) if whole else []
        collector = ordering.collector(limit, budget, only, rows, ranks)
        try:
            s.search_with_collector(q, collector)
        except stop.Stopped:
            self._take(collector, result, rows)
            raise
        except Exception as exc:  # a query Whoosh accepts but cannot run: plain words
            result.notice = f"couldn't run that query ({type(exc).__name__}); searched its words"
            collector = ordering.collector(limit, 0.0, only, rows, ranks)
            try:
                s.search_with_collector(self.reading.words(text), collector)
            except stop.Stopped:
                self._take(collector, result, rows)
                raise
            except Exception as again:  # plain words failing too means the files are bad
                raise IndexDamaged(f"the search index is damaged ({again!r})") from again
        self._take(collector, result, rows)
        if collector.cut:  # the typing budget ran out: a lower bound
            result.partial, result.exact = True, False
        else:
            result.exact = not result.partial

    def _take(self, collector: stop.CheckedCollector, result: SearchResult, rows: list[int]) -> None:
        """The best matches a collector saw and how many it saw (all, unless it was stopped)."""
        pairs, result.order = ordering.collected(collector.child, rows, result.order)
        if pairs is None:
            result.hits = self._hits((hit["id"], hit.score) for hit in collector.results())
        else:
            stored = collector.child.top_searcher.stored_fields
            result.hits = self._hits((stored(d)["id"], sc) for sc, d in pairs)
        result.total = max(len(result.hits), collector.count())

    def _numbering(self, s: WhooshSearcher) -> subsets.Numbering:
        """Many paper ids to document numbers at once (a view's, a large ``is:`` set's)."""
        reader = s.reader()
        return lambda: ordering.numbering(reader, facets.doc_rows(reader, self), self.corpus.index_of)

    def _ranks(self, s: WhooshSearcher, order: Order) -> list[int]:
        """Each document number's rank in ``order`` (once per reader and order)."""
        return ordering.doc_ranks(s.reader(), facets.doc_rows(s.reader(), self), order)

    def _hits(self, found: Iterable[tuple[str, float | None]]) -> list[Hit]:
        return hits(self.corpus.index_of, found)


def _joined(*notices: str | None) -> str | None:
    return "; ".join(n for n in notices if n) or None
