"""Reading corpus files: one module per format, and the dispatch between them.

The seed text format and JSON / JSON Lines (any of them gzipped). ``records`` splits a file into
keyed records cheaply; ``build`` normalises one record into a Paper (the parse cache calls it only
for records it has not seen).
"""

from __future__ import annotations

from pathlib import Path

from tui_reader.corpus.formats import jsonfmt, seedtext
from tui_reader.corpus.formats.common import (
    LOADER_VERSION,
    SUFFIXES,
    CorpusError,
    Record,
    discover,
    file_signature,
    fmt,
    is_corpus_file,
    make_paper,
    read_text,
    shown,
    source_name,
)
from tui_reader.corpus.formats.jsonfmt import is_jsonl, stream_jsonl
from tui_reader.corpus.paper import Paper

__all__ = [
    "LOADER_VERSION",
    "SUFFIXES",
    "CorpusError",
    "Record",
    "build",
    "discover",
    "file_signature",
    "is_corpus_file",
    "is_jsonl",
    "make_paper",
    "read_text",
    "records",
    "shown",
    "source_name",
    "stream_jsonl",
]


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    """The file's records, by its suffix, or by its first character when the suffix says little."""
    kind = fmt(path)
    stripped = text.lstrip()
    if kind == ".json" or (kind != ".txt" and stripped.startswith("[")):
        found = jsonfmt.json_records(path, text, warnings)
        if found is not None:
            return found
    if kind in (".jsonl", ".ndjson") or (kind != ".txt" and stripped.startswith("{")):
        return list(stream_jsonl(path, warnings))  # a sniffed JSON Lines file: one reader for both
    return seedtext.records(text)


def build(path: Path, payload: object) -> Paper | None:
    """Normalise one record; None (counted as skipped) when it has no usable abstract."""
    if seedtext.is_payload(payload):
        return seedtext.build(path, payload)  # type: ignore[arg-type]
    return jsonfmt.build(path, payload)
