"""Reading corpus files: one module per format, and the dispatch between them.

The seed text format, JSON / JSON Lines (the arXiv metadata snapshot among them), BibTeX, RIS and
CSL-JSON, any of them gzipped. ``records`` splits a file into keyed records cheaply; ``build``
normalises one record into a Paper (the parse cache calls it only for records it has not seen).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_reader.corpus.formats.common import (
    LOADER_VERSION,
    SUFFIXES,
    CorpusError,
    Entry,
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
from tui_reader.corpus.paper import Paper

if TYPE_CHECKING:
    from tui_reader.corpus.formats.jsonfmt import MalformedRecord, is_jsonl, stream_jsonl

__all__ = [
    "LOADER_VERSION",
    "SUFFIXES",
    "CorpusError",
    "Entry",
    "MalformedRecord",
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


_LAZY = ("MalformedRecord", "is_jsonl", "stream_jsonl")


def __getattr__(name: str) -> Any:
    """JSON's reader (and the arXiv one it calls) loaded when first asked for: a start from the
    parse cache reads no file and pays for neither (issue 21)."""
    if name in _LAZY:
        from tui_reader.corpus.formats import jsonfmt

        return getattr(jsonfmt, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_BIBTEX_START = re.compile(r"(?:[ \t\r]*(?:%[^\n]*)?\n)*[ \t]*@")  # JabRef starts with "% Encoding: UTF-8"
_RIS_START = re.compile(r"\s*TY {1,2}-")  # one space or two, as Zotero reads it


def records(path: Path, text: str, warnings: list[str]) -> list[Record]:
    """The file's records, by its suffix, or by how it starts when the suffix says little."""
    from tui_reader.corpus.formats import jsonfmt, seedtext
    from tui_reader.corpus.formats.jsonfmt import is_jsonl, stream_jsonl

    kind = fmt(path)
    if is_jsonl(path):  # by name, or a .json file of JSON Lines
        return list(stream_jsonl(path, warnings))
    stripped = text.lstrip()
    known = kind in SUFFIXES
    # The citation formats load their libraries only for a file of theirs: a start or a one-shot
    # search of a JSON collection does not pay for bibtexparser, rispy or their tables.
    if kind == ".bib" or (not known and _BIBTEX_START.match(text)):
        from tui_reader.corpus.formats import bibtex

        return bibtex.records(path, text, warnings)
    if kind == ".ris" or (not known and _RIS_START.match(text)):
        from tui_reader.corpus.formats import ris

        return ris.records(path, text, warnings)
    if kind in (".json", ".csl.json") or (kind != ".txt" and stripped.startswith("[")):
        found = jsonfmt.json_records(path, text, warnings)
        if found is not None:
            from tui_reader.corpus.formats import csljson

            if kind == ".csl.json" or csljson.looks_like([d for _, d in found[:20]]):
                return csljson.wrap(path, found, warnings)
            return found
    if kind in (".jsonl", ".ndjson") or (kind != ".txt" and stripped.startswith("{")):
        return list(stream_jsonl(path, warnings))  # a sniffed JSON Lines file: one reader for both
    return seedtext.records(text)


def build(path: Path, payload: object) -> Paper | None:
    """Normalise one record; None (counted as skipped) when it has nothing to show."""
    from tui_reader.corpus.formats import jsonfmt, seedtext

    if isinstance(payload, Entry):
        from tui_reader.corpus.formats import bibtex, csljson, ris

        if payload.fmt == "bibtex":
            return bibtex.build(path, payload.data)
        if payload.fmt == "ris":
            return ris.build(path, payload.data)
        return csljson.build(path, payload.data)
    if seedtext.is_payload(payload):
        return seedtext.build(path, payload)  # type: ignore[arg-type]
    return jsonfmt.build(path, payload)
