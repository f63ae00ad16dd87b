"""Papers as citations: BibTeX (bibtexparser 2's writer, text LaTeX-encoded by pylatexenc); RIS and
CSL-JSON are in citeformats.py. Every field of the paper's record (bibrecord.py) is written.

The entry type follows the source (bibrecord.source_kind); a paper whose source named none gets
``@article`` for a journal venue (``journal``), ``@inproceedings`` for any other venue
(``booktitle``), and ``@misc`` with ``eprint``/``archivePrefix`` for an arXiv id alone. Text goes
in as LaTeX that decodes back to the same text (NFC first; accents as ``{\\"o}``, ``&`` as
``{\\&}``, braces as ``\\lbrace``, so every field's braces balance); capitals a style must not
lowercase are braced (``{GPT}-4``). A character LaTeX has no command for (CJK, a lone combining
mark) is kept, inside ``\\tuireaderchar{...}``, which the file's ``@preamble`` defines: the text
itself under XeLaTeX or LuaLaTeX, ``?`` under pdflatex (which cannot set it), so the file
compiles everywhere and loses nothing. URLs and DOIs go in verbatim, only braces, blanks,
backslashes and non-ASCII percent-encoded. The source's own fields ("custom") go back as written.

The libraries are imported when a citation is first written: the command line starts without them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from tui_reader.corpus.paper import Paper
from tui_reader.library import bibrecord as rec
from tui_reader.library.bibrecord import Person
from tui_reader.library.citekeys import cite_keys, key_base, source_key
from tui_reader.library.latexsafe import CHAR_MACRO, latex

# Where the venue goes, per entry type.
VENUE_FIELD = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
    "phdthesis": "school",
    "mastersthesis": "school",
    "techreport": "institution",
    "book": "publisher",
    "proceedings": "publisher",
}
JOURNALS = frozenset({"tmlr", "jmlr", "tpami", "ijcv", "tacl", "ra-l", "pnas", "plos one", "elife"})
_JOURNAL_WORDS = re.compile(
    r"\b(journal|transactions|letters|magazine|review|annals|bulletin|acta)\b|^(nature|science)\b", re.I
)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# What the file's @preamble defines, each only when a field needs it (and the document has not):
# the character macro, and \url for a source's own field that uses it (Google Scholar's
# howpublished = {\url{...}}) in a document loading neither url nor hyperref.
PREAMBLE = {
    "\\" + CHAR_MACRO + "{": "\\providecommand{\\" + CHAR_MACRO + "}[1]{\\ifdefined\\XeTeXrevision #1\\else"
    "\\ifdefined\\directlua #1\\else ?\\fi\\fi}",
    "\\url{": "\\providecommand{\\url}[1]{\\texttt{\\detokenize{#1}}}",
}


@dataclass(frozen=True, slots=True)
class Citation:
    """One paper's BibTeX entry, its key and the LaTeX to cite it."""

    key: str
    entry: str

    @property
    def cite(self) -> str:
        return f"\\cite{{{self.key}}}"


def entry_type(paper: Paper) -> str:
    """The BibTeX entry type (see the module docstring)."""
    kind = rec.source_kind(paper)
    if kind is not None:
        return kind
    venue = paper.venue.strip()
    if venue and venue.lower() != "arxiv":
        return "article" if is_journal(venue) else "inproceedings"
    return "misc"


def is_journal(venue: str) -> bool:
    return venue.lower() in JOURNALS or bool(_JOURNAL_WORDS.search(venue))


def arxiv_url(paper: Paper) -> str:
    return paper.url or (f"https://arxiv.org/abs/{paper.arxiv}" if paper.arxiv else "")


# -- LaTeX -------------------------------------------------------------------------------------
_WORD = re.compile(r"([^\W_]+)")


def latex_title(title: str) -> str:
    """A title as LaTeX with its capitals protected where a style would lowercase them: a word
    with a capital past its first letter ({GPT}, {ImageNet}, {3D}) or a lone capital ({B})."""
    out = []
    for n, piece in enumerate(_WORD.split(unicodedata.normalize("NFC", title))):
        encoded = latex(piece)
        inner = any(c.isupper() for c in piece[1:])
        lone = len(piece) == 1 and piece.isupper() and n > 1 and piece != "A"
        if n % 2 and (inner or lone) and not encoded.startswith("{\\" + CHAR_MACRO):
            encoded = "{" + encoded + "}"
        out.append(encoded)
    return "".join(out)


def verbatim(text: str, also: str = "") -> str:
    """A URL, DOI or eprint id as BibTeX holds it: braces, blanks, backslashes and non-ASCII (and
    the characters in ``also``) percent-encoded, nothing else changed."""
    unsafe = re.compile(r"[{}\\\s\x80-\U0010ffff" + re.escape(also) + "]")
    return unsafe.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), text)


