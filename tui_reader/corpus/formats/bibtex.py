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
from tui_reader.corpus.text import normalise_inline, strip_controls

# One value of a "#" concatenation: a braced or quoted string, a number or a macro name.
_PART = re.compile(r'\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|"(?:[^"{}]|\{[^{}]*\})*"|[^\s#]+')
_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]+)")
_TYPE_IN_RAW = re.compile(r"@\s*([A-Za-z][\w-]*)")
_EMPTY = re.compile(r"[\s{}\"]*")
# EndNote writes "@article{" with no key, the first field next: bibtexparser would abort the entry
# (and read "author" as its key). A placeholder key, on the same line, lets it parse; it is no key.
_KEYLESS = re.compile(
    r"(@[ \t]*(?!(?:string|preamble|comment)\b)[A-Za-z][\w-]*[ \t]*\{)(?=\s*[A-Za-z][\w-]*\s*=)",
    re.IGNORECASE,
)
_NO_KEY = "tui-reader-no-key"
_URL_WRAPPER = re.compile(r"\\(?:url|href)\s*\{([^{}]*)\}(?:\s*\{[^{}]*\})?")
_URL_BRACES = re.compile(r"[{}]")
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")  # Mendeley escapes url fields; Zotero does not
_WEB = re.compile(r"(?:https?|ftp)://\S+", re.IGNORECASE)
_NEXT_LINK = re.compile(r"\s+(?=(?:https?|ftp|file)://|www\.)", re.IGNORECASE)  # "http://a http://b"
_SHORT_DOI = re.compile(r"(?<![\w.])10/[A-Za-z0-9]+(?![\w/])")  # Better BibTeX's short DOIs
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:T[\d:.+-Z]*)?")
_MONTHS = {
    m: n for n, m in enumerate(re.findall(r"\w+", "jan feb mar apr may jun jul aug sep oct nov dec"), 1)
}
_DASH = re.compile(r"\s*(?:--?-?|\u2013|\u2014)\s*")
_FILE_SPLIT = re.compile(r"(?<!\\);")
_FILE_PART = re.compile(r"(?<!\\):")
_MIME = {"pdf": "application/pdf", "html": "text/html", "htm": "text/html", "txt": "text/plain"}

# The CSL type each entry type maps to (biblatex's and classic BibTeX's names).
_CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "incollection": "chapter",
    "inbook": "chapter",
    "suppbook": "chapter",
    "suppcollection": "chapter",
    "book": "book",
    "mvbook": "book",
    "collection": "book",
    "mvcollection": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "reference": "book",
    "mvreference": "book",
    "inreference": "entry-encyclopedia",
    "booklet": "pamphlet",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "manual": "report",
    "unpublished": "manuscript",
    "online": "webpage",
    "electronic": "webpage",
    "www": "webpage",
    "dataset": "dataset",
    "software": "software",
    "patent": "patent",
    "periodical": "periodical",
    "standard": "standard",
    "artwork": "graphic",
    "image": "graphic",
    "audio": "song",
    "music": "song",
    "video": "motion_picture",
    "movie": "motion_picture",
    "letter": "personal_communication",
    "legislation": "legislation",
    "jurisdiction": "legal_case",
    "review": "review",
    "misc": "document",
}
_REPORTS = frozenset(("techreport", "report", "manual", "patent", "standard"))
_THESES = frozenset(("phdthesis", "mastersthesis", "thesis"))
# Plain text fields and the record key each becomes.
_SIMPLE = {
    "volume": "volume",
    "pages": "page",
    "publisher": "publisher",
    "edition": "edition",
    "series": "collection-title",
    "isbn": "ISBN",
    "issn": "ISSN",
    "note": "note",
    "version": "version",
    "type": "genre",
    "eventtitle": "event",
    "shorttitle": "title-short",
    "shortjournal": "container-title-short",
}
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
    text = _KEYLESS.sub(r"\1" + _NO_KEY + ",", text)
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


def _clean(value: str) -> str:
    """A field as clean text (LaTeX decoded, controls gone, one line)."""
    return str(normalise_inline(to_text(value))).strip()


def _wholly_braced(name: str) -> bool:
    """``{U.S. Bureau of the Census}``: one group spanning the whole name, an organisation."""
    if len(name) < 2 or name[0] != "{" or name[-1] != "}":
        return False
    depth = 0
    for i, c in enumerate(name):
        depth += (c == "{") - (c == "}")
        if depth == 0 and i < len(name) - 1:
            return False
    return True


