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


class PerDoc:
    """Stored fields, field lengths and columns, written in docnum order as add_document would
    write them: the stored values as documents are fed, the lengths once their range's run is
    written (``lengths_from``)."""

    def __init__(self, segment: w3.Segment, schema: Any, total: int) -> None:
        self.segment = segment
        self.total = total
        self.fields = {n: schema[n] for n in schema.names()}
        self._stored_names = {n for n, f in self.fields.items() if f.stored}
        self._stored: list[dict[str, Any] | None] = [None] * total
        self._present: list[tuple[str, ...]] = [()] * total
        self._shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.done = 0  # documents written

    def stored(self, docnum: int, doc: Doc) -> None:
        names = tuple(sorted(n for n, v in doc.items() if v is not None and not n.startswith("_")))
        self._present[docnum] = self._shapes.setdefault(names, names)
        stored = {n: doc[n] for n in names if n in self._stored_names}
        self._stored[docnum] = stored or None

    def lengths_from(self, tables: dict[int, runs.Table]) -> None:
        while self.done in tables:
            table = tables[self.done]
            run = runs.Run(table)
            lengths = {
                n: np.asarray(run.array(n, "lengths")).tolist() for n in self.fields if run.has(n, "lengths")
            }
            self._write(table["base"], table["count"], lengths)

    def _write(self, base: int, count: int, lengths: dict[str, list[int]]) -> None:
        pdw = self.segment.perdoc
        fields = self.fields
        end = base + count
        for j, (values, names) in enumerate(
            zip(self._stored[base:end], self._present[base:end], strict=True)
        ):
            pdw.start_doc(base + j)
            values = values or {}
            for name in names:
                field = fields[name]
                pdw.add_field(name, field, values.get(name), lengths[name][j] if name in lengths else 0)
                column = field.column_type
                if column and name in values:
                    pdw.add_column_value(name, column, field.to_column_value(values[name]))
            pdw.finish_doc()
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
    raw = table.tobytes()
    size = TERMINFO_DTYPE.itemsize
    prefix = segment.field_key(field)
    add = segment.add_term
    for i, term in enumerate(terms):
        add(prefix + term, raw[i * size : (i + 1) * size])


class _Writer:
    """The segment's postings file as shutil.copyfileobj's destination."""

    def __init__(self, segment: w3.Segment) -> None:
        self.write = segment.write
