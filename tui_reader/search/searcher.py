"""Queries over the index: the query language, its safe fallback, type-ahead, suggestions, similar.

Enter and the command line return Whoosh's own answer, scored a block at a time by fastscore where
it can (same papers, order and count). Type-ahead may complete the word being typed, bound an
explicit prefix or stop Whoosh's scoring after a time budget: each of these adds papers or says
it stopped early (``partial``, a count that is a lower bound), and none reaches Enter.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from whoosh import query
from whoosh.collectors import TimeLimit, TimeLimitCollector
from whoosh.qparser import FieldAliasPlugin, FuzzyTermPlugin, GtLtPlugin, QueryParser
from whoosh.reading import IndexReader
from whoosh.searching import Results
from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.errors import IndexDamaged
from tui_reader.search import fastscore, querytext
from tui_reader.search.completion import Completer
from tui_reader.search.highlight import fold, match_spans, snippet, stem
from tui_reader.search.index import SearchIndex
from tui_reader.search.terms import bound, fuzzy_prefix

__all__ = ["PAGE", "Hit", "SearchResult", "Searcher", "match_spans", "snippet"]

DEFAULT_FIELD = "content"  # title, authors and abstract together (see index.make_schema)
HIGHLIGHT_FIELDS = {"content", "title"}
PAGE = 100  # results fetched per search; the reader fetches more as the cursor nears the end
TYPEAHEAD_BUDGET = 0.018  # seconds of scoring per keystroke
MIN_PARTIAL = 2  # a single letter is not yet a word worth completing over 87k titles
_WORD = re.compile(r"(?<![:\w~*])([^\W\d_][\w-]{2,})(?![\w:~*])")


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
    kind: str = "search"  # "search", "typeahead" or "similar"
    incomplete: bool = False  # typed so far is too little to search: keep showing what was there
    partial: bool = False  # type-ahead stopped early (time budget, bounded prefix): best so far

    @property
    def count_text(self) -> str:
        """The count as the reader shows it: exact, or a lower bound ("300+")."""
        return f"{self.total:,}" + ("" if self.exact else "+")


class Searcher:
    """Runs queries for one index; safe to call from worker threads (calls are serialised).

    Enter (``typeahead=False``) and the command line get Whoosh's answer to ``parse(text)``: the
    same papers, count and order as ``searcher.search(parse(text))``. Type-ahead searches what
    was typed so far, the word being typed included as typed, and adds that word's completions;
    its devices (completion, bounded prefixes, a time budget) only ever add papers or, when they
    stop early, say so (``partial``, and a count that is a lower bound).
    """

    def __init__(self, index: SearchIndex, small_corpus: int | None = None) -> None:
        self.index = index
        self.corpus = index.corpus
        schema = index.index().schema
        self._parser = QueryParser(DEFAULT_FIELD, schema)
        self._parser.add_plugin(FuzzyTermPlugin())
        self._parser.add_plugin(GtLtPlugin())
        self._parser.add_plugin(FieldAliasPlugin({DEFAULT_FIELD: ["abstract", "text", "all"]}))
        self._plain = QueryParser(DEFAULT_FIELD, schema)
        self._fields = frozenset({"abstract", "text", "all", "title", "authors", "venue", "year", "sources"})
        self._cache: OrderedDict[tuple[str, bool, int, float], SearchResult] = OrderedDict()
        self._cache_lock = threading.Lock()
        with self.index.searcher() as searcher:
            self.completer = Completer(searcher.reader(), small_corpus)

    def invalidate(self) -> None:
        """Forget cached results (the bench calls this; an index update does too)."""
        with self._cache_lock:
            self._cache.clear()

    # -- public -----------------------------------------------------------------------------
    def parse(self, text: str) -> tuple[query.Query, str | None]:
        """Enter's reading of the text, and a notice when it had to fall back to plain words.
        ``word~`` keeps its first letters (see terms.fuzzy_prefix): part of the language."""
        text = text.strip()
        if not text:
            return query.NullQuery, None
        trouble = querytext.problem(text, self._fields)
        q: query.Query | None = None
        if trouble is None:
            try:
                q = self._parser.parse(text)
            except Exception as exc:
                trouble = str(exc) or type(exc).__name__
            if q is not None and _has_null(q) and ":" in text:
                trouble = "a field value it could not read"
        notice = None
        if trouble is not None or q is None:
            q = self._words_query(text)
            notice = f"couldn't parse the query ({trouble}); searched its plain words"
        return q.accept(fuzzy_prefix), notice

    def search(
        self, text: str, limit: int = PAGE, typeahead: bool = False, budget: float | None = None
    ) -> SearchResult:
        """Run a query: Whoosh's whole answer, or with ``typeahead`` the words typed so far plus
        completions of the last one, within ``budget`` seconds of Whoosh's own scoring (default
        TYPEAHEAD_BUDGET; 0: none, for fetching more of a type-ahead list)."""
        text = text.strip("\n")
        budget = (TYPEAHEAD_BUDGET if budget is None else budget) if typeahead else 0.0
        key = (text, typeahead, limit, budget)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        result = self._search(text, limit, typeahead, budget)
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
    def _search(self, text: str, limit: int, typeahead: bool, budget: float) -> SearchResult:
        started = time.perf_counter()
        result = SearchResult(text, kind="typeahead" if typeahead else "search")
        if not text.strip():
            return result
        with self.index.searcher() as s:
            reader = s.reader()
            if typeahead:
                q, result.partial = self._typing_query(text, reader)
            else:
                q, result.notice = self.parse(text)
            if typeahead and isinstance(q, type(query.NullQuery)):
                result.incomplete = True
                result.took_ms = (time.perf_counter() - started) * 1000
                return result
            try:
                fast = fastscore.search(s, q, limit, exact=not typeahead)
            except Exception:  # unreadable postings: Whoosh's path below says what is wrong
                fast = None
            if fast is not None:  # terms, And, Or, fuzzy, phrases: scored a block at a time
                top, result.total, exact = fast
                result.exact = exact and not result.partial
                result.hits = self._hits((s.stored_fields(docnum)["id"], score) for score, docnum in top)
            else:
                self._whoosh(s, q, text, limit, budget, result)
            result.terms = _highlight_terms(q, reader)
            if result.total < 3 and not typeahead:
                result.suggestion = self._suggest(text, reader)
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    def _whoosh(
        self, s: WhooshSearcher, q: query.Query, text: str, limit: int, budget: float, result: SearchResult
    ) -> None:
        """Whoosh's own search, for what fastscore does not cover (ranges, Every, unscorable
        fields). While typing it stops after ``budget`` seconds and shows what it found so far."""
        try:
            results, stopped = self._run(s, q, limit, budget)
            hits = self._hits((hit["id"], hit.score) for hit in results)
        except Exception as exc:  # a query Whoosh accepts but cannot run: plain words
            q = self._words_query(text)
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

    def _words_query(self, text: str) -> query.Query:
        words = querytext.plain_words(text)
        return self._plain.parse(words) if words else query.NullQuery

    def _typing_query(self, text: str, reader: IndexReader) -> tuple[query.Query, bool]:
        """What was typed so far, read as Enter would read it once finished, with the word being
        typed OR'ed with its completions (never under a NOT: completing an excluded word would
        exclude more). Returns the query and whether a bounded expansion left papers out."""
        repaired = querytext.repair(text, self._fields)
        if not repaired.strip():
            return query.NullQuery, False
        try:
            q = self._parser.parse(repaired)
        except Exception:
            q = self._words_query(repaired)
        if _has_null(q) and not isinstance(q, type(query.NullQuery)):
            q = q.normalize()
        span = querytext.typing_word(text)
        target = None
        if span is not None and span[1] - span[0] >= MIN_PARTIAL:
            negated = {id(leaf) for n in _nodes(q) if isinstance(n, query.Not) for leaf in _nodes(n.query)}
            target = next(
                (
                    leaf
                    for leaf in _nodes(q)
                    if isinstance(leaf, query.Term)
                    and getattr(leaf, "endchar", None) == span[1]
                    and id(leaf) not in negated
                ),
                None,
            )
        truncated = False

        def expand(node: query.Query) -> query.Query:
            nonlocal truncated
            if node is target:
                more = self.completer.complete(reader, node.fieldname, text[span[0] : span[1]], node.text)
                return query.Or([node, query.Or(more, boost=0.5)]) if more else node
            if isinstance(node, query.Prefix | query.Wildcard):
                bounded, cut = bound(node, reader)
                truncated = truncated or cut
                return bounded
            return node

        return q.accept(expand).accept(fuzzy_prefix), truncated

    def _surface(self, term: str, reader: IndexReader) -> str:
        """A readable word for an abstract stem: its commonest title word, or its form in a paper."""
        words = self.completer.vocabulary.complete(term, 1)
        if words:
            return words[0]
        with self.index.searcher() as s:
            for hit in s.search(query.Term(DEFAULT_FIELD, term), limit=1):
                row = self.corpus.index_of.get(hit["id"])
                if row is not None:
                    text = self.corpus.abstract(row)
                    for a, b in match_spans(text, frozenset([term])):
                        return text[a:b].lower()
        return term

    def _suggest(self, text: str, reader: IndexReader) -> str | None:
        """'Did you mean': unknown words replaced by Whoosh's corrector over title words, then
        abstract stems (shown as their commonest title-word form)."""
        title_words = reader.corrector("tw")
        stems = reader.corrector(DEFAULT_FIELD)
        changed = False

        def fix(m: re.Match[str]) -> str:
            nonlocal changed
            word = m.group(1)
            if word.lower() in querytext.OPERATORS:
                return word
            s = stem(word)
            if reader.doc_frequency(DEFAULT_FIELD, s):
                return word
            found = title_words.suggest(fold(word), limit=1, maxdist=2, prefix=1)
            if not found:
                found = stems.suggest(s, limit=1, maxdist=2, prefix=1)
                if found:
                    found = [self._surface(found[0], reader)]
            if found and found[0] != word.lower():
                changed = True
                return found[0]
            return word

        suggestion = _WORD.sub(fix, text)
        return suggestion if changed else None


def _nodes(q: query.Query) -> Iterator[query.Query]:
    """Every node of a query tree, the node itself first."""
    yield q
    for child in q.children():
        yield from _nodes(child)


def _counted(results: Results) -> int:
    """Matches a stopped collector had seen: a lower bound of the count."""
    child = getattr(results.collector, "child", results.collector)
    return int(getattr(child, "total", 0) or 0)


def _has_null(q: query.Query) -> bool:
    null = type(query.NullQuery)
    return isinstance(q, null) or any(isinstance(leaf, null) for leaf in q.leaves())


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
            for k, btext in enumerate(leaf._btexts(reader)):
                if k >= 64:
                    break
                out.add(btext.decode("utf-8") if isinstance(btext, bytes) else btext)
        elif isinstance(leaf, query.Term):
            out.add(leaf.text.decode("utf-8") if isinstance(leaf.text, bytes) else str(leaf.text))
    return frozenset(out)
