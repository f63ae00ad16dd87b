"""Papers as citations: BibTeX (bibtexparser 2's writer, text LaTeX-encoded by pylatexenc), RIS
(rispy) and CSL-JSON, each from the same fields, so every format says the same thing.

The entry type: the paper's own ``kind`` when its source was a citation file; otherwise a journal
venue gives ``@article`` (``journal``), any other venue ``@inproceedings`` (``booktitle``), and a
paper with only an arXiv id ``@misc`` with ``eprint``/``archivePrefix``. Text goes in as LaTeX
that decodes back to the same text (accents as ``{\\"o}``, ``&`` as ``{\\&}``, braces as
``\\lbrace``, so every field's braces balance); capitals in a title that a style must not
lowercase are braced (``{GPT}-4``). URLs and DOIs go in verbatim, only braces, spaces and
backslashes percent-encoded.

The libraries are imported when a citation is first written: the command line starts without them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import safe_json
from tui_reader.library.citekeys import Name, cite_keys, key_base, split_name

# The kind a source gives (BibTeX, RIS or CSL spelling) -> the BibTeX entry type written.
KINDS = {
    **dict.fromkeys(["article", "jour", "ejour", "mgzn", "article-journal", "journal-article"], "article"),
    **dict.fromkeys(
        ["inproceedings", "conference", "conf", "cpaper", "paper-conference", "proceedings-article"],
        "inproceedings",
    ),
    **dict.fromkeys(["incollection", "chap", "chapter", "book-chapter"], "incollection"),
    **dict.fromkeys(["phdthesis", "thes", "thesis", "dissertation"], "phdthesis"),
    **dict.fromkeys(["techreport", "rprt", "report"], "techreport"),
    **dict.fromkeys(["book", "inbook", "mastersthesis", "unpublished", "proceedings"], None),  # as named
    **dict.fromkeys(["unpb", "manuscript"], "unpublished"),
    **dict.fromkeys(
        ["misc", "gen", "elec", "online", "preprint", "posted-content", "article-preprint"], "misc"
    ),
}
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
RIS_TYPES = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "incollection": "CHAP",
    "inbook": "CHAP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "book": "BOOK",
    "proceedings": "CONF",
    "unpublished": "UNPB",
}
CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "incollection": "chapter",
    "inbook": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "book": "book",
    "proceedings": "book",
    "unpublished": "manuscript",
}
JOURNALS = frozenset({"tmlr", "jmlr", "tpami", "ijcv", "tacl", "ra-l", "pnas", "plos one", "elife"})
_JOURNAL_WORDS = re.compile(
    r"\b(journal|transactions|letters|magazine|review|annals|bulletin|acta)\b|^(nature|science)\b", re.I
)


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
    kind = paper.kind.strip().lower()
    if kind in KINDS:
        return KINDS[kind] or kind
    venue = paper.venue.strip()
    if venue and venue.lower() != "arxiv":
        return "article" if is_journal(venue) else "inproceedings"
    return "misc"


def is_journal(venue: str) -> bool:
    return venue.lower() in JOURNALS or bool(_JOURNAL_WORDS.search(venue))


def arxiv_url(paper: Paper) -> str:
    return paper.url or (f"https://arxiv.org/abs/{paper.arxiv}" if paper.arxiv else "")


# -- LaTeX -------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _encoder() -> Any:
    from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

    # braces that keep every field's braces balanced; quotes that read back as typed
    ours = {
        ord("{"): r"\ensuremath{\lbrace}",
        ord("}"): r"\ensuremath{\rbrace}",
        ord('"'): '"',
        ord("`"): r"\textasciigrave",
    }
    return UnicodeToLatexEncoder(
        conversion_rules=[UnicodeToLatexConversionRule(RULE_DICT, ours), "defaults"],
        replacement_latex_protection="braces-all",  # G{\"o}del: BibTeX sorts and cases it right
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


# What the encoder changes: these ASCII characters and anything beyond ASCII (with the letter
# before it, which a combining accent belongs to). Only those runs go through it: it works
# character by character in Python, ~50x slower than a regex over text that is mostly plain.
_ENCODED = re.compile(r'[A-Za-z]?(?:[^\x00-\x7f]|["#$%&<>\\^_`{}~])+')


@lru_cache(maxsize=8192)
def _encode_run(run: str) -> str:  # the same few runs ("ö", "&", "%") come back again and again
    return str(_encoder().unicode_to_latex(run))


def latex(text: str) -> str:
    """Plain text as LaTeX that reads back as the same text: runs of hyphens or of quotes stay
    what they are (not dashes, not curly quotes)."""
    out = _ENCODED.sub(lambda m: _encode_run(m.group()), text)
    for pair, apart in (("--", "-{}-"), ("''", "'{}'")):
        out = out.replace(pair, apart).replace(pair, apart)
    return out


_WORD = re.compile(r"([^\W_]+)")


def latex_title(title: str) -> str:
    """A title as LaTeX with its capitals protected where a style would lowercase them: a word
    with a capital past its first letter ({GPT}, {ImageNet}, {3D}) or a lone capital ({B})."""
    out = []
    for n, piece in enumerate(_WORD.split(title)):
        encoded = latex(piece)
        inner = any(c.isupper() for c in piece[1:])
        lone = len(piece) == 1 and piece.isupper() and n > 1 and piece != "A"
        if n % 2 and (inner or lone):
            encoded = "{" + encoded + "}"
        out.append(encoded)
    return "".join(out)


def verbatim(text: str, also: str = "") -> str:
    """A URL, DOI or eprint id as BibTeX holds it: braces, blanks and backslashes (and the
    characters in ``also``) percent-encoded, nothing else changed."""
    unsafe = re.compile(r"[{}\\\s" + re.escape(also) + "]")
    return unsafe.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), text)


# -- BibTeX ------------------------------------------------------------------------------------
def _bibtex_name(author: str) -> str:
    """'Family, Given' in LaTeX; an organisation braced whole, so BibTeX never splits it."""
    name = split_name(author)
    return "{" + latex(name.family) + "}" if name.corporate else latex(name.bibtex)


def bibtex_fields(paper: Paper, note: str = "") -> tuple[str, list[tuple[str, str]]]:
    """The entry type and (field, LaTeX value) pairs, in the order written."""
    kind = entry_type(paper)
    fields: list[tuple[str, str]] = []
    if paper.authors:
        fields.append(("author", " and ".join(map(_bibtex_name, paper.authors))))
    fields.append(("title", latex_title(paper.title)))
    venue = paper.venue.strip()
    if venue and not (kind == "misc" and venue.lower() == "arxiv" and paper.arxiv):
        fields.append((VENUE_FIELD.get(kind, "howpublished"), latex(venue)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if paper.arxiv:
        fields += [("eprint", verbatim(paper.arxiv)), ("archivePrefix", "arXiv")]
    if paper.doi:
        fields.append(("doi", verbatim(paper.doi)))
    if url := arxiv_url(paper):
        fields.append(("url", verbatim(url)))
    if paper.abstract:
        fields.append(("abstract", latex(paper.abstract)))
    if paper.keywords:
        fields.append(("keywords", latex(", ".join(paper.keywords))))
    if note:
        fields.append(("note", latex(note)))
    return kind, fields


def bibtex(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    """A BibTeX file of (paper, note) items, written by bibtexparser."""
    from bibtexparser import Library, write_string
    from bibtexparser.middlewares import default_unparse_stack
    from bibtexparser.model import Entry, Field
    from bibtexparser.writer import BibtexFormat

    keys = keys or cite_keys(p for p, _ in items)
    library = Library()
    for paper, note in items:
        kind, fields = bibtex_fields(paper, note)
        library.add(Entry(kind, keys[paper.id], [Field(k, v) for k, v in fields]))
    style = BibtexFormat()  # type: ignore[no-untyped-call]
    style.indent = "  "
    style.block_separator = "\n"
    # the library is ours and thrown away: changed in place, not deep-copied (slow past 10k entries)
    stack = default_unparse_stack(allow_inplace_modification=True)
    return str(write_string(library, unparse_stack=stack, bibtex_format=style))


def citation(paper: Paper, note: str = "") -> Citation:
    """One paper's entry and key, for copying: the key has no clash suffix (it is on its own)."""
    key = key_base(paper)
    return Citation(key, bibtex([(paper, note)], {paper.id: key}))


