"""Readable display titles for papers that come without one (every seed abstract).

A person scanning the list must tell papers apart at a glance, so a title is a headline: the
contribution's name when the abstract introduces one ("M-IDoL: a self-supervised MFM"), else what
the authors show or provide ("A tighter convergence analysis of Decentralized SGD"), else the
first sentence. Long text is cut at a phrase boundary (before "with", "which", a comma...) so the
headline reads complete; "…" is the last resort. Heuristics only, in one regex pass per
abstract: cheap enough to run on 87k papers at load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_TITLE = 70
_MIN_CUT = 28  # a phrase-boundary cut shorter than this says too little: clip with "…" instead
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
# A coined name: mixed case, digits or hyphens inside (ConPress, M-IDoL, LaViDa-R1, GPUA, 3DEditVerse).
_NAME = r"(?:[A-Z0-9][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*)"
_CODED = re.compile(r"^(?=.*[A-Z].*[A-Z0-9]|.*[-+]|[0-9]+[A-Z])[A-Z0-9][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*$")
_LONG_WITH_ACRONYM = re.compile(r"((?:[A-Z][\w-]*\s+){1,8}?(?:[A-Za-z][\w-]*))\s+\((" + _NAME + r")s?\)")
_LEADS = re.compile(
    r"^(?:in\s+this\s+(?:paper|work)\s*,?\s*|here\s*,?\s*|we\s+(?:show|find|argue|demonstrate|study|"
    r"investigate|consider|prove|observe)\s+(?:that\s+)?|this\s+(?:paper|work)\s+(?:studies|shows|"
    r"presents|proposes|introduces)\s+|recent\s+years\s+have\s+witnessed\s+|contrary\s+to\s+[^,]+,\s*)",
    re.I,
)
_PAREN = re.compile(r"\s*(?:\([^()]*(?:\)|$)|\[[^\[\]]*(?:\]|$))")
# Where the authors say what they did or found: one pass over the abstract finds them all.
_CUE = re.compile(
    r"\b(?:(?P<strong>[Ww]e\s+(?:propose|introduce|present|develop|design|build|release)\s+)"
    r"|(?P<weak>(?:called|named|dubbed|termed|coined|[Ww]e\s+(?:call|name|term|dub))\s+)"
    r"|(?P<made>[Ww]e\s+(?:provide|formulate|derive|investigate|study|analy[sz]e|examine|explore|revisit"
    r"|consider)\s+)"
    r"|(?P<found>(?:[Ww]e|[Oo]ur\s+(?:\w+\s+){0,2}?(?:results|analysis|experiments|findings))"
    r"\s+(?:show|find|demonstrate|prove|reveal|establish|identify|observe)s?\s+that\s+)"
    r"|(?P<seen>[Ww]e\s+(?:reveal|identify|establish|observe)\s+))"
)
# An opening that rates its topic ("X is an important yet challenging component in Y"): the title
# is the topic in its field, "X in Y".
_TOPIC = re.compile(
    r"^([^,;:()]{3,60}?)\s+(?:is|are|has\s+been|have\s+been|has\s+become|have\s+become|remains?|plays?)"
    r"\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}?(?:component|problem|task|challenge|technique|step|role"
    r"|approach|paradigm|tool|area|topic|method|algorithm|issue|question|field|goal|ingredient|factor)s?"
    r"\s+((?:in|for|of)\s+.+)"
)
_AND_VERB = re.compile(r"^(?:and|&)\s+[a-z]+\s+")  # "we propose and analyze X"
_ARTICLE = re.compile(r"^(?:the|a|an|our)\s+", re.I)
_PHRASE = re.compile(r"((?:[A-Z0-9][\w-]*)(?:\s+[A-Z0-9][\w-]*){0,5})")
_LOWER_NAME = re.compile(r"([a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?=\s*(?:[,.;:]|$))")
_NAME_THEN_LONG = re.compile(r"^(" + _NAME + r")\s+\(([^()]{6,80}?)(?:\)|,|$)")
_ACRONYM = re.compile(r"\s\(([A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)s?\)")
_CUT = re.compile(
    r"\s*(?:[;:]|\.(?=\s|$)|,\s+(?:which|that|where|while|and|but)\b|\s+(?:that|which|where|while|who|whose"
    r"|via|through|by|leveraging|using|to|based)\b)"
)
# Phrase boundaries: a headline may end just before one of these and still read complete. A clause
# boundary (", through", ";", "when") is the better place to cut, so it is tried first.
_BOUNDARY_WORD = (
    r"(?:with|in|on|for|by|via|through|from|that|which|where|while|when|whereas|although|because|since"
    r"|as|and|but|yet|or|using|under|across|over|into|without|beyond|due|leading|making|allowing|enabling"
    r"|including|such|based|at|during|than|among|within|towards?|against|despite|after|before|compared"
    r"|thereby|whose|who|about|regarding|i\.e\.|e\.g\.)\b"
)
_CLAUSE = re.compile(
    r"\s*(?:[;:—–]|,(?=\s+" + _BOUNDARY_WORD + r"))|\s+-+\s"
    r"|\s+(?=(?:which|where|when|while|whereas|although|because|since|thereby|whose)\b)"
)
_BOUNDARY = re.compile(r"\s*[,;:(\[—–]|\s+-+\s|\s+(?=" + _BOUNDARY_WORD + r")")
_HAS_BOUNDARY_WORD = re.compile(r"\b" + _BOUNDARY_WORD)
_DANGLING = frozenset({
    "a", "an", "the", "of", "and", "or", "to", "our", "its", "their", "this", "these", "with", "in",
    "on", "for", "by", "from", "as", "at", "based", "due", "such", "compared", "able", "according",
    "respect", "prior", "order", "related", "both", "between", "than", "is", "are", "be", "aimed",
    "designed", "used", "applied", "tailored", "capable", "suitable", "dedicated", "inspired",
    "motivated", "focused", "relevant", "applicable", "specific", "known", "referred", "devoted",
})  # fmt: skip
_GENERIC = frozenset({
    "a", "an", "the", "novel", "new", "simple", "general", "unified", "effective", "efficient",
    "framework", "method", "approach", "model", "system", "technique", "algorithm", "paradigm",
    "pipeline", "strategy", "scheme", "architecture", "tool", "benchmark", "dataset",
})  # fmt: skip
_UNTITLED = frozenset({"it", "this", "that", "they", "these", "such", "there"})


@dataclass
class _Cues:
    named: tuple[str, str] | None = None  # the first named contribution with a descriptor
    bare_name: str | None = None  # the first named one without
    gist: str | None = None  # the first thing the authors say they did or found


def _fit(text: str, limit: int, shortest: int = _MIN_CUT) -> str:
    """``text`` within ``limit`` characters: whole, else cut at the last phrase boundary that keeps
    at least ``shortest`` characters, else clipped at a word with "…"."""
    text = text.strip(" ,;:.")
    if len(text) <= limit:
        return text
    for boundary in (_CLAUSE, _BOUNDARY):
        best = 0
        for m in boundary.finditer(text, shortest):
            if m.start() > limit:
                break
            head = text[: m.start()].rstrip(" ,;:-—–")
            if len(head) >= shortest and head.rsplit(" ", 1)[-1].lower() not in _DANGLING:
                best = len(head)
        if best:
            return text[:best]
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-(")
    return cut + "…"


def _gist(sentence: str, limit: int) -> str:
    """A sentence's gist: lead-ins, parentheticals and citations out, then fitted."""
    s = _PAREN.sub("", sentence)
    for _ in range(3):
        stripped = _LEADS.sub("", s)
        if stripped == s:
            break
        s = stripped
    s = s.strip()
    if s and s[0].islower():
        s = s[0].upper() + s[1:]
    return _fit(s, limit)