def _people(value: str) -> tuple[tuple[str, ...], list[dict[str, str]]]:
    """One display name per person, given name first, in the entry's order ("and others" is no
    one), and the CSL name of each. A name wholly in braces is an organisation (a CSL literal);
    a name bibtexparser cannot split (too many commas) is kept as written."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
        split_multiple_persons_names,
    )

    names: list[str] = []
    people: list[dict[str, str]] = []
    for raw in split_multiple_persons_names(value):
        raw = raw.strip()
        if not raw or raw.lower() == "others":
            continue
        if _wholly_braced(raw):
            names.append(to_text(raw[1:-1]))
            people.append({"literal": _clean(raw[1:-1])})
            continue
        try:
            parts = parse_single_name_into_parts(raw)
        except InvalidNameError:
            names.append(to_text(raw))
            people.append({"literal": _clean(raw)})
            continue
        names.append(to_text(parts.merge_first_name_first))
        person = {
            "family": _clean(" ".join(parts.last)),
            "given": _clean(" ".join(parts.first)),
            "non-dropping-particle": _clean(" ".join(parts.von)),
            "suffix": _clean(" ".join(parts.jr)),
        }
        person = {k: v for k, v in person.items() if v}
        people.append(person if "family" in person else {"literal": _clean(raw)})
    return tuple(names), people


def _links(value: str) -> list[str]:
    """Every URL of a url field (Mendeley puts several in one, space-separated), never LaTeX-decoded:
    \\url{} and \\href{}{} unwrapped, Mendeley's escapes undone."""
    value = _URL_WRAPPER.sub(r" \1 ", value)
    value = _URL_ESCAPE.sub(r"\1", _URL_BRACES.sub("", value))
    return [strip_controls(part) for part in _NEXT_LINK.split(value.strip()) if part]


def _files(value: str) -> list[dict[str, str]]:
    """Attachments as Zotero (``files/12/x.pdf``, ``Full Text:x.pdf:application/pdf``), JabRef
    (``:papers/x.pdf:PDF;:y.pdf:PDF``) and Mendeley (``:C\\:/Users/x.pdf:pdf``) write them."""
    value = value.replace("$\\backslash$", "\\")  # old Mendeley: Windows backslashes as math
    out: list[dict[str, str]] = []
    for item in _FILE_SPLIT.split(value):
        parts = _FILE_PART.split(item.strip())
        if len(parts) >= 3:
            description, path, mime = parts[0], ":".join(parts[1:-1]), parts[-1]
        else:
            description, path, mime = "", ":".join(parts), ""
        path = _unescape_path(path)
        if not path:
            continue
        attachment = {"path": path}
        if mime.strip():
            attachment["mime"] = _MIME.get(mime.strip().lower(), mime.strip())
        if description.strip():
            attachment["description"] = _unescape_path(description)
        out.append(attachment)
    return out


def _unescape_path(text: str) -> str:
    text = re.sub(r"\{\\([_&%#$])\}|\\([_&%#$:;])", lambda m: m.group(1) or m.group(2), text)
    return strip_controls(text.strip())


def _month(value: str) -> int | None:
    text = value.strip().strip("{}").strip().lower()
    if text.isdigit():
        n = int(text)
        return n if 1 <= n <= 12 else None
    return _MONTHS.get(text[:3]) if text[:3].isalpha() and len(text) >= 3 else None


def _issued(get: Any, used: set[str]) -> dict[str, object] | None:
    """biblatex's ``date`` (2019-03-15, 2019/2020), else year + month + day, as CSL date-parts;
    a year that is no date ("in press") as raw."""
    date = get("date")
    if date:
        ends = [_DATE.fullmatch(part.strip()) for part in date.split("/")]
        if all(ends) and len(ends) <= 2:
            used.add("date")
            return {"date-parts": [[int(g) for g in m.groups() if g] for m in ends if m]}
    year = get("year")
    if not year:
        if date:
            used.add("date")
            return {"raw": _clean(date)}
        return None
    used.add("year")
    if not re.fullmatch(r"\d{4}", year.strip()):
        return {"raw": _clean(year)}
    parts = [int(year)]
    month = _month(get("month") or "")
    if month:
        used.add("month")
        parts.append(month)
        day = (get("day") or "").strip()
        if day.isdigit() and 1 <= int(day) <= 31:
            used.add("day")
            parts.append(int(day))
    return {"date-parts": [parts]}


def _csl_type(kind: str, fields: dict[str, str], arxiv: str) -> str:
    if kind == "misc" and arxiv:
        return "article"  # a preprint
    if kind == "article":
        sub = fields.get("entrysubtype", "").strip().lower()
        return {"magazine": "article-magazine", "newspaper": "article-newspaper"}.get(sub, "article-journal")
    return _CSL_TYPES.get(kind, "document")


def _first(fields: dict[str, str], used: set[str], *names: str) -> str:
    """The first of ``names`` the entry has (marked used; the others stay for "custom")."""
    for name in names:
        value = fields.get(name)
        if value and value.strip():
            used.add(name)
            return value
    return ""


