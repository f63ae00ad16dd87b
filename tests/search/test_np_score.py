"""score.py on array segments (npleaf.py) against Whoosh's own searcher, query by query with
``limit=None``: the same documents, order, scores and count, for every query shape Enter's fast
path covers, on array segments, several of them, with deletions, and mixed with W3 segments;
both sides of the block size (b127..b257), of Or's preloading (3+ clauses under 5,000 papers,
a tree of unions at two clauses or past 5,000) and of the phrase's slop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import index_state
from test_codec import BLOCK, WORDS, corpus, write
from whoosh import query
from whoosh.codec.whoosh3 import W3Codec
from whoosh.qparser import QueryParser

from tui_reader.search.fast import blocks_np, docsets, npleaf, score
from tui_reader.search.fast.codec import NpCodec

T = query.Term
QUERIES = [
    "alpha", "beta gamma", "alpha OR zeta", "alpha AND NOT beta", '"alpha beta"', '"beta gamma delta"',
    "al*", "title:gamma", "kw:red", "tag:x", "b127", "b128", "b129", "b257", "b128 AND b129",
    '"alpha alpha"', "title:alpha OR body:beta", "b128 OR b257 OR alpha", "alpha beta gamma delta",
    "alpha^2 beta", "(alpha OR beta)^0.5 gamma", "alpha OR beta OR gamma OR delta", "alpha NOT gamma",
    "alpha AND (beta OR zeta) AND NOT eta", '"alpha beta"~3', '"gamma delta epsilon"~2', "*", "body:*",
    "title:*", "e*", "*ta", "zeta~", "alpha~2", "b12*", '"b127 b128 b129 b257"', "nosuchword",
    "alpha AND nosuchword", '"alpha nosuchword"', "kw:red AND kw:blue", "alpha OR (beta AND gamma)",
    '"alpha beta" OR "gamma delta"', 'alpha NOT "beta gamma"', "title:(alpha beta)^3 kw:green",
]  # fmt: skip


def _parse(ix: Any, text: str) -> query.Query:
    return QueryParser("body", ix.schema).parse(text)


def _deleted(index: Any, docs: list[dict[str, Any]], codec: Any) -> Any:
    with index.writer(codec=codec) as w:
        w.merge = False
        for i in range(0, len(docs), 5):
            w.delete_by_term("id", str(i))
    return index.storage.open_index()


@pytest.fixture(scope="module", params=["np", "np-3-segments", "mixed", "np-deleted", "w3"])
def ix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    docs = corpus(2 * BLOCK + 5, seed=3)
    codecs = {
        "np": [NpCodec()],
        "np-3-segments": [NpCodec()] * 3,
        "mixed": [NpCodec(), W3Codec(), NpCodec()],
        "np-deleted": [NpCodec(), NpCodec()],
        "w3": [W3Codec()],
    }[request.param]
    index = write(tmp_path_factory.mktemp(request.param), docs, codecs)
    return _deleted(index, docs, NpCodec()) if request.param == "np-deleted" else index


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Past 5,000 papers: Whoosh's Or of three clauses or more is a tree of unions there."""
    docs = [
        {"id": str(i), "body": " ".join(["alpha", "beta", "gamma", "delta"][: 1 + i % 4])}
        for i in range(5050)
    ]
    for i in range(0, 5050, 7):
        docs[i]["body"] += " zeta eta alpha"
    return write(tmp_path_factory.mktemp("big"), docs, [NpCodec()])


_WHOOSHS: dict[tuple[Any, ...], list[tuple[int, float]]] = {}


def whooshs(index: Any, s: Any, q: query.Query) -> list[tuple[int, float]]:
    """Whoosh's own ``limit=None`` answer, kept per index state and query: the tests ask the same
    query of one index on each side of a switch of ours (most of their time was Whoosh's reference,
    a long phrase 0.46 s of the 0.47)."""
    state = index_state(index)
    if state is None:
        return [(h.docnum, h.score) for h in s.search(q, limit=None)]
    if (state, q) not in _WHOOSHS:
        _WHOOSHS[state, q] = [(h.docnum, h.score) for h in s.search(q, limit=None)]
    return _WHOOSHS[state, q]


