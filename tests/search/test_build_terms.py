"""The bulk build's compact term table writes the file Whoosh's OrderedHashWriter writes."""

from __future__ import annotations

import io

import pytest
from whoosh.filedb.filetables import OrderedHashReader, OrderedHashWriter
from whoosh.filedb.structfile import StructFile

from tui_reader.search.index.build.terms import CompactTable


class _Kept(io.BytesIO):
    def close(self) -> None:  # the writers close their file; keep its bytes
        self.kept = self.getvalue()


def _table(keys: list[bytes], compact: bool) -> bytes:
    buf = _Kept()
    writer = OrderedHashWriter(StructFile(buf))
    writer.extras["fieldmap"] = {"content": 0}
    if compact:
        writer = CompactTable(writer)
    for i, key in enumerate(keys):
        writer.add(key, b"v%d" % i)
    writer.close()
    return buf.kept


@pytest.mark.parametrize("count", [0, 1, 255, 256, 257, 5000])
def test_compact_table_is_whooshs_byte_for_byte(count: int) -> None:
    """Enough keys that buckets collide and probing wraps (5000: ~20 a bucket)."""
    keys = sorted(b"\x00\x01term%06d" % (i * 7919 % 100_003) for i in range(count))
    data = _table(keys, compact=True)
    assert data == _table(keys, compact=False)
    reader = OrderedHashReader(StructFile(io.BytesIO(data)), len(data))
    assert all(reader[k] == b"v%d" % i for i, k in enumerate(keys))


def test_compact_table_refuses_keys_out_of_order_and_a_used_writer() -> None:
    writer = OrderedHashWriter(StructFile(io.BytesIO()))
    table = CompactTable(writer)
    table.add(b"b", b"1")
    with pytest.raises(ValueError, match="increase"):
        table.add(b"a", b"2")
    writer.add(b"x", b"1")
    with pytest.raises(ValueError, match="already"):
        CompactTable(writer)
