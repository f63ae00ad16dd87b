"""CSL-JSON, as Zotero, Better BibTeX, Mendeley and doi.org content negotiation export it: a JSON
array of items with ``title``, ``author: [{family, given} | {literal}]``, ``issued``,
``container-title``, ``DOI``, ``URL``, ``abstract``, ``keyword`` and ``type``.

A ``.json`` file shares its suffix with the generic JSON format, so the array is sniffed: items
with a CSL ``type`` and ``issued`` / ``container-title`` / CSL names. ``.csl.json`` and
``.csljson`` are CSL by name.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

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
from tui_reader.corpus.paper import Paper

# CSL types as BibTeX entry types, so a kind reads the same whatever format it came from.
KINDS = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "paper-conference": "inproceedings",
    "book": "book",
    "chapter": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
    "manuscript": "unpublished",
    "webpage": "online",
    "post-weblog": "online",
    "post": "online",
    "article": "misc",  # a preprint or working paper
}
# CSL rich text (<i>, <sup>, <span class="nocase">) and the JATS markup Crossref abstracts carry.
_JATS_TITLE = re.compile(r"<jats:title\b[^>]*>.*?</jats:title>", re.IGNORECASE | re.DOTALL)
_BLOCK_TAG = re.compile(r"</?jats:(?:p|sec|list|list-item|label|caption|abstract)\b[^<>]*>", re.IGNORECASE)
# no attributes but on span and JATS tags: "a<b and c>d" in an abstract is not markup
_INLINE_TAG = re.compile(
    r"</?(?:i|b|em|strong|sup|sub|sc)>|<span\b[^<>]*>|</span>|</?jats:[a-z-]+\b[^<>]*>", re.IGNORECASE
)


def _is_item(d: object) -> bool:
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        return False
    if isinstance(d.get("issued"), dict) or "container-title" in d:
        return True
    names = d.get("author")
    return isinstance(names, list) and any(
        isinstance(n, dict) and ("family" in n or "literal" in n) for n in names
    )


def looks_like(items: list[object]) -> bool:
    """Most of the first items are CSL items (one odd item does not change the format)."""
    checked = [d for d in items[:20] if isinstance(d, dict)]
    return bool(checked) and 2 * sum(map(_is_item, checked)) > len(checked)


def wrap(path: Path, found: list[Record], warnings: list[str]) -> list[Record]:
    """The JSON records of a CSL file as CSL entries; items with neither title nor abstract are
    skipped and named by position."""
    out: list[Record] = []
    empty: list[str] = []
    for n, (k, item) in enumerate(found, 1):
        if isinstance(item, dict) and (_text(item.get("title")) or _text(item.get("abstract"))):
            out.append((key(b"csl\0" + k), Entry(None, "csl", item)))  # never a generic row's key
        else:
            empty.append(f"item {n}")
    if empty:
        warnings.append(
            counted(
                path, empty, "item with neither title nor abstract", "items with neither title nor abstract"
            )
        )
    return out


def _text(value: object) -> str:
    """A CSL string field (Crossref gives some as one-item lists), its markup removed."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), "")
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return ""
    text = str(value)
    if "<" in text:
        marked = _JATS_TITLE.sub(" ", text)
        marked = _INLINE_TAG.sub("", _BLOCK_TAG.sub(" ", marked))
        if marked != text:
            text = html.unescape(marked)  # markup escapes & and < as entities
    return text.strip()


def _people(names: object) -> tuple[str, ...]:
    out = []
    for name in names if isinstance(names, list) else []:
        if isinstance(name, str):
            out.append(name)
        elif isinstance(name, dict):
            if name.get("literal"):
                out.append(_text(name["literal"]))
                continue
            particles = [_text(name.get(k)) for k in ("dropping-particle", "non-dropping-particle")]
            family = " ".join(p for p in (*particles, _text(name.get("family"))) if p)
            out.append(person(family, _text(name.get("given")), _text(name.get("suffix"))))
    return tuple(out)


def _year(item: dict[str, object]) -> object:
    for field in ("issued", "published-print", "published-online", "original-date", "created"):
        date = item.get(field)
        if isinstance(date, dict):
            parts = date.get("date-parts")
            if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
                return parts[0][0]
            for k in ("raw", "literal", "date-time"):
                if date.get(k):
                    return date[k]
        elif isinstance(date, str | int) and date:
            return date
    return None


def _venue(item: dict[str, object]) -> str:
    event = item.get("event")
    if isinstance(event, dict):
        event = event.get("name")
    for value in (item.get("container-title"), item.get("event-title"), event, item.get("collection-title")):
        if _text(value):
            return _text(value)
    return _text(item.get("publisher"))  # a book's or a report's venue, as the exporter writes it


