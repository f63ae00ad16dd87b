"""A file added to a large collection (issue 21): the earlier papers' fold keys as sorted hashes
(foldkeys.py), the strings compared on a hash hit, fold exactly as the dict of every key did, on
both sides of ARRAY_FROM, with every hash colliding, on any shape of files hypothesis finds."""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import fold_record, fold_shape

from tui_reader.corpus import corpus as corpus_module
from tui_reader.corpus import foldkeys, merged, outcomes
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


FIRST = [fold_record(i, doi=f"10.1234/a{i}") for i in range(30)] + [
    fold_record(3, doi="10.1234/a3"),
    fold_record(40),
]


def _facts(corpus: Corpus) -> list[object]:
    return [
        list(corpus.ids),
        list(corpus.titles),
        [p.to_dict() for p in corpus],
        [corpus.files_of(i) for i in range(len(corpus))],
        [corpus.records(i) and [r for _, r in corpus.records(i)] for i in range(len(corpus))],
    ]


def _both(
    paths: list[Path], collide: bool = False, packed: bool = True, flush: int = 1
) -> tuple[list[object], list[object]]:
    """The corpus with every fold key in the dict, and as hashes (all one hash if ``collide``):
    the first file's keys packed (or not), later keys in runs from every ``flush`` keys."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(foldkeys, "ARRAY_FROM", 10**9)
        mp.setattr(foldkeys, "FLUSH", 10**9)
        as_dict = load_corpus(paths)
        assert len(paths) < 2 or (as_dict._keys is not None and not as_dict._keys._runs)
        mp.setattr(foldkeys, "ARRAY_FROM", 0 if packed else 10**9)
        mp.setattr(foldkeys, "FLUSH", flush)
        if collide:
            mp.setattr(foldkeys, "hash", lambda k: 7, raising=False)
        as_hashes = load_corpus(paths)
        keys = as_hashes._keys
        assert len(paths) < 2 or (keys is not None and bool(keys._runs or keys._packed.size))
        return _facts(as_dict), _facts(as_hashes)


@pytest.fixture(autouse=True)
def _keys_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """finish() lets the fold keys go (the merge is over): these tests look at them as they were."""
    real = Corpus.finish

    def finish(self: Corpus, warnings: list[str]) -> None:
        keys = self._keys
        real(self, warnings)
        self._keys = keys

    monkeypatch.setattr(Corpus, "finish", finish)


@pytest.fixture(autouse=True)
def _one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    monkeypatch.setattr(merged, "REPLAY", False)  # every load merges (a replay has no fold keys)


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize(("packed", "flush"), [(True, 1), (False, 1), (False, 3), (True, 10**9)])
def test_every_way_of_being_one_work_folds_as_the_dict(
    tmp_path: Path, collide: bool, packed: bool, flush: int
) -> None:
    one = _write(tmp_path / "one.jsonl", FIRST)
    two = _write(tmp_path / "two.jsonl", [fold_shape(k % 6, k) for k in range(24)])
    three = _write(tmp_path / "three.jsonl", [fold_shape((k + 1) % 6, k) for k in range(0, 40, 3)])
    as_dict, as_hashes = _both([one, two, three], collide, packed, flush)
    assert as_hashes == as_dict
    assert len(as_dict[0]) < len(FIRST) + 24 + 14  # some folded


def test_a_large_file_after_a_small_one_keeps_its_keys_in_runs(tmp_path: Path) -> None:
    """The case that held ~1 GB at 2.7M: a file of 5 papers, then the large one, whose keys
    (every paper's, registered as it is merged) go to sorted runs, merged to a few."""
    small = _write(tmp_path / "a.jsonl", FIRST[:5])
    large = _write(tmp_path / "b.jsonl", [fold_shape(k % 6, k) for k in range(400)])
    whole = load_corpus([small, large])._keys
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(foldkeys, "FLUSH", 16)
        mp.setattr(corpus_module, "CHUNK", 7)
        keys = load_corpus([small, large])._keys
    assert whole is not None and not whole._runs and len(whole) > 600  # every key in the dict
    assert keys is not None and not keys._packed.size and len(keys._later) < 16
    sizes = [r.hashes.size for r in keys._runs]
    assert sum(sizes) + len(keys._later) == len(whole)
    assert all(a > 2 * b for a, b in itertools.pairwise(sizes))  # so a few runs, however many keys
    for run in keys._runs:
        assert (run.hashes[1:] >= run.hashes[:-1]).all()


def test_below_array_from_the_first_keys_stay_in_the_dict(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.jsonl", FIRST)
    two = _write(tmp_path / "two.jsonl", [fold_shape(0, 1)])
    keys = load_corpus([one, two])._keys  # 31 papers, ARRAY_FROM 200,000
    assert keys is not None and not keys._packed.size and not keys._runs and keys._later


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 45)), min_size=1, max_size=20),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 45)), max_size=10),
    st.booleans(),
)
def test_any_added_files_fold_as_the_dict(
    second: list[tuple[int, int]], third: list[tuple[int, int]], collide: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = [
            _write(Path(tmp) / "one.jsonl", FIRST),
            _write(Path(tmp) / "two.jsonl", [fold_shape(*s) for s in second]),
        ]
        if third:
            paths.append(_write(Path(tmp) / "three.jsonl", [fold_shape(*s) for s in third]))
        as_dict, as_hashes = _both(paths, collide, packed=len(second) % 2 == 0, flush=1 + len(third) % 3)
        assert as_hashes == as_dict