def _record(
    entry: Any, fields: dict[str, str], own: set[str], arxiv: str, people: dict[str, list[dict[str, str]]]
) -> dict[str, object]:
    """Paper.record: the modelled fields by their CSL names, every other own field under "custom"."""
    kind = entry.entry_type.strip().lower()
    used = {
        "title",
        "subtitle",
        "abstract",
        "keywords",
        "url",
        "doi",
        "file",
        "author",
        "editor",
        "translator",
    }
    record: dict[str, object] = {}
    if entry.key and entry.key != _NO_KEY:
        record["citation-key"] = strip_controls(entry.key)
    m = _TYPE_IN_RAW.match((entry.raw or "").lstrip())
    record["source-type"] = m.group(1) if m else entry.entry_type
    record["type"] = _csl_type(kind, fields, arxiv)
    for role, names in people.items():
        if names:
            record[role] = names
    if "keywords" not in fields and "keyword" in fields:
        used.add("keyword")
    container = _first(fields, used, "journal", "journaltitle", "booktitle")
    if container:
        record["container-title"] = _clean(container)
    place = _first(fields, used, "location", "address")
    if place:
        record["publisher-place"] = _clean(place)
    language = _first(fields, used, "language", "langid")
    if language:
        record["language"] = _clean(language)
    number = _first(fields, used, "number")
    if number:
        record["number" if kind in _REPORTS else "issue"] = _clean(number)
    for name, csl in _SIMPLE.items():
        value = fields.get(name, "")
        if value.strip():
            used.add(name)
            text = _clean(value)
            record[csl] = _DASH.sub("-", text) if name == "pages" else text
    institution = _first(fields, used, "institution", "school")
    if institution:
        record["institution"] = _clean(institution)
        if (kind in _THESES or kind in _REPORTS) and "publisher" not in record:
            record["publisher"] = record["institution"]
    issued = _issued(fields.get, used)
    if issued:
        record["issued"] = issued
    custom = {name: strip_controls(fields[name]) for name in sorted(own - used) if fields[name].strip()}
    if custom:
        record["custom"] = custom
    return record


def build(path: Path, data: object) -> Paper | None:
    entry, strings, inherited = cast("tuple[Any, dict[str, str], dict[str, Any]]", data)
    fields: dict[str, str] = {}
    for f in entry.fields:
        fields.setdefault(f.key.lower(), _resolve(f.value, strings))  # the first of a repeated field
    own = set(fields)
    for name, value in inherited.items():
        fields.setdefault(name, _resolve(value, strings))
    get = fields.get
    prefix = (get("archiveprefix") or get("eprinttype") or "").strip("{} ").lower()
    eprint = get("eprint", "")
    arxiv = arxiv_id(eprint, bare=prefix in ("arxiv", "")) or arxiv_id(
        get("url"), get("doi"), get("journal"), get("note"), get("howpublished"), eprint
    )
    links = _links(get("url") or "")
    url = next((link for link in links if _WEB.fullmatch(link)), "") or (ARXIV_ABS + arxiv if arxiv else "")
    doi_field = " ".join(_links(get("doi") or ""))
    doi = bare_doi(doi_field)
    if not doi and (short := _SHORT_DOI.search(doi_field)):
        doi = bare_doi(" ".join(links)) or short.group(0)  # the full DOI when the url holds it
    kind = entry.entry_type.strip().lower()
    venue = get("journal") or get("journaltitle") or get("booktitle") or get("series") or ""
    published = get("howpublished") or ""  # @misc's venue, unless it is only a link
    if published.lstrip().startswith(("\\url", "http")):
        published = ""
    venue = venue or get("publisher") or get("institution") or published  # books, reports, misc
    if not venue and arxiv:
        venue = "arXiv"
    if kind in _THESES:
        venue = venue or get("school") or get("institution") or ""
    elif kind in ("techreport", "report"):
        venue = venue or get("institution") or ""
    authors, author_record = _people(get("author") or "")
    editors, editor_record = _people(get("editor") or "")
    _, translator_record = _people(get("translator") or "")
    people = {"author": author_record, "editor": editor_record, "translator": translator_record}
    record = _record(entry, fields, own, arxiv, people)
    title = get("title") or ""
    subtitle = get("subtitle") or ""
    if subtitle.strip():
        record["title-main"], record["subtitle"] = _clean(title), _clean(subtitle)
        title = (
            f"{title}{' ' if _clean(title)[-1:] in '?!:.' else ': '}{subtitle}" if title.strip() else subtitle
        )
    if len(links) > 1:
        record["links"] = links
    elif links and not _WEB.fullmatch(links[0]):  # EndNote's "<Go to ISI>://WOS:...": no link, kept
        cast("dict[str, str]", record.setdefault("custom", {}))["url"] = strip_controls(get("url") or "")
    files = _files(get("file") or "")
    if files:
        record["file"] = files
    if get("doi") and not doi:
        cast("dict[str, str]", record.setdefault("custom", {}))["doi"] = strip_controls(get("doi") or "")
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
