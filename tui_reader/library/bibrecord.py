"""Reading Paper.record (RECORD.md) for the exporters: entry types, people, dates, pages, links and
the source's own fields, each in one place, so BibTeX, RIS and CSL-JSON say the same thing.

The entry type follows the source: its own type (``source-type``: a BibTeX, biblatex, RIS or
EndNote name), else the CSL ``type`` it maps to, else the paper's ``kind``; only a paper with none
of them has its type guessed from its venue (citation.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tui_reader.corpus.paper import Paper
from tui_reader.library.citekeys import Name, split_name

# -- entry types ----------------------------------------------------------------------------------
# Any type a source names (lowercase) -> the BibTeX entry type written. BibTeX's own are kept.
_BIBTEX_OWN = [
    *("article", "book", "booklet", "inbook", "incollection", "inproceedings", "manual"),
    *("mastersthesis", "misc", "phdthesis", "proceedings", "techreport", "unpublished"),
]
SOURCE_TYPES: dict[str, str] = {
    **{t: t for t in _BIBTEX_OWN},
    "conference": "inproceedings",
    # biblatex
    # biblatex's own types for works BibTeX has none for (BibTeX styles set them as @misc)
    **{t: t for t in ("online", "dataset", "software")},
    **dict.fromkeys(["www", "electronic"], "online"),
    **dict.fromkeys(["patent", "periodical"], "misc"),
    **dict.fromkeys(["report"], "techreport"),
    **dict.fromkeys(["thesis"], "phdthesis"),
    **dict.fromkeys(["mvbook", "bookinbook", "collection", "mvcollection", "reference"], "book"),
    **dict.fromkeys(["inreference", "suppcollection"], "incollection"),
    **dict.fromkeys(["suppbook"], "inbook"),
    **dict.fromkeys(["mvproceedings"], "proceedings"),
    # RIS
    **dict.fromkeys(["jour", "ejour", "mgzn", "news", "jfull", "inpr", "abst"], "article"),
    **dict.fromkeys(["ebook", "edbook"], "book"),
    **dict.fromkeys(["chap", "echap", "dict", "encyc"], "incollection"),
    **dict.fromkeys(["conf"], "proceedings"),
    **dict.fromkeys(["cpaper"], "inproceedings"),
    **dict.fromkeys(["thes"], "phdthesis"),
    **dict.fromkeys(["rprt", "govdoc", "stand"], "techreport"),
    **dict.fromkeys(["unpb", "manscpt"], "unpublished"),
    **dict.fromkeys(["data", "dbase", "aggr"], "dataset"),
    **dict.fromkeys(["elec", "web", "blog", "icomm"], "online"),
    "comp": "software",
    **dict.fromkeys(["gen", "pat"], "misc"),
    # EndNote's words, and Crossref's
    **dict.fromkeys(
        ["journal article", "electronic article", "magazine article", "newspaper article", "journal-article"],
        "article",
    ),
    **dict.fromkeys(["edited book", "electronic book"], "book"),
    **dict.fromkeys(["book section", "electronic book section", "book-chapter"], "incollection"),
    **dict.fromkeys(["conference paper", "conference proceedings", "proceedings-article"], "inproceedings"),
    **dict.fromkeys(["web page"], "online"),
    "dataset": "dataset",
    "computer program": "software",
    **dict.fromkeys(["generic", "posted-content"], "misc"),
}
# A CSL type (the record's "type", a CSL source's own) -> the BibTeX entry type.
CSL_KINDS: dict[str, str] = {
    "dataset": "dataset",
    "software": "software",
    **dict.fromkeys(["webpage", "post", "post-weblog"], "online"),
    "patent": "misc",
    "thesis": "phdthesis",
    "report": "techreport",
    "book": "book",
    **dict.fromkeys(["article-journal", "article-magazine", "article-newspaper", "review"], "article"),
    "paper-conference": "inproceedings",
    **dict.fromkeys(["chapter", "entry", "entry-encyclopedia", "entry-dictionary"], "incollection"),
    **dict.fromkeys(
        ["article", "preprint", "speech", "map", "graphic", "standard"],
        "misc",
    ),
    "manuscript": "unpublished",
}
# BibTeX entry type -> CSL type, for a record without its own "type".
CSL_TYPES = {
    "online": "webpage",
    "dataset": "dataset",
    "software": "software",
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "incollection": "chapter",
    "inbook": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "book": "book",
    "proceedings": "book",
    "unpublished": "manuscript",
    "booklet": "pamphlet",
    "manual": "report",
}
# CSL type -> RIS type (rispy's TYPE_OF_REFERENCE_MAPPING names them all).
RIS_OF_CSL = {
    "article-journal": "JOUR",
    "article-magazine": "MGZN",
    "article-newspaper": "NEWS",
    "paper-conference": "CPAPER",
    "chapter": "CHAP",
    "book": "BOOK",
    "thesis": "THES",
    "report": "RPRT",
    "dataset": "DATA",
    "webpage": "ELEC",
    "post-weblog": "BLOG",
    "manuscript": "UNPB",
    "software": "COMP",
    "patent": "PAT",
    "entry-encyclopedia": "ENCYC",
    "entry-dictionary": "DICT",
    "standard": "STAND",
    "pamphlet": "PAMP",
    "map": "MAP",
    "speech": "GEN",
    "article": "GEN",
}
RIS_TYPE = re.compile(r"[A-Z]{3,7}")  # a RIS code as a source wrote it ("JOUR", "CPAPER")


def text(record: Mapping[str, object], key: str) -> str:
    """A text value of the record ('' when absent); numbers as written."""
    value = record.get(key)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def source_kind(paper: Paper) -> str | None:
    """The BibTeX entry type the source's own type names, or None when it names none."""
    record = paper.record
    source = text(record, "source-type")
    tables = (CSL_KINDS if origin(paper) == "csl" else SOURCE_TYPES, CSL_KINDS, SOURCE_TYPES)
    for raw, table in zip((source, text(record, "type"), paper.kind.strip()), tables, strict=True):
        kind = table.get(raw.lower())
        if kind is None:
            continue
        if kind == "phdthesis" and "master" in (text(record, "genre") + raw).lower():
            return "mastersthesis"
        return kind
    return None


