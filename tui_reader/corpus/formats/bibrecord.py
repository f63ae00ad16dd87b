"""A BibTeX entry's fields as Paper.record, the CSL-JSON-shaped record (see RECORD.md).

What the reader models goes under its CSL name (people as family/given or an organisation's
literal, dates as date-parts, attachments, links); every other field the entry has is kept verbatim
under "custom", so an export gives back what the file had.
"""

from __future__ import annotations

import re
from typing import Any, cast

from tui_reader.corpus.formats.latex import to_text
from tui_reader.corpus.text import normalise_inline, strip_controls

_TYPE_IN_RAW = re.compile(r"@\s*([A-Za-z][\w-]*)")
NO_KEY = "tui-reader-no-key"
_URL_WRAPPER = re.compile(r"\\(?:url|href)\s*\{([^{}]*)\}(?:\s*\{[^{}]*\})?")
_URL_BRACES = re.compile(r"[{}]")
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")  # Mendeley escapes url fields; Zotero does not
WEB = re.compile(r"(?:https?|ftp)://\S+", re.IGNORECASE)
_NEXT_LINK = re.compile(r"\s+(?=(?:https?|ftp|file)://|www\.)", re.IGNORECASE)  # "http://a http://b"
SHORT_DOI = re.compile(r"(?<![\w.])10/[A-Za-z0-9]+(?![\w/])")  # Better BibTeX's short DOIs
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
THESES = frozenset(("phdthesis", "mastersthesis", "thesis"))
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


def clean(value: str) -> str:
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


def split_people(value: str) -> tuple[tuple[str, ...], list[dict[str, str]]]:
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
            people.append({"literal": clean(raw[1:-1])})
            continue
        try:
            parts = parse_single_name_into_parts(raw)
        except InvalidNameError:
            names.append(to_text(raw))
            people.append({"literal": clean(raw)})
            continue
        names.append(to_text(parts.merge_first_name_first))
        person = {
            "family": clean(" ".join(parts.last)),
            "given": clean(" ".join(parts.first)),
            "non-dropping-particle": clean(" ".join(parts.von)),
            "suffix": clean(" ".join(parts.jr)),
        }
        person = {k: v for k, v in person.items() if v}
        people.append(person if "family" in person else {"literal": clean(raw)})
    return tuple(names), people


def url_links(value: str) -> list[str]:
    """Every URL of a url field (Mendeley puts several in one, space-separated), never LaTeX-decoded:
    \\url{} and \\href{}{} unwrapped, Mendeley's escapes undone."""
    value = _URL_WRAPPER.sub(r" \1 ", value)
    value = _URL_ESCAPE.sub(r"\1", _URL_BRACES.sub("", value))
    return [strip_controls(part) for part in _NEXT_LINK.split(value.strip()) if part]


def attachments(value: str) -> list[dict[str, str]]:
    """Attachments as Zotero (``files/12/x.pdf``, ``Full Text:x.pdf:application/pdf``), JabRef
    (``:papers/x.pdf:PDF;:y.pdf:PDF``) and Mendeley (``:C\\:/Users/x.pdf:pdf``) write them."""
    value = strip_controls(value).replace("$\\backslash$", "\\")  # old Mendeley: Windows backslashes as math
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
            return {"raw": clean(date)}
        return None
    used.add("year")
    if not re.fullmatch(r"\d{4}", year.strip()):
        return {"raw": clean(year)}
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


def entry_record(
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
    if entry.key and entry.key != NO_KEY:
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
        record["container-title"] = clean(container)
    place = _first(fields, used, "location", "address")
    if place:
        record["publisher-place"] = clean(place)
    language = _first(fields, used, "language", "langid")
    if language:
        record["language"] = clean(language)
    number = _first(fields, used, "number")
    if number:
        record["number" if kind in _REPORTS else "issue"] = clean(number)
    for name, csl in _SIMPLE.items():
        value = fields.get(name, "")
        if value.strip():
            used.add(name)
            text = clean(value)
            record[csl] = _DASH.sub("-", text) if name == "pages" else text
    institution = _first(fields, used, "institution", "school")
    if institution:
        record["institution"] = clean(institution)
        if (kind in THESES or kind in _REPORTS) and "publisher" not in record:
            record["publisher"] = record["institution"]
    issued = _issued(fields.get, used)
    if issued:
        record["issued"] = issued
    custom = {name: strip_controls(fields[name]) for name in sorted(own - used) if fields[name].strip()}
    if custom:
        record["custom"] = custom
    return record


def add_links(record: dict[str, object], fields: dict[str, str], links: list[str], doi: str) -> None:
    """Links, attachments, and a url or doi field that holds no link or DOI (kept verbatim)."""
    custom = cast("dict[str, str]", record.get("custom") or {})
    if len(links) > 1:
        record["links"] = links
    elif links and not WEB.fullmatch(links[0]):  # EndNote's "<Go to ISI>://WOS:...": no link, kept
        custom["url"] = strip_controls(fields.get("url") or "")
    files = attachments(fields.get("file") or "")
    if files:
        record["file"] = files
    if fields.get("doi") and not doi:
        custom["doi"] = strip_controls(fields.get("doi") or "")
    if custom:
        record["custom"] = custom
