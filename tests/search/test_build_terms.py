"""The bulk build's compact term table writes the file Whoosh's OrderedHashWriter writes."""

from __future__ import annotations

import io
import itertools

import pytest
from whoosh.filedb.filetables import OrderedHashReader, OrderedHashWriter
from whoosh.filedb.structfile import StructFile

from tui_reader.search.index.build import terms
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


def _many(keys: list[bytes], cuts: list[int], compact: bool) -> bytes:
    """The keys (values of 6 bytes) added a run at a time with add_many between ``cuts``, the
    first key alone with add; or one by one by Whoosh's own writer."""
    buf = _Kept()
    writer = OrderedHashWriter(StructFile(buf))
    writer.extras["fieldmap"] = {"content": 0}
    values = [b"v%05d" % i for i in range(len(keys))]
    if not compact:
        for key, value in zip(keys, values, strict=True):
            writer.add(key, value)
    else:
        table = CompactTable(writer)
        table.add(keys[0], values[0])
        edges = [1, *cuts, len(keys)]
        for lo, hi in itertools.pairwise(edges):
            table.add_many(b"\x00\x01", [k[2:] for k in keys[lo:hi]], b"".join(values[lo:hi]), 6)
        writer = table
    writer.close()
    return buf.kept


def test_terms_added_many_at_a_time_are_whooshs_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of one, of none and of thousands; past 64 KiB of keys, so the key index is widened
    from 16 bits as Whoosh's appends widen it."""
    keys = sorted(b"\x00\x01term%06d" % (i * 7919 % 100_003) for i in range(5000))
    monkeypatch.setattr(terms, "MANY", 1000)  # runs of several MANY too
    data = _many(keys, [2, 2, 3, 2000, 4999], compact=True)
    assert len(data) > 2**16 and data == _many(keys, [], compact=False)
    reader = OrderedHashReader(StructFile(io.BytesIO(data)), len(data))
    assert all(reader[k] == b"v%05d" % i for i, k in enumerate(keys))


def test_terms_added_many_must_ascend_and_fit_their_values() -> None:
    table = CompactTable(OrderedHashWriter(StructFile(io.BytesIO())))
    table.add(b"\x00\x01m", b"123456")
    with pytest.raises(ValueError, match="increase"):
        table.add_many(b"\x00\x01", [b"n", b"n"], b"1" * 12, 6)
    with pytest.raises(ValueError, match="increase"):
        table.add_many(b"\x00\x01", [b"a"], b"1" * 6, 6)
    with pytest.raises(ValueError, match="bytes of values"):
        table.add_many(b"\x00\x01", [b"x", b"y"], b"1" * 6, 6)
