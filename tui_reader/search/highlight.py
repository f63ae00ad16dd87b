"""Keyword-in-context snippets and match spans, from Whoosh's highlighter over our own text.

Abstracts are not stored in the index (rows are read from the parse cache), so this highlights
text we pass in, with the same analyzer the index uses: a match here is a match there.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from whoosh import highlight

from tui_reader.search.index.analysis import fold_analyzer, stem_analyzer

Spans = list[tuple[int, int]]


@lru_cache(maxsize=1)
def _stem() -> Any:
    return stem_analyzer()


@lru_cache(maxsize=1)
def _fold() -> Any:
    return fold_analyzer()


def stem(word: str) -> str:
    tokens = [t.text for t in _stem()(word, mode="query")]
    return tokens[0] if tokens else word.lower()


def fold(word: str) -> str:
    tokens = [t.text for t in _fold()(word, mode="query")]
    return tokens[0] if tokens else word.lower()


_OPEN, _CLOSE = "\x02", "\x03"  # control characters never survive normalisation, so safe markers


class _MarkFormatter(highlight.Formatter):
    between = " … "

    def format_token(self, text: str, token: Any, replace: bool = False) -> str:
        return _OPEN + highlight.get_text(text, token, replace) + _CLOSE


def _unmark(marked: str) -> tuple[str, Spans]:
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    start = 0
    for part in re.split(f"([{_OPEN}{_CLOSE}])", marked):
        if part == _OPEN:
            start = pos
        elif part == _CLOSE:
            spans.append((start, pos))
        else:
            plain.append(part)
            pos += len(part)
    return "".join(plain), spans


def snippet(text: str, terms: frozenset[str], maxchars: int = 220) -> tuple[str, Spans]:
    """Keyword-in-context fragment(s) of text with the matched spans; the opening if none match."""
    if terms:
        fragmenter = highlight.ContextFragmenter(maxchars=maxchars, surround=60)
        marked = highlight.highlight(text, terms, _stem(), fragmenter, _MarkFormatter(), top=2)
        if marked:
            return _unmark(marked)
    clipped = text if len(text) <= maxchars else text[: maxchars - 1].rsplit(" ", 1)[0] + "…"
    return clipped, []


def match_spans(text: str, terms: frozenset[str]) -> Spans:
    """Character spans of the words in text whose analysed form is one of the query's terms."""
    if not terms or not text:
        return []
    tokens = _stem()(text, chars=True, removestops=False, mode="index")
    return [(t.startchar, t.endchar) for t in tokens if t.text in terms]
