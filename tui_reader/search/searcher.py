"""Running queries: one entry point, where a SearchMode decides between Enter's and typing's path.

Enter and the command line return Whoosh's own answer, scored a block at a time by score.py where
it can (same papers, order and count). Type-ahead may complete the word being typed, bound an
explicit prefix or stop Whoosh's scoring after a time budget: each of these adds papers or says
it stopped early (``partial``, a count that is a lower bound), and none reaches Enter.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from whoosh import query
from whoosh.collectors import TimeLimit, TimeLimitCollector
from whoosh.reading import IndexReader
from whoosh.searching import Results
from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.errors import IndexDamaged
from tui_reader.search import w3
from tui_reader.search.completion import Completer
from tui_reader.search.highlight import match_spans, snippet
from tui_reader.search.index import SearchIndex
from tui_reader.search.modes import PAGE, SearchMode
from tui_reader.search.reading import QueryReader
from tui_reader.search.schema import DEFAULT_FIELD
from tui_reader.search.score import search as fast_search
from tui_reader.search.suggest import suggest

__all__ = ["PAGE", "Hit", "SearchMode", "SearchResult", "Searcher", "match_spans", "snippet"]

HIGHLIGHT_FIELDS = {"content", "title"}
TYPEAHEAD_BUDGET = 0.018  # seconds of scoring per keystroke


@dataclass(slots=True)
class Hit:
    row: int
    id: str
    score: float


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    exact: bool = True  # False: total is a lower bound (type-ahead stopped early)
    took_ms: float = 0.0
    suggestion: str | None = None
    notice: str | None = None
    terms: frozenset[str] = frozenset()
    kind: str = "enter"  # a SearchMode's value, or "similar" (more like this)
    incomplete: bool = False  # typed so far is too little to search: keep showing what was there
    partial: bool = False  # type-ahead stopped early (time budget, bounded prefix): best so far

    @property
    def typing(self) -> bool:
        """Type-ahead's reading (typed words plus completions), as opposed to Enter's."""
        return self.kind in (SearchMode.TYPING, SearchMode.MORE)

    @property
    def count_text(self) -> str:
        """The count as the reader shows it: exact, or a lower bound ("300+")."""
        return f"{self.total:,}" + ("" if self.exact else "+")


class Searcher:
    """Runs queries for one index; safe to call from worker threads (calls are serialised).

    Enter (``SearchMode.ENTER``) and the command line get Whoosh's answer to ``parse(text)``: the
    same papers, count and order as ``searcher.search(parse(text))``. Type-ahead searches what
    was typed so far, the word being typed included as typed, and adds that word's completions;
    its devices (completion, bounded prefixes, a time budget) only ever add papers or, when they
    stop early, say so (``partial``, and a count that is a lower bound).
    """

    def __init__(self, index: SearchIndex, small_corpus: int | None = None) -> None:
        self.index = index
        self.corpus = index.corpus
        self._cache: OrderedDict[tuple[str, SearchMode, int], SearchResult] = OrderedDict()
        self._cache_lock = threading.Lock()
        with self.index.searcher() as searcher:
            self.completer = Completer(searcher.reader(), small_corpus)
        w3.status()  # the seam's self-check, here (an index worker) rather than in the first search
        self.reading = QueryReader(index.index().schema, self.completer)

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

    def search(self, text: str, mode: SearchMode = SearchMode.ENTER, limit: int = PAGE) -> SearchResult:
        """Search ``text`` the way ``mode`` says; the first ``limit`` hits, best first."""
        text = text.strip("\n")
        key = (text, mode, limit)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        result = self._search(text, mode, limit)
        with self._cache_lock:
            self._cache[key] = result
            while len(self._cache) > 256:
                self._cache.popitem(last=False)
        return result

    def similar(self, row: int, limit: int = 50) -> SearchResult:
        """Papers like this one: Whoosh more-like-this over the abstract's key terms."""
        started = time.perf_counter()
        pid = self.corpus.ids[row]
        abstract = self.corpus.abstract(row)
        with self.index.searcher() as s:
            docnum = s.document_number(id=pid)
            text = f"{self.corpus.titles[row]}\n{abstract}"
            keys = s.key_terms_from_text(DEFAULT_FIELD, text, numterms=12)
            if docnum is None:
                return SearchResult(
                    f"similar to {pid}", kind="similar", notice="this paper is not in the index yet"
                )
            results = s.more_like(docnum, DEFAULT_FIELD, text=text, top=limit, numterms=12)
            hits = self._hits((hit["id"], hit.score) for hit in results)
        took = (time.perf_counter() - started) * 1000
        return SearchResult(
            f"similar to: {self.corpus.titles[row]}",
            hits,
            len(hits),
            True,
            took,
            terms=frozenset(t for t, _ in keys),
            kind="similar",
        )

    # -- internals --------------------------------------------------------------------------
    def _search(self, text: str, mode: SearchMode, limit: int) -> SearchResult:
        started = time.perf_counter()
        typeahead = mode is not SearchMode.ENTER
        budget = TYPEAHEAD_BUDGET if mode is SearchMode.TYPING else 0.0
        result = SearchResult(text, kind=mode.value)
        if not text.strip():
            return result
        with self.index.searcher() as s:
            reader = s.reader()
            if typeahead:
                q, result.partial = self.reading.typing(text, reader)
            else:
                q, result.notice = self.reading.parse(text)
            if typeahead and isinstance(q, type(query.NullQuery)):
                result.incomplete = True
                result.took_ms = (time.perf_counter() - started) * 1000
                return result
            # None: Whoosh's path below answers, and says what is wrong with unreadable files.
            # fast_search logs and counts a fast-path error; w3.take_notice tells the reader once.
            fast = fast_search(s, q, limit, exact=not typeahead)
            if fast is not None:  # terms, And, Or, fuzzy, phrases: scored a block at a time
                top, result.total, exact = fast
                result.exact = exact and not result.partial
                result.hits = self._hits((s.stored_fields(docnum)["id"], score) for score, docnum in top)
            else:
                self._whoosh(s, q, text, limit, budget, result)
            result.notice = result.notice or w3.take_notice()
            result.terms = _highlight_terms(q, reader)
            if result.total < 3 and not typeahead:
                result.suggestion = suggest(text, s, self.completer, self.corpus)
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    def _whoosh(
        self, s: WhooshSearcher, q: query.Query, text: str, limit: int, budget: float, result: SearchResult
    ) -> None:
        """Whoosh's own search, for what score.py does not cover (ranges, Every, unscorable
        fields). While typing it stops after ``budget`` seconds and shows what it found so far."""
        try:
            results, stopped = self._run(s, q, limit, budget)
            hits = self._hits((hit["id"], hit.score) for hit in results)
        except Exception as exc:  # a query Whoosh accepts but cannot run: plain words
            q = self.reading.words(text)
            result.notice = f"couldn't run that query ({type(exc).__name__}); searched its words"
            try:
                results, stopped = s.search(q, limit=limit), False
                hits = self._hits((hit["id"], hit.score) for hit in results)
            except Exception as again:  # plain words failing too means the files are bad
                raise IndexDamaged(f"the search index is damaged ({again!r})") from again
        result.hits = hits
        if stopped:  # the matches found before the budget ran out: a lower bound
            result.partial, result.exact = True, False
            result.total = max(len(hits), _counted(results))
        else:
            result.total = len(results)
            result.exact = not result.partial

    @staticmethod
    def _run(s: WhooshSearcher, q: query.Query, limit: int, budget: float) -> tuple[Results, bool]:
        """Whoosh's search; with a budget, Whoosh's TimeLimitCollector, and whether it stopped."""
        if not budget:
            return s.search(q, limit=limit), False
        collector = TimeLimitCollector(s.collector(limit=limit), budget, use_alarm=False)
        stopped = False
        try:
            s.search_with_collector(q, collector)
        except TimeLimit:
            stopped = True
        return collector.results(), stopped

    def _hits(self, found: Iterable[tuple[str, float | None]]) -> list[Hit]:
        index_of = self.corpus.index_of
        hits = []
        for pid, score in found:
            row = index_of.get(pid)
            if row is not None:  # an index entry whose paper vanished: skip, the update will drop it
                hits.append(Hit(row, pid, float(score or 0.0)))
        return hits


def _counted(results: Results) -> int:
    """Matches a stopped collector had seen: a lower bound of the count."""
    child = getattr(results.collector, "child", results.collector)
    return int(getattr(child, "total", 0) or 0)


def _highlight_terms(q: query.Query, reader: IndexReader) -> frozenset[str]:
    """Indexed forms of the query's words in title/abstract, multi-terms expanded (bounded)."""
    out: set[str] = set()
    for leaf in [q, *q.leaves()] if not q.is_leaf() else [q]:
        fieldname = getattr(leaf, "fieldname", None)
        if fieldname not in HIGHLIGHT_FIELDS:
            continue
        if isinstance(leaf, query.Phrase):
            out.update(leaf.words)
        elif isinstance(leaf, query.MultiTerm):
            for k, btext in enumerate(w3.expansions(leaf, reader)):
                if k >= 64:
                    break
                out.add(btext.decode("utf-8") if isinstance(btext, bytes) else btext)
        elif isinstance(leaf, query.Term):
            out.add(leaf.text.decode("utf-8") if isinstance(leaf.text, bytes) else str(leaf.text))
    return frozenset(out)
