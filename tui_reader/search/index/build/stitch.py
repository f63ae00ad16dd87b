"""The bulk build's final segment: per-document data, then the merged posting lists copied in.

The segment is an ordinary SegmentWriter's (w3.Segment gives it posting bytes), which commits as
usual: compound file, TOC, lock. It holds what Whoosh's own writer would have written through
NpCodec; ``tests/search/test_bulk.py``, ``test_np_build.py`` and w3's self-check compare the two.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

from tui_reader.search.fast import w3
from tui_reader.search.fast.listwriter import TERMINFO_DTYPE
from tui_reader.search.index.build import runs
from tui_reader.search.index.build.transport import Doc

COPY_BUFFER = 16 << 20
LENGTH_CAP = 106374  # and 255 from here on


class PerDoc:
    """Stored fields and field lengths, written in docnum order as add_document would
    write them: the stored values as documents are fed, the lengths once their range's run is
    written (``lengths_from``)."""

    def __init__(self, segment: w3.Segment, schema: Any, total: int) -> None:
        self.segment = segment
        self.total = total
        self.fields = {n: schema[n] for n in schema.names()}
        self._stored_names = {n for n, f in self.fields.items() if f.stored}
        self._stored: list[dict[str, Any] | None] = [None] * total
        self._perdoc = w3.PerDoc(segment.perdoc)
        self.done = 0  # documents written

    def stored(self, docnum: int, doc: Doc) -> None:
        names = sorted(n for n, v in doc.items() if v is not None and n in self._stored_names and n[0] != "_")
        stored = {n: doc[n] for n in names}  # in add_field's order
        self._stored[docnum] = stored or None

    def lengths_from(self, tables: dict[int, runs.Table]) -> None:
        while self.done in tables:
            table = tables[self.done]
            run = runs.Run(table)
            lengths = {n: run.array(n, "lengths") for n in self.fields if run.has(n, "lengths")}
            self._write(table["base"], table["count"], lengths)

    def _write(self, base: int, count: int, lengths: dict[str, np.ndarray]) -> None:
        """What start_doc, add_field and finish_doc write for each document, a range at a time:
        a length column's bytes in one write (its 0s are what the column writer's fill
        writes), the stored fields through the stored column's own writer. (A schema with
        other columns is not built here: bulk.check_writer.)"""
        perdoc = self._perdoc
        end = base + count
        if perdoc.count != base:
            raise ValueError(f"documents from {base} written after {perdoc.count}")
        codes = {name: _length_bytes(values) for name, values in lengths.items()}
        _add_totals(perdoc, codes, lengths)
        for name, (values, last) in codes.items():
            if last:
                perdoc.write_lengths(name, base, values[:last].tobytes())
        for j, fields in enumerate(self._stored[base:end]):
            if fields:
                perdoc.store(base + j, fields)
        perdoc.written(end)
        self._stored[base:end] = [None] * count  # written: free them
        self.done = end

    def complete(self) -> bool:
        return self.done == self.total

    def finish(self) -> None:
        """Nothing left: the writer's commit closes the per-document writer."""


def copy_chunk(segment: w3.Segment, field: str, path: Path, terms: list[bytes], infos: bytes) -> None:
    """A merge task's lists into the segment's postings, its terms' infos into the term table
    (the tasks come in term order, so keys ascend as Whoosh's writer adds them)."""
    base = segment.tell()
    with open(path, "rb") as fh:
        shutil.copyfileobj(fh, _Writer(segment), COPY_BUFFER)
    path.unlink()
    table = np.frombuffer(infos, TERMINFO_DTYPE).copy()
    table["offset"] += base
    segment.add_terms(segment.field_key(field), terms, table.tobytes(), TERMINFO_DTYPE.itemsize)


class _Writer:
    """The segment's postings file as shutil.copyfileobj's destination."""

    def __init__(self, segment: w3.Segment) -> None:
        self.write = segment.write


def _length_bytes(lengths: np.ndarray) -> tuple[np.ndarray, int]:
    """add_field's length bytes for a range (length_to_byte: 0 only for 0), with the number up
    to the last that is not 0 (a byte its column's add skips)."""
    values = lengths.astype(np.int64)
    codes = np.searchsorted(w3.LENGTH_BYTES, values, side="left")
    codes[values >= LENGTH_CAP] = 255
    nonzero = np.flatnonzero(codes)
    return codes.astype(np.uint8), int(nonzero[-1]) + 1 if nonzero.size else 0


def _add_totals(
    perdoc: w3.PerDoc, codes: dict[str, tuple[np.ndarray, int]], lengths: dict[str, np.ndarray]
) -> None:
    """Each field's total length, and its length column if new, in the order documents by
    document would add them (the first document with a length, then the field's name, as
    add_field is called): the segment's totals and the compound file keep that order."""
    first = {name: int(np.flatnonzero(values)[0]) for name, (values, last) in codes.items() if last}
    for name in sorted(first, key=lambda n: (first[n], n)):
        perdoc.add_length(name, int(lengths[name].sum(dtype=np.int64)))
