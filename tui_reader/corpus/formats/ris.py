"""RIS (.ris), as Zotero, Mendeley, EndNote, Scopus, Web of Science and publishers' "export
citation" buttons write it.

A tag line is read by rispy's parser with Zotero's line grammar (one or two spaces before the
dash: ``TY - JOUR`` imports in Zotero, so it does here). The file is first cut into records at its
``TY`` and ``ER`` lines so that each record gets a key of its raw text and a line number: lines
outside any record (a record whose ``TY`` line is damaged) are skipped, counted and named by line,
and a record missing its ``ER`` still loads, up to the next ``TY``.

A record is kept tag by tag, in order, each line whole (rispy's own dict splits ``UR`` at ";" and
turns a list tag's continuation line into a new value): what the reader models goes to
Paper.record at its CSL name, every other tag verbatim under ``record["custom"]``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from tui_reader.corpus.formats import links
from tui_reader.corpus.formats.common import (
    ARXIV_ABS,
    Entry,
    Record,
    arxiv_id,
    bare_doi,
    counted,
    key,
    make_paper,
    person,
    source_name,
    split_keywords,
)
from tui_reader.corpus.formats.ristypes import CSL_TYPES, KINDS, SPELLED, date_parts
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import strip_controls

START, END = "TY", "ER"
BOOKS = {"BOOK", "EBOOK", "EDBOOK"}
_LINE = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?: (.*))?")  # Zotero's RIS.js grammar, "ER  -" alike
_ISSN = re.compile(r"\d{4}-?\d{3}[\dXx]")
_YEAR_IN = re.compile(r"(?<!\d)\d{4}(?!\d)")
_MIME = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".epub": "application/epub+zip",
}


@lru_cache(maxsize=1)
def _parser() -> Any:
    import rispy

    class ZoteroLines(rispy.RisParser):
        """rispy's parser reading a tag line as Zotero does: one or two spaces before the dash."""

        def parse_line(self, line: str) -> tuple[str, str] | tuple[None, str]:
            m = _LINE.fullmatch(line.rstrip())
            return (m.group(1), (m.group(2) or "").strip()) if m else (None, line.strip())

    return ZoteroLines()


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    parse_line = _parser().parse_line
    out: list[Record] = []
    current: list[str] = []
    start = 0
    stray: list[str] = []  # "line N" of each run of tagged lines outside any record
    run: int | None = None  # where the current run of such lines began
    empty: list[str] = []

    def close() -> None:
        if not current:
            return
        chunk = "\n".join(current)
        tags = {parse_line(line)[0] for line in current}
        if not tags & {"TI", "T1", "T2", "AB", "N2"}:
            empty.append(f"line {start}")
        else:
            out.append((key(chunk.encode("utf-8", "surrogatepass")), Entry(start, "ris", chunk)))
        current.clear()

    for number, line in enumerate(text.split("\n"), 1):  # numbered as an editor numbers them
        line = line.rstrip("\r")
        tag = parse_line(line)[0]
        if tag == START:
            close()
            current.append(line)
            start, run = number, None
        elif current:
            current.append(line)
            if tag == END:
                close()
        elif tag is not None:  # a record whose TY line is damaged: skipped up to its ER
            if run is None:
                run = number
                stray.append(f"line {number}")
            if tag == END:
                run = None
    close()
    if stray:
        warnings.append(counted(path, stray, "malformed record", "malformed records"))
    if empty:
        warnings.append(
            counted(
                path,
                empty,
                "record with neither title nor abstract",
                "records with neither title nor abstract",
            )
        )
    return out


class Tags:
    """A record's tags in file order, each value whole (a continuation line joins its tag's
    value with a newline); ``take`` marks what the reader used, ``rest`` is everything else."""

    def __init__(self, chunk: str) -> None:
        parse_line = _parser().parse_line
        self.values: dict[str, list[str]] = {}
        last: list[str] | None = None
        for line in chunk.split("\n"):
            tag, content = parse_line(line.rstrip("\r"))
            if tag is None:
                if last is not None and content:
                    last[-1] = f"{last[-1]}\n{content}" if last[-1] else content
                continue
            if tag == END:
                break
            last = self.values.setdefault(tag, [])
            last.append(content)
        self.used: dict[str, int] = {}  # tag -> how many of its values (from the first) were used

    def all(self, tag: str) -> list[str]:
        return [v for v in self.values.get(tag, []) if v]

    def first(self, *tags: str) -> tuple[str, str]:
        """(tag, value) of the first tag that has a value; ("", "") when none has."""
        for tag in tags:
            found = self.all(tag)
            if found:
                return tag, found[0]
        return "", ""

    def take(self, *tags: str) -> str:
        """The first value of the first tag that has one, marked used."""
        tag, value = self.first(*tags)
        if tag:
            self.use(tag, 1)
        return value

    def take_all(self, tag: str) -> list[str]:
        self.use(tag)
        return self.all(tag)

    def use(self, tag: str, count: int | None = None) -> None:
        self.used[tag] = max(self.used.get(tag, 0), len(self.values.get(tag, [])) if count is None else count)

    def rest(self) -> dict[str, object]:
        """Every value the reader did not use, verbatim, by lowercase tag (a list when several)."""
        out: dict[str, object] = {}
        for tag, values in self.values.items():
            left = [v for v in values if v][self.used.get(tag, 0) :] if tag != START else []
            if left:
                out[tag.lower()] = left[0] if len(left) == 1 else left
        return out


