"""columns.read's full blocks gathered as rows (rowgather.py) against the index-array path and
Whoosh's own matcher, posting by posting, and queries against Whoosh's searcher (``limit=None``):
lists of one block, two and more, with a short last block, with blocks of mixed widths (docnum
gaps past 255 and 65535, position deltas past 255) and of mixed weight kinds."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from test_codec import write
from whoosh import fields
from whoosh.qparser import QueryParser

from tui_reader.search.fast import blocks_np, columns, docsets, rowgather, score
from tui_reader.search.fast.codec import NpCodec

N = 1500


def _docs() -> list[dict[str, Any]]:
    rng = random.Random(21)
    docs = []
    for i in range(N):
        words = [rng.choice(["alpha", "beta", "gamma"]) for _ in range(rng.randint(1, 12))]
        if i % 3 == 0:
            words += ["often"] * rng.randint(1, 3)
        if i < 256 or i % 300 == 0:  # two full blocks, then gaps past 255
            words.append("gappy")
        if i in (0, 1) or i > N - 300:  # a gap past 1,000 between its first posting and the rest
            words.append("leap")
        if i % 2 == 0:
            words = ["far", *(["pad"] * rng.choice([1, 300])), "far", *words]  # deltas past 255
        if i < 128:
            words.append("onlyonce")  # a single full block
        docs.append({"id": str(i), "body": " ".join(words)})
    return docs


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Any:
    schema = fields.Schema(id=fields.ID(stored=True, unique=True), body=fields.TEXT(phrase=True))
    return write(tmp_path_factory.mktemp("decode"), _docs(), [NpCodec()], schema)


def _without_rows(*args: Any) -> np.ndarray:
    return np.zeros(args[1].size, bool)


def _lists(ix: Any) -> list[tuple[bytes, bytes]]:
    with ix.searcher() as s:
        r = s.reader()
        out = []
        for fieldname, btext in r.all_terms():
            if fieldname == "body":
                out.append((btext, r.postings(fieldname, btext).list_bytes()))
        return out


def _same(a: columns.Columns, b: columns.Columns) -> None:
    for name in ("ids", "weights", "lengths", "counts", "deltas"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), name


def test_rows_read_what_index_arrays_read(ix: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    lists = _lists(ix)
    wanted = np.arange(0, N, 7, dtype=np.int64)
    cases = [(None, False), (wanted, False), (wanted, True)]
    ours = {(t, k, p): columns.read(buf, w, p, o) for t, buf in lists for k, (w, o) in enumerate(cases)
            for p in (True, False)}  # fmt: skip
    monkeypatch.setattr(columns, "put_rows", _without_rows)
    for (t, k, p), found in ours.items():
        w, o = cases[k]
        _same(found, columns.read(dict(lists)[t], w, p, o))


def test_both_sides_of_the_switch_are_met(ix: Any) -> None:
    """Lists with blocks the rows path writes and lists whose blocks it leaves (one block)."""
    with ix.searcher() as s:
        r = s.reader()
        many = columns.directory(r.postings("body", b"gappy").list_bytes())
        one = columns.directory(r.postings("body", b"onlyonce").list_bytes())
    assert len(many) >= 3 and set(many["idw"].tolist()) >= {1, 2}
    assert len(one) == 1


def test_rows_match_whooshs_matcher(ix: Any) -> None:
    with ix.searcher() as s:
        r = s.reader()
        for btext in (b"alpha", b"often", b"gappy", b"leap", b"far", b"pad"):
            ours = blocks_np.block_arrays(r, "body", btext)
            theirs = blocks_np.by_matcher(r, "body", r.postings("body", btext), True)
            assert np.array_equal(ours.ids, theirs.ids)
            assert np.array_equal(ours.weights, theirs.weights)
            assert np.array_equal(ours.lengths, theirs.lengths)
            assert ours.positions is not None and theirs.positions is not None
            assert np.array_equal(ours.positions, theirs.positions)
            assert np.array_equal(ours.offsets, theirs.offsets)


@pytest.mark.parametrize(
    "text",
    [
        "alpha",
        "often gappy",
        '"far pad"',
        '"pad far"',
        '"far alpha"',
        '"alpha far"',
        '"often alpha"',
        '"alpha gamma"',
        '"beta alpha"~2',
        '"far pad far"',
        "leap OR gappy",
        "far NOT often",
    ],
)
def test_queries_are_whooshs(ix: Any, text: str) -> None:
    with ix.searcher() as s:
        q = QueryParser("body", ix.schema).parse(text)
        want = [(h.docnum, h.score) for h in s.search(q, limit=None)]
        found = score.answer(s, q, len(want) + 1, True, False)
        assert found is not None
        top, total, exact = found
        assert exact and total == len(want)
        assert [(d, sc) for sc, d in top] == want


def test_a_block_past_its_list_is_an_error() -> None:
    raw = np.zeros(10, np.uint8)
    out = np.zeros(8, np.int64)
    with pytest.raises(ValueError):
        rowgather.put_rows(raw, np.array([0, 8]), np.array([4, 4]), np.dtype("u1"), out, np.array([0, 4]))


@pytest.fixture(scope="module")
def boosted(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Some papers' words weigh 1.5: blocks of float32 weights beside whole-number ones."""
    schema = fields.Schema(id=fields.ID(stored=True, unique=True), body=fields.TEXT(phrase=True))
    path = tmp_path_factory.mktemp("boosted")
    ix = write(path, _docs()[:600], [NpCodec()], schema)
    with ix.writer(codec=NpCodec()) as w:
        for i, doc in enumerate(_docs()[600:]):
            w.add_document(**doc, **({"_body_boost": 1.5} if (i // 128) % 2 else {}))
    with ix.writer(codec=NpCodec()) as w:
        w.optimize = True
    return ix.storage.open_index()


@pytest.mark.parametrize("positions", [True, False])
@pytest.mark.parametrize("which", ["ix", "boosted"])
def test_picked_postings_are_those_of_the_whole_blocks(request: pytest.FixtureRequest, which: str,
                                                       positions: bool) -> None:  # fmt: skip
    """``only``'s postings read one by one (rowgather.picked_items, picked_deltas): weights of
    every kind, 1- and 2-byte deltas, against the same postings of the blocks decoded whole."""
    index = request.getfixturevalue(which)
    widths: set[int] = set()
    kinds: set[int] = set()
    for wanted in (np.arange(0, N, 7, dtype=np.int64), np.arange(1, N, 2, dtype=np.int64)):
        for _, buf in _lists(index):
            widths.update(columns.directory(buf)["dw"].tolist())
            kinds.update(columns.directory(buf)["wkind"].tolist())
            whole = columns.read(buf, wanted, positions, False)
            picked = columns.read(buf, wanted, positions, True)
            _same(picked, columns._selected(whole, docsets.members(whole.ids, wanted)))
    assert {1, 2} <= widths
    assert kinds >= ({0, 1, 2} if which == "boosted" else {0, 1})


@pytest.mark.parametrize("text", ['"far pad"', '"alpha gamma"', "often gappy", "alpha beta"])
def test_boosted_queries_are_whooshs(boosted: Any, text: str) -> None:
    test_queries_are_whooshs(boosted, text)
