"""BibTeX / BibLaTeX (.bib), as Zotero, JabRef, Mendeley, Google Scholar and hand editors write it.

bibtexparser 2 splits the file into blocks (cheap; one bad entry becomes a failed block and the
rest still load); an entry is normalised only when the parse cache has not seen its raw text:
``@string`` macros (and ``#`` concatenation, which bibtexparser leaves alone) resolved, braces and
quotes unwrapped, people split by bibtexparser's name functions, LaTeX made text by ``latex``.
"""

from __future__ import annotations

import hashlib
import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

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
from tui_reader.corpus.paper import Paper

# One value of a "#" concatenation: a braced or quoted string, a number or a macro name.
_PART = re.compile(r'\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|"(?:[^"{}]|\{[^{}]*\})*"|[^\s#]+')
_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]+)")
_EMPTY = re.compile(r"[\s{}\"]*")
_URL_BRACES = re.compile(r"[{}\s]")
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")  # Mendeley escapes url fields; Zotero does not


@lru_cache(maxsize=1)
def _quiet() -> None:
    """bibtexparser logs each aborted block at WARNING: that would print over the terminal UI
    (each one is named in this loader's own warning instead)."""
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    """The file's entries, keyed by their raw text (and the ``@string`` macros, when it has any:
    editing one re-normalises the entries)."""
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
    from bibtexparser.model import Entry as BibEntry

    _quiet()
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
    out: list[Record] = []
    empty: list[str] = []
    for entry in entries:
        line = _line(entry.start_line)
        fields = {f.key.lower(): f.value for f in entry.fields}
        if not any(
            isinstance(fields.get(k), str) and not _EMPTY.fullmatch(fields[k]) for k in ("title", "abstract")
        ):
            empty.append(f"line {line}")
            continue
        raw = (entry.raw or "").encode("utf-8", "surrogatepass")
        out.append((key(raw + salt), Entry(line, "bibtex", (entry, strings))))
    if malformed:
        where = [
            (f"{m.group(1)} at " if (m := _KEY_IN_RAW.match(raw)) else "") + f"line {n}"
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


def _line(start: int | None) -> int:
    return (start or 0) + 1  # bibtexparser counts from 0


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


def _people(value: str) -> tuple[str, ...]:
    """One display name per person, given name first, in the entry's order ("and others" is no
    one). A name bibtexparser cannot split (too many commas) is kept as written."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
        split_multiple_persons_names,
    )

    names = []
    for raw in split_multiple_persons_names(value):
        if raw.strip().lower() == "others":
            continue
        try:
            name = parse_single_name_into_parts(raw).merge_first_name_first
        except InvalidNameError:
            name = raw
        names.append(to_text(name))
    return tuple(names)


def _url(value: str) -> str:
    return _URL_ESCAPE.sub(r"\1", _URL_BRACES.sub("", value))


def build(path: Path, data: object) -> Paper | None:
    entry, strings = cast("tuple[Any, dict[str, str]]", data)  # a bibtexparser Entry, the @strings
    fields: dict[str, str] = {}
    for f in entry.fields:
        fields.setdefault(f.key.lower(), _resolve(f.value, strings))  # the first of a repeated field
    get = fields.get
    prefix = (get("archiveprefix") or get("eprinttype") or "").strip("{} ").lower()
    eprint = get("eprint", "")
    arxiv = arxiv_id(eprint, bare=prefix in ("arxiv", "")) or arxiv_id(
        get("url"), get("doi"), get("journal"), get("note"), get("howpublished"), eprint
    )
    url = _url(get("url") or "") or (ARXIV_ABS + arxiv if arxiv else "")
    kind = entry.entry_type.strip().lower()
    venue = get("journal") or get("journaltitle") or get("booktitle") or get("series") or ""
    published = get("howpublished") or ""  # @misc's venue, unless it is only a link
    if published.lstrip().startswith(("\\url", "http")):
        published = ""
    venue = venue or get("publisher") or get("institution") or published  # books, reports, misc
    if not venue and arxiv:
        venue = "arXiv"
    if kind in ("phdthesis", "mastersthesis", "thesis"):
        venue = venue or get("school") or get("institution") or ""
    elif kind in ("techreport", "report"):
        venue = venue or get("institution") or ""
    abstract = to_text(get("abstract") or "")
    return make_paper(
        abstract,
        source_name(path),
        to_text(get("title") or ""),
        _people(get("author") or get("editor") or ""),
        to_text(venue),
        get("year") or get("date"),
        url,
        doi=bare_doi(_url(get("doi") or "")),
        arxiv=arxiv,
        keywords=[to_text(k) for k in split_keywords(get("keywords") or get("keyword"))],
        kind=kind,
        title_only=True,
    )
