"""The query text on its own, no index: what Enter refuses, how a half-typed text is repaired, which
word is being typed, and what a broken query falls back to. One table per function."""

from __future__ import annotations

import pytest

from tui_reader.search.query import querytext
from tui_reader.search.query.language import FIELDS

PROBLEMS = [
    ("graph neural", None),
    ("graph OR vision", None),
    ('"language models"', None),
    ("title:transformer authors:bengio", None),
    ("year:[2020 TO 2022]", None),
    ("(graph OR vision) neural", None),
    ('"graph neu', "unbalanced quote"),
    ("(graph OR vis", "unbalanced parenthesis"),
    ("graph)", "unbalanced parenthesis"),
    ('"a (b" c', None),  # a parenthesis inside a phrase is a character
    ("title:", "'title:' needs a value"),
    ("foo:bar", "unknown field 'foo'"),
    ("AND graph", "an operator with nothing to join"),
    ("graph NOT", "an operator with nothing to join"),
    ("graph and", None),  # lower-case words are words, not operators
]


@pytest.mark.parametrize(("text", "expected"), PROBLEMS)
def test_problem(text: str, expected: str | None) -> None:
    found = querytext.problem(text, FIELDS)
    if expected is None:
        assert found is None
    else:
        assert found is not None and found.startswith(expected)


REPAIRS = [
    ("graph neural", "graph neural"),
    ('"graph neu', " graph neu"),  # an open quote's words search as words
    ('"a b" "c d', '"a b"  c d'),
    ("graph AND", "graph "),
    ("graph AND NOT", "graph "),
    ("graph title:", "graph "),
    ("title:gra", "title:gra"),
    ("Flash3D: fast", "Flash3D  fast"),  # an unknown name: is a word of a title being typed
    ("(graph OR vis", "(graph OR vis)"),
    ("graph)", "graph "),
    ("AND graph", "    graph"),
    ('"(a" (b', '"(a" (b)'),
    ("", ""),
]


@pytest.mark.parametrize(("text", "expected"), REPAIRS)
def test_repair_keeps_offsets(text: str, expected: str) -> None:
    repaired = querytext.repair(text, FIELDS)
    assert repaired == expected
    kept = min(len(text), len(repaired))
    for i in range(kept):  # every character stays at its offset (or became a space)
        assert repaired[i] in (text[i], " ")


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("graph neu", (6, 9)),
        ("graph neural ", None),  # a space: the word is finished
        ('"graph neural"', None),
        ("(graph)", None),
        ("graph AND", None),  # an operator is not a word to complete
        ("title:gra", (6, 9)),
        ("", None),
        ("é", (0, 1)),
    ],
)
def test_typing_word(text: str, span: tuple[int, int] | None) -> None:
    assert querytext.typing_word(text) == span


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("graph neural", "graph neural"),
        ("graph foo:bar", "graph foo bar"),  # an unknown name: is a word
        ("Flash3D: fast rendering", "Flash3D fast rendering"),  # a pasted title keeps its words
        ("year:abc graph", "abc graph"),  # a known field's name is not a word of the text
        ('"graph AND (neural', "graph neural"),
        ("NOT OR AND", ""),
        ("year:[2020 TO 2022]", "2020 2022"),
    ],
)
def test_plain_words(text: str, words: str) -> None:
    assert querytext.plain_words(text, FIELDS) == words
