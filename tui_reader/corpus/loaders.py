"""Reading corpus files: the seed text format, JSON, JSON Lines, any of them gzipped, and folders.

A bad file never stops the others from loading: it becomes a warning that names it. Parsed and
normalised files are cached by (path, size, mtime) so a large collection is normalised once.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from tui_reader.corpus.paper import Paper, paper_id
from tui_reader.corpus.text import normalise, normalise_inline
from tui_reader.corpus.titles import make_title
from tui_reader.corpus.venues import split_venue

LOADER_VERSION = 6  # bump when parsing or normalisation changes: invalidates the parse cache
SUFFIXES = {".txt", ".json", ".jsonl", ".ndjson"}
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+|\s*\n\s*")

TITLE_KEYS = ("title", "name", "paper_title")
ABSTRACT_KEYS = ("abstract", "summary", "description", "text", "body", "content")
AUTHOR_KEYS = ("authors", "author", "creators", "author_names")
VENUE_KEYS = ("venue", "conference", "journal", "booktitle", "source", "collection")
YEAR_KEYS = ("year", "date", "published", "publication_date")
URL_KEYS = ("url", "link", "pdf", "pdf_url", "doi")


class CorpusError(Exception):
    """A problem with the paths the user gave (not with a file's contents): exit code 2."""


def _fmt(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).suffix


def is_corpus_file(path: Path) -> bool:
    return _fmt(path) in SUFFIXES and not path.name.startswith(".")


def discover(inputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Expand the given paths into corpus files, folders recursively, in a stable order."""
    found: list[Path] = []
    for raw in inputs:
        path = Path(raw).expanduser()
        if not path.exists():
            raise CorpusError(f"no such file or folder: {raw}")
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(Path(root, f) for f in sorted(files) if is_corpus_file(Path(f)))
        else:
            found.append(path)
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p.resolve(), None)
    return list(unique)


def read_text(path: Path, warnings: list[str]) -> str | None:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        warnings.append(f"{path}: cannot read ({exc.strerror or exc})")
        return None
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            warnings.append(f"{path}: not a valid gzip file ({exc})")
            return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        warnings.append(f"{path}: not valid UTF-8 (byte {exc.start}); read as Windows-1252")
        return raw.decode("cp1252", errors="replace")


def _first(record: dict[str, object], keys: tuple[str, ...]) -> object:
    for key in keys:
        value = record.get(key)
        if value not in (None, "", []):
            return value
    return None


def _authors(value: object) -> list[str]:
    """Names from "A; B", "A and B", "A, B, C" or a list (of strings or {name}/{given, family})."""
    if value is None:
        return []
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
    return list(dict.fromkeys(p for p in (part.strip() for part in parts) if p))  # no repeats


def _year(value: object) -> int | None:
    if isinstance(value, int) and 1900 < value < 2200:
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
) -> Paper | None:
    abstract = normalise(abstract_raw)
    if not abstract:
        return None
    title = normalise_inline(title_raw) if title_raw else ""
    generated = not title
    if generated:
        title = make_title(abstract, abstract.emphasis)
    # 'icml2019' -> ('ICML', 2019): one name per venue; the record's own year wins over the venue's
    venue_name, venue_year = split_venue(str(normalise_inline(str(venue)))) if venue else ("", None)
    return Paper(
        id=paper_id(abstract),
        title=str(title),
        abstract=str(abstract),
        authors=_authors(authors),
        venue=venue_name,
        year=_year(year) or venue_year,
        url=str(normalise_inline(str(url))) if url else "",
        sources=[source],
        title_generated=generated,
    )


def file_signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_size, st.st_mtime_ns)


# A record is (key, payload): the key is a hash of its raw bytes so that an edited or appended file
# re-normalises only the records that changed; the payload is what make_paper needs.
Record = tuple[bytes, object]


def _key(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=12).digest()


def _json_records(path: Path, text: str, warnings: list[str]) -> list[Record] | None:
    """A JSON document (array, or object holding one); None if the text is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if _fmt(path) == ".json":
            warnings.append(f"{path}: malformed JSON (line {exc.lineno}: {exc.msg})")
            return []
        return None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    if not isinstance(data, list):
        warnings.append(f"{path}: JSON is not a list of papers")
        return []
    return [(_key(json.dumps(d, sort_keys=True).encode()), d) for d in data if isinstance(d, dict)]


def _text_records(text: str) -> list[Record]:
    """Seed text: the collection's name, then one abstract per blank-line-separated paragraph."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    header, _, body = text.lstrip("\n").partition("\n")
    header = header.strip()
    return [
        (_key(f"{header}\n{para}".encode("utf-8", "surrogatepass")), (header, para))
        for para in re.split(r"\n[ \t]*\n", body)
        if para.strip()
    ]


def is_jsonl(path: Path) -> bool:
    return _fmt(path) in (".jsonl", ".ndjson")


def stream_jsonl(path: Path, warnings: list[str]) -> Iterator[Record]:
    """JSON Lines read line by line (gzip too): an 87k-paper file never sits in memory whole."""
    bad: list[int] = []
    not_utf8 = 0
    number = 0
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            for number, line in enumerate(fh, 1):
                if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                    line = line[3:]
                if not line.strip():
                    continue
                if not line.lstrip().startswith(b"{"):
                    bad.append(number)
                    continue
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError:
                    not_utf8 += 1
                    text = line.decode("cp1252", errors="replace")
                yield _key(line.rstrip(b"\r\n")), (number, text)
    except OSError as exc:  # unreadable, or a gzip stream that is corrupt or cut short
        what = "not a valid gzip file" if isinstance(exc, gzip.BadGzipFile) else "cannot read"
        warnings.append(f"{path}: {what} after line {number} ({exc.strerror or exc})")
    except (EOFError, zlib.error) as exc:
        warnings.append(f"{path}: gzip data is cut short after line {number} ({exc})")
    if not_utf8:
        warnings.append(f"{path}: {not_utf8} line(s) not valid UTF-8; read as Windows-1252")
    if bad:
        shown = ", ".join(map(str, bad[:5])) + (" ..." if len(bad) > 5 else "")
        warnings.append(f"{path}: skipped {len(bad)} malformed line(s) (line {shown})")


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    kind = _fmt(path)
    stripped = text.lstrip()
    if kind == ".json" or (kind != ".txt" and stripped.startswith("[")):
        records = _json_records(path, text, warnings)
        if records is not None:
            return records
    if kind in (".jsonl", ".ndjson") or (kind != ".txt" and stripped.startswith("{")):
        return list(stream_jsonl(path, warnings))  # a sniffed JSON Lines file: one reader for both
    return _text_records(text)


def build(path: Path, payload: object) -> Paper | None:
    """Normalise one record; None (counted as skipped) when it has no usable abstract."""
    source = path.name
    if isinstance(payload, tuple) and isinstance(payload[0], str):  # seed paragraph
        header, para = payload
        return make_paper(para, source, venue=header or None)
    if isinstance(payload, tuple):  # JSON line, parsed only now that we know it is new
        try:
            payload = json.loads(payload[1])
        except json.JSONDecodeError:
            return None
    if not isinstance(payload, dict):
        return None
    abstract = _first(payload, ABSTRACT_KEYS)
    if not isinstance(abstract, str):
        return None
    return make_paper(
        abstract,
        source,
        str(_first(payload, TITLE_KEYS) or ""),
        _first(payload, AUTHOR_KEYS),
        _first(payload, VENUE_KEYS),
        _first(payload, YEAR_KEYS),
        _first(payload, URL_KEYS),
    )
