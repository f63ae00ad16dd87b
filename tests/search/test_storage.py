"""The index read in place from a memory map (storage.py): the same bytes, the same answers as
Whoosh's own storage, which copies every file of a segment into memory when it opens it."""

from __future__ import annotations

import pickle
import struct
from pathlib import Path

import pytest
import whoosh.index
from whoosh import query
from whoosh.filedb.structfile import BufferFile

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.storage import MappedFile, MappedStorage


def _payload() -> bytes:
    """Ints, a short pickle, a long one (past the first window), lines, then filler."""
    out = bytearray()
    out += (1234567).to_bytes(4, "big") + (-5).to_bytes(4, "big", signed=True)
    out += pickle.dumps((3, 99, 1.5, 2, 7, 9), 2)
    out += pickle.dumps(list(range(400)), 2)  # ~1.2 KB: wider than the first window
    out += b"first line\nsecond line\nlast"
    return bytes(out)


def test_a_mapped_file_reads_as_whoosh_s_buffer_file_does() -> None:
    data = _payload()
    ours, theirs = MappedFile(memoryview(data), name="t"), BufferFile(memoryview(data), name="t")
    for f in (ours, theirs):
        f.seek(0)
    assert ours.read_int() == theirs.read_int() == 1234567
    assert ours.read_int() == theirs.read_int() == -5
    assert ours.read_pickle() == theirs.read_pickle() == (3, 99, 1.5, 2, 7, 9)
    assert ours.tell() == theirs.tell()
    assert ours.read_pickle() == theirs.read_pickle() == list(range(400))
    assert ours.tell() == theirs.tell()
    assert ours.readline() == theirs.readline() == b"first line\n"
    assert list(ours.file) == list(theirs.file) == [b"second line\n", b"last"]
    assert ours.read(10) == theirs.read(10) == b""  # at the end
    ours.seek(-4, 2)
    theirs.seek(-4, 2)
    assert ours.read() == theirs.read() == b"last"
    ours.seek(2)
    ours.seek(3, 1)
    assert ours.tell() == 5
    assert ours.get(0, 4) == theirs.get(0, 4)
    assert list(ours.get_array(0, "i", 2)) == list(theirs.get_array(0, "i", 2)) == [1234567, -5]
    ours.seek(len(data) - 2)
    with pytest.raises(struct.error):  # a short read fails as Whoosh's does
        ours.read_int()
    ours.close()
    assert ours.is_closed


@pytest.fixture
def index(tmp_path: Path) -> SearchIndex:
    ix = SearchIndex(load_corpus(use_cache=False), root=tmp_path / "index")
    ix.ensure()
    return ix


QUERIES = [
    query.Term("content", "graph"),
    query.And([query.Term("content", "graph"), query.Term("content", "neural")]),
    query.Phrase("content", ["neural", "network"]),
    query.Prefix("content", "lear"),
    query.Term("title", "model"),
    query.Every(),
]


def test_searching_the_mapped_index_answers_as_whoosh_s_own_storage(index: SearchIndex) -> None:
    own = whoosh.index.open_dir(str(index.dir))
    mapped = index.index()
    assert isinstance(mapped.storage, MappedStorage)
    with own.searcher() as theirs, index.searcher() as ours:
        for q in QUERIES:
            a, b = theirs.search(q, limit=None), ours.search(q, limit=None)
            assert [(h.docnum, h.score) for h in a] == [(h.docnum, h.score) for h in b], q
            assert [h["id"] for h in a] == [h["id"] for h in b]
            assert len(a) == len(b) > 0
        words = list(ours.reader().lexicon("content"))
        assert words == list(theirs.reader().lexicon("content"))
        doc = ours.reader().doc_count_all() - 1
        assert ours.stored_fields(doc) == theirs.stored_fields(doc)
        assert ours.reader().doc_field_length(doc, "content") == theirs.reader().doc_field_length(
            doc, "content"
        )
    own.close()


def test_the_segment_files_are_windows_on_the_map_not_copies(index: SearchIndex) -> None:
    with index.searcher() as s:
        reader = s.reader()
        files = [reader._terms._postfile, reader._terms._tindex.dbfile]  # postings, term table
        windows = [f for f in files if isinstance(f, MappedFile)]
        assert len(windows) == 2 and all(isinstance(f._buf, memoryview) for f in windows)
        assert all(f._buf.obj is not None and not isinstance(f._buf.obj, bytes) for f in windows)
    index.close()  # the map closes with its last window; closing twice is not asked of it
    index.close()
