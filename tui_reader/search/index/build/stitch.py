"""The bulk build's final segment: per-document data, then the ranges' posting lists stitched.

The segment is an ordinary SegmentWriter's (w3.Segment gives it posting bytes), which commits as
usual: compound file, TOC, lock. It holds what Whoosh's own writer would have written;
``tests/search/test_bulk.py`` and w3's self-check compare the two.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any

from tui_reader.search.fast import w3
from tui_reader.search.index.build.transport import BulkFailed, Part


def per_doc(
    segment: w3.Segment,
    schema: Any,
    base: int,
    lengths: dict[str, array[int]],
    stored: list[dict[str, Any] | None],
    present: list[tuple[str, ...]],
) -> None:
    """Stored fields and field lengths of documents base..base+len(stored)-1 (``stored`` and
    ``present`` are theirs, ``lengths`` from their range's gatherer), as add_document would have
    written them."""
    pdw = segment.perdoc
    fields = {n: schema[n] for n in schema.names()}
    for j, (values, names) in enumerate(zip(stored, present, strict=True)):
        pdw.start_doc(base + j)
        values = values or {}
        for name in names:
            field = fields[name]
            pdw.add_field(name, field, values.get(name), lengths[name][j] if name in lengths else 0)
            column = field.column_type
            if column and name in values:
                pdw.add_column_value(name, column, field.to_column_value(values[name]))
        pdw.finish_doc()


def postings(segment: w3.Segment, parts: list[Part]) -> None:
    """Copy each term's blocks from the ranges' part files into the segment, in term order; a
    term found in several ranges gets their blocks back to back (docnums ascend: ``parts`` are
    in docnum order) and the sum of their statistics (w3.joined, w3.combined)."""
    write, add_term = segment.write, segment.add_term
    offset = segment.tell()
    # Part files hold fields and terms in sorted order, the order read here: each file is read
    # front to back, never held whole in memory.
    files = [open(p["path"], "rb", buffering=1 << 20) for p in parts]  # noqa: SIM115 (closed below)
    where = [0] * len(parts)
    try:
        for name in sorted({n for p in parts for n in p["fields"]}):
            prefix = segment.field_key(name)
            tables = {k: p["fields"][name] for k, p in enumerate(parts) if name in p["fields"]}
            streams = [_keyed(table[0], k) for k, table in tables.items()]
            for btext, group in groupby(heapq.merge(*streams), key=itemgetter(0)):
                entries = list(group)
                start = offset
                infos: list[bytes] = []
                for m, (_, k, j) in enumerate(entries):
                    _terms, table_infos, lasts = tables[k]
                    info = table_infos[j]
                    at, length = w3.extent(info)
                    if at != where[k]:
                        raise BulkFailed(f"postings of {name}:{btext!r} out of order")
                    where[k] += length
                    data = files[k].read(length)
                    if len(entries) == 1:  # one range's term: copy it, move its offset
                        write(data)
                        offset += length
                        add_term(prefix + btext, w3.moved(info, start))
                        break
                    data = w3.joined(data, lasts[j], first=m == 0, last=m == len(entries) - 1)
                    write(data)
                    offset += len(data)
                    infos.append(info)
                else:
                    add_term(prefix + btext, w3.combined(infos, start, offset - start))
    finally:
        for fh in files:
            fh.close()


def _keyed(terms: list[bytes], k: int) -> Iterator[tuple[bytes, int, int]]:
    return ((t, k, j) for j, t in enumerate(terms))
