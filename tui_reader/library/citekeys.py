"""Names and citation keys: how a paper is cited.

A name is split the way BibTeX splits it (bibtexparser's implementation of its rules): "Family,
Given" when the comma is there; a display name "Ada Lovelace" has its last word as the family
name, with lowercase particles before it ("Vincent van Gogh": family "van Gogh") and a
trailing "Jr." taken as a suffix.

A citation key is the first author's family name without particles (ASCII-folded, letters only),
the year and the first significant word of the title (a word is what spaces separate, its
punctuation dropped: "GPT-4:" is ``gpt4``), lowercase: ``vaswani2017attention``. No
author gives ``anon``, no year ``nd``. Keys that clash all get ``a``, ``b``, ... in the order of
the papers' ids, so the same bookmarks always give the same keys; never a hash.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tui_reader.corpus.paper import Paper

STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "on",
        "of",
        "towards",
        "toward",
        "for",
        "in",
        "to",
        "and",
        "or",
        "with",
        "without",
        "via",
        "from",
        "at",
        "by",
        "into",
        "onto",
        "as",
        "is",
        "are",
        "be",
        "do",
        "does",
        "can",
        "how",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "we",
        "our",
        "your",
        "its",
        "it",
        "this",
        "that",
        "these",
        "those",
        "not",
        "no",
        "beyond",
        "about",
        "over",
        "under",
        "through",
    }
)
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
# letters NFKD does not take apart
_FOLD = str.maketrans(
    {**dict(zip("øØłŁđĐðÐı", "oOlLdDdDi", strict=True)), "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe"}
)


# A name with one of these words is an organisation: written braced whole, never "Council, Science".
_CORPORATE = frozenset(
    [
        "team",
        "council",
        "consortium",
        "collaboration",
        "institute",
        "laboratory",
        "lab",
        "labs",
        "group",
        "project",
        "foundation",
        "university",
        "inc",
        "inc.",
        "ltd",
        "ltd.",
        "corporation",
        "company",
        "committee",
        "association",
        "society",
        "agency",
        "organization",
        "organisation",
        "center",
        "centre",
        "deepmind",
        "openai",
    ]
)


@dataclass(frozen=True, slots=True)
class Name:
    given: str
    family: str  # with its particles: "van Gogh"
    particle: str = ""  # "van" (also inside family)
    suffix: str = ""  # "Jr."
    corporate: bool = False  # "Science and Technology Facilities Council", "Google DeepMind"

    @property
    def bibtex(self) -> str:
        """'van Gogh, Vincent', 'King, Jr., Martin Luther', 'OpenAI'."""
        parts = [self.family, *([self.suffix] if self.suffix else []), *([self.given] if self.given else [])]
        return ", ".join(p for p in parts if p)


def ascii_fold(text: str) -> str:
    """'Gödel' -> 'Godel', 'Łukasz' -> 'Lukasz': accents off, what NFKD leaves mapped."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return decomposed.encode("ascii", "ignore").decode("ascii")


def split_name(name: str) -> Name:
    """A person's name in parts, by BibTeX's rules (see the module docstring)."""
    from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

    text = " ".join(name.replace("{", " ").replace("}", " ").split())
    words = text.split()
    if "," not in text and len(words) > 1 and any(w.casefold() in _CORPORATE | {"and"} for w in words):
        return Name("", text, corporate=True)
    suffix = ""
    if "," not in text and len(words) > 2 and words[-1].casefold() in _SUFFIXES:
        suffix, text = words[-1], " ".join(words[:-1])
    try:
        parts = parse_single_name_into_parts(text, strict=False)
    except (InvalidNameError, ValueError, IndexError):
        return Name("", text)
    if not parts.last:
        return Name("", text)
    particle = " ".join(parts.von)
    return Name(
        given=" ".join(parts.first),
        family=" ".join([*parts.von, *parts.last]),
        particle=particle,
        suffix=suffix or " ".join(parts.jr),
    )


def key_base(paper: Paper) -> str:
    """The key before clashes are told apart."""
    author = ""
    if paper.authors:
        name = split_name(paper.authors[0])
        family = name.family[len(name.particle) :] if name.particle else name.family
        if name.corporate:  # its first word that is not "the": "Science and ... Council" -> science
            family = next((w for w in family.split() if w.casefold() not in STOP_WORDS), family)
        author = re.sub(r"[^a-z]", "", ascii_fold(family).lower())
    words = (re.sub(r"[^a-z0-9]", "", w) for w in ascii_fold(paper.title).lower().split())
    word = next((w for w in words if w and w not in STOP_WORDS), "")  # "M-IDoL:" is "midol"
    return f"{author or 'anon'}{paper.year or 'nd'}{word}"


def _suffixes() -> Iterator[str]:
    """a, b, ..., z, aa, ab, ...: as many as a clash needs."""
    n = 0
    while True:
        n += 1
        out, k = "", n
        while k:
            k, r = divmod(k - 1, 26)
            out = chr(ord("a") + r) + out
        yield out


_BAD_KEY = re.compile(r"[\s,{}()\"#%'=\\~]+")


def source_key(paper: Paper) -> str:
    """The source's own citation key (BibTeX key, RIS ID, CSL id), as a BibTeX key may be
    written: characters BibTeX or biber would stop at taken out; '' when it gave none."""
    key = paper.record.get("citation-key")
    return _BAD_KEY.sub("", key.strip()) if isinstance(key, str) else ""


def _claim(base: str, pids: list[str], taken: set[str], keys: dict[str, str], first_bare: bool) -> None:
    """Keys for the papers sharing ``base``, in id order: ``a``, ``b``, ... skipping keys taken
    (the first keeps ``base`` itself when ``first_bare``)."""
    letters = _suffixes()
    for n, pid in enumerate(sorted(pids)):
        key = base if first_bare and n == 0 and base not in taken else base + next(letters)
        while key in taken:
            key = base + next(letters)
        keys[pid] = key
        taken.add(key)


def cite_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """A unique key for each paper, by id. A paper whose source gave a key keeps it (papers sharing
    one: the first by id keeps it, the others get ``a``, ``b``, ...). The others get today's keys:
    papers sharing a base key get ``a``, ``b``, ... in the order of their ids, skipping any key
    another paper already has."""
    own: dict[str, list[str]] = defaultdict(list)
    groups: dict[str, list[str]] = defaultdict(list)
    for paper in papers:
        if key := source_key(paper):
            own[key].append(paper.id)
        else:
            groups[key_base(paper)].append(paper.id)
    keys: dict[str, str] = {}
    taken: set[str] = set()
    for key in sorted(own):
        _claim(key, own[key], taken, keys, first_bare=True)
    for base in sorted(b for b, ids in groups.items() if len(ids) == 1 and b not in taken):
        keys[groups[base][0]] = base
        taken.add(base)
    for base in sorted(b for b in groups if groups[b][0] not in keys):
        _claim(base, groups[base], taken, keys, first_bare=False)
    return keys
