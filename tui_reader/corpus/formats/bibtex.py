"""BibTeX / BibLaTeX (.bib), as Zotero, JabRef, Mendeley, EndNote, Google Scholar and hand editors write it.

bibtexparser 2 splits the file into blocks (cheap; one bad entry becomes a failed block and the
rest still load); an entry is normalised only when the parse cache has not seen its raw text:
``@string`` macros (and ``#`` concatenation, which bibtexparser leaves alone) resolved, braces and
quotes unwrapped, people split by bibtexparser's name functions, LaTeX made text by ``latex``.
Every field lands in Paper.record (the CSL-JSON-shaped record, see RECORD.md): the ones the reader
models by their CSL names, the rest verbatim under "custom", so an export gives back what the file had.
"""

from __future__ import annotations

import hashlib
import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from tui_reader.corpus.formats import bibrecord
from tui_reader.corpus.formats.common import (
    ARXIV_ABS,
    Entry,
    Record,
    arxiv_id,
    bare_doi,
    counted,
    key,
    make_paper,
    source_name,
    split_keywords,
)
from tui_reader.corpus.formats.latex import to_text
from tui_reader.corpus.formats.links import is_web
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import strip_controls

# One value of a "#" concatenation: a braced or quoted string, a number or a macro name.
_PART = re.compile(r'\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|"(?:[^"{}]|\{[^{}]*\})*"|[^\s#]+')
_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]+)")
_EMPTY = re.compile(r"[\s{}\"]*")
# EndNote writes "@article{" with no key, the first field next: bibtexparser would abort the entry
# (and read "author" as its key). A placeholder key, on the same line, lets it parse; it is no key.
_KEYLESS = re.compile(
    r"(@[ \t]*(?!(?:string|preamble|comment)\b)[A-Za-z][\w-]*[ \t]*\{)(?=\s*[A-Za-z][\w-]*\s*=)",
    re.IGNORECASE,
)
# What a crossref child takes from its parent when it lacks it (biblatex's defaults, without what
# names one work only: title, DOI, URL, abstract, pages, file). The parent's title becomes the
# child's booktitle.
_INHERITED = frozenset(
    re.findall(
        r"\S+",
        "author editor editora editorb translator bookauthor publisher address location year date month day "
        "series volume number edition isbn issn organization institution school journal journaltitle "
        "booktitle eventtitle eventdate venue language langid howpublished maintitle volumes",
    )
)


@lru_cache(maxsize=1)
def _quiet() -> None:
    """bibtexparser logs each aborted block at WARNING: that would print over the terminal UI
    (each one is named in this loader's own warning instead)."""
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    """The file's entries, keyed by their raw text (and the ``@string`` macros, when it has any:
    editing one re-normalises the entries; and a crossref parent's, for its children)."""
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
    from bibtexparser.model import Entry as BibEntry

    _quiet()
    text = _KEYLESS.sub(r"\1" + bibrecord.NO_KEY + ",", text)
    library = bibtexparser.parse_string(text, parse_stack=[])  # split only: values as written
    strings = {s.key.lower(): s.value for s in library.strings}
    salt = b""
    if strings:
        salt = hashlib.blake2b("\0".join(s.raw or "" for s in library.strings).encode()).digest()
    entries: list[BibEntry] = list(library.entries)
    malformed: list[tuple[int, str]] = []
    for block in library.failed_blocks:
        kept = block.ignore_error_block
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock) and isinstance(kept, BibEntry):
            entries.append(kept)  # a repeated key or field is no reason to lose a paper
        else:
            malformed.append((_line(block.start_line), block.raw or ""))
    entries.sort(key=lambda e: e.start_line or 0)
    by_key: dict[str, BibEntry] = {}
    for entry in entries:
        by_key.setdefault(entry.key.lower(), entry)
    out: list[Record] = []
    empty: list[str] = []
    for entry in entries:
        line = _line(entry.start_line)
        fields = {f.key.lower(): f.value for f in entry.fields}
        parents = _parents(fields, by_key)
        inherited = _inherit(fields, parents)
        if not any(_filled(fields.get(k)) or _filled(inherited.get(k)) for k in ("title", "abstract")):
            empty.append(f"line {line}")
            continue
        raw = "\0".join(e.raw or "" for e in (entry, *parents)).encode("utf-8", "surrogatepass")
        out.append((key(raw + salt), Entry(line, "bibtex", (entry, strings, inherited))))
    if malformed:
        where = [
            (f"{m.group(1)} at " if (m := _KEY_IN_RAW.match(raw)) and m.group(1) != bibrecord.NO_KEY else "")
            + f"line {n}"
            for n, raw in malformed
        ]
        warnings.append(counted(path, where, "malformed entry", "malformed entries"))
    if empty:
        warnings.append(
            counted(
                path,
                empty,
                "entry with neither title nor abstract",
                "entries with neither title nor abstract",
            )
        )
    return out


def _filled(value: object) -> bool:
    return isinstance(value, str) and not _EMPTY.fullmatch(value)


def _line(start: int | None) -> int:
    return (start or 0) + 1  # bibtexparser counts from 0


def _parents(fields: dict[str, Any], by_key: dict[str, Any]) -> list[Any]:
    """The entries ``crossref`` leads to, nearest first (a chain stops at a loop or 4 deep)."""
    found: list[Any] = []
    ref = fields.get("crossref")
    while isinstance(ref, str) and len(found) < 4:
        parent = by_key.get(ref.strip().strip('{}"').strip().lower())
        if parent is None or any(parent is p for p in found):
            break
        found.append(parent)
        ref = {f.key.lower(): f.value for f in parent.fields}.get("crossref")
    return found


