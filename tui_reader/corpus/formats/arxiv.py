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


def build(path: Path, record: dict[str, object]) -> Paper | None:
    rid = _str(record, "id")
    journal = to_text(_str(record, "journal-ref"))
    doi = bare_doi(_str(record, "doi"))
    return make_paper(
        _str(record, "abstract"),  # as generic JSON reads it: the same abstract gets the same id
        source_name(path),
        to_text(_str(record, "title")),
        _people(record),
        journal or "arXiv",
        _year(record),
        ARXIV_ABS + rid,
        doi=doi,
        arxiv=rid,
        keywords=_str(record, "categories").split(),
        kind="article" if journal or doi else "misc",
        title_only=True,
    )
