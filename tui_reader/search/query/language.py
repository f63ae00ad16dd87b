"""The query language: Enter's reading of a text and type-ahead's reading of a text being typed.

Both go through Whoosh's own parser, so NOT, OR, fields and phrases mean the same wherever a word
stands. Enter refuses what Whoosh would silently reinterpret (``querytext.problem``) and falls
back to the plain words with a notice. Typing repairs the half-typed text first (an open quote,
a dangling ``AND``) and ORs the word being typed with its completions.
"""

from __future__ import annotations

from collections.abc import Iterator

from whoosh import query
from whoosh.qparser import FieldAliasPlugin, FuzzyTermPlugin, GtLtPlugin, QueryParser
from whoosh.reading import IndexReader

from tui_reader.search.index.schema import DEFAULT_FIELD
from tui_reader.search.query import caps, querytext, titlefirst
from tui_reader.search.query.completion import Completer
from tui_reader.search.query.terms import bound, fuzzy_prefix

MIN_PARTIAL = 2  # a single letter is not yet a word worth completing over 87k titles
FIELDS = frozenset(
    {"abstract", "text", "all", "title", "authors", "venue", "year", "sources"}
    | {"doi", "arxiv", "keywords", "keyword", "kind", "type", "author"}  # citation formats (schema 10)
)
ALIASES = {
    DEFAULT_FIELD: ["abstract", "text", "all"],
    "keywords": ["keyword"],
    "kind": ["type"],
    "authors": ["author"],
}


class QueryReader:
    """Turns typed text into Whoosh queries; holds the parsers (built once per schema)."""

    def __init__(self, schema: object, completer: Completer) -> None:
        self.completer = completer
        self.fields = FIELDS
        self._parser = QueryParser(DEFAULT_FIELD, schema)
        self._parser.add_plugin(FuzzyTermPlugin())
        self._parser.add_plugin(GtLtPlugin())
        self._parser.add_plugin(FieldAliasPlugin(ALIASES))
        self._plain = QueryParser(DEFAULT_FIELD, schema)

    def parse(self, text: str) -> tuple[query.Query, str | None]:
        """Enter's reading of the text, and a notice when it had to fall back to plain words or
        apply one of the language's limits (caps.py). ``word~`` keeps its first letters (see
        terms.fuzzy_prefix): part of the language too."""
        text, notice = caps.shorten(text.strip())
        text = querytext.author_order(text)
        notices = [notice] if notice else []
        if not text:
            return query.NullQuery, None
        trouble = querytext.problem(text, self.fields)
        q: query.Query | None = None
        if trouble is None:
            try:
                q = self._parser.parse(text)
            except Exception as exc:  # Whoosh's parser raises many types; each means "unreadable"
                trouble = str(exc) or type(exc).__name__
            if q is not None and has_null(q) and ":" in text:
                trouble = "a field value it could not read"
            if q is not None and trouble is None:
                trouble = caps.word_range(q)
        if trouble is not None or q is None:
            q = self.words(text)
            notices.append(f"couldn't parse the query ({trouble}); searched its plain words")
        q, capped = caps.capped(q.accept(fuzzy_prefix), text)
        return titlefirst.boosted(q, text, self.fields), "; ".join(notices + capped) or None

    def words(self, text: str) -> query.Query:
        """The text's plain words, ANDed: the reading that cannot fail."""
        words = querytext.plain_words(text, self.fields)
        if not words:
            return query.NullQuery
        try:
            return self._plain.parse(words)
        except Exception:  # Whoosh's parser asserts on "x ANDNOT ANDNOT x": each word quoted
            return self._plain.parse(" ".join(f'"{w}"' for w in words.replace('"', " ").split()))

    def typing(self, text: str, reader: IndexReader) -> tuple[query.Query, bool]:
        """What was typed so far, read as Enter would read it once finished, with the word being
        typed OR'ed with its completions (never under a NOT: completing an excluded word would
        exclude more). Returns the query and whether a bounded expansion left papers out.
        The language's limits apply as on Enter (caps.py)."""
        text = querytext.author_order(caps.shorten(text)[0])
        repaired = querytext.repair(text, self.fields)
        if not repaired.strip():
            return query.NullQuery, False
        try:
            q = self._parser.parse(repaired)
        except Exception:  # whatever the parser trips on mid-word, the words still search
            q = self.words(repaired)
        if caps.word_range(q):
            q = self.words(repaired)
        if has_null(q) and not isinstance(q, type(query.NullQuery)):
            q = q.normalize()
        span = querytext.typing_word(text)
        target: query.Term | None = None
        if span is not None and span[1] - span[0] >= MIN_PARTIAL:
            negated = {id(leaf) for n in nodes(q) if isinstance(n, query.Not) for leaf in nodes(n.query)}
            target = next(
                (
                    leaf
                    for leaf in nodes(q)
                    if isinstance(leaf, query.Term)
                    and getattr(leaf, "endchar", None) == span[1]
                    and id(leaf) not in negated
                ),
                None,
            )
        truncated = False

        def expand(node: query.Query) -> query.Query:
            nonlocal truncated
            if target is not None and span is not None and node is target:
                more = self.completer.complete(reader, node.fieldname, text[span[0] : span[1]], node.text)
                return query.Or([node, query.Or(more, boost=0.5)]) if more else node
            if isinstance(node, query.Prefix | query.Wildcard):
                bounded, cut = bound(node, reader)
                truncated = truncated or cut
                return bounded
            return node

        return caps.capped(q.accept(expand).accept(fuzzy_prefix))[0], truncated


def nodes(q: query.Query) -> Iterator[query.Query]:
    """Every node of a query tree, the node itself first."""
    yield q
    for child in q.children():
        yield from nodes(child)


def has_null(q: query.Query) -> bool:
    null = type(query.NullQuery)
    return isinstance(q, null) or any(isinstance(leaf, null) for leaf in q.leaves())