def compare(index: Any, q: query.Query, limit: int = 10) -> int:
    """score.py's answer against Whoosh's, for the page and for every match; the count."""
    with index.searcher() as s:
        want = whooshs(index, s, q)
        found = score.answer(s, q, limit, True, False)
        arrays = any(npleaf.is_array_segment(r) for r, _ in s.reader().leaf_readers())
        if found is None and not arrays:  # W3 alone: Leaf leaves some queries to Whoosh
            return len(want)
        assert found is not None, f"{q!r} fell back to Whoosh"
        top, total, counted = found
        assert counted and total == len(want), q
        assert [d for _, d in top] == [d for d, _ in want[:limit]], q
        assert [sc for sc, _ in top] == pytest.approx([sc for _, sc in want[:limit]], rel=1e-12), q
        every = score.every_match(s, q)
        assert every is not None
        if isinstance(every, dict):
            ranked = sorted(every.items(), key=lambda ds: (-ds[1], ds[0]))
        else:
            assert (
                npleaf.is_array_segment(s.reader().leaf_readers()[0][0]) or len(s.reader().leaf_readers()) > 1
            )
            ranked = [(d, sc) for sc, d in score.top_arrays(every, len(want))]
        assert [d for d, _ in ranked] == [d for d, _ in want], q
        assert [sc for _, sc in ranked] == pytest.approx([sc for _, sc in want], rel=1e-12), q
        return total