def _inherit(fields: dict[str, Any], parents: list[Any]) -> dict[str, Any]:
    """The raw fields a crossref child takes from its parents (only those it lacks)."""
    got: dict[str, Any] = {}
    for parent in parents:
        theirs = {f.key.lower(): f.value for f in parent.fields}
        for name, value in theirs.items():
            if name in _INHERITED and name not in fields:
                got.setdefault(name, value)
        if "title" in theirs:
            if "booktitle" not in fields:
                got.setdefault("booktitle", theirs["title"])
            if not _filled(fields.get("title")):  # classic BibTeX: a chapter without its own title
                got.setdefault("title", theirs["title"])
    return got


_MAX_FIELD = 2**20  # characters: macros that expand each other cannot blow up past this


def _resolve(value: object, strings: dict[str, str], chain: tuple[str, ...] = ()) -> str:
    """A field's text: macros replaced by their @string, "#" parts joined, one enclosing removed."""
    if not isinstance(value, str):
        return str(value)
    value = value.strip()
    parts = _PART.findall(value) if "#" in value else [value]
    out: list[str] = []
    size = 0
    for part in parts:
        if size >= _MAX_FIELD:
            break
        name = part.lower()
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            part = part[1:-1]
        elif name in strings and name not in chain and len(chain) < 8:  # @strings may use @strings
            part = _resolve(strings[name], strings, (*chain, name))
        # else a number, or a macro nobody defined (month = jan): as written
        size += len(part)
        out.append(part)
    return "".join(out)[:_MAX_FIELD]


def _title(title: str, subtitle: str, record: dict[str, object]) -> str:
    """The title shown: "Title: Subtitle" (biblatex); the record keeps both parts for export."""
    if not subtitle.strip():
        return title
    main = bibrecord.clean(title)
    record["title-main"], record["subtitle"] = main, bibrecord.clean(subtitle)
    if not main:
        return subtitle
    return f"{title}{' ' if main[-1] in '?!:.' else ': '}{subtitle}"


def _venue(get: Any, kind: str, arxiv: str) -> str:
    """What the reader lists as the venue: the journal or book, else who published it."""
    venue = get("journal") or get("journaltitle") or get("booktitle") or get("series") or ""
    published = get("howpublished") or ""  # @misc's venue, unless it is only a link
    if published.lstrip().startswith(("\\url", "http")):
        published = ""
    venue = venue or get("publisher") or get("institution") or published  # books, reports, misc
    if not venue and arxiv:
        venue = "arXiv"
    if kind in bibrecord.THESES:
        venue = venue or get("school") or get("institution") or ""
    elif kind in ("techreport", "report"):
        venue = venue or get("institution") or ""
    return venue


def build(path: Path, data: object) -> Paper | None:
    entry, strings, inherited = cast("tuple[Any, dict[str, str], dict[str, Any]]", data)
    fields: dict[str, str] = {}
    repeats: dict[str, str] = {}  # a field given twice (JabRef keeps both): the second goes to "custom"
    for f in entry.fields:
        value = _resolve(f.value, strings)
        name = "".join(strip_controls(f.key).split()).lower()  # "\x00\n title" is title
        if name not in fields:
            fields[name] = value
        elif value != fields[name]:
            repeats.setdefault(name, value)
    own = set(fields)
    for name, value in inherited.items():
        fields.setdefault(name, _resolve(value, strings))
    get = fields.get
    prefix = (get("archiveprefix") or get("eprinttype") or "").strip("{} ").lower()
    eprint = get("eprint", "")
    arxiv = arxiv_id(eprint, bare=prefix in ("arxiv", "")) or arxiv_id(
        get("url"), get("doi"), get("journal"), get("note"), get("howpublished"), eprint
    )
    links = bibrecord.url_links(get("url") or "")
    url = next((link for link in links if bibrecord.WEB.fullmatch(link) and is_web(link)), "") or (
        ARXIV_ABS + arxiv if arxiv else ""
    )
    doi_field = " ".join(bibrecord.url_links(get("doi") or ""))
    doi = bare_doi(doi_field)
    if not doi and (short := bibrecord.SHORT_DOI.search(doi_field)):
        doi = bare_doi(" ".join(links)) or short.group(0)  # the full DOI when the url holds it
    kind = entry.entry_type.strip().lower()
    venue = _venue(get, kind, arxiv)
    authors, author_record = bibrecord.split_people(get("author") or "")
    editors, editor_record = bibrecord.split_people(get("editor") or "")
    _, translator_record = bibrecord.split_people(get("translator") or "")
    people = {"author": author_record, "editor": editor_record, "translator": translator_record}
    record = bibrecord.entry_record(entry, fields, own, arxiv, people)
    title = _title(get("title") or "", get("subtitle") or "", record)
    bibrecord.add_links(record, fields, links, doi)
    for name, value in repeats.items():
        cast("dict[str, str]", record.setdefault("custom", {})).setdefault(name, strip_controls(value))
    return make_paper(
        to_text(get("abstract") or ""),
        source_name(path),
        to_text(title),
        authors or editors,
        to_text(venue),
        get("year") or get("date"),
        url,
        doi=doi,
        arxiv=arxiv,
        keywords=[to_text(k) for k in split_keywords(get("keywords") or get("keyword"))],
        kind=kind,
        title_only=True,
        record=record,
    )