def pages(page: str) -> str:
    """'12–19' -> '12--19' (BibTeX's range); the parts LaTeX-encoded."""
    start, end = rec.page_range(page)
    return f"{latex(start)}--{latex(end)}" if end else latex(start)


def balanced(value: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", value):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


# -- BibTeX ------------------------------------------------------------------------------------
def _part(text: str) -> str:
    """A name part; braced when BibTeX would split it (a comma, the word 'and')."""
    out = latex(text)
    return "{" + out + "}" if "," in text or re.search(r"\band\b", text, re.I) else out


def _bibtex_name(person: Person) -> str:
    """'von Last, Jr, First' in LaTeX; an organisation braced whole, so BibTeX never splits it."""
    if person.literal:
        return "{" + latex(person.literal) + "}"
    family = " ".join(p for p in (person.particle and latex(person.particle), _part(person.family)) if p)
    return ", ".join(p for p in (family, _part(person.suffix), _part(person.given)) if p)


def _names(people: list[Person]) -> str:
    return " and ".join(map(_bibtex_name, people))


def _where(paper: Paper, kind: str) -> list[tuple[str, str]]:
    """The venue, publisher, institution and place fields, by entry type."""
    r = paper.record
    container = rec.text(r, "container-title")
    venue = container or paper.venue.strip()
    publisher, institution = rec.text(r, "publisher"), rec.text(r, "institution")
    field = VENUE_FIELD.get(kind, "howpublished")
    if field in ("school", "institution"):  # a thesis's school, a report's institution
        venue = institution or publisher or venue
        publisher = "" if publisher == venue else publisher
        institution = ""
    elif field == "publisher":  # a book: its publisher; a container (a series' volume) as booktitle
        field, publisher = "booktitle", publisher or venue
        venue = container if container and container != publisher else ""
    elif publisher == venue and not container:
        venue = ""  # a misc whose only venue is its publisher
    out: list[tuple[str, str]] = []
    if venue and not (kind == "misc" and venue.lower() == "arxiv" and paper.arxiv):
        out.append((field, latex(venue)))
    named = (
        ("shortjournal", rec.text(r, "container-title-short")),
        ("publisher", publisher),
        ("institution", institution),
        ("address", rec.text(r, "publisher-place")),
    )
    return out + [(f, latex(v)) for f, v in named if v]


def _numbers(paper: Paper, kind: str) -> list[tuple[str, str]]:
    """Series, edition, volume, number/issue and pages."""
    r = paper.record
    out = [(f, latex(rec.text(r, k))) for f, k in (("series", "collection-title"), ("edition", "edition"))]
    out.append(("volume", latex(rec.text(r, "volume"))))
    issue, number = rec.text(r, "issue"), rec.text(r, "number")
    if kind == "misc" and paper.arxiv and number == paper.arxiv:
        number = ""  # the eprint id, written as eprint
    first, second = (issue, number) if kind == "article" or not number else (number, issue)
    out += [("number", latex(first)), ("issue", latex(second))]
    if page := rec.text(r, "page"):
        out.append(("pages", pages(page)))
    return [(f, v) for f, v in out if v]


def _date(paper: Paper) -> list[tuple[str, str]]:
    parts = rec.date_parts(paper)
    if not parts:
        raw = rec.raw_date(paper)
        return [("year", latex(raw))] if raw else []
    out = [("year", str(parts[0]))]
    if len(parts) > 1 and 1 <= parts[1] <= 12:
        out.append(("month", MONTHS[parts[1] - 1]))
    if len(parts) > 2:  # the day: only biblatex's date holds it
        out.append(("date", "-".join([f"{parts[0]:04d}", *(f"{p:02d}" for p in parts[1:])])))
    return out


def _links(paper: Paper) -> list[tuple[str, str]]:
    out = []
    for n, url in enumerate(rec.links(paper, arxiv_url(paper))):
        out.append(("url" if n == 0 else f"url{n + 1}", verbatim(url)))
    files = rec.attachments(paper)
    if files:
        plain = len(files) == 1 and not files[0].mime and not files[0].description
        value = ";".join(
            _unbraced(f.path) if plain else ":".join(map(_jabref, (f.description, f.path, f.mime)))
            for f in files
        )
        out.append(("file", value))
    return out


def _jabref(part: str) -> str:
    """A part of a JabRef ``file`` value: its separators backslash-escaped, as JabRef writes."""
    return _unbraced(re.sub(r"([:;\\])", r"\\\1", part))


def _unbraced(path: str) -> str:
    """A path as written, only braces and line breaks percent-encoded (they would end the field)."""
    return re.sub(r"[{}\n]", lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), path)


