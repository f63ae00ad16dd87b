"""JSON (an array of papers, or an object holding one) and JSON Lines, either gzipped.

Field names vary between exports, so each Paper field is read from the first key present.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

from tui_reader.corpus.formats.common import Record, fmt, key, make_paper
from tui_reader.corpus.paper import Paper

TITLE_KEYS = ("title", "name", "paper_title")
ABSTRACT_KEYS = ("abstract", "summary", "description", "text", "body", "content")
AUTHOR_KEYS = ("authors", "author", "creators", "author_names")
VENUE_KEYS = ("venue", "conference", "journal", "booktitle", "source", "collection")
YEAR_KEYS = ("year", "date", "published", "publication_date")
URL_KEYS = ("url", "link", "pdf", "pdf_url", "doi")


def _first(record: dict[str, object], keys: tuple[str, ...]) -> object:
    for name in keys:
        value = record.get(name)
        if value not in (None, "", []):
            return value
    return None


def json_records(path: Path, text: str, warnings: list[str]) -> list[Record] | None:
    """A JSON document (array, or object holding one); None if the text is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if fmt(path) == ".json":
            warnings.append(f"{path}: malformed JSON (line {exc.lineno}: {exc.msg})")
            return []
        return None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    if not isinstance(data, list):
        warnings.append(f"{path}: JSON is not a list of papers")
        return []
    return [(key(json.dumps(d, sort_keys=True).encode()), d) for d in data if isinstance(d, dict)]


def is_jsonl(path: Path) -> bool:
    return fmt(path) in (".jsonl", ".ndjson")


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
                yield key(line.rstrip(b"\r\n")), (number, text)
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


def build(path: Path, payload: object) -> Paper | None:
    """A JSON record (a dict, or a JSON line parsed only now that it is known to be new)."""
    if isinstance(payload, tuple):
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
        path.name,
        str(_first(payload, TITLE_KEYS) or ""),
        _first(payload, AUTHOR_KEYS),
        _first(payload, VENUE_KEYS),
        _first(payload, YEAR_KEYS),
        _first(payload, URL_KEYS),
    )