# -- RIS and CSL-JSON --------------------------------------------------------------------------
def _ris_text(text: str) -> str:
    """A value that may span lines: no line of it may read as a tag line ('ER  - ')."""
    return re.sub(r"(?m)^(?=[A-Za-z][A-Za-z0-9] {2}-)", " ", text)


def _ris_name(name: Name) -> str:
    return ", ".join(p for p in (name.family, name.given, name.suffix) if p)


def ris(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    """An RIS file of (paper, note) items, written by rispy (without its '1.' record numbers)."""
    import rispy

    class Writer(rispy.RisWriter):
        def set_header(self, count: int) -> str:
            return ""

    keys = keys or cite_keys(p for p, _ in items)
    records: list[dict[str, object]] = []
    for paper, note in items:
        kind = entry_type(paper)
        record: dict[str, object] = {
            "type_of_reference": RIS_TYPES.get(kind, "GEN"),
            "id": keys[paper.id],
            "title": paper.title,
        }
        if paper.authors:
            record["authors"] = [_ris_name(split_name(a)) for a in paper.authors]
        if paper.year:
            record["year"] = str(paper.year)
        if paper.venue and kind != "misc":
            record["secondary_title"] = paper.venue
        elif paper.venue and paper.venue.lower() != "arxiv":
            record["publisher"] = paper.venue
        if paper.doi:
            record["doi"] = paper.doi
        if url := arxiv_url(paper):
            record["urls"] = [verbatim(url, ";")]  # rispy splits URLs at ";"
        if paper.abstract:
            record["abstract"] = _ris_text(paper.abstract)
        if paper.keywords:
            record["keywords"] = list(paper.keywords)
        if note:
            record["notes"] = [_ris_text(note)]
        records.append(record)
    return str(rispy.dumps(records, implementation=Writer))


def _csl_name(name: Name) -> dict[str, str]:
    if name.corporate:  # CSL's own way to say "not a person"
        return {"literal": name.family}
    out = {"family": name.family}
    if name.given:
        out["given"] = name.given
    if name.suffix:
        out["suffix"] = name.suffix
    return out


def csl_item(paper: Paper, key: str, note: str = "") -> dict[str, object]:
    kind = entry_type(paper)
    item: dict[str, object] = {
        "id": key,
        "type": CSL_TYPES.get(kind, "article"),
        "title": paper.title,
    }
    if paper.authors:
        item["author"] = [_csl_name(split_name(a)) for a in paper.authors]
    if paper.year:
        item["issued"] = {"date-parts": [[paper.year]]}
    if paper.venue and kind != "misc":
        item["container-title"] = paper.venue
    elif paper.venue and paper.venue.lower() != "arxiv":
        item["publisher"] = paper.venue
    if paper.arxiv and kind == "misc":  # a preprint: arXiv is where it is published
        item.setdefault("publisher", "arXiv")
        item["number"] = paper.arxiv
    if paper.doi:
        item["DOI"] = paper.doi
    if url := arxiv_url(paper):
        item["URL"] = url
    for key_, value in (("abstract", paper.abstract), ("keyword", ", ".join(paper.keywords)), ("note", note)):
        if value:
            item[key_] = value
    return item


def csl_json(items: list[tuple[Paper, str]], keys: dict[str, str] | None = None) -> str:
    keys = keys or cite_keys(p for p, _ in items)
    return safe_json([csl_item(p, keys[p.id], note) for p, note in items], indent=2) + "\n"
