"""What was typed, before any index is involved: pure functions, tested on their own.

Enter reads the text exactly as Whoosh's parser does, after checking for syntax the parser would
silently reinterpret (``problem``). Type-ahead first ``repair``s mid-typing states (an open
quote, a dangling operator) so that the parser reads the words typed so far; the repair keeps
every character's offset, so the parser's ``endchar`` still points at the word being typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

OPERATORS = frozenset({"and", "or", "not", "to"})
FIELD = re.compile(r"(?<![\w\"])(\w+):(\S?)")
FIELD_PREFIX = re.compile(r"(?<![\w\"])\w+:")
_LEADING_OP = re.compile(r"^\s*(?:AND|OR)\b")
_TRAILING_OP = re.compile(r"\b(?:AND|OR|NOT)\s*$")
_TRAILING_FIELD = re.compile(r"(?<![\w\"])\w+:\s*$")
IS_FILTERS = ("unread", "read", "bookmarked", "new", "tagged")  # is:word, over the reader's own sets
_IS = re.compile(r"(?<![\w\"])is:(\w*)", re.IGNORECASE)
# tag:name or tag:"two words": the user's own tags, a set of papers like is:bookmarked
_TAG = re.compile(r'(?<![\w"])tag:(?:"([^"]+)"|([^\s()"]+))', re.IGNORECASE)
TAG = "tag:"  # the prefix of a tag filter's set name: "tag:" + the tag, casefolded
# authors:"Last, First" (author: too): one comma inside an authors phrase
_LAST_FIRST = re.compile(r'(?<![\w"])(authors?:)"([^",]*[^\s",][^",]*),([^",]*[^\s",][^",]*)"')


def problem(text: str, fields: frozenset[str]) -> str | None:
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
    for m in FIELD.finditer(text):
        name, value = m.group(1), m.group(2)
        if name not in fields:
            return f"unknown field '{name}'; fields are {', '.join(sorted(fields))}"
        if not value:
            return f"'{name}:' needs a value"
    if _LEADING_OP.search(text) or _TRAILING_OP.search(text):
        return "an operator with nothing to join"
    return None


def author_order(text: str) -> str:
    """An authors phrase written "Last, First" (BibTeX's order) read as "First Last", the order
    the index holds names in; the text keeps its length, so every other character keeps its
    offset (type-ahead's span of the word being typed)."""

    def swap(m: re.Match[str]) -> str:
        last, first = m.group(2), m.group(3)
        name = f"{first.strip()} {last.strip()}".ljust(len(last) + 1 + len(first))
        return f'{m.group(1)}"{name}"'

    return _LAST_FIRST.sub(swap, text) if "," in text else text


def repair(text: str, fields: frozenset[str]) -> str:
    """Mid-typing states made parseable, each character kept at its offset (or dropped from the
    end): an open quote's words count as words until it is closed, an unknown ``name:`` is a
    word ("Flash3D: fast" is a title being typed), a dangling operator or ``field:`` waits for
    its word, an unmatched ``)`` is ignored and open parentheses are closed at the end."""
    if text.count('"') % 2:
        at = text.rfind('"')
        text = text[:at] + " " + text[at + 1 :]
    text = FIELD.sub(lambda m: m.group(0) if m.group(1) in fields else f"{m.group(1)} {m.group(2)}", text)
    while True:
        trimmed = _TRAILING_FIELD.sub("", _TRAILING_OP.sub("", text))
        if trimmed == text:
            break
        text = trimmed
    m = _LEADING_OP.match(text)
    if m:
        text = " " * m.end() + text[m.end() :]
    out, depth, quoted = [], 0, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            if not depth:
                ch = " "
            else:
                depth -= 1
        out.append(ch)
    return "".join(out) + ")" * depth


def typing_word(text: str) -> tuple[int, int] | None:
    """Where the word being typed stands: the span of the last word when the text does not end
    in a space, a quote or a parenthesis (a finished word)."""
    m = re.search(r"(\w+)$", text)
    if m is None or m.group(1).lower() in OPERATORS:
        return None
    return m.start(1), m.end(1)


# A word as the index's analyzer cuts it (analysis.TOKEN): "1.58" and "v1.2" stay one word
_PLAIN_WORD = re.compile(r"\w+(?:[.]\w+)*+")


def plain_words(text: str, fields: frozenset[str] = frozenset()) -> str:
    """The text's words alone, no operators: what a broken query falls back to. A known field's
    name is dropped ("year:abc" searches "abc"); any other ``name:`` is a word of the text, as in
    a pasted title ("Flash3D: fast" searches "Flash3D fast")."""
    text = FIELD_PREFIX.sub(lambda m: " " if m.group(0)[:-1] in fields else m.group(0)[:-1] + " ", text)
    return " ".join(w for w in _PLAIN_WORD.findall(text) if w.lower() not in OPERATORS)


def tag_set(name: str) -> str:
    """The name of a tag's set of papers, as split_filters asks for it and the reader provides it."""
    return TAG + " ".join(name.split()).casefold()


def tag_sets(marks: Iterable[tuple[str, Iterable[str]]]) -> dict[str, frozenset[str]]:
    """``tagged`` (papers carrying any tag) and one set per tag, named as ``tag:name`` asks, from
    (paper id, its tags) pairs: the reader and the command line give the searcher the same sets."""
    tagged: dict[str, set[str]] = {}
    anything: set[str] = set()
    for pid, tags in marks:
        for tag in tags:
            tagged.setdefault(tag_set(tag), set()).add(pid)
            anything.add(pid)
    sets = {name: frozenset(ids) for name, ids in tagged.items()}
    sets["tagged"] = frozenset(anything)
    return sets


def split_filters(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``is:word`` and ``tag:name`` filters taken out of the text: the text with each blanked
    (every other character kept at its offset), the known filters (``tag:`` ones as
    ``tag_set(name)``), and the unknown words (``is:foo``)."""
    known: list[str] = []
    unknown: list[str] = []

    def blank(m: re.Match[str]) -> str:
        word = m.group(1).lower()
        (known if word in IS_FILTERS else unknown).append(word)
        return " " * len(m.group(0))

    def blank_tag(m: re.Match[str]) -> str:
        known.append(tag_set(m.group(1) or m.group(2)))
        return " " * len(m.group(0))

    rest = _IS.sub(blank, text)
    if "tag:" in rest.lower():
        rest = _TAG.sub(blank_tag, rest)
    return rest, tuple(dict.fromkeys(known)), tuple(dict.fromkeys(unknown))