# CSL variables the record keeps at their own names (RECORD.md), as clean text.
_TEXT_VARIABLES = (
    "container-title",
    "container-title-short",
    "collection-title",
    "volume",
    "issue",
    "page",
    "number",
    "publisher",
    "publisher-place",
    "edition",
    "ISBN",
    "ISSN",
    "language",
    "note",
    "version",
    "genre",
    "title-short",
)
_PEOPLE = ("author", "editor", "translator")
_NAME_PARTS = ("family", "given", "suffix", "non-dropping-particle", "dropping-particle", "literal")
# What Paper's own columns hold (or what says where the item came from): not repeated in custom.
_COLUMNS = {"title", "abstract", "DOI", "URL", "keyword", "type", "id", "citation-key", "issued", "event"}


def _person(name: object) -> dict[str, str] | None:
    """A CSL name with its parts as clean text; an organisation stays {"literal": ...} whole."""
    if isinstance(name, str):
        return {"literal": _text(name)} if _text(name) else None
    if not isinstance(name, dict):
        return None
    parts = {k: _text(name.get(k)) for k in _NAME_PARTS if _text(name.get(k))}
    return parts or None


def _issued(value: object) -> dict[str, object]:
    """CSL ``issued`` as date-parts of integers, or {"raw": ...} for what they cannot say."""
    if isinstance(value, dict):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list):
            try:
                first = [int(p) for p in parts[0][:3]]
            except (TypeError, ValueError):
                first = []
            if first:
                return {"date-parts": [first]}
        for k in ("raw", "literal", "date-time"):
            if _text(value.get(k)):
                return {"raw": _text(value.get(k))}
    elif _text(value):
        return {"raw": _text(value)}
    return {}


def _record(item: dict[str, object], found: list[str]) -> dict[str, object]:
    """Every CSL variable: the modelled ones at their RECORD.md keys, the rest verbatim under
    "custom" (by the CSL name as written: PMID stays PMID)."""
    out: dict[str, object] = {}
    cite_key = _text(item.get("citation-key")) or _text(item.get("id"))
    if cite_key:
        out["citation-key"] = cite_key
    kind = _text(item.get("type"))
    if kind:
        out["source-type"] = kind
        out["type"] = kind
    for name in _TEXT_VARIABLES:
        value = _text(item.get(name))
        if value:
            out[name] = value
    event = item.get("event-title") or item.get("event")
    if _text(event.get("name") if isinstance(event, dict) else event):
        out["event"] = _text(event.get("name") if isinstance(event, dict) else event)
    issued = _issued(item.get("issued"))
    if issued:
        out["issued"] = issued
    for role in _PEOPLE:
        names = item.get(role)
        people = [p for p in (_person(n) for n in names) if p] if isinstance(names, list) else []
        if people:
            out[role] = people
    if len(found) > 1:
        out["links"] = found
    modelled = {*_TEXT_VARIABLES, *_PEOPLE, *_COLUMNS, "event-title"} - (
        set() if any(map(links.is_web, found)) else {"URL"}
    )
    custom = {k: v for k, v in item.items() if k not in modelled and v not in (None, "", [], {})}
    if isinstance(item.get("id"), str | int) and str(item["id"]) != cite_key:
        custom["id"] = item["id"]
    for name in _TEXT_VARIABLES:  # a value the clean text cannot say whole (a list of titles)
        if isinstance(item.get(name), list | dict) and len(item[name]) > 1:  # type: ignore[arg-type]
            custom[name] = item[name]
    if custom:
        out["custom"] = custom
    return out


def build(path: Path, item: object) -> Paper | None:
    if not isinstance(item, dict):
        return None
    found = links.split([_text(item.get("URL"))])
    url, doi = links.first_web(found), bare_doi(_text(item.get("DOI")))  # a path is never the link
    arxiv = arxiv_id(url, doi, _text(item.get("number")), _text(item.get("archive_location")))
    kind = _text(item.get("type")).lower()
    return make_paper(
        _text(item.get("abstract")),
        source_name(path),
        _text(item.get("title")),
        _people(item.get("author") or item.get("editor")),
        _venue(item) or ("arXiv" if arxiv and kind in ("article", "") else ""),
        _year(item),
        url or (ARXIV_ABS + arxiv if arxiv else ""),
        doi=doi,
        arxiv=arxiv,
        keywords=split_keywords(item.get("keyword")),
        kind=KINDS.get(kind, kind),
        title_only=True,
        record=_record(item, found),
    )
