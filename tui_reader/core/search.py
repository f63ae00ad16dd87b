"""Queries over the index: the query language, its safe fallback, type-ahead, suggestions, similar.

Costs at 87k papers drive the design: Whoosh's ``abc*`` expands over every abstract term (seconds on
short prefixes), so explicit prefixes and the word being typed are completed from a bounded set;
``len(results)`` re-runs the match, so counts while typing are estimates; the searcher is shared.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from whoosh import query
from whoosh.collectors import TimeLimit, TimeLimitCollector
from whoosh.qparser import FieldAliasPlugin, FuzzyTermPlugin, GtLtPlugin, QueryParser
from whoosh.reading import IndexReader
from whoosh.searching import Results
from whoosh.searching import Searcher as WhooshSearcher

from . import fastscore
from .errors import IndexDamaged
from .highlight import fold, match_spans, snippet, stem
from .index import SearchIndex
from .terms import TYPEAHEAD_COMPLETIONS, Vocabulary, bound, top_terms

__all__ = ["PAGE", "Hit", "SearchResult", "Searcher", "match_spans", "snippet"]

DEFAULT_FIELD = "content"  # title, authors and abstract together (see index.make_schema)
HIGHLIGHT_FIELDS = {"content", "title"}
PAGE = 100  # results fetched per search; the reader fetches more as the cursor nears the end
COMPLETION_POSTINGS = 4000  # papers the completions of a typed word may match, in all
SMALL_CORPUS = 20_000  # up to this many papers, typed words complete over whole abstracts
TYPEAHEAD_BUDGET = 0.018  # seconds of scoring per keystroke
MIN_PARTIAL = 2  # a single letter is not yet a word worth completing over 87k titles
_PARTIAL = re.compile(r"(?:^|(?<=[\s(:]))([^\W_]\w*)$")
_COMPLETABLE = {"title", "abstract", "text", "all", "authors", "venue", "sources"}
_WORD = re.compile(r"(?<![:\w~*])([^\W\d_][\w-]{2,})(?![\w:~*])")
_OPERATORS = {"and", "or", "not", "to"}
_FIELD = re.compile(r"(?<![\w\"])(\w+):(\S?)")
_FIELD_PREFIX = re.compile(r"(?<![\w\"])\w+:")
_LEADING_OP = re.compile(r"^\s*(?:AND|OR)\b")
_TRAILING_OP = re.compile(r"\b(?:AND|OR|NOT)\s*$")


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
    exact: bool = True
    took_ms: float = 0.0
    suggestion: str | None = None
    notice: str | None = None
    terms: frozenset[str] = frozenset()
    kind: str = "search"  # "search", "typeahead" or "similar"
    incomplete: bool = False  # typed so far is too little to search: keep showing what was there
    partial: bool = False  # type-ahead ran out of its time budget: the best found so far


class Searcher:
    """Runs queries for one index; safe to call from worker threads (calls are serialised)."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.corpus = index.corpus
        schema = index.index().schema
        self._parser = QueryParser(DEFAULT_FIELD, schema)
        self._parser.add_plugin(FuzzyTermPlugin())
        self._parser.add_plugin(GtLtPlugin())
        self._parser.add_plugin(FieldAliasPlugin({DEFAULT_FIELD: ["abstract", "text", "all"]}))
        self._plain = QueryParser(DEFAULT_FIELD, schema)
        self._fields = {"abstract", "text", "all", "title", "authors", "venue", "year", "sources"}
        self._cache: OrderedDict[tuple[str, bool, int, bool, float], SearchResult] = OrderedDict()
        self._load_vocabulary()
        self._cache_lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget cached results (the bench calls this; an index update does too)."""
        with self._cache_lock:
            self._cache.clear()

    def _load_vocabulary(self) -> None:
        """Small collections complete the typed word against every word of every paper; large
        ones against title words only (see _complete)."""
        with self.index.searcher() as searcher:
            reader = searcher.reader()
            small = reader.doc_count() <= SMALL_CORPUS
            self.completion_field = DEFAULT_FIELD if small else "title"
            self.vocabulary = Vocabulary(reader, DEFAULT_FIELD if small else "tw")

    # -- public -----------------------------------------------------------------------------
    def search(self, text: str, limit: int = 500, typeahead: bool = False,
               exact_count: bool | None = None, budget: float | None = None) -> SearchResult:
        """Run a query. ``typeahead``: the last word may be unfinished (it is completed) and the
        search gets ``budget`` seconds (default TYPEAHEAD_BUDGET; 0 for no limit)."""
        text = text.strip("\n")
        exact = exact_count if exact_count is not None else not typeahead
        budget = (TYPEAHEAD_BUDGET if budget is None else budget) if typeahead else 0.0
        key = (text, typeahead, limit, exact, budget)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        result = self._search(text, limit, typeahead, exact, budget)
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
                return SearchResult(f"similar to {pid}", kind="similar",
                                    notice="this paper is not in the index yet")
            results = s.more_like(docnum, DEFAULT_FIELD, text=text, top=limit, numterms=12)
            hits = self._hits((hit["id"], hit.score) for hit in results)
        took = (time.perf_counter() - started) * 1000
        return SearchResult(f"similar to: {self.corpus.titles[row]}", hits, len(hits), True, took,
                            terms=frozenset(t for t, _ in keys), kind="similar")

    # -- internals --------------------------------------------------------------------------
    def _search(self, text: str, limit: int, typeahead: bool, exact: bool,
                budget: float) -> SearchResult:
        started = time.perf_counter()
        result = SearchResult(text, kind="typeahead" if typeahead else "search")
        if not text.strip():
            return result
        with self.index.searcher() as s:
            reader = s.reader()
            q, notice = self._build(text, reader, typeahead, lenient=typeahead and budget > 0)
            result.notice = notice
            if typeahead and isinstance(q, type(query.NullQuery)) and notice is None:
                result.incomplete = True
                result.took_ms = (time.perf_counter() - started) * 1000
                return result
            try:
                fast = fastscore.search(s, q, limit)
            except Exception:  # unreadable postings: Whoosh's path below says what is wrong
                fast = None
            if fast is not None:  # terms, And, Or, fuzzy: scored a block at a time, exact count
                top, result.total, result.exact = fast
                result.hits = self._hits((s.stored_fields(docnum)["id"], score) for score, docnum in top)
            else:
                self._whoosh(s, q, text, limit, budget, exact, result)
            result.terms = _highlight_terms(q, reader)
            if result.total < 3 and not typeahead:
                result.suggestion = self._suggest(text, reader)
        result.took_ms = (time.perf_counter() - started) * 1000
        return result

    def _whoosh(self, s: WhooshSearcher, q: query.Query, text: str, limit: int, budget: float,
                exact: bool, result: SearchResult) -> None:
        """Whoosh's own search, for what fastscore does not cover (phrases, ranges, ...)."""
        try:
            results = self._run(s, q, limit, budget)
            result.partial = result.kind == "typeahead" and results.partial  # type: ignore[attr-defined]
            hits = self._hits((hit["id"], hit.score) for hit in results)
        except Exception as exc:  # a query Whoosh accepts but cannot run: plain words
            q = self._words_query(text)
            result.notice = f"couldn't run that query ({type(exc).__name__}); searched its words"
            try:
                results = s.search(q, limit=limit)
                hits = self._hits((hit["id"], hit.score) for hit in results)
            except Exception as again:  # plain words failing too means the files are bad
                raise IndexDamaged(f"the search index is damaged ({again!r})") from again
        result.hits = hits
        if result.partial:
            result.total, result.exact = max(results.estimated_length(), len(hits)), False
        elif exact:
            result.total, result.exact = len(results), True
        elif len(results.top_n) < limit:  # the top-N heap never filled: every match is here
            result.total, result.exact = len(results.top_n), True
        else:
            result.total = max(results.estimated_length(), len(hits))
            result.exact = results.has_exact_length()

    @staticmethod
    def _run(s: WhooshSearcher, q: query.Query, limit: int, budget: float) -> Results:
        """Whoosh's search, for the queries fastscore leaves to it (ranges, Every). While typing
        it gets TYPEAHEAD_BUDGET seconds (Whoosh's TimeLimitCollector) and shows the best of what
        it scored by then; the next keystroke or Enter brings the full answer."""
        if not budget:
            results = s.search(q, limit=limit)
            results.partial = False  # type: ignore[attr-defined]
            return results
        collector = TimeLimitCollector(s.collector(limit=limit), budget, use_alarm=False)
        partial = False
        try:
            s.search_with_collector(q, collector)
        except TimeLimit:
            partial = True
        results = collector.results()
        results.partial = partial  # type: ignore[attr-defined]
        return results

    def _hits(self, found: Iterable[tuple[str, float | None]]) -> list[Hit]:
        index_of = self.corpus.index_of
        hits = []
        for pid, score in found:
            row = index_of.get(pid)
            if row is not None:  # an index entry whose paper vanished: skip, the update will drop it
                hits.append(Hit(row, pid, float(score or 0.0)))
        return hits

    def _words_query(self, text: str) -> query.Query:
        text = _FIELD_PREFIX.sub(" ", text)  # "graph foo:bar" searches "graph bar"
        words = [w for w in re.findall(r"\w+", text) if w.lower() not in _OPERATORS]
        if not words:
            return query.NullQuery
        return self._plain.parse(" ".join(words))

    def _build(self, text: str, reader: IndexReader, typeahead: bool,
               lenient: bool = True) -> tuple[query.Query, str | None]:
        """``lenient``: mid-typing syntax (open quote, dangling AND) is forgiven, not reported."""
        head, partial, field, joiner = text, "", None, "AND"
        if typeahead:
            head, partial, field, joiner = self._split_typing(text, lenient)
        notice = None
        q: query.Query | None = None
        if head.strip():
            if typeahead:  # "Flash3D: fast ..." is a title being typed, not a field query
                head = _FIELD.sub(lambda m: m.group(0) if m.group(1) in self._fields
                                  else f"{m.group(1)} {m.group(2)}", head)
            problem = self._problem(head)
            if problem is None:
                try:
                    q = self._parser.parse(head)
                except Exception as exc:
                    problem = str(exc) or type(exc).__name__
                if q is not None and _has_null(q):
                    if ":" in head:
                        problem = "a field value it could not read"
                    else:  # only words too common to index ("The ", "A "): nothing to search yet
                        q = None
            if problem is not None:
                q = self._words_query(head)
                notice = f"couldn't parse the query ({problem}); searched its plain words"
        if q is not None:
            q = q.accept(lambda node: bound(node, reader))
        if partial:
            completion = self._complete(partial, reader, field)
            if q is None or isinstance(q, type(query.NullQuery)):
                q = query.And([query.Every(), query.Not(completion)]) if joiner == "NOT" else completion
            elif joiner == "OR":
                q = query.Or([q, completion])
            elif joiner == "NOT":
                q = query.AndNot(q, completion)
            else:
                q = query.And([q, completion])
        return (q if q is not None else query.NullQuery), notice

    def _split_typing(self, text: str, lenient: bool = True) -> tuple[str, str, str | None, str]:
        """Mid-typing states are not errors: an open quote or parenthesis is closed, a dangling
        operator waits for its word, and the unfinished last word is split off for completion.
        Returns (head, partial word, its field, the operator joining it to the head)."""
        head, partial, field, joiner = text, "", None, "AND"
        if not lenient and (head.count('"') % 2 or head.count("(") != head.count(")")):
            return head, "", None, "AND"  # Enter on broken syntax: let the parser report it
        if head.count('"') % 2:  # an open phrase: its words count as words until it is closed
            at = head.rfind('"')
            head = head[:at] + " " + head[at + 1:]
        if not text[-1:].isspace() and not text.endswith((")", '"')):
            m = _PARTIAL.search(head)
            if m and m.group(1).lower() not in _OPERATORS:
                before = head[: m.start(1)]
                fm = re.search(r"(\w+):$", before)
                if fm is None or fm.group(1) in _COMPLETABLE:
                    head, partial = before, m.group(1)
                    if len(partial) < MIN_PARTIAL:
                        partial = ""  # the head alone until the word has two letters
                    if fm is not None:
                        field, head = fm.group(1), before[: fm.start()]
                    om = re.search(r"\b(AND|OR|NOT)\s*$", head)
                    if om is not None:
                        joiner, head = om.group(1), head[: om.start()]
        if not lenient:
            return head, partial, field, joiner
        head = _TRAILING_OP.sub("", head)
        depth = 0
        for ch in re.sub(r'"[^"]*"', "", head):
            depth = max(0, depth + (ch == "(") - (ch == ")"))
        return head + ")" * depth, partial, field, joiner

    def _problem(self, text: str) -> str | None:
        """Syntax Whoosh would silently reinterpret: say so instead of guessing."""
        if text.count('"') % 2:
            return "unbalanced quote"
        depth = 0
        for ch in re.sub(r'"[^"]*"', "", text):
            depth += (ch == "(") - (ch == ")")
            if depth < 0:
                return "unbalanced parenthesis"
        if depth:
            return "unbalanced parenthesis"
        for m in _FIELD.finditer(text):
            name, value = m.group(1), m.group(2)
            if name not in self._fields:
                return f"unknown field '{name}'; fields are {', '.join(sorted(self._fields))}"
            if not value:
                return f"'{name}:' needs a value"
        if _LEADING_OP.search(text) or _TRAILING_OP.search(text):
            return "an operator with nothing to join"
        return None

    def _complete(self, partial: str, reader: IndexReader, field: str | None = None) -> query.Query:
        """The word being typed: its most frequent completions. For plain words they come from
        title words and match titles: completing across 87k abstracts costs 100x more, and the
        word is searched everywhere once it is finished (a space). Completions are added, most
        frequent first, only while their papers number under COMPLETION_POSTINGS, which bounds
        the cost of a keystroke whatever the prefix."""
        if field in (None, "title", "abstract", "text", "all"):
            freq = self.vocabulary.freq
            chosen: list[str] = []
            budget = COMPLETION_POSTINGS
            folded = fold(partial)
            candidates = self.vocabulary.complete(folded, TYPEAHEAD_COMPLETIONS)
            if not candidates:  # "modeli": the vocabulary holds stems ("model") shorter than it
                candidates = self.vocabulary.complete(stem(folded), TYPEAHEAD_COMPLETIONS)
            for word in candidates:
                if chosen and freq[word] > budget:
                    continue
                chosen.append(word)
                budget -= freq[word]
            target = self.completion_field if field in (None, "abstract", "text", "all") else "title"
            stemmed = self.vocabulary.fieldname != "tw"  # content's vocabulary is stems already
            stems = sorted({w if stemmed else stem(w) for w in chosen} | {stem(partial)})
            terms = [query.Term(target, s) for s in stems]
        else:
            found = top_terms(reader, field, fold(partial), TYPEAHEAD_COMPLETIONS)
            terms = [query.Term(field, t) for t in found] or [query.Term(field, fold(partial))]
        return query.Or(terms, boost=0.5)

    def _surface(self, term: str, reader: IndexReader) -> str:
        """A readable word for an abstract stem: its commonest title word, or its form in a paper."""
        words = self.vocabulary.complete(term, 1)
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
            if word.lower() in _OPERATORS:
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
