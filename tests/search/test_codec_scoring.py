"""blocks_np against Whoosh: the arrays a term's postings decode to, and BM25F for terms, ANDs and
phrases, compared with Whoosh's own matcher and ``searcher.search(q, limit=None)`` on array
segments, W3 segments (the slow path) and both mixed, with deletions."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_codec import BLOCK, WORDS, corpus, write
from whoosh import query
from whoosh.codec.whoosh3 import W3Codec
from whoosh.util.numeric import length_to_byte

from tui_reader.search.fast import blocks_np
from tui_reader.search.fast.codec import NpCodec

FIELDS = ["body", "title", "kw", "tag", "flat"]


@pytest.fixture(scope="module", params=["np", "np-3-segments", "mixed", "w3", "np-deleted"])
def ix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    docs = corpus(2 * BLOCK + 5, seed=1)
    codecs = {
        "np": [NpCodec()],
        "np-3-segments": [NpCodec()] * 3,
        "mixed": [NpCodec(), W3Codec(), NpCodec()],
        "w3": [W3Codec()],
        "np-deleted": [NpCodec(), NpCodec()],
    }[request.param]
    path = tmp_path_factory.mktemp(request.param)
    index = write(path, docs, codecs)
    if request.param == "np-deleted":
        with index.writer(codec=NpCodec()) as w:
            w.merge = False
            for i in range(0, len(docs), 5):
                w.delete_by_term("id", str(i))
        index = index.storage.open_index()
    return index


def whoosh_hits(ix: Any, q: Any) -> dict[int, float]:
    with ix.searcher() as s:
        return {h.docnum: h.score for h in s.search(q, limit=None)}


def check(ix: Any, q: Any, scored: blocks_np.Scored) -> None:
    want = whoosh_hits(ix, q)
    assert scored.docnums.tolist() == sorted(want), q
    assert scored.scores.tolist() == pytest.approx([want[d] for d in sorted(want)], abs=1e-6), q
    with ix.searcher() as s:
        ranked = [(h.docnum, h.score) for h in s.search(q, limit=None)]
    assert [d for d, _ in scored.ranked()] == [d for d, _ in ranked]


def test_arrays_are_the_matchers_postings(ix: Any) -> None:
    with ix.searcher() as s:
        for reader, _ in s.reader().leaf_readers():
            for fieldname, btext in reader.all_terms():
                arrays = blocks_np.block_arrays(reader, fieldname, btext)
                m = reader.postings(fieldname, btext)
                rows = []
                while m.is_active():
                    pos = m.value_as("positions") if m.supports("positions") else None
                    rows.append((m.id(), m.weight(), pos))
                    m.next()
                assert arrays.ids.tolist() == [r[0] for r in rows]
                assert arrays.weights.tolist() == [r[1] for r in rows]
                lengths = [length_to_byte(reader.doc_field_length(d, fieldname)) for d in arrays.ids.tolist()]
                assert arrays.lengths.tolist() == lengths, (fieldname, btext)
                if rows and rows[0][2] is not None:
                    assert arrays.positions is not None and arrays.offsets is not None
                    got = [
                        arrays.positions[a:b].tolist() for a, b in itertools.pairwise(arrays.offsets.tolist())
                    ]
                    assert got == [r[2] for r in rows]


def test_absent_term_is_empty(ix: Any) -> None:
    with ix.searcher() as s:
        reader = s.reader().leaf_readers()[0][0]
        arrays = blocks_np.block_arrays(reader, "body", "nosuchword")
        assert arrays.ids.size == 0 and arrays.offsets is not None and arrays.offsets.tolist() == [0]
        assert blocks_np.term(s, "body", "nosuchword").docnums.size == 0


def test_term_scores(ix: Any) -> None:
    with ix.searcher() as s:
        terms = [(f, t) for f, t in s.reader().all_terms() if f in FIELDS]
        for fieldname, btext in terms:
            check(ix, query.Term(fieldname, btext.decode()), blocks_np.term(s, fieldname, btext))


@pytest.mark.parametrize(
    "terms",
    [
        [("body", "alpha"), ("body", "beta")],
        [("body", "b128"), ("body", "b129"), ("body", "gamma")],
        [("body", "b127"), ("title", "delta")],
        [("kw", "red"), ("body", "b257"), ("tag", "x")],
        [("body", "alpha"), ("body", "nosuchword")],
        [("body", "zeta")],
    ],
)
def test_and_scores(ix: Any, terms: list[tuple[str, str]]) -> None:
    q = query.And([query.Term(f, t) for f, t in terms])
    with ix.searcher() as s:
        check(ix, q, blocks_np.conjoined(s, terms))


@pytest.mark.parametrize(
    "words",
    [["alpha", "beta"], ["beta", "gamma", "delta"], ["alpha", "alpha"], ["b127", "b128"], ["b128", "b127"],
     ["gamma", "b127", "b128", "b129"], ["zeta", "nosuchword"], ["eta", "eta", "eta"]],
)  # fmt: skip
def test_phrase_scores(ix: Any, words: list[str]) -> None:
    with ix.searcher() as s:
        check(ix, query.Phrase("body", words), blocks_np.phrase(s, "body", words))


def test_a_phrase_that_holds_is_found(ix: Any) -> None:
    """The edge terms stand together at every document's end: the phrase holds wherever both are."""
    with ix.searcher() as s:
        got = blocks_np.phrase(s, "body", ["b127", "b128", "b129", "b257"])
        assert got.docnums.size == len({d for d in range(127) if not s.reader().is_deleted(d)})


