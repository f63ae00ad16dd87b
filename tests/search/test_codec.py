"""The array codec (search/fast/codec.py) against Whoosh's own W3 codec: the same documents written
through Whoosh's IndexWriter with each, read back posting by posting and query by query through
Whoosh's own searcher, on both sides of the block size, after merges, deletions and with W3 and
array segments in one index."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh import fields, index
from whoosh.codec.whoosh3 import W3Codec, W3LeafMatcher, W3TermInfo
from whoosh.qparser import QueryParser

from tui_reader.search.fast.codec import NpCodec, NpLeafMatcher, NpSegment

STATS = ["weight", "doc_frequency", "min_length", "max_length", "max_weight", "min_id", "max_id", "extent"]
BLOCK = 128  # W3's default blocklimit, and NpCodec's
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]
QUERIES = [
    "alpha", "beta gamma", "alpha OR zeta", "alpha AND NOT beta", '"alpha beta"', '"beta gamma delta"',
    "al*", "title:gamma", "kw:red", "tag:x", "b127", "b128", "b129", "b257", "b128 AND b129",
    '"alpha alpha"', "title:alpha OR body:beta", "n:[5 TO 90]", "b128 OR b257 OR alpha",
]  # fmt: skip


def schema() -> fields.Schema:
    return fields.Schema(
        id=fields.ID(stored=True, unique=True),
        body=fields.TEXT(phrase=True),
        title=fields.TEXT(stored=True),
        kw=fields.KEYWORD(scorable=True),
        tag=fields.KEYWORD(),
        flat=fields.TEXT(phrase=False),
        n=fields.NUMERIC(int),
    )


def corpus(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """Documents with the edge terms b127, b128, b129, b257 in exactly that many of them."""
    rng = random.Random(seed)
    docs = []
    for i in range(count):
        edges = " ".join(f"b{n}" for n in (127, 128, 129, 257) if i < n)
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))
        docs.append(
            {
                "id": str(i),
                "body": f"{body} {edges}".strip(),
                "title": " ".join(rng.sample(WORDS, 3)),
                "kw": " ".join(rng.choice(["red", "green", "blue"]) for _ in range(rng.randint(1, 4))),
                "tag": rng.choice(["x", "y", "z"]),
                "flat": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))),
                "n": i,
            }
        )
    return docs


def write(path: Path, docs: list[dict[str, Any]], codecs: list[Any], sch: Any = None) -> Any:
    """An index written with one commit per codec (the documents split evenly among them)."""
    path.mkdir(parents=True, exist_ok=True)
    ix = index.create_in(str(path), sch or schema())
    step = -(-len(docs) // len(codecs))
    for k, codec in enumerate(codecs):
        with ix.writer(codec=codec) as w:
            w.merge = False  # keep the segments apart: the mixed index is the point
            for doc in docs[k * step : (k + 1) * step]:
                w.add_document(**doc)
    return index.open_dir(str(path))


def optimize(ix: Any, codec: Any) -> Any:
    with ix.writer(codec=codec) as w:
        w.optimize = True
    return index.open_dir(ix.storage.folder)


def postings(ix: Any) -> dict[tuple[str, bytes], list[tuple[Any, ...]]]:
    out = {}
    with ix.searcher() as s:
        r = s.reader()
        for fieldname, btext in r.all_terms():
            m = r.postings(fieldname, btext)
            rows = []
            while m.is_active():
                pos = m.value_as("positions") if m.supports("positions") else None
                rows.append((m.id(), m.weight(), m.value(), pos))
                m.next()
            out[(fieldname, btext)] = rows
    return out


def hits(ix: Any, text: str, limit: int | None = None) -> list[tuple[int, float]]:
    with ix.searcher() as s:
        q = QueryParser("body", ix.schema).parse(text)
        return [(h.docnum, h.score) for h in s.search(q, limit=limit)]


def same_hits(a: Any, b: Any, queries: list[str] = QUERIES) -> None:
    for text in queries:
        for limit in (None, 10):
            want, got = hits(a, text, limit), hits(b, text, limit)
            assert [d for d, _ in got] == [d for d, _ in want], text
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6), text


def leaf_matchers(ix: Any, fieldname: str, text: str) -> list[type]:
    with ix.searcher() as s:
        return [type(r.postings(fieldname, text)) for r, _ in s.reader().leaf_readers()]


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return corpus(2 * BLOCK + 5)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, docs: list[dict[str, Any]]) -> tuple[Any, Any]:
    base = tmp_path_factory.mktemp("codec")
    return write(base / "w3", docs, [W3Codec()]), write(base / "np", docs, [NpCodec()])


def test_segments_are_written_and_reopened_with_the_array_codec(pair: tuple[Any, Any]) -> None:
    w3, arr = pair
    assert [type(s) for s in arr._segments()] == [NpSegment]
    assert isinstance(arr._segments()[0].codec(), NpCodec)
    assert leaf_matchers(arr, "body", "alpha") == [NpLeafMatcher]
    assert leaf_matchers(w3, "body", "alpha") == [W3LeafMatcher]


def test_every_posting_is_the_same(pair: tuple[Any, Any]) -> None:
    w3, arr = pair
    want, got = postings(w3), postings(arr)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == want[key], key


@pytest.mark.parametrize("n", [BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 1])
def test_both_sides_of_the_block_size(pair: tuple[Any, Any], n: int) -> None:
    w3, arr = pair
    term = ("body", f"b{n}".encode())
    want, got = postings(w3)[term], postings(arr)[term]
    assert len(want) == n
    assert got == want
    for ix in (w3, arr):
        with ix.searcher() as s:
            m = s.reader().postings(*term)
            maxids = []
            while m.is_active():
                maxids.append(m.block_max_id())
                m._next_block()
        assert maxids == [min(n, k * BLOCK) - 1 for k in range(1, -(-n // BLOCK) + 1)]


def test_block_statistics_are_w3s(pair: tuple[Any, Any]) -> None:
    """Whoosh's limit=N skipping reads each block's max weight, min/max length and max id."""
    w3, arr = pair
    for fieldname, text in [("body", "alpha"), ("kw", "red"), ("body", "b257")]:
        stats = []
        for ix in (w3, arr):
            with ix.searcher() as s:
                m = s.reader().postings(fieldname, text)
                rows = []
                while m.is_active():
                    rows.append(
                        (m.block_max_id(), m.block_max_weight(), m.block_min_length(), m.block_max_length())
                    )
                    m._next_block()
                stats.append(rows)
        assert stats[1] == stats[0]


def test_searches_are_the_same(pair: tuple[Any, Any]) -> None:
    same_hits(*pair)


def test_merged_segments_read_the_same(tmp_path: Path, docs: list[dict[str, Any]]) -> None:
    w3 = write(tmp_path / "w3", docs, [W3Codec()] * 3)
    arr = write(tmp_path / "np", docs, [NpCodec()] * 3)
    assert len(arr._segments()) == 3
    same_hits(w3, arr)
    w3, arr = optimize(w3, W3Codec()), optimize(arr, NpCodec())
    assert [type(s) for s in arr._segments()] == [NpSegment]
    assert postings(arr) == postings(w3)
    same_hits(w3, arr)


def test_an_index_of_w3_and_array_segments(tmp_path: Path, docs: list[dict[str, Any]]) -> None:
    w3 = write(tmp_path / "w3", docs, [W3Codec()])
    mixed = write(tmp_path / "mixed", docs, [W3Codec(), NpCodec(), W3Codec()])
    assert leaf_matchers(mixed, "body", "alpha") == [W3LeafMatcher, NpLeafMatcher, W3LeafMatcher]
    same_hits(w3, mixed)
    merged = optimize(mixed, NpCodec())  # the W3 segments rewritten by the array codec
    assert leaf_matchers(merged, "body", "alpha") == [NpLeafMatcher]
    assert postings(merged) == postings(w3)
    back = optimize(write(tmp_path / "back", docs, [NpCodec(), NpCodec()]), W3Codec())
    assert postings(back) == postings(w3)


def test_deletions_read_the_same(tmp_path: Path, docs: list[dict[str, Any]]) -> None:
    indexes = []
    for name, codec in (("w3", W3Codec()), ("np", NpCodec())):
        ix = write(tmp_path / name, docs, [codec])
        with ix.writer(codec=codec) as w:
            for i in range(0, len(docs), 7):
                w.delete_by_term("id", str(i))
        indexes.append(index.open_dir(str(tmp_path / name)))
    same_hits(*indexes)
    indexes = [optimize(ix, c) for ix, c in zip(indexes, (W3Codec(), NpCodec()), strict=True)]
    assert postings(indexes[1]) == postings(indexes[0])
    same_hits(*indexes)


def test_project_schema_on_the_seeds(tmp_path: Path) -> None:
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.schema import document, make_schema

    corpus_ = load_corpus(use_cache=False)
    docs = [document(corpus_, i) for i in range(len(corpus_))]
    corpus_.close()
    sch = make_schema()
    w3 = write(tmp_path / "w3", docs, [W3Codec()], sch)
    arr = write(tmp_path / "np", docs, [NpCodec()], sch)
    assert postings(arr) == postings(w3)
    queries = ["learning", "language model", '"language models"', "title:learn", "diffus*", "authors:li"]
    for text in queries:
        for ix_pair in ((w3, arr),):
            with ix_pair[0].searcher() as a, ix_pair[1].searcher() as b:
                q = QueryParser("content", sch).parse(text)
                want = [(h.docnum, h.score) for h in a.search(q, limit=None)]
                got = [(h.docnum, h.score) for h in b.search(q, limit=None)]
                assert [d for d, _ in got] == [d for d, _ in want], text
                assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)


def test_values_that_are_not_plain_positions_are_kept_as_given(tmp_path: Path) -> None:
    """Characters (positions and offsets) and boosted terms: raw values and float weights."""
    sch = fields.Schema(body=fields.TEXT(chars=True), boosted=fields.TEXT(field_boost=1.5))
    docs = [
        {"body": "alpha beta alpha " * (i % 5 + 1), "boosted": "gamma " * (i % 3 + 1)} for i in range(300)
    ]
    assert postings(write(tmp_path / "np", docs, [NpCodec()], sch)) == postings(
        write(tmp_path / "w3", docs, [W3Codec()], sch)
    )


words = st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=30).map(" ".join)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=st.lists(words, min_size=1, max_size=2 * BLOCK + 3), blocklimit=st.sampled_from([2, 5, BLOCK]))
def test_generated_documents(
    tmp_path_factory: pytest.TempPathFactory, bodies: list[str], blocklimit: int
) -> None:
    base = tmp_path_factory.mktemp("gen")
    docs = [{"id": str(i), "body": b, "title": b[:20], "n": i} for i, b in enumerate(bodies)]
    w3 = write(base / "w3", docs, [W3Codec(blocklimit=blocklimit)])
    arr = write(base / "np", docs, [NpCodec(blocklimit=blocklimit)])
    assert postings(arr) == postings(w3)
    same_hits(
        w3, arr, ["alpha", "alpha beta", "beta OR gamma", '"alpha beta"', '"gamma gamma delta"', "title:al*"]
    )


def test_lists_encoded_from_arrays_are_the_writers(pair: tuple[Any, Any]) -> None:
    """listwriter.encode_list, given a term's postings as arrays, writes the bytes Whoosh's
    writer wrote through NpCodec, and the same term info."""
    from tui_reader.search.fast import blocks_np
    from tui_reader.search.fast.listwriter import Postings, encode_list

    _, arr = pair
    with arr.searcher() as s:
        reader = s.reader()
        checked = 0
        for fieldname, btext in reader.all_terms():
            a = blocks_np.block_arrays(reader, fieldname, btext)
            m = reader.postings(fieldname, btext)
            length = m._length[0] if isinstance(m._length, tuple) else m._length
            stored = m._postfile.get(m._startoffset, length)
            counts = None if a.offsets is None else a.offsets[1:] - a.offsets[:-1]
            fixed = reader.schema[fieldname].format.fixed_value_size()
            if a.positions is None and fixed != 0:
                continue  # raw values (Frequency's): not an array list
            data, info = encode_list(Postings(a.ids, a.weights, a.lengths, counts, a.positions))
            assert data == stored, (fieldname, btext)
            info.set_extent(m._startoffset, len(data))
            mine, theirs = W3TermInfo.from_bytes(info.to_bytes()), reader.term_info(fieldname, btext)
            assert [getattr(mine, k)() for k in STATS] == [getattr(theirs, k)() for k in STATS]
            checked += 1
    assert checked > 100


def test_term_vectors_stay_w3s(tmp_path: Path) -> None:
    """Vectors (postings keyed by term bytes) are written and read by W3's own classes."""
    sch = fields.Schema(body=fields.TEXT(vector=True, phrase=True))
    docs = [{"body": " ".join(random.Random(i).choices(WORDS, k=12))} for i in range(50)]
    got, want = [], []
    for codec, out in ((NpCodec(), got), (W3Codec(), want)):
        ix = write(tmp_path / type(codec).__name__, docs, [codec], sch)
        with ix.searcher() as s:
            out += [list(s.reader().vector_as("weight", d, "body")) for d in range(len(docs))]
    assert got == want and got[0]