def csl_type(paper: Paper, kind: str) -> str:
    """The CSL type: the record's own, else what the BibTeX type maps to."""
    own = text(paper.record, "type")
    if own:
        return own
    source = text(paper.record, "source-type").lower()
    if source in {"dataset", "data", "online", "www", "elec", "web", "software", "comp"}:
        return {"data": "dataset", "dataset": "dataset", "software": "software", "comp": "software"}.get(
            source, "webpage"
        )
    return CSL_TYPES.get(kind, "article")


def ris_type(paper: Paper, kind: str) -> str:
    """The RIS type: the source's own RIS code, else the CSL type's."""
    own = text(paper.record, "source-type")
    if RIS_TYPE.fullmatch(own) and own.lower() in SOURCE_TYPES:
        return own
    if kind == "proceedings":
        return "CONF"
    return RIS_OF_CSL.get(csl_type(paper, kind), "GEN")


# -- people ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Person:
    family: str
    given: str = ""
    particle: str = ""  # "van" (before the family name; not part of ``family`` here)
    suffix: str = ""
    literal: str = ""  # an organisation, written whole

    @property
    def full_family(self) -> str:
        return f"{self.particle} {self.family}".strip()


def _person(item: object) -> Person | None:
    if isinstance(item, str):
        return person_of_name(split_name(item)) if item.strip() else None
    if not isinstance(item, Mapping):
        return None

    def get(key: str) -> str:
        return str(item.get(key) or "").strip()

    if get("literal"):
        return Person("", literal=get("literal"))
    particle = " ".join(p for p in (get("dropping-particle"), get("non-dropping-particle")) if p)
    if not get("family"):
        return Person("", literal=get("given")) if get("given") else None
    return Person(get("family"), get("given"), particle, get("suffix"))


def person_of_name(name: Name) -> Person:
    """A display name's parts; its particle stays in the family name ("van Gogh"), as written."""
    if name.corporate:
        return Person("", literal=name.family)
    return Person(name.family, name.given, suffix=name.suffix)


