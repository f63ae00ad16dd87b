"""The query language's limits: what keeps any one query's cost bounded at 87k papers.

Each limit is part of the language (README, "Search syntax"), applied where a text is read
(``QueryReader.parse`` and ``typing``), so Enter, the command line and the tests' reference
searcher all run the same query; whenever one changes what was typed, a notice says so.

- a query is at most MAX_QUERY_CHARS characters (cut at a space);
- a fuzzy word allows at most MAX_EDITS edits (``a~9`` is read as ``a~2``);
- a prefix, wildcard or fuzzy word stands for at most MAX_EXPANSIONS words of a segment, its
  most frequent ones (w3.Capped), where Whoosh would otherwise OR every word of the field;
- a range is for numbers (``year:[2019 TO 2021]``): over words (``title:[a TO z]``) it is
  refused, and the text is searched as plain words.

"Did you mean" (suggest.py) corrects at most MAX_SUGGESTED_WORDS words of MAX_SUGGESTED_CHARS
characters or fewer: it advises, it never changes an answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from whoosh import query

from tui_reader.search.fast import w3
from tui_reader.search.index.schema import DEFAULT_FIELD

MAX_QUERY_CHARS = 1_000
MAX_EDITS = 2
MAX_EXPANSIONS = 1_024  # at Whoosh's Or.TOO_MANY_CLAUSES a capped word scores as one constant
MAX_SUGGESTED_WORDS = 6
MAX_SUGGESTED_CHARS = 30


class CappedPrefix(w3.Capped, query.Prefix):
    """``word*``, as its MAX_EXPANSIONS most frequent completions at most."""


class CappedWildcard(w3.Capped, query.Wildcard):
    """``w?rd``, ``*ord``: its MAX_EXPANSIONS most frequent matches at most."""


class CappedFuzzy(w3.Capped, query.FuzzyTerm):
    """``word~``: its MAX_EXPANSIONS most frequent neighbours at most."""


def shorten(text: str) -> tuple[str, str | None]:
    """The text cut to MAX_QUERY_CHARS (at the last space, when one is in the second half), and
    a notice when it was cut."""
    if len(text) <= MAX_QUERY_CHARS:
        return text, None
    cut = text[:MAX_QUERY_CHARS]
    space = cut.rfind(" ")
    if space > MAX_QUERY_CHARS // 2:
        cut = cut[:space]
    return cut, f"the query is {len(text):,} characters; searched its first {len(cut):,}"


def word_range(q: query.Query) -> str | None:
    """Why the query is refused: a range over a field of words (only numbers have ranges)."""
    for node in _nodes(q):
        if isinstance(node, query.TermRange):
            return f"a range of words ({node.fieldname}:[…]): ranges are for numbers, as year:[2019 TO 2021]"
    return None


def capped(q: query.Query, text: str = "") -> tuple[query.Query, list[str]]:
    """The query (parsed from ``text``) with its multi-word terms capped, and notices for what
    was changed."""
    notices: list[str] = []

    def visit(node: query.Query) -> query.Query:
        if isinstance(node, w3.Capped):
            return node
        if isinstance(node, query.FuzzyTerm):
            maxdist = node.maxdist
            if maxdist > MAX_EDITS:
                start, end = getattr(node, "startchar", None), getattr(node, "endchar", None)
                word = text[start:end] if text and start is not None and end else node.text
                edits = f"a word allows at most {MAX_EDITS} edits"
                notices.append(f"'{word}~{maxdist}': {edits}; searched '{word}~{MAX_EDITS}'")
                maxdist = MAX_EDITS
            new: Any = CappedFuzzy(
                node.fieldname,
                node.text,
                boost=node.boost,
                maxdist=maxdist,
                prefixlength=node.prefixlength,
                constantscore=node.constantscore,
            )
        elif type(node) is query.Prefix:
            new = CappedPrefix(node.fieldname, node.text, node.boost, node.constantscore)
        elif type(node) is query.Wildcard:
            new = CappedWildcard(node.fieldname, node.text, node.boost, node.constantscore)
        else:
            return node
        for attr in ("startchar", "endchar"):
            if hasattr(node, attr):
                setattr(new, attr, getattr(node, attr))
        new.cap = MAX_EXPANSIONS
        return new

    return q.accept(visit), notices


def was_cut(q: query.Query) -> str | None:
    """After a search: a notice naming the words that stood for only their most frequent words."""
    cut = [str(n).removeprefix(f"{DEFAULT_FIELD}:") for n in _nodes(q) if isinstance(n, w3.Capped) and n.cut]
    if not cut:
        return None
    return f"{', '.join(cut[:3])}: searched the {MAX_EXPANSIONS:,} most frequent words it matches"


def _nodes(q: query.Query) -> Iterator[query.Query]:
    yield q
    for child in q.children():
        yield from _nodes(child)
