"""The arXiv metadata snapshot (Kaggle's ``arxiv-metadata-oai-snapshot.json``): JSON Lines, GBs.

It streams like any JSON Lines file (``jsonfmt.stream_jsonl``); a line is read as arXiv metadata
when its keys say so (``looks_like``), so a generic JSON Lines file loads as before. Fields are LaTeX
source (``Schr\\"odinger``, ``$O(n)$``): titles and names lose BibTeX-style braces, accents and
dashes through ``latex`` like BibTeX's; the abstract goes to ``normalise`` exactly as a generic
JSON record's does, so the same abstract gets the same id whichever file it came in.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from pathlib import Path

from tui_reader.corpus.formats.common import ARXIV_ABS, bare_doi, make_paper, person, source_name
from tui_reader.corpus.formats.latex import to_text
from tui_reader.corpus.paper import Paper

_ID = re.compile(r"\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}")
_AUTHORS_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
_AFFILIATION = re.compile(r"\([^()]*\)")
_MARKERS = ("authors_parsed", "versions", "submitter", "categories")


def looks_like(record: dict[str, object]) -> bool:
    """An arXiv snapshot record: an arXiv id and two of its own keys (a generic record with an
    ``id`` and ``categories`` is not enough)."""
    rid = record.get("id")
    if not isinstance(rid, str) or not _ID.fullmatch(rid.strip()):
        return False
    return sum(1 for k in _MARKERS if k in record) >= 2


def _people(record: dict[str, object]) -> object:
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for parts in parsed:
            if isinstance(parts, list) and parts:
                last, first, suffix = ([str(p) for p in parts] + ["", ""])[:3]
                names.append(to_text(person(last, first, suffix)))
        return tuple(names)
    authors = record.get("authors")  # "A. One (MIT), B. Two and C. Three"
    if not isinstance(authors, str):
        return None
    return tuple(to_text(a) for a in _AUTHORS_SPLIT.split(_AFFILIATION.sub("", authors)))


def _year(record: dict[str, object]) -> object:
    versions = record.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")
        if isinstance(created, str):
            try:
                return parsedate_to_datetime(created).year
            except (TypeError, ValueError, IndexError):
                pass
    return record.get("update_date")


def _str(record: dict[str, object], name: str) -> str:
    value = record.get(name)
    return value.strip() if isinstance(value, str) else ""


# A journal-ref whose journal name ends at a space before the volume ("Nature 521, 436 (2015)",
# "Phys. Rev. D 76, 013009 (2007)", "JHEP 0702:025,2007"); "Phys.Rev.D76:013009,2007" has no such
# boundary, so it names no venue: the whole ref stays in the record, verbatim.
_JOURNAL = re.compile(r"([A-Za-z][A-Za-z.&' -]*[A-Za-z.]),?\s+(?:[Vv]ol\.?\s*)?\d")


def journal_name(ref: str) -> str:
    """The journal a journal-ref names, only when it is clearly separable from the numbers."""
    m = _JOURNAL.match(ref.strip())
    if not m:
        return ""
    name = m.group(1).strip()
    words = [w for w in re.split(r"[\s.]+", name) if w]
    return name if words and any(len(w) > 1 for w in words) else ""


def _dates(record: dict[str, object]) -> tuple[list[int], list[dict[str, object]]]:
    """The first version's date as CSL date-parts, and each version as the snapshot gives it."""
    versions = record.get("versions")
    kept = [v for v in versions if isinstance(v, dict)] if isinstance(versions, list) else []
    for version in kept[:1]:
        created = version.get("created")
        if isinstance(created, str):
            try:
                when = parsedate_to_datetime(created)
            except (TypeError, ValueError, IndexError):
                break
            return [when.year, when.month, when.day], kept
    return [], kept


def _person(parts: object) -> dict[str, str] | None:
    if not isinstance(parts, list) or not parts:
        return None
    last, first, suffix = ([to_text(str(p)) for p in parts] + ["", ""])[:3]
    csl = {"family": last, "given": first, "suffix": suffix}
    return {k: v for k, v in csl.items() if v} or None


def _record(record: dict[str, object], journal: str, published: bool) -> dict[str, object]:
    """The snapshot's own fields: what CSL names at its names, the rest verbatim under custom."""
    out: dict[str, object] = {"source-type": "arxiv", "type": "article-journal" if published else "article"}
    if journal:
        out["container-title"] = journal
    parsed = record.get("authors_parsed")
    people = [p for p in (_person(n) for n in parsed) if p] if isinstance(parsed, list) else []
    if people:
        out["author"] = people
    date, versions = _dates(record)
    if date:
        out["issued"] = {"date-parts": [date]}
    last = versions[-1].get("version") if versions else None
    if isinstance(last, str) and last:
        out["version"] = last
    read = {"id", "title", "abstract", "authors_parsed", "categories", "doi"} | (
        {"authors"} if people else set()
    )
    custom = {k: v for k, v in record.items() if k not in read and v not in (None, "", [], {})}
    if custom:
        out["custom"] = custom
    return out


def build(path: Path, record: dict[str, object]) -> Paper | None:
    rid = _str(record, "id")
    ref = _str(record, "journal-ref")
    journal = to_text(journal_name(ref)) if ref else ""
    doi = bare_doi(_str(record, "doi"))
    return make_paper(
        _str(record, "abstract"),  # as generic JSON reads it: the same abstract gets the same id
        source_name(path),
        to_text(_str(record, "title")),
        _people(record),
        journal or ("" if ref else "arXiv"),
        _year(record),
        ARXIV_ABS + rid,
        doi=doi,
        arxiv=rid,
        keywords=_str(record, "categories").split(),
        kind="article" if ref or doi else "misc",
        title_only=True,
        record=_record(record, journal, bool(ref)),
    )
