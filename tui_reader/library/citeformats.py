"""Papers as RIS (rispy's writer) and CSL-JSON, from the same record as BibTeX (bibrecord.py).

RIS: the type the source gave (or its CSL type's: JOUR, BOOK, CHAP, CPAPER, CONF, THES, RPRT,
DATA, ELEC, ...); a book's publisher is PB, a journal or book title T2, its abbreviation J2;
every URL its own UR line; a note or abstract over several lines keeps its tag on every line
(N1 is a list tag: one N1 a line; a line that would read as a tag is indented); the source's own
RIS tags back as they were. CSL-JSON: the record's variables as they are (a webpage stays
"webpage", a book's publisher "publisher"), people structured; what CSL has no variable for goes
under "custom" (CSL-JSON's own place for it), a CSL source's own variables back at the top.
"""

from __future__ import annotations

import re
from typing import Any

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import safe_json
from tui_reader.library import bibrecord as rec
from tui_reader.library.bibrecord import Person
from tui_reader.library.citation import arxiv_url, entry_type, verbatim
from tui_reader.library.citekeys import cite_keys

_TAG = re.compile(r"[A-Za-z][A-Za-z0-9]")
# record keys CSL-JSON has as variables (written as they are); the rest go under "custom"
_CSL_PLAIN = [
    *("citation-key", "container-title", "container-title-short", "collection-title", "volume"),
    *("issue", "page", "number", "publisher", "publisher-place", "edition", "ISBN", "ISSN"),
    *("language", "version", "genre", "event", "title-short"),
]
_NOT_CSL = ("source-type", "links", "file", "title-main", "subtitle", "institution")


def _ris_text(text: str) -> str:
    """A value that may span lines: no line of it may read as a tag line ('ER  - ')."""
    return re.sub(r"(?m)^(?=[A-Za-z][A-Za-z0-9] {2}-)", " ", text)


def _ris_person(person: Person) -> str:
    if person.literal:
        return person.literal
    return ", ".join(p for p in (person.full_family, person.given, person.suffix) if p)


def _ris_lines(text: str) -> list[str]:
    """A note as N1 values, one a line (blank lines kept, as an indented blank)."""
    return [_ris_text(line) or " " for line in text.split("\n")]


def _ris_where(paper: Paper, kind: str, out: dict[str, Any]) -> None:
    r = paper.record
    container = rec.text(r, "container-title")
    venue = container or paper.venue.strip()
    publisher = rec.text(r, "publisher") or rec.text(r, "institution")
    if kind in ("book", "proceedings", "phdthesis", "mastersthesis", "techreport"):
        publisher = publisher or venue
        venue = container if container != publisher else ""
    elif kind == "misc" and not container:  # a misc's venue is where it is published
        publisher = publisher or ("" if venue.lower() == "arxiv" else venue)
        venue = ""
    if not container and venue == publisher:  # a venue read from the publisher is no container
        venue = ""
    pairs = (
        ("secondary_title", venue),
        ("alternate_title1", rec.text(r, "container-title-short")),
        ("tertiary_title", rec.text(r, "collection-title")),
        ("publisher", publisher),
        ("place_published", rec.text(r, "publisher-place")),
    )
    out.update({k: v for k, v in pairs if v})


def _ris_numbers(paper: Paper, out: dict[str, Any]) -> None:
    r = paper.record
    start, end = rec.page_range(rec.text(r, "page"))
    issue, number = rec.text(r, "issue"), rec.text(r, "number")
    isbn, issn = rec.text(r, "ISBN"), rec.text(r, "ISSN")
    if isbn and issn:  # one SN line each: a reader tells them apart by their shape
        out.setdefault("unknown_tag", {}).setdefault("SN", []).append(issn)
    pairs = (
        ("volume", rec.text(r, "volume")),
        ("number", issue or number),
        ("note", number if issue and number != paper.arxiv else ""),  # M1: a report's own number
        ("start_page", start),
        ("end_page", end),
        ("edition", rec.text(r, "edition")),
        ("issn", isbn or issn),
        ("language", rec.text(r, "language")),
        ("type_of_work", rec.text(r, "genre")),
        ("short_title", rec.text(r, "title-short")),
    )
    out.update({k: v for k, v in pairs if v})
    parts = rec.date_parts(paper)
    if parts:
        out["year"] = str(parts[0])
    if len(parts) > 1:
        out["date"] = "/".join([f"{parts[0]:04d}", *(f"{p:02d}" for p in parts[1:])])
    elif raw := rec.raw_date(paper):
        out["date"] = raw


def ris_record(paper: Paper, key: str, note: str = "") -> dict[str, Any]:
    kind = entry_type(paper)
    out: dict[str, Any] = {"type_of_reference": rec.ris_type(paper, kind), "id": key, "title": paper.title}
    for role, field in (
        ("author", "authors"),
        ("editor", "secondary_authors"),
        ("translator", "subsidiary_authors"),
    ):
        if people := rec.people(paper, role):
            out[field] = [_ris_person(p) for p in people]
    _ris_where(paper, kind, out)
    _ris_numbers(paper, out)
    if paper.doi:
        out["doi"] = paper.doi
    if urls := rec.links(paper, arxiv_url(paper)):
        out["urls"] = [verbatim(u, ";") for u in urls]  # rispy splits URLs at ";"
    if files := rec.attachments(paper):
        out["file_attachments1"] = "; ".join(f.path for f in files)
    if paper.abstract:
        out["abstract"] = _ris_text(paper.abstract)
    if paper.keywords:
        out["keywords"] = list(paper.keywords)
    notes = [n for n in (rec.text(paper.record, "note"), note) if n]
    if notes:
        out["notes"] = [line for n in notes for line in _ris_lines(n)]
    _ris_custom(paper, out)
    return out


