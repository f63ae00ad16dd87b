"""phrasekeys.py (Enter's phrases on array segments, each word's list read once) against
Whoosh's own searcher with ``limit=None``: page, scores and count, on both sides of paired's
SMALL (postings of up to SMALL positions read as rows, the others as keys), with 1-, 2- and
4-byte position deltas, slop 1-3, repeated words, three-word chains, deletions, several
segments, a phrase inside an AND (wanted papers), a word of one paper; and npleaf's first path
(npphrase.holding), which answers where a word's list is not an array list of positions."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from test_codec import write
from test_np_score import compare
from whoosh import fields, query

from tui_reader.search.fast import blocks_np, phrasekeys
from tui_reader.search.fast.codec import NpCodec

N = 400
WORDS = ["ww", "xx", "yy", "zz"]


def _docs() -> list[dict[str, Any]]:
    rng = random.Random(7)
    docs = []
    for i in range(N):
        words = [rng.choice(WORDS) for _ in range(rng.choice([1, 2, 3, 6, 12, 20]))]
        if i % 9 == 0:  # position deltas past 255 (a block of 2-byte deltas)
            words = [*words[:2], *(["pad"] * 300), *words[2:], "ww", "xx"]
        docs.append({"id": str(i), "body": " ".join(words)})
    docs[5]["body"] = " ".join(["pad"] * 70_000 + ["ww", "xx", "ww", "yy"])  # 4-byte deltas
    docs[11]["body"] += " lonely xx"  # a word of one paper
    return docs


@pytest.fixture(scope="module", params=["one", "segments-deleted"])
def ix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    schema = fields.Schema(id=fields.ID(stored=True, unique=True), body=fields.TEXT(phrase=True))
    path = tmp_path_factory.mktemp(request.param)
    if request.param == "one":
        return write(path, _docs(), [NpCodec(blocklimit=16)], schema)
    index = write(path, _docs(), [NpCodec(blocklimit=16)] * 3, schema)
    with index.writer(codec=NpCodec()) as w:
        w.merge = False
        for i in range(0, N, 4):
            w.delete_by_term("id", str(i))
    return index.storage.open_index()


@pytest.fixture(autouse=True)
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every phrase of these small indexes through phrasekeys (KEYED_MIN's upper side)."""
    monkeypatch.setattr(phrasekeys, "KEYED_MIN", 0)


@pytest.fixture(params=[0, 1, 2, 4, 12])
def small(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """paired's SMALL: 0 every candidate by keys, 12 every one here by rows (but the 4-byte
    paper and the longest), the default 4 between."""
    monkeypatch.setattr(phrasekeys, "SMALL", request.param)
    return int(request.param)


PHRASES = [
    (["ww", "xx"], 1), (["xx", "ww"], 1), (["ww", "ww"], 1), (["yy", "zz"], 2), (["zz", "yy"], 3),
    (["ww", "xx", "yy"], 1), (["xx", "xx", "ww"], 2), (["pad", "ww"], 1), (["ww", "pad"], 1),
    (["pad", "pad"], 1), (["lonely", "xx"], 1), (["xx", "lonely"], 1),
]  # fmt: skip


@pytest.mark.parametrize(("words", "slop"), PHRASES, ids=lambda x: str(x))
def test_phrases_are_whooshs(ix: Any, small: int, words: list[str], slop: int) -> None:
    assert compare(ix, query.Phrase("body", words, slop=slop)) > 0 or "lonely" in words


@pytest.mark.parametrize(("words", "slop"), PHRASES[:8], ids=lambda x: str(x))
@pytest.mark.parametrize("why", ["no listing", "below KEYED_MIN"])
def test_npleafs_first_path(ix: Any, words: list[str], slop: int, why: str,
                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """npleaf's first path (npphrase.holding) where a word's list is not read as a Listing
    (phrasekeys.phrase is None) or the rarest word is in fewer than KEYED_MIN papers."""
    if why == "no listing":
        monkeypatch.setattr(phrasekeys, "listing", lambda *args: None)
    else:
        monkeypatch.setattr(phrasekeys, "KEYED_MIN", N + 1)
    assert compare(ix, query.Phrase("body", words, slop=slop)) > 0


@pytest.mark.parametrize("side", [0, 1])
def test_keyed_min_switch(ix: Any, side: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the rarest word's document frequency (in the segment where it is highest) phrasekeys
    answers there; one past it, npleaf's first path everywhere (phrasekeys.listing never
    asked); both Whoosh's answer."""
    with ix.searcher() as s:
        leaves = [r for r, _ in s.reader().leaf_readers()]
        df = max(min(r.doc_frequency("body", w) for w in (b"ww", b"xx")) for r in leaves)  # a segment's
    monkeypatch.setattr(phrasekeys, "KEYED_MIN", df + side)
    asked: list[bytes] = []
    real = phrasekeys.listing
    monkeypatch.setattr(phrasekeys, "listing", lambda r, f, b, w: asked.append(b) or real(r, f, b, w))
    assert compare(ix, query.Phrase("body", ["ww", "xx"])) > 0
    assert bool(asked) == (side == 0)


@pytest.mark.parametrize("slop", [1, 2])
def test_a_phrase_among_wanted_papers(ix: Any, small: int, slop: int) -> None:
    """Inside an AND the phrase reads only the papers the rarer part left (``wanted``)."""
    q = query.And([query.Term("body", "zz"), query.Phrase("body", ["ww", "xx"], slop=slop)])
    assert compare(ix, q) > 0


def test_both_paths_are_met(ix: Any) -> None:
    """The rows and the keys both decide some candidates at the default SMALL, and agree."""
    with ix.searcher() as s:
        reader = s.reader().leaf_readers()[0][0]
        first = phrasekeys.listing(reader, "body", b"ww", None)
        second = phrasekeys.listing(reader, "body", b"xx", first.ids if first else None)
        assert first is not None and second is not None
        ids = second.ids[np.isin(second.ids, first.ids)]
        at_first, at_second = np.searchsorted(first.ids, ids), np.searchsorted(second.ids, ids)
        counts_first = first.firsts(at_first)[0]
        counts_second = second.firsts(at_second)[0]
        both_small = (counts_first <= phrasekeys.SMALL) & (counts_second <= phrasekeys.SMALL)
        assert both_small.any() and not both_small.all()
        by_rows = phrasekeys.paired(first, at_first, second, at_second, 1)
        keys = [first.keys(at_first), second.keys(at_second)]
        assert by_rows.tolist() == phrasekeys.chained(keys, 1).tolist()


def test_keys_are_candidates_and_positions(ix: Any) -> None:
    """Listing.keys: candidate i's positions as ``i << SHIFT | position``, as blocks_np reads
    them (compared with Whoosh's matcher posting by posting in test_codec_scoring)."""
    with ix.searcher() as s:
        reader = s.reader().leaf_readers()[0][0]
        listed = phrasekeys.listing(reader, "body", b"ww", None)
        assert listed is not None
        keep = np.arange(0, listed.ids.size, 3)
        keys = listed.keys(keep)
        whole = blocks_np.block_arrays(reader, "body", b"ww", deleted=blocks_np.EMPTY_I)  # every posting
        assert whole.positions is not None and whole.offsets is not None
        assert listed.ids.tolist() == whole.ids.tolist()
        starts, ends = whole.offsets[:-1][keep], whole.offsets[1:][keep]
        spans = enumerate(zip(starts, ends, strict=True))
        want = [rank << phrasekeys.SHIFT | int(p) for rank, (a, b) in spans for p in whole.positions[a:b]]
        assert keys.tolist() == want
