"""The bulk builder writes the segment Whoosh's own writer would, in one segment, and fails safe."""

from __future__ import annotations

from pathlib import Path

import pytest
import whoosh.index
from support import SEEDS

from bench import corpusgen
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.build import bulk, codec, merge, plan, transport
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.schema import document, make_schema
from tui_reader.search.searcher import Searcher

PAPERS = 700  # with CHUNK=200, two workers of 350 papers: most terms are stitched from both


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    folder = tmp_path_factory.mktemp("bulk-corpus")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        return load_corpus([corpusgen.write(folder / "papers.jsonl", PAPERS)])


@pytest.fixture(scope="module")
def whooshs(generated: Corpus, tmp_path_factory: pytest.TempPathFactory) -> whoosh.index.Index:
    """The generated papers through Whoosh's own writer (NpCodec): built once, read by each case."""
    return _build(tmp_path_factory.mktemp("whooshs") / "whoosh", generated, None)


def _build(folder: Path, corpus: Corpus, procs: int | None) -> whoosh.index.Index:
    """procs=None: Whoosh's own writer; otherwise the bulk builder with that many workers."""
    folder.mkdir()
    ix = whoosh.index.create_in(str(folder), make_schema())
    writer = ix.writer(codec=codec())
    if procs is None:
        for i in range(len(corpus)):
            writer.add_document(**document(corpus, i))
        writer.commit(optimize=True)
    else:
        build = bulk.BulkBuild(writer, len(corpus), procs=procs, tempdir=folder)
        try:
            for i in build.order():
                build.add(i, document(corpus, i))
            build.finish()
            writer.commit(merge=False)
        finally:
            build.close()
    return whoosh.index.open_dir(str(folder))


def _postings(reader, field: str, term: bytes) -> list[tuple[int, float, bytes]]:  # type: ignore[no-untyped-def]
    m = reader.postings(field, term)
    out = []
    while m.is_active():
        out.append((m.id(), m.weight(), m.value()))
        m.next()
    return out


def _assert_same_index(a: whoosh.index.Index, b: whoosh.index.Index, docs: int) -> None:
    ra, rb = a.reader(), b.reader()
    try:
        assert ra.doc_count() == rb.doc_count() == docs
        terms = list(rb.all_terms())
        assert list(ra.all_terms()) == terms
        for field, term in terms:
            ia, ib = ra.term_info(field, term), rb.term_info(field, term)
            assert (
                ia.doc_frequency(),
                ia.min_length(),
                ia.max_length(),
                ia.max_weight(),
                ia.min_id(),
                ia.max_id(),
            ) == (
                ib.doc_frequency(),
                ib.min_length(),
                ib.max_length(),
                ib.max_weight(),
                ib.min_id(),
                ib.max_id(),
            ), (field, term)
            assert ia.weight() == ib.weight()
            assert _postings(ra, field, term) == _postings(rb, field, term), (field, term)
            # the posting list itself, byte for byte
            bytes_a = ra.postings(field, term).list_bytes()
            assert bytes_a == rb.postings(field, term).list_bytes(), (field, term)
        for field in rb.schema.names():
            assert ra.field_length(field) == rb.field_length(field)
            assert [ra.doc_field_length(d, field) for d in range(docs)] == [
                rb.doc_field_length(d, field) for d in range(docs)
            ]
        assert [ra.stored_fields(d) for d in range(docs)] == [rb.stored_fields(d) for d in range(docs)]
    finally:
        ra.close()
        rb.close()


