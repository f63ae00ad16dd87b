"""What every format shares: finding files, reading bytes, the Paper a record becomes.

A bad file never stops the others from loading: it becomes a warning that names it.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

from tui_reader.corpus.paper import Paper, paper_id
from tui_reader.corpus.text import normalise, normalise_inline
from tui_reader.corpus.titles import make_title
from tui_reader.corpus.venues import split_venue

LOADER_VERSION = 6  # bump when parsing or normalisation changes: invalidates the parse cache
SUFFIXES = {".txt", ".json", ".jsonl", ".ndjson"}
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+|\s*\n\s*")

# A record is (key, payload): the key is a hash of its raw bytes so that an edited or appended file
# re-normalises only the records that changed; the payload is what its format's build() needs.
Record = tuple[bytes, object]


class CorpusError(Exception):
    """A problem with the paths the user gave (not with a file's contents): exit code 2."""


def fmt(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).suffix


def is_corpus_file(path: Path) -> bool:
    return fmt(path) in SUFFIXES and not path.name.startswith(".")


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


def key(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=12).digest()
