"""IdIndex.absent with a file added to a large one (issue 21): each large file's ids that are papers'
compared in numpy, no dict of every id, the same answer as the general rule (an id is absent
exactly when no paper lists under it), on both sides of BULK and of the hex/bytes switch."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_reader.corpus import hexids, outcomes, views
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus

JUNK = ["nope", "x" * 12, "\u00e9" * 12, "", "0" * 12, "abc", "f" * 16, 5, None]


def _record(i: int, doi: str = "") -> dict[str, object]:
    out: dict[str, object] = {"title": f"Paper {i} on graphs", "abstract": f"Abstract {i} about graphs."}
    if doi:
        out["doi"] = doi
    return out


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def _load(paths: list[Path]) -> Corpus:
    load_corpus(paths)
    return load_corpus(paths)  # from the parse cache: the files' columns and lookups


def _given(corpus: Corpus) -> list[object]:
    rows = [pid for data in corpus.files for pid in data.ids]
    return [*rows, *corpus.ids, *JUNK]


def _general(corpus: Corpus, given: list[object]) -> set[object]:
    ids = set(corpus.ids)
    return {x for x in given if x not in ids}


def _second(kinds: list[tuple[int, int]]) -> list[dict[str, object]]:
    """File two: a copy of file one's record (folds), the same text under another DOI (another
    work), the same text without a DOI (folds, its row's own id no paper's), or a new record."""
    out = []
    for kind, i in kinds:
        if kind == 0:
            out.append(_record(i, doi=f"10.1234/a{i}"))
        elif kind == 1:
            out.append(_record(i, doi=f"10.5678/b{i}"))
        elif kind == 2:
            out.append(_record(i))
        else:
            out.append(_record(i + 2000))
    return out


FIRST = [_record(i, doi=f"10.1234/a{i}") for i in range(40)] + [_record(3, doi="10.1234/a3")]


@pytest.fixture(autouse=True)
def _one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")


@pytest.mark.parametrize("bulk", [8, 10**9])
@pytest.mark.parametrize("two_large", [False, True])
def test_an_added_file_answers_as_the_general_rule(tmp_path: Path, bulk: int, two_large: bool) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(views, "BULK", bulk)
        kinds = [(k % 4, k) for k in range(30 if two_large else 6)]
        one = _write(tmp_path / "one.jsonl", FIRST)
        two = _write(tmp_path / "two.jsonl", _second(kinds))
        corpus = _load([one, two])
        index = corpus.index_of
        assert bool(index._files) == (bulk == 8)
        given = _given(corpus)
        before = index._misses
        assert index.absent(given) == _general(corpus, given)
        assert (set(given) - index.keys()) == _general(corpus, given)
        if bulk == 8:
            assert index._files and index._misses - before < 10  # no look-up per id, no dict of all


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 45)), max_size=24),
    st.sampled_from([4, 8, 10**9]),
)
def test_any_added_file_answers_as_the_general_rule(kinds: list[tuple[int, int]], bulk: int) -> None:
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as tmp:
        mp.setattr(views, "BULK", bulk)
        paths = [_write(Path(tmp) / "one.jsonl", FIRST)]
        if kinds:
            paths.append(_write(Path(tmp) / "two.jsonl", _second(kinds)))
        corpus = _load(paths)
        given = _given(corpus)
        assert corpus.index_of.absent(given) == _general(corpus, given)


def test_past_the_misses_the_dict_answers_the_same(tmp_path: Path) -> None:
    """After MISSES look-ups every id is in the dict: absent answers from it, the same."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(views, "BULK", 8)
        mp.setattr(views, "MISSES", 3)
        one = _write(tmp_path / "one.jsonl", FIRST)
        two = _write(tmp_path / "two.jsonl", _second([(k % 4, k) for k in range(12)]))
        corpus = _load([one, two])
        given = _given(corpus)
        for pid in JUNK[:5]:
            corpus.index_of.get(str(pid))
        assert not corpus.index_of._files
        assert corpus.index_of.absent(given) == _general(corpus, given)


ALPHABET = st.sampled_from("0123456789abcdefXz")


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 18),
    st.lists(st.text(ALPHABET, min_size=18, max_size=18), min_size=1, max_size=30),
    st.lists(st.text(ALPHABET, min_size=18, max_size=18), max_size=30),
    st.sampled_from([1, 3, 1 << 16]),
)
def test_isin_is_set_membership(width: int, ours: list[str], theirs: list[str], chunk: int) -> None:
    """Hex as integers or any bytes as bytes, a chunk at a time or whole: membership."""
    ours_w, theirs_w = [s[:width] for s in ours], [s[:width] for s in theirs] + [s[:width] for s in ours[:3]]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hexids, "CHUNK", chunk)
        found = hexids.isin_ids(
            np.frombuffer("".join(theirs_w).encode(), np.uint8),
            np.frombuffer("".join(ours_w).encode(), np.uint8),
            width,
        )
    assert found.tolist() == [s in set(ours_w) for s in theirs_w]