@pytest.fixture(params=["search", "bitmap"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both sides of docsets' switch from binary search to bitmaps (BITMAP_MIN)."""
    if request.param == "bitmap":
        monkeypatch.setattr(docsets, "BITMAP_MIN", 1)
        monkeypatch.setattr(docsets, "BITMAP_RATIO", 10**9)
    return str(request.param)


@pytest.mark.parametrize("text", QUERIES)
def test_enter_is_whooshs_answer(ix: Any, text: str, side: str) -> None:
    compare(ix, _parse(ix, text))


@pytest.mark.parametrize(
    "q",
    [
        query.And([T("body", "alpha"), query.Not(T("body", "beta"))]),
        query.And([T("body", "alpha", boost=2.0), T("title", "beta"), T("kw", "red", boost=0.5)]),
        query.Or([T("body", "alpha"), query.Or([T("body", "zeta")], boost=3.0)]),
        query.Or([T("body", "alpha"), T("body", "beta"), T("body", "eta")], boost=2.0),
        query.AndNot(query.Phrase("body", ["alpha", "beta"]), T("title", "gamma")),
        query.Phrase("body", ["alpha", "beta"], boost=1.5),
        query.Phrase("body", ["alpha"]),
        query.Phrase("title", ["alpha", "gamma"], slop=2),
        query.Prefix("body", "b12", boost=2.0),
        query.Every("body", boost=2.0),
        query.Every(),
        query.And([query.Prefix("body", "a"), T("body", "beta")]),
    ],
    ids=repr,
)
def test_shapes(ix: Any, q: query.Query, side: str) -> None:
    compare(ix, q)


@pytest.mark.parametrize(
    "text", ["alpha OR zeta OR eta", "alpha OR beta OR gamma OR delta", "zeta eta", "gam*"]
)
def test_past_five_thousand_papers(big: Any, text: str) -> None:
    assert compare(big, _parse(big, text)) > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    bodies=st.lists(st.lists(st.sampled_from(WORDS[:3]), min_size=1, max_size=12).map(" ".join), min_size=1,
                    max_size=40),
    words=st.lists(st.sampled_from(WORDS[:3]), min_size=1, max_size=3),
    slop=st.integers(1, 3),
)  # fmt: skip
def test_generated_phrases(
    tmp_path_factory: pytest.TempPathFactory, bodies: list[str], words: list[str], slop: int
) -> None:
    """Phrases of repeated words, at a paper's first position, with slop: SpanNear2's answer."""
    path = tmp_path_factory.mktemp("npphrase")
    index = write(
        path, [{"id": str(i), "body": b} for i, b in enumerate(bodies)], [NpCodec(blocklimit=4)] * 2
    )
    compare(index, query.Phrase("body", words, slop=slop))


def test_only_the_wanted_postings_and_their_positions(tmp_path: Path) -> None:
    """``only``: the wanted papers' postings, their positions picked from blocks of 1-, 2- and
    4-byte deltas (a word 300 and 70,000 tokens in), one block or several, as the whole list."""
    docs = [{"id": str(i), "body": "ww xx " * (i % 5) + ("pad " * 300 if i % 7 == 0 else "") + "ww"}
            for i in range(60)]  # fmt: skip
    docs[13]["body"] = "pad " * 70_000 + "ww ww"
    index = write(tmp_path / "np", docs, [NpCodec(blocklimit=8)])
    rng = np.random.default_rng(5)
    with index.searcher() as s:
        reader = s.reader()
        full = blocks_np.block_arrays(reader, "body", "ww")
        assert full.positions is not None and int(np.diff(full.positions).max()) >= 1 << 16
        for size in (1, 3, 7, 25, 60):
            wanted = np.unique(rng.integers(0, 60, size))
            for positions in (True, False):
                got = blocks_np.block_arrays(reader, "body", "ww", wanted, positions=positions, only=True)
                want = full.select(docsets.members(full.ids, wanted))
                assert got.ids.tolist() == want.ids.tolist()
                assert got.weights.tolist() == want.weights.tolist()
                assert got.lengths.tolist() == want.lengths.tolist()
                if positions:
                    assert got.positions is not None and want.positions is not None
                    assert got.positions.tolist() == want.positions.tolist()
                    assert got.offsets is not None and want.offsets is not None
                    assert got.offsets.tolist() == want.offsets.tolist()


def test_queries_it_does_not_cover_go_to_whoosh(ix: Any) -> None:
    with ix.searcher() as s:
        assert score.search(s, query.NumericRange("n", 5, 90), 10) is None
        assert score.search(s, query.Or([T("body", "alpha")], scale=0.5), 10) is None


def test_the_self_check_runs_the_array_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its array sample is NpCodec segments with a deletion; npleaf scoring off by a hair there
    is a difference, which switches the fast paths off."""
    from tui_reader.search.fast import blocks_np, fastcheck, health, selfcheck

    sample = selfcheck.array_sample()
    with sample.searcher() as s:
        leaves = s.reader().leaf_readers()
        assert len(leaves) == 2 and all(npleaf.is_array_segment(r) for r, _ in leaves)
        assert s.reader().has_deletions()
    assert fastcheck.difference(sample) is None
    real = blocks_np.binary_sum
    monkeypatch.setattr(blocks_np, "binary_sum", lambda parts: real(parts) * (1 + 1e-6))
    assert "ranks differently" in (fastcheck.difference(selfcheck.array_sample()) or "")
    health.reset()
    try:
        assert not selfcheck.status().ok
    finally:
        health.reset()


@pytest.fixture(scope="module")
def searchers(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The reader's Searcher on the same 400 papers: the index written by Whoosh's writer through
    NpCodec, and through W3 (the reference: its paths are compared with Whoosh elsewhere)."""
    import whoosh.index

    from bench import corpusgen
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.persistent import SearchIndex
    from tui_reader.search.index.schema import document, make_schema
    from tui_reader.search.searcher import Searcher

    base = tmp_path_factory.mktemp("npsearcher")
    corpus = load_corpus([corpusgen.write(base / "papers.jsonl", 400)], use_cache=False)
    made = {}
    for name, codec in (("np", NpCodec()), ("w3", W3Codec())):
        index = SearchIndex(corpus, root=base / name)
        index.dir.mkdir(parents=True)
        ix = whoosh.index.create_in(str(index.dir), make_schema())
        with ix.writer(codec=codec) as w:
            for i in range(len(corpus)):
                w.add_document(**document(corpus, i))
        ix.close()
        made[name] = Searcher(index, warm=False)
    yield corpus, made
    for searcher in made.values():
        searcher.index.close()
    corpus.close()


@pytest.mark.parametrize(
    "text",
    ["learning", "graph neural", '"neural network"', "title:learning", "learning NOT graph", "gra*",
     "robust~", "(graph OR policy) AND learning", "*", "zzzzunknownword", "learning is:read"],
)  # fmt: skip
def test_the_searcher_on_an_array_index(searchers: Any, text: str) -> None:
    """Enter, a keystroke, a sort and a view answer on the array index as on the W3 one."""
    from tui_reader.search.ordering import Order
    from tui_reader.search.query.modes import SearchMode
    from tui_reader.search.subsets import Only

    corpus, made = searchers
    some = frozenset(corpus.ids[::3])
    order = Order("mod7", [row % 7 for row in range(len(corpus))])
    sets = {"read": some}
    asks = [
        {"limit": 1000, "sets": sets},
        {"mode": SearchMode.TYPING, "limit": 20, "sets": sets},
        {"limit": 50, "order": order, "sets": sets},
        {"limit": 50, "only": Only(besides=some), "sets": sets},
    ]
    for ask in asks:
        got, want = (made[name].search(text, **ask) for name in ("np", "w3"))
        assert [h.id for h in got.hits] == [h.id for h in want.hits], (text, ask)
        assert [h.score for h in got.hits] == pytest.approx([h.score for h in want.hits], rel=1e-12)
        assert (got.total, got.exact, got.order) == (want.total, want.exact, want.order), (text, ask)
