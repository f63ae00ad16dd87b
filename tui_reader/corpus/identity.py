"""Which records are one work (issue 18): the identity rule, pure functions of a record's fields.

A work is its DOI, else its arXiv id, else its title, first author and year (within one file, the
source's own citation key as well). An abstract identifies a work only when it is substantive and
the titles agree: a placeholder ("Not Available") or a book's abstract carried by its chapters
never makes two works one. Records without a title (the seeds) are identified by their abstract
text alone, as they always were, so their ids (``paper_id(abstract)``) never change.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

from tui_reader.corpus.paper import Paper, paper_id

_NON_WORD = re.compile(r"[\W_]+")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_SHORT_DOI = re.compile(r"(?<![\w./])10/[A-Za-z0-9]+(?![\w/])")
_ARXIV_NEW = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\w.])")
_ARXIV_OLD = re.compile(r"(?<![\w.])([a-z][a-z-]*)(?:\.[a-z]{2})?/(\d{7})(?:v\d+)?(?!\w)", re.IGNORECASE)
_SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "v"}

# What sources write where they have no abstract (compared as ``fold``ed: case, accents,
# punctuation and spacing ignored).
PLACEHOLDER_TEXTS = (
    "Not Available",
    "Not available.",
    "Abstract",
    "Abstract not available",
    "Abstract unavailable",
    "No abstract",
    "No abstract available",
    "No abstract available.",
    "[No abstract available]",
    "No abstract provided",
    "No abstract is available for this item.",
    "Unavailable",
    "N/A",
    "NA",
    "None",
    "Null",
    "TBA",
    "TBD",
    "Abstract: Not available",
    "Not applicable",
    "No summary available",
)
MIN_WORDS = 6  # an abstract shorter than this (or MIN_CHARS) never identifies a work
MIN_CHARS = 40


def fold(text: str) -> str:
    """Text as compared: casefolded, accents folded, punctuation and spacing dropped."""
    if text.isascii():
        return _NON_WORD.sub("", text.lower())
    # decomposed before and after casefolding: a compatibility form (𝐀) may decompose to a capital
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    return _NON_WORD.sub("", decomposed)  # combining marks are not word characters: gone


_PLACEHOLDERS = frozenset(fold(t) for t in PLACEHOLDER_TEXTS)


def is_placeholder(abstract: str) -> bool:
    """True for an abstract field that says there is none (or holds only punctuation)."""
    if len(abstract) > 64:
        return False
    return fold(abstract) in _PLACEHOLDERS or not fold(abstract)


def substantive(abstract: str) -> bool:
    """An abstract that can identify a work: not a placeholder and not very short."""
    if len(abstract) < MIN_CHARS or len(abstract.split(None, MIN_WORDS - 1)) < MIN_WORDS:
        return False
    return not is_placeholder(abstract)


def normalise_doi(doi: str, url: str = "") -> str:
    """A DOI as compared: lowercase, no resolver or "doi:" prefix, percent escapes decoded. A
    short DOI (``10/abc``, as Better BibTeX writes) becomes the full DOI the url holds, if any."""
    if not doi:
        return ""
    text = unquote(doi).strip()
    m = _DOI.search(text)
    if m:
        return _trim(m.group(0)).lower()
    short = _SHORT_DOI.search(text)
    if not short:
        return ""
    full = _DOI.search(unquote(url or ""))
    return (_trim(full.group(0)) if full else short.group(0)).lower()


def _trim(doi: str) -> str:
    doi = doi.rstrip(".,;")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1]
    return doi


def normalise_arxiv(value: str) -> str:
    """An arXiv id as compared: no version, no ``arXiv:`` prefix; an old-style id loses its
    subject class (``math.GT/0309136`` is ``math/0309136``) and is lowercased."""
    if not value:
        return ""
    text = value
    m = _ARXIV_NEW.search(text)
    if m:
        return m.group(1)
    old = _ARXIV_OLD.search(text)
    return f"{old.group(1).lower()}/{old.group(2)}" if old else ""


def author_key(name: str) -> str:
    """A person as compared: family name and first initial ("Smith, John" ~ "John Smith" ~
    "J. Smith"; John Smith is not Steven Smith). An organisation keeps its last word."""
    if "," in name:
        parts = [p for p in (p.strip() for p in name.split(",")) if p]
        rest = [p for p in parts[1:] if not _suffix(p)]
        family, given = (parts[0], rest[0] if rest else "") if parts else ("", "")
    else:
        words = [w for w in name.split() if not _suffix(w)] or name.split()
        if not words:
            return ""
        if len(words) > 1 and _initials(words[-1]) and not _initials(words[0]):
            family, given = " ".join(words[:-1]), words[-1]  # Scopus style: "Smith JA"
        else:
            family, given = words[-1], words[0] if len(words) > 1 else ""
    family_words = [w for w in map(fold, family.split()) if w]
    last = family_words[-1] if family_words else ""
    return f"{last} {fold(given)[:1]}".strip()


def _suffix(word: str) -> bool:
    return word.rstrip(".").lower() in _SUFFIXES


def _initials(word: str) -> bool:
    letters = word.replace(".", "")
    return 0 < len(letters) <= 3 and letters.isalpha() and letters.isupper()


def _hash(*parts: str) -> str:
    return hashlib.sha1("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


@dataclass(slots=True)  # not frozen: built for every record parsed, frozen's __init__ costs
class Identity:
    """What the identity rule compares of one record (text already normalised or hashed)."""

    doi: str = ""  # normalise_doi
    arxiv: str = ""  # normalise_arxiv
    title: str = ""  # hash of the folded title ("" for a record without a real title)
    work: str = ""  # hash of folded title, first author key and year ("" without a title)
    text: str = ""  # paper_id(abstract), "" without an abstract
    weak: bool = False  # the abstract is too short to identify the work
    key: str = ""  # the source's own citation key

    @property
    def abstract(self) -> str:
        """The abstract's hash when it may identify the work, else ""."""
        return "" if self.weak else self.text

    @property
    def id(self) -> str:
        """The paper id this record gives: its strongest identifier."""
        if self.doi:
            return _hash("doi", self.doi)
        if self.arxiv:
            return _hash("arxiv", self.arxiv)
        return self.work or self.text

    def fold_keys(self) -> list[str]:
        """Every identifier another file's record of the same work may share."""
        keys = [_hash("doi", self.doi) if self.doi else "", _hash("arxiv", self.arxiv) if self.arxiv else ""]
        return [k for k in (*keys, self.work, self.abstract) if k]

    def to_json(self) -> str:
        """One string, tab-separated (no normalised DOI or arXiv id holds whitespace): a dict per
        row costs twice as much to write at 87k rows."""
        return "\t".join((self.doi, self.arxiv, self.title, self.work, self.text, "w" if self.weak else ""))

    @classmethod
    def from_json(cls, value: object, key: str = "") -> Identity:
        parts = value.split("\t") if isinstance(value, str) else []
        if len(parts) != 6:
            return cls(key=key)
        doi, arxiv, title, work, text, weak = parts
        return cls(doi, arxiv, title, work, text, weak == "w", key)