def _sentence_from(text: str, start: int) -> str:
    end = _SENTENCE_END.search(text, start)
    return text[start : end.start() if end else len(text)]


def _scan(text: str) -> _Cues:
    cues = _Cues()
    for cue in _CUE.finditer(text):
        kind = cue.lastgroup
        rest = _AND_VERB.sub("", _sentence_from(text, cue.end()))
        if kind in ("strong", "weak"):
            named = _name_at(rest, lowercase=kind == "weak") or _acronym_at(rest)
            if named and named[1].strip() and named[1].strip().lower() != named[0].lower():
                cues.named = named
                return cues
            if named and cues.bare_name is None:
                cues.bare_name = named[0]
        elif kind in ("made", "seen"):
            named = _acronym_at(rest)  # "we reveal the wide existence of ... (PoLar)"
            if named:
                cues.named = named
                return cues
        if cues.gist is None and kind != "weak" and len(rest.split()) >= 5:
            first = _ARTICLE.sub("", rest).split(" ", 1)[0].lower()
            if first not in _UNTITLED:
                cues.gist = rest
    return cues


def _name_at(rest: str, lowercase: bool = False) -> tuple[str, str] | None:
    rest = _ARTICLE.sub("", rest)
    long_form = _LONG_WITH_ACRONYM.match(rest)
    if long_form:
        return long_form.group(2), long_form.group(1)
    name_long = _NAME_THEN_LONG.match(rest)
    if name_long and _CODED.match(name_long.group(1)):
        return name_long.group(1), name_long.group(2)
    phrase = _PHRASE.match(rest)
    if phrase:
        name = phrase.group(1)
        words = name.split()
        if _CODED.match(words[0]) or len(words) >= 2:
            return name, _descriptor(rest[phrase.end() :])
    lower = _LOWER_NAME.match(rest) if lowercase else None  # "which we term embedding condensation"
    if lower:
        name = lower.group(1)
        return name[0].upper() + name[1:], _descriptor(rest[lower.end() :])
    return None


