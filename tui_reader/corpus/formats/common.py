"""What every format shares: finding files, reading bytes, the Paper a record becomes.

A bad file never stops the others from loading: it becomes a warning that names it.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import stat
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from tui_reader.atomic import file_kind, open_regular
from tui_reader.corpus.identity import identify, is_placeholder
from tui_reader.corpus.paper import Paper, paper_id
from tui_reader.corpus.text import clean_label, normalise, normalise_inline, strip_controls
from tui_reader.corpus.titles import make_title
from tui_reader.corpus.venues import split_venue

LOADER_VERSION = 12  # bump when parsing or normalisation changes: invalidates the parse cache
# what fmt() names a file by; .bibtex reads as .bib, .csljson as .csl.json (each gzipped too)
SUFFIXES = {".txt", ".json", ".jsonl", ".ndjson", ".bib", ".ris", ".csl.json"}
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")  # as the integer range below
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+|\s*\n\s*")

# A record is (key, payload): the key is a hash of its raw bytes so that an edited or appended file
# re-normalises only the records that changed; the payload is what its format's build() needs.
Record = tuple[bytes, object]


class Entry(NamedTuple):
    """A citation-format record's payload: the line it starts on (None when unknown: the parse
    cache then names it by number), its format ("bibtex", "ris", "csl") and what that needs."""

    line: int | None
    fmt: str
    data: object


class CorpusError(Exception):
    """A problem with the paths the user gave (not with a file's contents): exit code 2."""


# Caps on what one file may cost (sizes after gunzip). Generous for real collections (87k papers
# are ~200 MiB of JSON Lines); a gzip bomb or a runaway file stops at the cap with a warning.
# Read at call time, so tests can lower them with monkeypatch.setattr(common, "MAX_...", n).
MAX_WHOLE_FILE = 512 * 2**20  # .json / .txt are parsed whole: a larger file is skipped
# .jsonl / .ndjson are streamed. A plain file is read to its end (its size is what the user gave:
# the arXiv snapshot is ~4.6 GB); a gzipped one stops once it has inflated past this, or past
# MAX_INFLATION times its size on disk if that is more (JSON compresses ~5x; a bomb ~1000x).
MAX_STREAM_BYTES = 2 * 2**30
MAX_INFLATION = 20
MAX_RECORD_BYTES = 16 * 2**20  # one JSON Lines record (one line): a longer line is skipped


def size_label(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


def shown(path: str | os.PathLike[str]) -> str:
    """A path as warnings print it: controls and undecodable bytes made visible."""
    return clean_label(os.fspath(path))


def source_name(path: Path) -> str:
    """A paper's source as the reader shows it: the file name, made safe for the terminal."""
    return clean_label(path.name)


def fmt(path: Path) -> str:
    """The format a file's name says: its suffix (without .gz), one name per format."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".csl.json", ".csljson")):
        return ".csl.json"
    suffix = Path(name).suffix
    return ".bib" if suffix == ".bibtex" else suffix


def is_gzip(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def is_corpus_file(path: Path) -> bool:
    return fmt(path) in SUFFIXES and not path.name.startswith(".")


def _regular(path: Path, warnings: list[str]) -> bool:
    """True for a regular file (symlinks followed); a FIFO, device, socket or a link that leads
    nowhere (or round in a loop) is named in a warning instead: reading one could hang forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        warnings.append(f"{shown(path)}: cannot read ({exc.strerror or exc}); skipped")
        return False
    if not stat.S_ISREG(mode):
        warnings.append(f"{shown(path)}: not a regular file ({file_kind(mode)}); skipped")
        return False
    return True


def discover(inputs: Iterable[str | os.PathLike[str]], warnings: list[str] | None = None) -> list[Path]:
    """Expand the given paths into corpus files, folders recursively, in a stable order. Anything
    that cannot be read (a folder without permission, a FIFO, a symlink loop) is left out and
    named in ``warnings``; only a path that does not exist at all is an error."""
    if warnings is None:
        warnings = []
    found: list[Path] = []

    def walk_error(exc: OSError) -> None:
        warnings.append(f"{shown(exc.filename or '?')}: cannot read folder ({exc.strerror or exc}); skipped")

    for raw in inputs:
        path = Path(raw).expanduser()
        if not os.path.lexists(path):
            raise CorpusError(f"no such file or folder: {shown(raw)}")
        if path.is_dir():
            for root, dirs, files in os.walk(path, onerror=walk_error):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root, name)
                    if is_corpus_file(candidate) and _regular(candidate, warnings):
                        found.append(candidate)
        elif _regular(path, warnings):  # else: a FIFO, a dangling link, a loop... given by name
            found.append(path)
    unique: dict[Path, None] = {}
    for p in found:
        try:
            real = p.resolve()
        except (OSError, RuntimeError):  # a loop created since the stat: keep the path as given
            real = p.absolute()
        unique.setdefault(real, None)
    return list(unique)


def read_bytes(path: Path, warnings: list[str]) -> bytes | None:
    """A whole file (gunzipped), at most MAX_WHOLE_FILE bytes; None, with a warning, otherwise."""
    limit = MAX_WHOLE_FILE
    raw: bytes | None
    try:
        with open_regular(path) as fh:
            if is_gzip(path):
                with gzip.GzipFile(fileobj=fh, mode="rb") as unzipped:
                    raw = unzipped.read(limit + 1)  # inflates no further than the cap
            elif os.fstat(fh.fileno()).st_size > limit:
                raw = None  # larger than the cap: not read at all
            else:
                raw = fh.read(limit + 1)
    except gzip.BadGzipFile as exc:
        warnings.append(f"{shown(path)}: not a valid gzip file ({exc})")
        return None
    except OSError as exc:
        warnings.append(f"{shown(path)}: cannot read ({exc.strerror or exc})")
        return None
    except (EOFError, zlib.error) as exc:
        warnings.append(f"{shown(path)}: not a valid gzip file ({exc})")
        return None
    if raw is None or len(raw) > limit:
        grows = "decompresses to" if is_gzip(path) else "holds"
        warnings.append(
            f"{shown(path)}: {grows} more than {size_label(limit)} (the limit for a file read whole); skipped"
        )
        return None
    return raw


def read_text(path: Path, warnings: list[str], hint: str | None = None) -> str | None:
    """A whole file as text: a BOM, then ``hint`` (or a BibTeX ``% Encoding:`` line), then UTF-8,
    then a guess that the warning names (formats/encoding.py)."""
    raw = read_bytes(path, warnings)
    if raw is None:
        return None
    from tui_reader.corpus.formats.encoding import decode, notice

    decoded = decode(raw, hint)
    said = notice(shown(path), decoded)
    if said:
        warnings.append(said)
    return decoded.text


def _authors(value: object) -> list[str]:
    """Names from "A; B", "A and B", "A, B, C" or a list (of strings or {name}/{given, family});
    a tuple is already one name per person (citation formats split their own). A name given twice
    stays twice: two co-authors may share one ("Zhang, S." and "Zhang, S.")."""
    if value is None:
        return []
    if isinstance(value, tuple):
        people = (" ".join(normalise_inline(str(name)).split()) for name in value)
        return [p for p in people if p]
    if isinstance(value, list):
        names = []
        for item in value:
            if isinstance(item, dict):
                item = item.get("name") or " ".join(
                    str(item.get(k, "")) for k in ("given", "family", "first", "last") if item.get(k)
                )
            if item:
                names.append(str(item))
        value = "; ".join(n.replace(";", ",") for n in names)
    # One normalisation per record, not per name: 87k papers have ~570k names.
    text = str(normalise_inline(str(value).replace("\n", "; ")))
    parts = _AUTHOR_SPLIT.split(text)
    if len(parts) == 1 and text.count(",") >= 2:
        parts = text.split(",")
    return [p for p in (part.strip() for part in parts) if p]


def _year(value: object) -> int | None:
    if isinstance(value, int) and 1500 <= value < 2200:  # Shannon 1948 and Newton 1687 alike
        return value
    if value is None:
        return None
    m = _YEAR.search(str(value))
    return int(m.group(1)) if m else None


def make_paper(
    abstract_raw: str,
    source: str,
    title_raw: str = "",
    authors: object = None,
    venue: object = None,
    year: object = None,
    url: object = None,
    *,
    doi: str = "",
    arxiv: str = "",
    keywords: Iterable[str] = (),
    kind: str = "",
    title_only: bool = False,
    record: dict[str, object] | None = None,
) -> Paper | None:
    """The Paper a record becomes; None when it has nothing to show. ``title_only`` lists an entry
    that has a title but no abstract (citation formats) instead of skipping it.

    A placeholder abstract ("Not Available") counts as none: the paper lists by its title and the
    text stays in ``record["custom"]["abstract"]`` for export. The id follows the identity rule
    (identity.py); the id the record had before (the hash of its abstract) is kept as an alias."""
    abstract = normalise(abstract_raw) if abstract_raw else ""
    title = normalise_inline(title_raw) if title_raw else ""
    record = record or {}
    if abstract and is_placeholder(str(abstract)):
        custom = record.get("custom")
        custom = dict(custom) if isinstance(custom, dict) else {}
        custom.setdefault("abstract", abstract_raw)
        record = {**record, "custom": custom}
        old = paper_id(str(abstract), str(title))
        abstract, title_only = "", True
    else:
        old = ""
    if not abstract and not (title_only and title):
        return None
    generated = not title
    if generated:
        title = make_title(abstract, abstract.emphasis)  # type: ignore[union-attr]
    # 'icml2019' -> ('ICML', 2019): one name per venue; the record's own year wins over the venue's
    venue_name, venue_year = split_venue(str(normalise_inline(str(venue)))) if venue else ("", None)
    names = _authors(authors)
    when = _year(year) or venue_year
    link = " ".join(strip_controls(str(url)).split()) if url else ""  # a link is never LaTeX-decoded
    ident = identify(
        title="" if generated else str(title),
        abstract=str(abstract),
        authors=names,
        year=when,
        # an arxiv.org or doi.org link says the same as the field: one identity whichever a format gave
        doi=doi or (bare_doi(link) if "doi.org/" in link else ""),
        arxiv=arxiv or arxiv_id(link),
        url=link,
        key=str(record.get("citation-key") or ""),
    )
    pid = ident.id
    old = old or ident.text or paper_id("", str(title))  # ident.text: paper_id(abstract)
    return Paper(
        id=pid,
        title=str(title),
        abstract=str(abstract),
        authors=names,
        venue=venue_name,
        year=when,
        url=link,
        sources=[source],
        title_generated=generated,
        doi=doi,
        arxiv=arxiv,
        keywords=[k for k in dict.fromkeys(str(normalise_inline(k)).strip() for k in keywords) if k],
        kind=strip_controls(kind),
        record=clean_record(record) if record else {},
        aliases=[old] if old != pid else [],
        identity=ident.to_json(),
    )


def clean_record(value: Any) -> Any:
    """The record with control characters and escape sequences stripped from every key and text,
    "custom" included: verbatim means as the source wrote its text, never terminal control."""
    if isinstance(value, str):
        return strip_controls(value)
    if isinstance(value, dict):
        return {strip_controls(str(k)): clean_record(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_record(v) for v in value]
    return value


# Citation fields. An arXiv id is new style (2101.00001, with a version or not) or old style
# (hep-th/9901001, math.GT/0309136); it is found in an eprint field, an arXiv url or an arXiv DOI.
_ARXIV_ID = re.compile(
    r"(?<![\w.])(?:arxiv[:.]\s*|arxiv\.org/(?:abs|pdf)/)?"
    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)(?![\w])",
    re.IGNORECASE,
)
_ARXIV_HINT = re.compile(r"arxiv", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/[^\s\x00-\x1f\x7f-\x9f]+")  # controls end it (stripped first too)
_KEYWORD_SPLIT = re.compile(r"\s*[;,]\s*")
ARXIV_ABS = "https://arxiv.org/abs/"


def person(family: str, given: str = "", suffix: str = "") -> str:
    """One display name, given name first: ("Curie", "Marie") -> "Marie Curie"."""
    return " ".join(part.strip() for part in (given, family, suffix) if part and part.strip())


def bare_doi(value: object) -> str:
    """A DOI without its resolver or "doi:" prefix (the first, when a field lists several)."""
    m = _DOI.search(strip_controls(str(value or "")))  # ESC ] 0 ; ... BEL goes whole, not just ESC
    return m.group(0).rstrip(".,;") if m else ""


def arxiv_id(*values: object, bare: bool = False) -> str:
    """The arXiv id in the first value that has one. Only values that say "arXiv" count
    (an eprint field, an arxiv.org url, a 10.48550/arXiv DOI), unless ``bare`` (the field is known
    to hold an arXiv id, such as an eprint with archivePrefix = arXiv)."""
    for value in values:
        text = strip_controls(str(value or ""))
        if not text or not (bare or _ARXIV_HINT.search(text)):
            continue
        m = _ARXIV_ID.search(text)
        if m:
            return m.group(1)
    return ""


def split_keywords(value: object) -> list[str]:
    """Keywords from "a, b; c" or a list of them."""
    items = value if isinstance(value, list) else [value]
    return [k for item in items if item for k in _KEYWORD_SPLIT.split(str(item)) if k.strip()]


def counted(path: Path, wheres: list[str], what: str, many: str) -> str:
    """One warning for skipped records: "refs.bib: skipped 2 malformed entries (line 40, line 77)"."""
    shown_where = ", ".join(wheres[:5]) + (" ..." if len(wheres) > 5 else "")
    noun = what if len(wheres) == 1 else many
    return f"{shown(path)}: skipped {len(wheres)} {noun} ({shown_where})"


def file_signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_size, st.st_mtime_ns)


def key(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=12).digest()