def _ris_custom(paper: Paper, out: dict[str, Any]) -> None:
    """A RIS source's own tags back as tags, each value its own line. A tag this writer wrote
    keeps ours: the source's copy is dropped when it is the same, else a list tag (AU, KW, N1,
    UR...) gets its values as more lines and any other tag its value as a note ("DA: ...")."""
    from rispy.config import LIST_TYPE_TAGS, TAG_KEY_MAPPING

    if rec.origin(paper) != "ris":
        return  # another format's own fields have no RIS tag
    unknown: dict[str, list[str]] = {}
    for name, value in rec.custom(paper).items():
        tag = name.upper()
        if not _TAG.fullmatch(tag) or tag in ("TY", "ER"):
            continue
        label = TAG_KEY_MAPPING.get(tag)
        lines = [_ris_text(v) for v in rec.custom_text(value)]
        ours = out.get(label) if label else None
        if ours is None or tag in LIST_TYPE_TAGS:
            if ours is None or [str(x) for x in (ours if isinstance(ours, list) else [ours])] != lines:
                unknown.setdefault(tag, []).extend(lines)
        elif str(ours) != "\n".join(lines):
            out.setdefault("notes", []).extend(f"{tag}: {line}" for line in lines)
    for tag, lines in unknown.items():
        out.setdefault("unknown_tag", {}).setdefault(tag, []).extend(lines)


def ris(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    """An RIS file of (paper, note) items, written by rispy (without its '1.' record numbers)."""
    import rispy

    class Writer(rispy.RisWriter):
        DEFAULT_DELIMITER_MAPPING: dict[str, str] = {}
        DEFAULT_LIST_TAGS = [*rispy.RisWriter.DEFAULT_LIST_TAGS]

        def set_header(self, count: int) -> str:
            return ""

    keys = keys or cite_keys(p for p, _ in items)
    return str(rispy.dumps([ris_record(p, keys[p.id], n) for p, n in items], implementation=Writer))


# -- CSL-JSON ----------------------------------------------------------------------------------
def _csl_person(person: Person) -> dict[str, str]:
    if person.literal:  # CSL's own way to say "not a person"
        return {"literal": person.literal}
    out = {"family": person.family}
    pairs = (("given", person.given), ("non-dropping-particle", person.particle), ("suffix", person.suffix))
    out.update({k: v for k, v in pairs if v})
    return out


def csl_item(paper: Paper, key: str, note: str = "") -> dict[str, object]:
    kind = entry_type(paper)
    r = paper.record
    item: dict[str, object] = {"id": key, "type": rec.csl_type(paper, kind), "title": paper.title}
    for role in ("author", "editor", "translator"):
        if people := rec.people(paper, role):
            item[role] = [_csl_person(p) for p in people]
    parts = rec.date_parts(paper)
    if parts:
        item["issued"] = {"date-parts": [parts]}
    elif raw := rec.raw_date(paper):
        item["issued"] = {"raw": raw}
    item.update({k: r[k] for k in _CSL_PLAIN if rec.text(r, k)})
    _csl_where(paper, kind, item)
    if paper.doi:
        item["DOI"] = paper.doi
    if url := arxiv_url(paper):
        item["URL"] = url
    own_note = rec.text(r, "note")
    for name, value in (("abstract", paper.abstract), ("keyword", ", ".join(paper.keywords))):
        if value:
            item[name] = value
    if own_note or note:
        item["note"] = "\n\n".join(n for n in (own_note, note) if n)
    _csl_custom(paper, item)
    return item


def _csl_where(paper: Paper, kind: str, item: dict[str, object]) -> None:
    """A paper whose record names no container or publisher: its venue, placed by type."""
    r, venue = paper.record, paper.venue.strip()
    if kind in ("phdthesis", "mastersthesis", "techreport") and rec.text(r, "institution"):
        item.setdefault("publisher", rec.text(r, "institution"))
    if not venue or rec.text(r, "container-title") or rec.text(r, "publisher"):
        pass
    elif kind in ("book", "proceedings", "phdthesis", "mastersthesis", "techreport"):
        item["publisher"] = venue
    elif kind != "misc":
        item["container-title"] = venue
    elif venue.lower() != "arxiv":
        item["publisher"] = venue
    if paper.arxiv and kind == "misc":  # a preprint: arXiv is where it is published
        item.setdefault("publisher", "arXiv")
        item.setdefault("number", paper.arxiv)


def _csl_custom(paper: Paper, item: dict[str, object]) -> None:
    """What CSL has no variable for goes in CSL-JSON's own "custom" object; a CSL source's custom
    object is that object again (merged, ours winning), so a second round changes nothing."""
    r = paper.record
    extra: dict[str, object] = {k: r[k] for k in _NOT_CSL if k in r and r[k] not in ("", [], {})}
    if "source-type" in extra and extra["source-type"] == r.get("type"):
        extra.pop("source-type")  # a CSL source's type, already "type"
    from_csl = rec.origin(paper) == "csl"
    for name, value in rec.custom(paper).items():
        if from_csl and name == "custom" and isinstance(value, dict):
            extra = {**value, **extra}
        elif from_csl and name not in item:
            item[name] = value
        elif name not in item or item[name] != value:
            extra[name] = value
    if extra:
        item["custom"] = extra


def csl_json(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    keys = keys or cite_keys(p for p, _ in items)
    return safe_json([csl_item(p, keys[p.id], note) for p, note in items], indent=2) + "\n"