def _acronym_at(rest: str) -> tuple[str, str] | None:
    """ "a decentralized continual learning framework with on-demand unlearning (DCU)": the object
    of the sentence defines an acronym. Its long form is found as Schwartz and Hearst do (the
    acronym's letters, right to left, its first letter starting a word), keeping at most four
    modifiers before it; a preposition before it means the acronym names something else."""
    m = _ACRONYM.search(rest, 0, 160)
    if not m:
        return None
    acronym = m.group(1).lower()
    if len(acronym) < 3:  # "odds ratio (OR)" names a quantity, not the contribution
        return None
    before = _ARTICLE.sub("", rest[: m.start()].rsplit(" of ", 1)[-1].strip())
    text = before.lower()
    at = len(text)
    for n, c in enumerate(reversed(acronym)):
        first = n == len(acronym) - 1
        at -= 1
        while at >= 0 and (text[at] != c or (first and at > 0 and text[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
    modifiers = before[:at].split()
    if len(modifiers) > 4 or len(before.split()) > 12 or _HAS_BOUNDARY_WORD.search(before[:at]):
        return None
    return m.group(1), before


def _descriptor(rest: str) -> str:
    """Turn what follows a name (", a self-supervised MFM that ...") into a short descriptor."""
    m = re.match(r"^\s*,\s*((?:an?|the)\s+.+|which\s+.+|where\s+.+)", rest, re.I)
    if not m:
        return ""
    clause = re.sub(r"^(?:which|where)\s+", "", m.group(1), flags=re.I)
    clause = _PAREN.sub("", clause)
    cut = _CUT.search(clause, 12)
    if cut and not _GENERIC.issuperset(clause[: cut.start()].lower().split()):
        return clause[: cut.start()]
    return clause  # "a novel framework" says nothing: keep what follows, for _fit to cut


def make_title(abstract: str, emphasis: Iterable[str] = ()) -> str:
    """A display title for an untitled abstract."""
    text = abstract.strip()
    if not text:
        return "(empty abstract)"
    cues = _scan(text)
    if cues.named:
        name, descriptor = cues.named
        return _named_title(name, _PAREN.sub("", descriptor))
    found = _gist(cues.gist, MAX_TITLE) if cues.gist else ""
    if cues.bare_name:
        room = MAX_TITLE - len(cues.bare_name) - 2
        source = cues.gist or _sentence_from(text, 0)
        if cues.bare_name.lower() in source.lower():  # "we introduce a Foo framework for ..."
            return _gist(source, MAX_TITLE)
        detail = _gist(source, room) if room >= 20 else ""
        return f"{cues.bare_name}: {detail}" if detail else _fit(cues.bare_name, MAX_TITLE)
    if found:
        return found
    first = _sentence_from(text, 0)
    topic = _TOPIC.match(first)
    if topic:
        first = f"{topic.group(1)} {topic.group(2)}"
    return _gist(first, MAX_TITLE)


def _named_title(name: str, descriptor: str) -> str:
    room = MAX_TITLE - len(name) - 2
    if room < 12:
        return _fit(name, MAX_TITLE)
    return f"{name}: {_fit(descriptor, room, min(_MIN_CUT, room // 2))}"


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