def identify(
    *,
    title: str,
    abstract: str,
    authors: list[str],
    year: int | None,
    doi: str = "",
    arxiv: str = "",
    url: str = "",
    key: str = "",
) -> Identity:
    """A record's identity. ``title`` is "" for a record without one of its own (a generated
    title is not the source's); ``abstract`` is "" when there is none (a placeholder included).
    A record without a title is its abstract, however short (the seeds)."""
    folded = fold(title) if title else ""
    work = _hash("work", folded, author_key(authors[0]) if authors else "", str(year or "")) if folded else ""
    return Identity(
        doi=normalise_doi(doi, url),
        arxiv=normalise_arxiv(arxiv),
        title=_hash("title", folded) if folded else "",
        work=work,
        text=paper_id(abstract) if abstract else "",
        weak=bool(abstract and folded and not substantive(abstract)),
        key=key,
    )


def conflict(a: Identity, b: Identity, same_file: bool) -> bool:
    """True when the two records are certainly different works: different DOIs or arXiv ids, or
    different citation keys within one file."""
    if same_file and a.key and b.key and a.key != b.key:
        return True
    return bool(a.doi and b.doi and a.doi != b.doi) or bool(a.arxiv and b.arxiv and a.arxiv != b.arxiv)


def same_work(a: Identity, b: Identity, same_file: bool) -> bool:
    """Whether two records are one work. ``same_file``: both come from one file (where two
    citation keys are two works whatever else agrees)."""
    if conflict(a, b, same_file):
        return False
    if (a.doi and a.doi == b.doi) or (a.arxiv and a.arxiv == b.arxiv):
        return True
    if a.work and a.work == b.work:  # same title, first author and year: unless two abstracts differ
        return not (a.text and b.text and a.text != b.text)
    if a.abstract and a.abstract == b.abstract:  # the abstract speaks only when no title disagrees
        return not (a.title and b.title and a.title != b.title)
    return False


def old_id(abstract: str, title: str) -> str:
    """The id this record had before issue 18 (the hash of its abstract, or of its title): kept
    as an alias so bookmarks and read state saved under it still find the paper."""
    return paper_id(abstract, title)


_LIST_FIELDS = ("authors", "keywords")
_TEXT_FIELDS = ("abstract", "venue", "url", "doi", "arxiv", "kind")


def merge(first: Paper, others: list[Paper]) -> Paper:
    """One paper from the records of one work: the first record's fields, each empty one (and
    each record key it lacks) filled from the later records in order. Nothing is overwritten."""
    for other in others:
        for name in _TEXT_FIELDS + _LIST_FIELDS:
            if not getattr(first, name) and getattr(other, name):
                setattr(first, name, _copy(getattr(other, name)))
        if first.year is None and other.year is not None:
            first.year = other.year
        first.record = merge_record(first.record, other.record)
        first.aliases = list(dict.fromkeys([*first.aliases, other.id, *other.aliases]))
    first.aliases = [a for a in first.aliases if a != first.id]
    return first


def merge_record(first: dict[str, object], other: dict[str, object]) -> dict[str, object]:
    """The first record with every key it lacks taken from the other (``custom`` key by key)."""
    out = dict(first)
    for key, value in other.items():
        if key not in out or out[key] in ("", None, [], {}):
            out[key] = value
        elif key == "custom" and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = {**value, **out[key]}  # type: ignore[dict-item]
    return out


def _copy(value: object) -> object:
    return list(value) if isinstance(value, list) else value