def _one_line(text: str) -> str:
    return " ".join(strip_controls(text).split())


def _people(names: list[str]) -> tuple[tuple[str, ...], list[dict[str, str]]]:
    """Display names and CSL people from "Family, Given[, Suffix]"; a name without a comma is one
    whole name (an organisation), as Zotero reads it."""
    shown, people = [], []
    for raw in names:
        name = _one_line(raw)
        family, comma, rest = name.partition(",")
        given, _, suffix = rest.partition(",")
        family, given, suffix = family.strip(), given.strip(), suffix.strip()
        if not comma or not family:
            shown.append(name)
            people.append({"literal": name})
            continue
        shown.append(person(family, given, suffix))
        csl = {"family": family, "given": given, "suffix": suffix}
        people.append({k: v for k, v in csl.items() if v})
    return tuple(shown), people


def _type(tags: Tags) -> tuple[str, str]:
    """(the source's TY verbatim, its RIS code): "Journal Article" -> "JOUR"."""
    source = _one_line(tags.take(START))
    code = source.upper()
    return source, SPELLED.get(source.lower(), code)


def _issued(tags: Tags) -> dict[str, object]:
    """CSL ``issued`` from PY, Y1 and DA: the year from the first that has one, month and day
    from the fullest that agrees; a date tag the date-parts do not say stays under custom."""
    found = []
    for tag in ("PY", "Y1", "DA"):
        raw = tags.first(tag)[1]
        parts = date_parts(raw) if raw else None
        if parts:
            found.append((tag, parts))
    year = next((parts[0] for _, parts in found if parts[0]), 0)
    if not year:
        tag, raw = tags.first("PY", "Y1", "DA")
        if not raw or _YEAR_IN.search(raw):  # "2015 Spring" stays verbatim; the year is found
            return {}
        tags.use(tag, 1)
        return {"raw": _one_line(raw)}
    best = [year]
    for tag, parts in found:
        if parts[0] in (year, 0):
            tags.use(tag, 1)
            if len(parts) > len(best):
                best = [year, *parts[1:]]
    return {"date-parts": [best]}


def _venue(tags: Tags, code: str, title_tag: str) -> tuple[str, dict[str, object]]:
    """The venue shown and the record's container fields: the full journal name (JF, then T2, the
    book or proceedings title) before the JO/JA/J2 abbreviation; a book's T2 is its series and its
    venue its publisher (PB)."""
    out: dict[str, object] = {}
    candidates = ("JF", "BT") if code in BOOKS else ("JF", "T2", "BT")
    full = _one_line(tags.take(*(t for t in candidates if t != title_tag)))
    short_tag, short = tags.first("JO", "JA", "J2")
    short = _one_line(short)
    if full:
        out["container-title"] = full
        if short:
            tags.use(short_tag, 1)
            if short != full:
                out["container-title-short"] = short
    elif short:
        tags.use(short_tag, 1)
        out["container-title"] = short
    series_tags = ("T2", "T3") if code in BOOKS else ("T3",)
    series = _one_line(tags.take(*(t for t in series_tags if t != title_tag)))
    if series:
        out["collection-title"] = series
    venue = str(out.get("container-title") or "")
    return venue, out


def _page(tags: Tags) -> str:
    start, end = _one_line(tags.take("SP")), _one_line(tags.take("EP"))
    if start and end and end != start:
        return f"{start}-{end}"
    return start or end


