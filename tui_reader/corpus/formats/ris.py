"""RIS (.ris), as Zotero, Mendeley, EndNote and publishers' "export citation" buttons write it.

rispy reads the tags. The file is first cut into records at its ``TY`` and ``ER`` lines (by
rispy's own line grammar) so that each record gets a key of its raw text and a line number: lines
outside any record (a record whose ``TY`` line is damaged) are skipped, counted and named by line,
and a record missing its ``ER`` still loads, up to the next ``TY``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

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
from tui_reader.corpus.paper import Paper

# TY codes as BibTeX entry types, so a kind reads the same whatever format it came from.
KINDS = {
    "JOUR": "article",
    "EJOUR": "article",
    "JFULL": "article",
    "MGZN": "article",
    "NEWS": "article",
    "CONF": "inproceedings",
    "CPAPER": "inproceedings",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "incollection",
    "ECHAP": "incollection",
    "THES": "phdthesis",
    "RPRT": "techreport",
    "UNPB": "unpublished",
    "MANSCPT": "unpublished",
    "ELEC": "online",
    "WEB": "online",
    "BLOG": "online",
    "GEN": "misc",
    "DATA": "dataset",
    "COMP": "software",
    "PAT": "patent",
}
START, END = "TY", "ER"
# Where the journal or proceedings is, best first (rispy's names; BT is a tag rispy does not name).
# the last, PB: a book's or a report's venue (the exporter writes it so)
VENUES = (
    "journal_name",
    "alternate_title3",
    "secondary_title",
    "BT",
    "alternate_title2",
    "alternate_title1",
    "publisher",
)


@lru_cache(maxsize=1)
def _parser() -> Any:
    import rispy

    return rispy.RisParser()


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
        if not tags & {"TI", "T1", "AB", "N2"}:
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


def _text(record: dict[str, Any], *names: str) -> str:
    unknown = record.get("unknown_tag") or {}
    for name in names:
        value = record.get(name) if len(name) > 2 else unknown.get(name)
        if isinstance(value, list):
            value = next((v for v in value if v), "")
        if value:
            return str(value)
    return ""


def _people(names: list[str]) -> tuple[str, ...]:
    out = []
    for name in names:
        family, _, rest = name.partition(",")
        given, _, suffix = rest.partition(",")
        out.append(person(family, given, suffix) if rest else name)
    return tuple(out)


def build(path: Path, data: object) -> Paper | None:
    import rispy

    chunk = str(data)
    if _parser().parse_line(chunk.rsplit("\n", 1)[-1])[0] != END:
        chunk += "\nER  - "  # rispy drops a record that never ends
    found = rispy.loads(chunk)
    if not found:
        return None
    record: dict[str, Any] = found[0]
    names = [str(n) for n in (record.get("authors") or []) + (record.get("first_authors") or []) if n]
    urls = [u for u in record.get("urls") or [] if u]
    doi = bare_doi(_text(record, "doi"))
    arxiv = arxiv_id(*urls, doi, _text(record, "note"), _text(record, "accession_number"))
    kind = str(record.get("type_of_reference") or "").strip().upper()
    return make_paper(
        _text(record, "abstract", "notes_abstract"),
        source_name(path),
        _text(record, "title", "primary_title", "short_title"),
        _people(list(dict.fromkeys(names))),
        _text(record, *VENUES) or ("arXiv" if arxiv else ""),
        _text(record, "year", "publication_year", "date"),
        urls[0] if urls else (ARXIV_ABS + arxiv if arxiv else ""),
        doi=doi,
        arxiv=arxiv,
        keywords=split_keywords(record.get("keywords") or []),
        kind=KINDS.get(kind, kind.lower()),
        title_only=True,
    )
