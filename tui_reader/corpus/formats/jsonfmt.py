"""JSON (an array of papers, or an object holding one) and JSON Lines, either gzipped.

Field names vary between exports, so each Paper field is read from the first key present.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import math
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

from tui_reader.atomic import open_regular
from tui_reader.corpus.formats import arxiv, common, encoding, links
from tui_reader.corpus.formats.common import (
    Record,
    arxiv_id,
    bare_doi,
    fmt,
    is_gzip,
    key,
    make_paper,
    shown,
    size_label,
    source_name,
)
from tui_reader.corpus.paper import Paper

TITLE_KEYS = ("title", "name", "paper_title")
ABSTRACT_KEYS = ("abstract", "summary", "description", "text", "body", "content")
AUTHOR_KEYS = ("authors", "author", "creators", "author_names")
VENUE_KEYS = ("venue", "conference", "journal", "booktitle", "source", "collection")
YEAR_KEYS = ("year", "date", "published", "publication_date")
URL_KEYS = ("url", "link", "pdf", "pdf_url", "doi")
_GROUPS = (TITLE_KEYS, ABSTRACT_KEYS, AUTHOR_KEYS, VENUE_KEYS, YEAR_KEYS, URL_KEYS)


class MalformedRecord(ValueError):
    """A JSON line that is not a JSON object: the parse cache names it by ``where`` ("line 3")
    among the malformed lines, never among the records without an abstract."""

    def __init__(self, where: str) -> None:
        super().__init__(f"{where}: malformed JSON")
        self.where = where


class _Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def _chosen(record: dict[str, object], keys: tuple[str, ...]) -> str | None:
    return next((name for name in keys if record.get(name) not in (None, "", [])), None)


def _first(record: dict[str, object], keys: tuple[str, ...]) -> object:
    name = _chosen(record, keys)
    return None if name is None else record[name]


def json_records(path: Path, text: str, warnings: list[str]) -> list[Record] | None:
    """A JSON document (array, or object holding one); None if the text is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if fmt(path) in (".json", ".csl.json"):
            warnings.append(f"{shown(path)}: malformed JSON (line {exc.lineno}: {exc.msg})")
            return []
        return None
    except RecursionError:
        warnings.append(f"{shown(path)}: JSON nested too deeply to read; skipped")
        return []
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    if not isinstance(data, list):
        warnings.append(f"{shown(path)}: JSON is not a list of papers")
        return []
    out: list[Record] = []
    for d in data:
        if isinstance(d, dict):
            try:
                out.append((key(json.dumps(d, sort_keys=True).encode()), d))
            except (RecursionError, ValueError):  # too deep to hash: a key of its own, never reused
                out.append((key(b"unhashable:%d" % len(out)), d))
    return out


def is_jsonl(path: Path) -> bool:
    """JSON Lines by name, or a .json file that holds JSON Lines (the arXiv metadata snapshot is
    ``arxiv-metadata-oai-snapshot.json``, GBs of lines: it must stream, not be read whole)."""
    kind = fmt(path)
    return kind in (".jsonl", ".ndjson") or (kind == ".json" and _holds_lines(path))


_SNIFF = 2**20  # a first line longer than this is not sniffed: the file is read as one JSON document


def _holds_lines(path: Path) -> bool:
    """A first line that is a whole JSON object, and another object after it."""
    try:
        with open_regular(path) as raw:
            fh: BinaryIO | gzip.GzipFile = gzip.GzipFile(fileobj=raw, mode="rb") if is_gzip(path) else raw
            with fh:
                head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
                if not head.startswith(b"{"):
                    return False
                first = head + fh.readline(_SNIFF)
                if not first.endswith(b"\n"):
                    return False
                json.loads(first)
                rest = fh.read(64).lstrip()
                while rest == b"" or rest.isspace():  # blank lines between records
                    more = fh.read(4096)
                    if not more:
                        return False
                    rest = more.lstrip()
                return rest.startswith(b"{")
    except (OSError, EOFError, zlib.error, ValueError, RecursionError):
        return False


class _TooMuch(Exception):
    """Reading a JSON Lines file went past its stream_limit."""


def stream_limit(path: Path, gz: bool) -> float:
    """How much a JSON Lines file may yield: a plain file all of it; a gzipped one what a real
    file inflates to (common.MAX_STREAM_BYTES, or MAX_INFLATION times its size if more)."""
    if not gz:
        return math.inf
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return max(common.MAX_STREAM_BYTES, common.MAX_INFLATION * size)


def _lines(fh: _Lines, counted: list[int], total_limit: float) -> Iterator[bytes | None]:
    """Lines of at most MAX_RECORD_BYTES (None for a longer line, skipped in chunks so it never
    sits in memory); raises _TooMuch once the file has yielded more than ``total_limit``."""
    limit = common.MAX_RECORD_BYTES
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        counted[0] += len(line)
        if counted[0] > total_limit:
            raise _TooMuch
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):  # the rest of an overlong line
            line = fh.readline(limit + 1)
            counted[0] += len(line)
            if counted[0] > total_limit:
                raise _TooMuch
        yield None


class _Recoded:
    """A UTF-16 or UTF-32 stream (it starts with a byte order mark) read as UTF-8 lines, so the
    JSON Lines reader splits it at its own newlines, not at a 0x0A byte inside a character."""

    def __init__(self, fh: BinaryIO | gzip.GzipFile, codec: str) -> None:
        self._text = io.TextIOWrapper(fh, encoding=codec, errors="replace", newline="")

    def readline(self, size: int = -1, /) -> bytes:
        return self._text.readline(size).removeprefix("\ufeff").encode("utf-8", "surrogatepass")