def _text_fields(paper: Paper, note: str) -> list[tuple[str, str]]:
    r = paper.record
    out = [
        (f, latex(rec.text(r, k))) for f, k in (("isbn", "ISBN"), ("issn", "ISSN"), ("language", "language"))
    ]
    out += [(f, latex(rec.text(r, k))) for f, k in (("type", "genre"), ("version", "version"))]
    out += [("eventtitle", latex(rec.text(r, "event")))]
    if paper.arxiv:
        out += [("eprint", verbatim(paper.arxiv)), ("archivePrefix", "arXiv")]
    if paper.doi:
        out.append(("doi", verbatim(paper.doi)))
    out += _links(paper)
    out += [("abstract", latex(paper.abstract)), ("keywords", latex(", ".join(paper.keywords)))]
    own_note = rec.text(r, "note")
    out += [("note", latex(own_note or note)), ("annote", latex(note if own_note else ""))]
    return [(f, v) for f, v in out if v]


def _custom(paper: Paper, written: list[tuple[str, str]]) -> list[tuple[str, str, bool]]:
    """The source's own fields: (name, value, verbatim). BibTeX's own go back as written (when
    their braces balance); another format's are text, encoded like the rest."""
    ours = dict(written)
    out = []
    from_bibtex = rec.origin(paper) == "bibtex"
    for name, value in rec.custom(paper).items():
        key = re.sub(r"[^a-z0-9_:.+-]", "-", name.lower()).strip("-")
        raw = "\n".join(rec.custom_text(value))
        keep = from_bibtex and isinstance(value, str) and balanced(raw)
        written_as = rec.own_or_clash(key, ours, raw if keep else latex(raw), ours) if key else None
        if written_as and raw.strip():
            out.append((written_as, raw if keep else latex(raw), keep))
            ours[written_as] = raw
    return out


def bibtex_fields(paper: Paper, note: str = "") -> tuple[str, list[tuple[str, str]]]:
    """The entry type and (field, LaTeX value) pairs, in the order written."""
    kind = entry_type(paper)
    fields: list[tuple[str, str]] = []
    for role in ("author", "editor", "translator"):
        if people := rec.people(paper, role):
            fields.append((role, _names(people)))
    main, subtitle = rec.text(paper.record, "title-main"), rec.text(paper.record, "subtitle")
    if main and subtitle:
        fields += [("title", latex_title(main)), ("subtitle", latex_title(subtitle))]
    else:
        fields.append(("title", latex_title(paper.title)))
    if short := rec.text(paper.record, "title-short"):
        fields.append(("shorttitle", latex_title(short)))
    fields += _where(paper, kind) + _numbers(paper, kind) + _date(paper)
    fields += _text_fields(paper, note)
    fields += [(name, value) for name, value, _raw in _custom(paper, fields)]
    return kind, fields


def preamble(values: list[str]) -> str:
    """The @preamble the fields need ('' for none): see PREAMBLE."""
    needed = [code for use, code in PREAMBLE.items() if any(use in v for v in values)]
    return "{" + "".join(needed) + "}" if needed else ""


def bibtex(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    """A BibTeX file of (paper, note) items, written by bibtexparser."""
    from bibtexparser import Library, write_string
    from bibtexparser.middlewares import default_unparse_stack
    from bibtexparser.model import Entry, Field, Preamble
    from bibtexparser.writer import BibtexFormat

    keys = keys or cite_keys(p for p, _ in items)
    library = Library()
    entries: list[Entry] = []
    for paper, note in items:
        kind, fields = bibtex_fields(paper, note)
        made = [
            Field(k, v, enclosing="no-enclosing" if k == "month" and v in MONTHS else None) for k, v in fields
        ]
        entries.append(Entry(kind, keys[paper.id], made))
    if head := preamble([f.value for e in entries for f in e.fields]):
        library.add(Preamble(head))
    for entry in entries:
        library.add(entry)
    style = BibtexFormat()  # type: ignore[no-untyped-call]
    style.indent = "  "
    style.block_separator = "\n"
    # the library is ours and thrown away: changed in place, not deep-copied (slow past 10k entries)
    stack = default_unparse_stack(allow_inplace_modification=True)
    return str(write_string(library, unparse_stack=stack, bibtex_format=style))


def citation(paper: Paper, note: str = "") -> Citation:
    """One paper's entry and key, for copying: the source's own key, else today's (no suffix)."""
    key = source_key(paper) or key_base(paper)
    return Citation(key, bibtex([(paper, note)], {paper.id: key}))