def _serial(tags: Tags, code: str, out: dict[str, object]) -> None:
    """SN is an ISSN or an ISBN by its shape (a book's when it has no shape)."""
    for value in tags.all("SN"):
        value = _one_line(value)
        digits = re.sub(r"[^\dXx]", "", value)
        is_issn = bool(_ISSN.fullmatch(value)) or (len(digits) == 8 and code not in BOOKS)
        name = "ISSN" if is_issn else "ISBN"
        if name in out:
            break  # a second ISSN (print and online): the rest stay verbatim
        out[name] = value
        tags.use("SN", tags.used.get("SN", 0) + 1)


def _files(tags: Tags) -> list[dict[str, str]]:
    out = []
    for raw in tags.take_all("L1"):
        for path in (p.strip() for p in raw.split("\n")):  # Zotero: one attachment a line
            if path:
                suffix = Path(path.split("?")[0]).suffix.lower()
                entry = {"path": strip_controls(path), "mime": _MIME.get(suffix, "")}
                out.append({k: v for k, v in entry.items() if v})
    return out


def _record(tags: Tags, source_type: str, code: str, title_tag: str) -> tuple[str, dict[str, object]]:
    """The venue shown, and the CSL-shaped record of everything else the tags say."""
    out: dict[str, object] = {}
    for name, value in (
        ("citation-key", tags.take("ID")),
        ("source-type", source_type),
        ("type", CSL_TYPES.get(code, "")),
    ):
        if value:
            out[name] = _one_line(value)
    venue, container = _venue(tags, code, title_tag)
    out |= container
    number_like = code in ("RPRT", "PAT", "GOVDOC")
    for name, tag in (
        ("volume", "VL"),
        ("number" if number_like else "issue", "IS"),
        ("publisher", "PB"),
        ("publisher-place", "CY"),
        ("edition", "ET"),
        ("language", "LA"),
        ("genre", "M3"),
    ):
        value = _one_line(tags.take(tag))
        if value:
            out[name] = value
    if code in ("THES", "RPRT") and out.get("publisher"):
        out["institution"] = out["publisher"]
    short = _one_line(tags.take(*(t for t in ("ST",) if t != title_tag)))
    if short:
        out["title-short"] = short
    page = _page(tags)
    if page:
        out["page"] = page
    _serial(tags, code, out)
    issued = _issued(tags)
    if issued:
        out["issued"] = issued
    editors = _people(tags.take_all("A2") + tags.take_all("ED"))[1]
    translators = _people(tags.take_all("A4"))[1]
    for name, people in (("editor", editors), ("translator", translators)):
        if people:
            out[name] = people
    notes = [strip_controls(n).strip() for n in tags.take_all("N1")]
    if any(notes):
        out["note"] = "\n".join(n for n in notes if n)
    files = _files(tags)
    if files:
        out["file"] = files
    if not venue:  # a book's, a report's or a misc's venue is its publisher, as export writes it
        venue = str(out.get("publisher") or "")
    return venue, out


def build(path: Path, data: object) -> Paper | None:
    tags = Tags(str(data))
    source_type, code = _type(tags)
    title_tag, title = tags.first("TI", "T1", "T2", "ST")  # T2 alone: Scopus' title
    if title_tag:
        tags.use(title_tag, 1)
    abstract = tags.take("AB", "N2")
    au, a1 = tags.take_all("AU"), tags.take_all("A1")
    shown, authors = _people(au if au == a1 else au + a1)
    found = links.split(tags.take_all("UR"))
    doi_raw = tags.first("DO")[1]
    doi = bare_doi(doi_raw)
    if doi:
        tags.use("DO", 1)
    arxiv = arxiv_id(*found, doi, tags.first("M1")[1], tags.first("AN")[1])
    venue, record = _record(tags, source_type, code, title_tag)
    if authors:
        record["author"] = authors
    if len(found) > 1:
        record["links"] = found
    elif found and not links.is_web(found[0]):
        tags.used["UR"] = 0  # not a web link: kept verbatim under custom, never the url
    keywords = split_keywords(tags.take_all("KW"))
    custom = tags.rest()
    if custom:
        record["custom"] = custom
    url = links.first_web(found)
    return make_paper(
        abstract,
        source_name(path),
        title,
        shown,
        venue or ("arXiv" if arxiv else ""),
        _year(record),
        url or (ARXIV_ABS + arxiv if arxiv else ""),
        doi=doi,
        arxiv=arxiv,
        keywords=keywords,
        kind=KINDS.get(code, code.lower()),
        title_only=True,
        record=record,
    )


def _year(record: dict[str, object]) -> object:
    issued = record.get("issued")
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and parts[0]:
            return parts[0][0]
        return issued.get("raw")
    return None