def _opened(fh: BinaryIO | gzip.GzipFile) -> _Lines:
    """The stream, recoded when a UTF-16/32 mark starts it (peeked without reading it away)."""
    head = fh.peek(4)[:4] if hasattr(fh, "peek") else b""
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32")):
        if head.startswith(bom):
            return _Recoded(fh, codec)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _Recoded(fh, "utf-16")
    return fh


class _Guess:
    """One guess per file for its lines that are not UTF-8, made from the first such line."""

    def __init__(self) -> None:
        self.codec = ""
        self.lines = 0

    def decode(self, line: bytes) -> str:
        self.lines += 1
        if not self.codec:
            self.codec = encoding.guess(line) or encoding.FALLBACK
        try:
            return line.decode(self.codec)
        except (UnicodeDecodeError, LookupError):
            return line.decode(encoding.FALLBACK, errors="replace")


def stream_jsonl(path: Path, warnings: list[str]) -> Iterator[Record]:
    """JSON Lines read line by line (gzip too): an 87k-paper file never sits in memory whole,
    nor does one overlong line, and a file that inflates past MAX_STREAM_BYTES stops there.
    A line that is not a JSON object goes on to build(), which names it malformed by its line."""
    long: list[int] = []
    guess = _Guess()
    number = 0
    counted = [0]
    gz = is_gzip(path)
    total_limit = stream_limit(path, gz)
    try:
        with open_regular(path) as raw:
            fh: BinaryIO | gzip.GzipFile = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
            with fh:
                for number, line in enumerate(_lines(_opened(fh), counted, total_limit), 1):
                    if line is None:
                        long.append(number)
                        continue
                    if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                        line = line[3:]
                    if not line.strip():
                        continue
                    try:
                        text = line.decode("utf-8")
                    except UnicodeDecodeError:
                        text = guess.decode(line)
                    yield key(line.rstrip(b"\r\n")), (number, text)
    except _TooMuch:
        grows = " once decompressed" if gz else ""
        warnings.append(
            f"{shown(path)}: stopped at line {number + 1}: more than "
            f"{size_label(int(total_limit))} of JSON Lines{grows} (the limit for one file)"
        )
    except OSError as exc:  # unreadable, or a gzip stream that is corrupt or cut short
        what = "not a valid gzip file" if isinstance(exc, gzip.BadGzipFile) else "cannot read"
        warnings.append(f"{shown(path)}: {what} after line {number} ({exc.strerror or exc})")
    except (EOFError, zlib.error) as exc:
        warnings.append(f"{shown(path)}: gzip data is cut short after line {number} ({exc})")
    if guess.lines:
        shown_codec = encoding.display_name(guess.codec)
        warnings.append(f"{shown(path)}: {guess.lines} line(s) not UTF-8; read as {shown_codec} (guessed)")
    if long:
        warnings.append(
            f"{shown(path)}: skipped {len(long)} line(s) longer than "
            f"{size_label(common.MAX_RECORD_BYTES)} ({_numbers(long)})"
        )


def _numbers(lines: list[int]) -> str:
    return "line " + ", ".join(map(str, lines[:5])) + (" ..." if len(lines) > 5 else "")


def build(path: Path, payload: object) -> Paper | None:
    """A JSON record (a dict, or a JSON line parsed only now that it is known to be new); an arXiv
    snapshot record is read as one, whatever file it is in. A line that is not a JSON object
    raises MalformedRecord (RecursionError, nested too deeply, goes up as it is)."""
    if isinstance(payload, tuple):
        number, text = payload
        try:
            payload = json.loads(text)
        except json.JSONDecodeError:
            raise MalformedRecord(f"line {number}") from None
        if not isinstance(payload, dict):
            raise MalformedRecord(f"line {number}")
    if not isinstance(payload, dict):
        return None
    if arxiv.looks_like(payload):  # a line of the arXiv metadata snapshot
        return arxiv.build(path, payload)
    abstract = _first(payload, ABSTRACT_KEYS)
    if not isinstance(abstract, str):
        return None
    url_value = _first(payload, URL_KEYS)
    found = links.split(url_value if isinstance(url_value, list) else [url_value])
    doi = payload.get("doi")
    return make_paper(
        abstract,
        source_name(path),
        str(_first(payload, TITLE_KEYS) or ""),
        _first(payload, AUTHOR_KEYS),
        _first(payload, VENUE_KEYS),
        _first(payload, YEAR_KEYS),
        links.first_web(found) or None,  # a DOI, a path or javascript: is never the link
        doi=bare_doi(doi) if isinstance(doi, str) else "",
        arxiv=arxiv_id(*found),  # "arXiv:2101.00001" as a url is no web link, but an arXiv id
        record=_record(payload, found),
    )


def _record(payload: dict[str, object], found: list[str]) -> dict[str, object]:
    """What the record keeps beyond the columns: every link when there are several, and each
    field the reader does not read, verbatim under "custom" (nothing the source gave is lost)."""
    out: dict[str, object] = {}
    if len(found) > 1:
        out["links"] = found
    read = {_chosen(payload, keys) for keys in _GROUPS}
    if not links.first_web(found):
        read.discard(_chosen(payload, URL_KEYS))  # no web link in it: kept verbatim, not lost
    custom = {k: v for k, v in payload.items() if k not in read and v not in (None, "", [], {})}
    if custom:
        out["custom"] = custom
    return out
