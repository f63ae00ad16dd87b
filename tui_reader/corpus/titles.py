"""Readable display titles for papers that come without one (every seed abstract).

A person scanning the list must tell papers apart at a glance, so a title names the contribution
when the abstract introduces one ("M-IDoL: a self-supervised MFM ...") and otherwise condenses the
first sentence. Heuristics only: cheap enough to run on 87k papers at load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_TITLE = 78
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
# A coined name: mixed case, digits or hyphens inside (ConPress, M-IDoL, LaViDa-R1, GPUA, RARO).
_NAME = r"(?:[A-Z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*)"
_CODED = re.compile(r"^(?=.*[A-Z].*[A-Z0-9]|.*[-+])[A-Z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*$")
_LONG_WITH_ACRONYM = re.compile(r"((?:[A-Z][\w-]*\s+){1,8}?(?:[A-Za-z][\w-]*))\s+\((" + _NAME + r")s?\)")
_LEADS = re.compile(
    r"^(?:in\s+this\s+(?:paper|work)\s*,?\s*|here\s*,?\s*|we\s+(?:show|find|argue|demonstrate|study|"
    r"investigate|consider|prove|observe)\s+(?:that\s+)?|this\s+(?:paper|work)\s+(?:studies|shows|"
    r"presents|proposes|introduces)\s+|recent\s+years\s+have\s+witnessed\s+|contrary\s+to\s+[^,]+,\s*)",
    re.I,
)
_PAREN = re.compile(r"\s*\([^()]*(?:\)|$)")


def _clip(text: str, limit: int) -> str:
    text = text.strip(" ,;:.")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-(")
    return cut + "…"


def _gist(sentence: str, limit: int) -> str:
    """First-sentence gist: lead-ins and parentheticals out, then clipped at a word boundary."""
    s = _PAREN.sub("", sentence)
    for _ in range(3):
        stripped = _LEADS.sub("", s)
        if stripped == s:
            break
        s = stripped
    s = s.strip()
    if s and s[0].islower():
        s = s[0].upper() + s[1:]
    return _clip(s, limit)


_STRONG = re.compile(r"\bwe\s+(?:propose|introduce|present|develop|design|build|release)\s+", re.I)
_WEAK = re.compile(r"\b(?:called|named|dubbed|termed|coined|we\s+(?:call|name|term|dub))\s+", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an|our)\s+", re.I)
_PHRASE = re.compile(r"((?:[A-Z0-9][\w-]*)(?:\s+[A-Z0-9][\w-]*){0,5})")
_NAME_THEN_LONG = re.compile(r"^(" + _NAME + r")\s+\(([^()]{6,80}?)(?:\)|,|$)")
_CUT = re.compile(
    r"\s*(?:[;:]|\.(?=\s|$)|,\s+(?:which|that|where|while|and|but)\b|\s+(?:that|which|where|while|who|whose"
    r"|via|through|by|leveraging|using|to|based)\b)"
)


def _named(sentences: list[str], emphasis: Iterable[str]) -> tuple[str, str] | None:
    """The contribution's name and a short descriptor, when the abstract introduces one."""
    for intro in (_STRONG, _WEAK):
        for sentence in sentences:
            for found in intro.finditer(sentence):
                named = _name_at(sentence[found.end() :])
                if named:
                    return named
    return None


def _name_at(rest: str) -> tuple[str, str] | None:
    rest = _ARTICLE.sub("", rest)
    long_form = _LONG_WITH_ACRONYM.match(rest)
    if long_form:
        return long_form.group(2), long_form.group(1)
    name_long = _NAME_THEN_LONG.match(rest)
    if name_long and _CODED.match(name_long.group(1)):
        return name_long.group(1), name_long.group(2)
    phrase = _PHRASE.match(rest)
    if not phrase:
        return None
    name = phrase.group(1)
    words = name.split()
    if not (_CODED.match(words[0]) or len(words) >= 2):
        return None
    return name, _descriptor(rest[phrase.end() :])


def _descriptor(rest: str) -> str:
    """Turn what follows a name (", a self-supervised MFM that ...") into a short descriptor."""
    m = re.match(r"^\s*,\s*((?:an?|the)\s+.+|which\s+.+)", rest, re.I)
    if not m:
        return ""
    clause = re.sub(r"^which\s+", "", m.group(1), flags=re.I)
    clause = _PAREN.sub("", clause)
    cut = _CUT.search(clause, 12)
    return clause[: cut.start()] if cut else clause


def make_title(abstract: str, emphasis: Iterable[str] = ()) -> str:
    """A display title for an untitled abstract."""
    sentences = _SENTENCE.split(abstract.strip())
    if not sentences or not sentences[0]:
        return "(empty abstract)"
    named = _named(sentences, emphasis)
    if named:
        name, descriptor = named
        descriptor = descriptor.strip()
        if not descriptor or descriptor.lower() == name.lower():
            descriptor = _gist(sentences[0], MAX_TITLE - len(name) - 2)
        return _clip(f"{name}: {descriptor}", MAX_TITLE)
    return _gist(sentences[0], MAX_TITLE)


def uniquify(titles: list[str], taken: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Make display titles unique ("X", "X (2)") so the list never shows two identical rows;
    ``taken`` holds (case-folded) titles that real papers already use."""
    seen: dict[str, int] = {t: 1 for t in taken}
    out = []
    for title in titles:
        key = title.casefold()
        n = seen.get(key, 0) + 1
        candidate = title if n == 1 else f"{title} ({n})"
        while n > 1 and candidate.casefold() in seen:
            n += 1
            candidate = f"{title} ({n})"
        seen[key] = n
        seen.setdefault(candidate.casefold(), 1)
        out.append(candidate)
    return out