def people(paper: Paper, role: str) -> list[Person]:
    """The record's people in a role ("author", "editor", "translator"); authors fall back to the
    paper's display names. Duplicates stay: two co-authors with one name are two people."""
    value = paper.record.get(role)
    found = [p for p in map(_person, value) if p is not None] if isinstance(value, list) else []
    if not found and role == "author":
        found = [person_of_name(split_name(a)) for a in paper.authors]
    return found


# -- dates, pages, links, attachments -------------------------------------------------------------
def date_parts(paper: Paper) -> list[int]:
    """[year, month?, day?] from the record's "issued", else [paper.year], else []."""
    issued = paper.record.get("issued")
    if isinstance(issued, Mapping):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list):
            out = []
            for value in parts[0][:3]:
                try:
                    out.append(int(value))
                except (TypeError, ValueError):
                    break
            if out:
                return out
    return [paper.year] if paper.year else []


def raw_date(paper: Paper) -> str:
    """A date the source gave only as text ("Spring 2001"), when it has no parts."""
    issued = paper.record.get("issued")
    if isinstance(issued, Mapping) and not date_parts(paper):
        return str(issued.get("raw") or issued.get("literal") or "").strip()
    return ""


_RANGE = re.compile(r"^\s*([^\s–—-]+)\s*(?:-+|–|—)\s*([^\s–—-]+)\s*$")


def page_range(page: str) -> tuple[str, str]:
    """'12--19', '12–19', '12-19' -> ('12', '19'); anything else -> (page, '')."""
    match = _RANGE.match(page)
    return (match.group(1), match.group(2)) if match else (page.strip(), "")


def links(paper: Paper, first: str) -> list[str]:
    """Every URL the source gave, in order, ``first`` (the paper's link) leading."""
    value = paper.record.get("links")
    given = [str(u).strip() for u in value if str(u).strip()] if isinstance(value, list) else []
    return list(dict.fromkeys([u for u in [first, *given] if u]))


@dataclass(frozen=True, slots=True)
class Attachment:
    path: str
    mime: str = ""
    description: str = ""


def attachments(paper: Paper) -> list[Attachment]:
    value = paper.record.get("file")
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, Mapping) and str(item.get("path") or "").strip():
            out.append(
                Attachment(str(item["path"]), str(item.get("mime") or ""), str(item.get("description") or ""))
            )
        elif isinstance(item, str) and item.strip():
            out.append(Attachment(item))
    return out


# -- the source's own fields ----------------------------------------------------------------------
def origin(paper: Paper) -> str:
    """The format the record came from ("bibtex", "ris", "csl", ""): what its "custom" fields are
    written in, so they go back verbatim to the same format."""
    for source in paper.sources:
        name = source.lower().removesuffix(".gz")
        if name.endswith((".bib", ".bibtex")):
            return "bibtex"
        if name.endswith(".ris"):
            return "ris"
        if name.endswith((".csl.json", ".csljson")):
            return "csl"
    kind = text(paper.record, "source-type")  # no file named (a bookmark's snapshot): its type says
    if RIS_TYPE.fullmatch(kind):
        return "ris"
    if kind and kind == text(paper.record, "type"):
        return "csl"  # a CSL item's type is its own CSL type; BibTeX's maps to another name
    return "bibtex" if kind.lower() in SOURCE_TYPES else ""


def custom(paper: Paper) -> dict[str, object]:
    value = paper.record.get("custom")
    return {str(k): v for k, v in value.items() if str(k)} if isinstance(value, Mapping) else {}


def custom_text(value: object) -> list[str]:
    """A custom value as the lines of text a format writes: a list is one value per item."""
    from tui_reader.corpus.text import safe_json

    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [str(value)]
    return [safe_json(value)]


def own_or_clash(name: str, written: Iterable[str], value: str, ours: Mapping[str, str]) -> str | None:
    """The name a custom field is written under: its own; None when a field we write has that name
    and the same value (a copy); ``custom-<name>`` when ours has that name and another value."""
    if name not in set(written):
        return name
    if ours.get(name, "").strip() == value.strip():
        return None
    return f"custom-{name}"