def test_other_weightings_are_refused(ix: Any) -> None:
    from whoosh import scoring

    with ix.searcher(weighting=scoring.TF_IDF()) as s, pytest.raises(ValueError, match="BM25F"):
        blocks_np.term(s, "body", "alpha")


def test_per_field_b(ix: Any) -> None:
    from whoosh import scoring

    weighting = scoring.BM25F(B=0.5, K1=2.0, body_B=0.9)
    with ix.searcher(weighting=weighting) as s:
        got = blocks_np.conjoined(s, [("body", "alpha"), ("title", "beta")])
        q = query.And([query.Term("body", "alpha"), query.Term("title", "beta")])
        want = {h.docnum: h.score for h in s.search(q, limit=None)}
    assert got.docnums.tolist() == sorted(want)
    assert got.scores.tolist() == pytest.approx([want[d] for d in sorted(want)], abs=1e-6)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    bodies=st.lists(st.lists(st.sampled_from(WORDS[:4]), min_size=1, max_size=25).map(" ".join), min_size=1,
                    max_size=BLOCK + 40),
    words=st.lists(st.sampled_from(WORDS[:4]), min_size=2, max_size=3),
)  # fmt: skip
def test_generated_phrases(
    tmp_path_factory: pytest.TempPathFactory, bodies: list[str], words: list[str]
) -> None:
    path: Path = tmp_path_factory.mktemp("genphrase")
    index = write(path, [{"id": str(i), "body": b} for i, b in enumerate(bodies)], [NpCodec(blocklimit=16)])
    with index.searcher() as s:
        check(index, query.Phrase("body", words), blocks_np.phrase(s, "body", words))
        and_q = query.And([query.Term("body", w) for w in words])
        check(index, and_q, blocks_np.conjoined(s, [("body", w) for w in words]))
        assert np.all(np.diff(blocks_np.term(s, "body", words[0]).docnums) > 0)


def test_blocks_of_different_widths_and_kinds(tmp_path: Path) -> None:
    """One posting list whose blocks differ in docnum width (gaps of 300 papers), position width
    (a word 300 tokens in), weight kind (all ones, then whole numbers) and lengths: the whole-list
    decode (columns.py) scatters each into place."""
    from tui_reader.search.fast import columns
    from tui_reader.search.fast.codec import HEAD, MAGIC

    docs = []
    for i in range(700):
        if i < 16:
            body = "ww " + "xx " * (i * 40)
        elif i % 300 == 0 or i > 680:
            body = "pad " * 300 + "ww ww"
        else:
            body = "xx"
        docs.append({"id": str(i), "body": body})
    index = write(tmp_path / "np", docs, [NpCodec(blocklimit=8)])
    with index.searcher() as s:
        reader = s.reader()
        arrays = blocks_np.block_arrays(reader, "body", "ww")
        m = reader.postings("body", "ww")
        buf = m._postfile.get(m._startoffset, m._length[0] if isinstance(m._length, tuple) else m._length)
        rows = []
        while m.is_active():
            rows.append((m.id(), m.weight(), m.value_as("positions")))
            m.next()
    assert buf[:4] == MAGIC
    heads, pos = [], 4
    while True:
        heads.append(HEAD.unpack_from(buf, pos))
        pos += HEAD.size + heads[-1][0]
        if heads[-1][10] & 1:
            break
    assert len({h[7] for h in heads}) > 1 and len({h[8] for h in heads}) > 1  # id widths, weight kinds
    cols = columns.read(buf)
    assert cols.deltas is not None and int(cols.deltas.max()) >= 256  # two-byte position deltas too
    assert arrays.ids.tolist() == [r[0] for r in rows]
    assert arrays.weights.tolist() == [r[1] for r in rows]
    assert arrays.positions is not None and arrays.offsets is not None
    assert [arrays.positions[a:b].tolist() for a, b in itertools.pairwise(arrays.offsets.tolist())] == [
        r[2] for r in rows
    ]


@pytest.mark.parametrize("term", ["alpha", "b128", "b257", "zeta"])
def test_wanted_blocks_hold_every_wanted_posting(ix: Any, term: str) -> None:
    """With wanted docnums, only some blocks are decoded: the postings of the wanted papers are
    all there, as in the whole list."""
    rng = np.random.default_rng(7)
    with ix.searcher() as s:
        for reader, _ in s.reader().leaf_readers():
            full = blocks_np.block_arrays(reader, "body", term)
            for size in (0, 1, 3, 40):
                wanted = np.unique(rng.integers(0, reader.doc_count_all(), size))
                part = blocks_np.block_arrays(reader, "body", term, wanted=wanted)
                assert set(part.ids.tolist()) <= set(full.ids.tolist())
                a, _ = blocks_np.intersect(full.ids, wanted)
                b, _ = blocks_np.intersect(part.ids, wanted)
                got, want = part.select(b), full.select(a)
                assert got.ids.tolist() == want.ids.tolist()
                assert got.weights.tolist() == want.weights.tolist()
                assert got.lengths.tolist() == want.lengths.tolist()
                assert got.positions is not None and want.positions is not None
                assert got.positions.tolist() == want.positions.tolist()
                if size == 0:
                    assert part.ids.size == 0 or not isinstance(
                        reader.postings("body", term), blocks_np.NpLeafMatcher
                    )
