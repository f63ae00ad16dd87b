"""The ids of a file still being parsed (issue 21): found through sorted runs of their hashes
(idruns.GrowingLookup), not a dict of every id, with a dict's answers at every batch of the
parse, on both sides of BULK, and when every hash collides."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_reader.corpus import idruns, outcomes, parse_cache, strcol, views
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.idruns import GrowingLookup
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.strcol import hashes_of

IDS = st.text("abc", min_size=1, max_size=3)  # few distinct ids: repeats within and across chunks


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(IDS, max_size=12), max_size=10), st.lists(IDS, max_size=5))
def test_the_runs_hold_each_row_under_its_id(chunks: list[list[str]], others: list[str]) -> None:
    lookup, rows = GrowingLookup(), []
    for chunk in chunks:
        lookup.add(chunk, len(rows))
        rows += chunk
        assert len(lookup) == len(rows)
        assert len(lookup._runs) <= 2 * max(1, len(rows)).bit_length()
        for pid in {*rows, *others}:
            assert lookup.candidates(pid) == [r for r, x in enumerate(rows) if x == pid]  # rows in order
        asked = hashes_of([*rows, *others])
        assert lookup.among(asked).tolist() == np.isin(asked, hashes_of(rows)).tolist()


def _records(n: int, offset: int = 0) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(offset, offset + n):
        out.append({"title": f"Paper {i} on graphs", "abstract": f"Abstract {i} on graphs."})
        if i % 17 == 3:  # the same id (the abstract's) again: folded or renamed, never a second hit
            out.append({"title": f"Another paper {i}", "abstract": f"Abstract {i} on graphs."})
        if i % 23 == 5:
            out.append(dict(out[-1]))
    return out


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def _check(corpus: Corpus, count: int, collide: bool = False) -> None:
    """Every listed paper found under its id, absent ids not, the hashes held as the ids'."""
    index, ids = corpus.index_of, corpus.ids[:count]
    for i, pid in enumerate(ids):
        assert index.get(pid) == i, pid
    assert index.get("nobody") is None and index.get("0123456789ab") is None
    assert index.absent([*ids, "nobody", "0123456789ab"]) == {"nobody", "0123456789ab"}
    assert index.hashes_held(hashes_of(ids)).all()
    assert index.held([*ids, "nobody"]) == [True] * len(ids) + [False]


@pytest.fixture(autouse=True)
def _batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    monkeypatch.setattr(parse_cache, "STREAM_SECONDS", 0.0)
    monkeypatch.setattr(parse_cache, "STREAM_ROWS", 16)


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("small_first", [False, True])
@pytest.mark.parametrize("bulk", [8, 10**9])
def test_every_batch_of_a_parse_finds_its_papers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bulk: int, small_first: bool, collide: bool
) -> None:
    monkeypatch.setattr(views, "BULK", bulk)
    if collide:  # every id under one hash: the strings decide
        monkeypatch.setattr(strcol, "id_hash", lambda pid: 7)
        monkeypatch.setattr(idruns, "id_hash", lambda pid: 7)
    paths = [_write(tmp_path / "b.jsonl", _records(300))]
    if small_first:
        paths.insert(0, _write(tmp_path / "a.jsonl", _records(5, offset=290)))  # all fold into b's
    growing: list[int] = []
    seen = [(0, 0)]  # (papers, misses) after the last batch's checks

    def batch(corpus: Corpus, count: int) -> None:
        index = corpus.index_of
        # a parse checks every row against the ids in one batch, not a miss each (past MISSES:
        # a dict of every id); the few rows that may fold are looked up one by one
        assert index._misses - seen[-1][1] <= max(8, (count - seen[-1][0]) // 2)
        _check(corpus, count, collide)
        seen.append((count, index._misses))
        growing.append(sum(isinstance(f.lookup, GrowingLookup) for f in index._files.values()))
        parsing = corpus.files[-1].lookup is None
        if bulk == 8 and parsing and count > 100:  # the file being parsed is not in the dict
            assert growing[-1] == 1 and len(index._recent) < 60
        assert growing[-1] == 0 or parsing

    corpus = load_corpus(paths, use_cache=False, on_batch=batch)
    assert (max(growing) > 0) == (bulk == 8)
    _check(corpus, len(corpus), collide)
    monkeypatch.setattr(views, "BULK", 10**9)
    reference = load_corpus(paths, use_cache=False)  # the dict of every id, as before
    assert list(corpus.ids) == list(reference.ids)
    assert [corpus.index_of.get(pid) for pid in reference.ids] == list(range(len(reference)))