@pytest.mark.parametrize("cuts", [[1], [BLOCK - 1], [BLOCK], [5, 140], [60, 61, 200]])
def test_lists_of_docnum_ranges_join_into_one(pair: tuple[Any, Any], cuts: list[int]) -> None:
    """A term's postings encoded in ranges (as the bulk build's workers would) and joined read
    back, through the directory and through Whoosh's matcher, as the whole list."""
    from whoosh.filedb.structfile import BufferFile

    from tui_reader.search.fast import blocks_np, columns
    from tui_reader.search.fast.listwriter import Postings, encode_list, join_lists

    _, arr = pair
    with arr.searcher() as s:
        reader = s.reader()
        full = blocks_np.block_arrays(reader, "body", "b257")
        assert full.offsets is not None and full.positions is not None
        counts = full.offsets[1:] - full.offsets[:-1]
        parts = []
        for lo, hi in zip([0, *cuts], [*cuts, full.ids.size], strict=True):
            sel = slice(int(full.offsets[lo]), int(full.offsets[hi]))
            p = Postings(
                full.ids[lo:hi], full.weights[lo:hi], full.lengths[lo:hi], counts[lo:hi], full.positions[sel]
            )
            parts.append(encode_list(p)[0])
        joined = join_lists(parts)
        cols = columns.read(joined)
        assert cols.ids.tolist() == full.ids.tolist() and cols.counts is not None
        assert cols.counts.tolist() == counts.tolist()
        m = NpLeafMatcher(BufferFile(joined), 0, len(joined), reader.schema["body"].format)
        rows = []
        while m.is_active():
            rows.append((m.id(), m.weight(), m.value_as("positions")))
            m.next()
        spans = zip(full.offsets[:-1].tolist(), full.offsets[1:].tolist(), strict=True)
        positions = [full.positions[a:b].tolist() for a, b in spans]
        want = list(zip(full.ids.tolist(), full.weights.tolist(), positions, strict=True))
        assert rows == want
