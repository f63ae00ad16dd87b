"""The array bulk build (gather, runs, merge, listwriter.encode_lists) writes what Whoosh's own
writer writes through NpCodec, byte for byte, on both sides of every size switch: blocks of
128 postings, one range or several, a term in one range or several, one merge task or several."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from whoosh import formats
from whoosh.codec import whoosh3
from whoosh.filedb.filestore import RamStorage
from whoosh.filedb.structfile import StructFile
from whoosh.qparser import QueryParser
from whoosh.system import pack_uint
from whoosh.util.numeric import byte_to_length

from tui_reader.search.fast.codec import V_NONE, V_POSITIONS, V_RAW, NpCodec, NpPostingsWriter
from tui_reader.search.fast.listwriter import Lists, encode_lists
from tui_reader.search.fast.pieces import PieceJoiner
from tui_reader.search.index.analysis import authors_chain, fold_chain, stem_chain
from tui_reader.search.index.build.bulk import BulkBuild
from tui_reader.search.index.schema import make_schema

SIZES = [1, 2, 127, 128, 129, 257]


# -- the analyzers' tokens ------------------------------------------------------------------------
TEXTS = [
    "The graph of a neural network",
    "a an the of",
    "",
    "Ω-limits: α ≤ β, x≥y and ℓ₁ norms (1.5e3) of Émile's café",
    "Samy Bengio ; Yoshua Bengio ; the A. Team",
    "version 2.0.1 of e.g. words",
]


@pytest.mark.parametrize("text", TEXTS)
def test_tokens_are_the_chains_tokens(text: str) -> None:
    schema = make_schema()
    for name, chain in (("content", stem_chain()), ("tw", fold_chain()), ("authors", authors_chain())):
        words, positions = schema[name].analyzer.tokens(text)
        expected = [(t.text, t.pos) for t in chain(text, positions=True)]
        assert list(zip(words, positions, strict=True)) == expected, name


# -- many lists at once -----------------------------------------------------------------------------
def _whooshs_list(
    kind: int, ids: Any, weights: Any, lengths: Any, counts: Any, positions: Any
) -> tuple[bytes, bytes]:
    fmt = {V_NONE: formats.Existence(), V_POSITIONS: formats.Positions(), V_RAW: formats.Frequency()}[kind]
    buf = io.BytesIO()
    writer = NpPostingsWriter(StructFile(buf), blocklimit=128, byteids=False, compression=0, inlinelimit=1)
    writer.start_postings(fmt, whoosh3.W3TermInfo())
    at = 0
    for i, docnum in enumerate(ids.tolist()):
        c = int(counts[i])
        value = fmt.encode(positions[at : at + c].tolist()) if kind == V_POSITIONS else b""
        value = pack_uint(c) if kind == V_RAW else value
        at += c
        length = byte_to_length(int(lengths[i])) if lengths[i] else 0
        writer.add_posting(docnum, float(weights[i]), value, length)
    info = writer.finish_postings().to_bytes()  # writes the last block and the directory
    return buf.getvalue(), info


@pytest.mark.parametrize("kind", [V_NONE, V_POSITIONS, V_RAW])
def test_encode_lists_writes_what_whooshs_writer_writes(kind: int) -> None:
    rng = np.random.default_rng(kind)
    for trial in range(6):
        dfs = [*SIZES, 300] if trial % 2 else [129, 1, 257]
        parts: list[list[Any]] = [[], [], [], [], []]
        expected = []
        for df in dfs:
            ids = np.sort(rng.choice(70_000 if trial % 3 else 1_000, size=df, replace=False))
            counts = rng.integers(1, 300 if trial == 4 else 4, size=df)
            weights = (
                counts.astype(np.float32) if kind != V_NONE else rng.integers(0, 3, df).astype(np.float32)
            )
            if trial == 5:
                weights = weights + np.float32(0.5)  # float32 weights
            lengths = rng.integers(0, 256, size=df) if trial % 4 else np.zeros(df, np.int64)
            positions = np.concatenate(
                [np.sort(rng.choice(70_000 if trial == 3 else 400, size=c, replace=False)) for c in counts]
            )
            for part, values in zip(parts, (ids, weights, lengths, counts, positions), strict=True):
                part.append(values)
            expected.append(_whooshs_list(kind, ids, weights, lengths, counts, positions))
        lists = Lists(
            np.array(dfs),
            *(np.concatenate(p) for p in parts[:3]),
            kind,
            *(np.concatenate(p) for p in parts[3:]),
        )
        out, infos = encode_lists(lists)
        for info, (data, info_bytes) in zip(infos, expected, strict=True):
            assert out[info["offset"] : info["offset"] + info["length"]].tobytes() == data
            at_zero = info.copy()
            at_zero["offset"] = 0  # Whoosh's list starts its own file
            assert at_zero.tobytes() == info_bytes


@pytest.mark.parametrize("kind", [V_NONE, V_POSITIONS, V_RAW])
@pytest.mark.parametrize("df", [128, 129, 256, 257, 600])
def test_a_list_written_in_pieces_is_the_list_written_whole(kind: int, df: int) -> None:
    """PieceJoiner (a term too big for one merge batch): pieces of whole blocks joined give the
    bytes and info encode_lists gives for the whole list (one piece when df <= 128)."""
    rng = np.random.default_rng(df)
    ids = np.sort(rng.choice(10_000, size=df, replace=False))
    counts = rng.integers(1, 5, size=df)
    weights = counts.astype(np.float32)
    lengths = rng.integers(0, 256, size=df)
    positions = np.concatenate([np.sort(rng.choice(500, size=c, replace=False)) for c in counts])
    pos_at = np.concatenate(([0], np.cumsum(counts)))

    def lists(lo: int, hi: int) -> Lists:
        pos = positions[pos_at[lo] : pos_at[hi]] if kind == V_POSITIONS else None
        n = np.array([hi - lo])
        return Lists(n, ids[lo:hi], weights[lo:hi], lengths[lo:hi], kind, counts[lo:hi], pos)

    whole, info = encode_lists(lists(0, df))
    buf = io.BytesIO(b"xy")
    buf.seek(2)
    joiner = PieceJoiner(buf)
    for lo in range(0, df, 128):
        hi = min(lo + 128, df)
        part, part_info = encode_lists(lists(lo, hi))
        joiner.add(part, part_info, float(weights[lo:hi].sum()), hi == df)
    joined = joiner.finish()
    assert buf.getvalue()[2:] == whole.tobytes()
    assert joined["offset"] == 2
    joined["offset"] = 0
    assert joined.tobytes() == info.tobytes()


# -- whole segments -------------------------------------------------------------------------------
def _docs() -> list[dict[str, Any]]:
    """Words in exactly 1, 2, 127, 128, 129 and 257 papers (and one in every paper), long and
    short papers, fields left out, years and keywords (Whoosh's own field.index, from paper 121
    on)."""
    docs = []
    for i in range(300):
        words = [f"w{n}x" for n in SIZES if i % 300 < n] + ["common"] * (1 + i % 5)
        words += [f"rare{i}", "graph" if i % 3 else "the network of graphs"] + ["long"] * (i == 7) * 400
        title = f"paper {i % 17} on graph {i % 4}"
        authors = " ; ".join(["Ada Lovelace", "Émile Noether", "Wei Li"][: 1 + i % 3])
        doc: dict[str, Any] = {
            "id": f"p{i:04d}",
            "title": title,
            "content": f"{title}\n{title}\n{authors}\n{' '.join(words)}",
            "authors": authors,
            "venue": ["icml 2019", "neurips nips", ""][i % 3] or None,
            "sources": "arxiv openreview" if i % 2 else "arxiv",
            "tw": title,
        }
        if i % 6:
            doc["year"] = 2000 + i % 23
        if i % 4 == 1 and i > 120:  # a length column that first appears in a later range
            doc["keywords"] = "graphs,cs.LG"
        docs.append(doc)
    return docs


def _indexes(ranges: int, slice_postings: int | None, words_limit: int | None = None) -> tuple[Any, Any]:
    docs = _docs()
    theirs = RamStorage().create_index(make_schema())
    writer = theirs.writer(codec=NpCodec())
    for doc in docs:
        writer.add_document(**doc)
    writer.commit()
    ours = RamStorage().create_index(make_schema())
    writer = ours.writer(codec=NpCodec())
    build = BulkBuild(writer, len(docs), procs=1, ranges=ranges, slice_postings=slice_postings)
    if words_limit is not None:
        build.words_limit = words_limit
    try:
        for i in build.order():
            build.add(i, docs[i])
        build.finish()
        writer.commit(merge=False)
    finally:
        build.close()
    return theirs, ours


def _files(ix: Any) -> dict[str, bytes]:
    """The index's files by name, the segment's random name taken out of names and contents."""
    storage, name = ix.storage, ix._segments()[0].segid
    return {
        n.replace(name, "SEG"): storage.open_file(n).read().replace(name.encode(), b"SEG")
        for n in storage.list()
    }


def _info(info: Any) -> tuple[Any, ...]:
    """Every value of a term info, its extent included (from_bytes leaves the length a 1-tuple)."""
    offset, length = info.extent()
    length = length[0] if isinstance(length, tuple) else length
    stats = (info.weight(), info.doc_frequency(), info.min_length(), info.max_length(), info.max_weight())
    return (*stats, info.min_id(), info.max_id(), offset, length)


@pytest.mark.parametrize(
    ("ranges", "slice_postings", "words_limit"),
    [
        (1, None, None),
        (3, None, None),
        (3, 40, None),
        (1, 40, None),
        (3, 128, 0),
        (2, 129, 30),
        (3, 256, None),
    ],
)
def test_bulk_segment_is_whooshs_byte_for_byte(
    ranges: int, slice_postings: int | None, words_limit: int | None
) -> None:
    """ranges=3: a word in 127 papers lies in one range, one in 257 in all three; slice 40:
    each field merged in several tasks, their cuts inside the vocabulary, a word in more
    papers than a batch written in pieces (128, 129, 256: around the block size); words_limit:
    the words' numbering renewed between every range (0) or past 30 words."""
    theirs, ours = _indexes(ranges, slice_postings, words_limit)
    assert _files(ours) == _files(theirs)  # the compound file and the TOC, but for the segment's name
    ra, rb = theirs.reader(), ours.reader()
    try:
        terms = list(ra.all_terms())
        assert list(rb.all_terms()) == terms and (b"w257x" in {t for _, t in terms})
        for field, term in terms:
            assert _info(rb.term_info(field, term)) == _info(ra.term_info(field, term)), (field, term)
            assert rb.postings(field, term).list_bytes() == ra.postings(field, term).list_bytes(), (
                field,
                term,
            )
        docs = ra.doc_count_all()
        assert rb.doc_count_all() == docs
        for field in ra.schema.names():
            assert rb.field_length(field) == ra.field_length(field)
            assert [rb.doc_field_length(d, field) for d in range(docs)] == [
                ra.doc_field_length(d, field) for d in range(docs)
            ]
        assert [rb.stored_fields(d) for d in range(docs)] == [ra.stored_fields(d) for d in range(docs)]
    finally:
        ra.close()
        rb.close()
    with theirs.searcher() as sa, ours.searcher() as sb:
        for text in [
            "w128x",
            "w129x common",
            '"network of graphs"',
            "title:graph",
            "year:2005",
            "keywords:graphs",
        ]:
            q = QueryParser("content", theirs.schema).parse(text)
            hits_a = [(h.docnum, h.score) for h in sa.search(q, limit=None)]
            assert hits_a == [(h.docnum, h.score) for h in sb.search(q, limit=None)] and hits_a, text


def test_an_empty_collection_builds_an_empty_segment() -> None:
    ix = RamStorage().create_index(make_schema())
    writer = ix.writer(codec=NpCodec())
    build = BulkBuild(writer, 0)
    try:
        build.finish()
        writer.commit(merge=False)
    finally:
        build.close()
    with ix.searcher() as s:
        assert s.doc_count_all() == 0 and list(s.reader().all_terms()) == []