@pytest.mark.parametrize(
    ("procs", "round_size", "slice_postings"),
    [(1, plan.ROUND, None), (2, plan.ROUND, None), (2, 150, None), (2, 150, 2000)],
)
def test_bulk_segment_holds_what_whooshs_writer_writes(
    generated: Corpus,
    whooshs: whoosh.index.Index,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    procs: int,
    round_size: int,
    slice_postings: int | None,
) -> None:
    """procs=2: two workers, most terms merged from both; round_size=150: three ranges, the
    first worker taking two of them one after the other; slice_postings=2000: each field merged
    in several tasks, dealt to both workers."""
    monkeypatch.setattr(plan, "ROUND", round_size)
    if slice_postings:
        monkeypatch.setattr(merge, "SLICE", slice_postings)
    ours = _build(tmp_path / "bulk", generated, procs)
    theirs = whooshs
    assert len(ours._segments()) == 1
    _assert_same_index(ours, theirs, len(generated))
    with ours.searcher() as sa, theirs.searcher() as sb:
        from whoosh.qparser import QueryParser

        for text in ["learning", "graph neural", '"neural network"', "title:model", "robust~1/2"]:
            q = QueryParser("content", ours.schema).parse(text)
            hits_a = [(h.docnum, h.score) for h in sa.search(q, limit=None)]
            hits_b = [(h.docnum, h.score) for h in sb.search(q, limit=None)]
            assert hits_a == hits_b and hits_a, text


def test_seed_collection_builds_in_process_into_one_segment(tmp_path: Path) -> None:
    corpus = load_corpus([SEEDS])
    ours = _build(tmp_path / "bulk", corpus, 2)  # too few papers for workers: builds in-process
    theirs = _build(tmp_path / "whoosh", corpus, None)
    _assert_same_index(ours, theirs, len(corpus))


def test_a_worker_that_cannot_run_falls_back_to_whooshs_writer(
    generated: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transport, "python", lambda: str(tmp_path / "no-such-python"))
    index = SearchIndex(generated, root=tmp_path / "index")
    report = index.ensure(procs=2)
    assert report.action == "built" and report.added == PAPERS
    assert len(index.index()._segments()) == 1
    assert Searcher(index).search("learning").hits
    index.close()


def test_a_worker_that_dies_mid_build_falls_back(
    generated: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "python-that-dies"
    script.write_text("#!/bin/sh\nhead -c 1000 >/dev/null\nexit 3\n")
    script.chmod(0o755)
    monkeypatch.setattr(transport, "python", lambda: str(script))
    index = SearchIndex(generated, root=tmp_path / "index")
    assert index.ensure(procs=2).action == "built"
    assert Searcher(index).search("learning").hits
    index.close()


def test_cancelling_a_build_stops_the_workers_and_leaves_nothing(
    generated: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[transport.Child] = []
    real_child = transport.Child

    def tracked(*args, **kwargs):  # type: ignore[no-untyped-def]
        child = real_child(*args, **kwargs)
        started.append(child)
        return child

    monkeypatch.setattr(transport, "Child", tracked)

    class Quit(Exception):
        pass

    def progress(done: int, total: int, phase: str) -> None:
        if done:
            raise Quit

    root = tmp_path / "index"
    index = SearchIndex(generated, root=root)
    with pytest.raises(Quit):
        index.ensure(procs=2, progress=progress)
    assert len(started) == 2 and all(c.proc.poll() is not None for c in started)
    assert not index.dir.exists()
    assert [p.name for p in root.iterdir() if p.is_dir()] == []  # no staging or temp folders
    assert index.ensure(procs=2).action == "built"  # and the next start builds it
    index.close()


def test_a_schema_with_a_column_is_left_to_whooshs_writer(tmp_path: Path) -> None:
    """The bulk build writes lengths and stored fields a range at a time; a sortable field's
    column it does not write, so such a schema is refused (and the index built by Whoosh's)."""
    from whoosh import fields
    from whoosh.filedb.filestore import RamStorage

    from tui_reader.search.fast.codec import NpCodec

    schema = make_schema()
    schema.add("rank", fields.NUMERIC(int, sortable=True))
    writer = RamStorage().create_index(schema).writer(codec=NpCodec())
    try:
        with pytest.raises(bulk.BulkUnsupported, match="column"):
            bulk.check_writer(writer)
        bulk.check_writer(RamStorage().create_index(make_schema()).writer(codec=NpCodec()))
    finally:
        writer.cancel()
