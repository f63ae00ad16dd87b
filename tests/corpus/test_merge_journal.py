"""A collection of several files replayed from its merge journal (merged.py, issue 21) is the
corpus a merge afresh builds, fold by fold; a journal that does not hold for the files as they
are (a file changed, the folding code changed, a garbled or hostile journal) is not used. And
the merge's shortcut for a work in many records (corpus.MANY) folds as reading them all did."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import SEED_FILES, fold_record, fold_shape

from tui_reader import paths
from tui_reader.corpus import corpus as corpus_module
from tui_reader.corpus import loading, merged, outcomes, parse_cache
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus

FIRST = [
    *(fold_record(i, doi=f"10.1234/a{i}") for i in range(20)),
    *(fold_record(i, title=False) for i in range(20, 26)),
    fold_record(3, doi="10.1234/a3"),
    fold_record(30, key="k30"),
    fold_record(30, key="other30"),
]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def facts(corpus: Corpus) -> list[object]:
    """What a user or a store can see of a corpus: every paper whole, where it comes from, and
    which paper each id and old id names."""
    ids = list(corpus.ids)
    own = [data.ids[r] for i in range(len(corpus)) for data, r in corpus.records(i)]
    return [
        ids,
        list(corpus.titles),
        [p.to_dict() for p in corpus],
        [
            [(f, r) for f, r in zip(corpus.files_of(i), (r for _, r in corpus.records(i)), strict=True)]
            for i in range(len(corpus))
        ],
        [corpus.sources(i) for i in range(len(corpus))],
        [corpus.index_of.get(pid) for pid in ids + own],
        sorted(corpus.aliases().items()),
        [corpus.record_key(i) for i in range(len(corpus))],
        corpus.warnings,
    ]


def _three(folder: Path, second: list[tuple[int, int]], third: list[tuple[int, int]]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = [
        _write(folder / "one.jsonl", FIRST),
        _write(folder / "two.jsonl", [fold_shape(*s) for s in second]),
    ]
    if third:
        out.append(_write(folder / "three.jsonl", [fold_shape(*s) for s in third]))
    return out


def _replayed_is_afresh(inputs: list[Path]) -> Corpus:
    afresh = load_corpus(inputs)  # merged: writes the journal
    again = load_corpus(inputs)
    assert not afresh.replayed and again.replayed
    assert facts(again) == facts(afresh) == facts(load_corpus(inputs, use_cache=False))
    return again


@pytest.fixture(autouse=True)
def _one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")


def _journals() -> list[Path]:
    return sorted((paths.cache_dir() / "merged").glob("*.journal"))


def test_every_way_of_folding_replays_as_it_merged(tmp_path: Path) -> None:
    inputs = _three(
        tmp_path / "c", [(k % 9, k) for k in range(40)], [((k + 4) % 9, k) for k in range(0, 40, 3)]
    )
    corpus = _replayed_is_afresh(inputs)
    assert len(corpus) < len(FIRST) + 40 + 14  # some folded
    assert corpus._more and corpus._renamed and corpus._id_at  # folds, a renamed id, a title taken
    journal = merged.read([data.path for data in corpus.files])
    assert journal is not None and sum(len(o) for o in journal.ops) > 0 and len(_journals()) == 1
    assert corpus.decided == []  # kept for the journal only


def test_the_fold_keys_go_once_the_merge_is_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tui_reader.corpus.parse_cache.STREAM_SECONDS", 0.0)  # told after each file
    inputs = _three(tmp_path / "c", [(k % 9, k) for k in range(20)], [(5, 2)])
    seen: list[bool] = []
    corpus = load_corpus(inputs, on_batch=lambda c, n: seen.append(c._keys is not None))
    assert any(seen) and corpus._keys is None  # held while the files came, not after


def test_the_seeds_replay_as_they_merged(tmp_path: Path) -> None:
    folder = tmp_path / "seeds"
    folder.mkdir()
    for f in SEED_FILES:
        shutil.copy2(f, folder / f.name)
    corpus = _replayed_is_afresh([folder])
    assert len(corpus) == 30


def test_a_large_file_between_small_ones_replays_its_bulk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shape of issue 21's folder (a small file, a large one, a second small one): the large
    file's rows come back in bulk between the few the journal names."""
    monkeypatch.setattr("tui_reader.corpus.corpus.CHUNK", 64)
    monkeypatch.setattr("tui_reader.corpus.views.BULK", 32)
    folder = tmp_path / "c"
    folder.mkdir()
    _write(folder / "a.jsonl", [fold_shape(k % 9, k) for k in range(12)])
    _write(folder / "m.jsonl", [fold_record(i, doi=f"10.1234/a{i}") for i in range(600)])
    _write(folder / "z.jsonl", [fold_shape(k % 9, k * 7) for k in range(30)])
    corpus = _replayed_is_afresh([folder])
    journal = merged.read([data.path for data in corpus.files])
    assert journal is not None and len(journal.ops[1]) <= 12  # the large file's few folds


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 35)), min_size=1, max_size=20),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 35)), max_size=10),
)
def test_any_collection_replays_as_it_merged(
    second: list[tuple[int, int]], third: list[tuple[int, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(Path(tmp) / "cache"))
        _replayed_is_afresh(_three(Path(tmp) / "c", second, third))


def test_one_file_keeps_no_journal(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.jsonl", FIRST)
    load_corpus([one])
    assert not load_corpus([one]).replayed and _journals() == []


def _afresh_after(inputs: list[Path]) -> None:
    """After whatever made the journal stale, the load merges afresh, right, and writes a new one."""
    corpus = load_corpus(inputs)
    assert not corpus.replayed
    assert facts(corpus) == facts(load_corpus(inputs, use_cache=False))
    assert load_corpus(inputs).replayed


def test_a_changed_file_is_merged_afresh(tmp_path: Path) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)
    _write(inputs[1], [fold_shape(0, 1), fold_shape(6, 21), fold_shape(2, 4)])
    _afresh_after(inputs)


def test_a_file_added_removed_or_reordered_is_merged_afresh(tmp_path: Path) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)
    _afresh_after(inputs[:2])
    _afresh_after(inputs[::-1])
    _afresh_after([*inputs, _write(tmp_path / "four.jsonl", [fold_shape(0, 2)])])


def test_a_reparsed_file_is_merged_afresh(tmp_path: Path) -> None:
    """Its parse cache written again (a new parser, a cleared cache): the meta is another file."""
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)
    shutil.rmtree(paths.cache_dir() / "parsed")
    _afresh_after(inputs)


def test_other_folding_code_is_merged_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)
    monkeypatch.setattr(merged, "code_key", lambda: "another")
    _afresh_after(inputs)


def _garble(raw: bytes, how: str) -> bytes:
    head_end = raw.index(b"\n", len(merged.MAGIC)) + 1
    if how == "truncated":
        return raw[:-5]
    if how == "body":
        return raw[:-3] + bytes([raw[-3] ^ 0xFF]) + raw[-2:]
    if how == "header":
        return raw[: head_end - 3] + b"}}\n" + raw[head_end:]
    if how == "magic":
        return b"x" + raw[1:]
    return b""


@pytest.mark.parametrize("how", ["truncated", "body", "header", "magic", "empty"])
def test_a_garbled_journal_is_a_cache_miss(tmp_path: Path, how: str) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4), (8, 30)], [(5, 2), (6, 22)])
    load_corpus(inputs)
    (journal,) = _journals()
    journal.write_bytes(_garble(journal.read_bytes(), how))
    _afresh_after(inputs)


@pytest.mark.parametrize(
    "ops",
    [
        [[0, 10**6]],  # folds into a paper not listed
        [[10**6, -1]],  # a row past the file
        [[3, -1], [1, -1]],  # rows out of order
        [[2, -5]],  # no such decision
    ],
)
def test_a_journal_that_does_not_fit_its_files_is_a_cache_miss(tmp_path: Path, ops: list[list[int]]) -> None:
    """A journal with a right digest (written by another build, or by hand) whose decisions
    cannot be these files' merge."""
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    stamps = [merged.stamp_of(data) for data in load_corpus(inputs).files]
    merged.write(
        inputs, stamps, [np.zeros((0, 2), np.int64), np.array(ops, np.int64), np.zeros((0, 2), np.int64)]
    )
    assert merged.read(inputs) is not None
    _afresh_after(inputs)


def test_an_unwritable_journal_folder_loses_nothing(tmp_path: Path) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    (paths.cache_dir()).mkdir(parents=True, exist_ok=True)
    (paths.cache_dir() / "merged").write_text("a file where the folder goes")
    corpus = load_corpus(inputs)
    assert not load_corpus(inputs).replayed
    assert facts(corpus) == facts(load_corpus(inputs, use_cache=False)) and corpus.warnings == []


def test_only_the_most_recent_journals_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(merged, "KEEP", 3)
    collections = [_three(tmp_path / f"c{n}", [(0, n)], []) for n in range(5)]
    for n, inputs in enumerate(collections):
        load_corpus(inputs)
        os.utime(merged._journal_path(inputs), ns=(n * 10**9, n * 10**9))  # the order they came
    load_corpus(collections[2])  # replayed: the most recent now
    load_corpus(_three(tmp_path / "c5", [(0, 5)], []))
    kept = {p.name for p in _journals()}
    assert kept == {merged._journal_path(c).name for c in (collections[2], collections[4])} | {
        merged._journal_path(_three(tmp_path / "c5", [(0, 5)], [])).name
    }


# -- a work in many records (corpus.MANY): its identities kept while loading, not read again ---


def _many(folder: Path) -> list[Path]:
    """Three files in which one work comes again and again, beside copies that are other works
    (another DOI, another citation key in one file) and title-less copies."""
    folder.mkdir(parents=True, exist_ok=True)
    one = [fold_record(1, doi="10.1234/a1") for _ in range(30)] + [
        fold_record(2, key=f"k{n}") for n in range(12)
    ]
    two = (
        [fold_record(1) for _ in range(25)]
        + [fold_record(1, doi="10.5678/x")]
        + [fold_record(1, title=False)] * 9
    )
    three = [
        fold_record(1, key="other1"),
        *[fold_record(2, key="k3")] * 15,
        *[fold_shape(k % 9, k % 4) for k in range(40)],
    ]
    return [
        _write(folder / "one.jsonl", one),
        _write(folder / "two.jsonl", two),
        _write(folder / "three.jsonl", three),
    ]


def test_a_work_in_many_records_folds_as_it_did(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = _many(tmp_path / "c")
    kept = load_corpus(inputs, use_cache=False)
    monkeypatch.setattr(corpus_module, "MANY", 10**9)  # every record's identity read each time
    assert facts(kept) == facts(load_corpus(inputs, use_cache=False))
    assert max(len(kept.records(i)) for i in range(len(kept))) >= 50 and not kept._kept  # freed at the end
    monkeypatch.setattr(corpus_module, "MANY", 1)
    assert facts(kept) == facts(load_corpus(inputs, use_cache=False))


def test_a_work_in_many_records_reads_each_identity_a_few_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new record of a work compared with every one before it read them all again: 2 x 300
    copies of one paper were 180k reads. Now linear in the records."""
    same = {"title": "Same", "abstract": "The same abstract, twice over and again, for every copy."}
    inputs = [_write(tmp_path / f"{name}.jsonl", [same] * 300) for name in ("a", "b")]
    reads = [0]
    real = corpus_module._identity

    def counted(*args: object) -> object:
        reads[0] += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(corpus_module, "_identity", counted)
    corpus = load_corpus(inputs, use_cache=False)
    assert len(corpus) == 1 and len(corpus.records(0)) == 600
    assert reads[0] < 5 * 600


def test_a_file_rewritten_and_parsed_again_during_the_merge_keeps_no_journal(tmp_path: Path) -> None:
    """The journal is stamped with the files as the merge read them: one rewritten meanwhile
    (an auto-export) and parsed again by another reader (its new meta in place) is not the
    file the decisions were made for, so none is written."""
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4), (8, 30)], [(5, 2)])
    done = [False]

    def meanwhile(corpus: Corpus, count: int) -> None:
        if len(corpus.files) == 3 and not done[0]:
            done[0] = True
            _write(inputs[0], [*FIRST[:5], fold_record(77), *FIRST[5:]])  # rows shift under the merge
            parse_cache.load_file(inputs[0])  # another reader parses it again

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parse_cache, "STREAM_SECONDS", 0.0)
        load_corpus(inputs, on_batch=meanwhile)
    assert done[0] and _journals() == []
    _afresh_after(inputs)


def test_a_file_that_failed_to_load_keeps_no_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file a bug kept out is merged as no rows; that is no journal for the next load, where it
    may load (its rows would all be appended with no fold checks)."""
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)  # its parse caches
    shutil.rmtree(paths.cache_dir() / "merged")
    real = loading.load_file

    def failing(path: Path, *args: object, **kwargs: object) -> object:
        if path == inputs[1]:
            raise RuntimeError("a case nobody foresaw")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loading, "load_file", failing)
    broken = load_corpus(inputs)
    assert any("could not be read" in w for w in broken.warnings) and _journals() == []
    monkeypatch.setattr(loading, "load_file", real)
    _afresh_after(inputs)


@pytest.mark.parametrize("how", ["fifo", "deep", "infinite"])
def test_a_hostile_journal_is_a_cache_miss(tmp_path: Path, how: str) -> None:
    inputs = _three(tmp_path / "c", [(0, 1), (2, 4)], [(5, 2)])
    load_corpus(inputs)
    (journal,) = _journals()
    raw = journal.read_bytes()
    journal.unlink()
    if how == "fifo":
        os.mkfifo(journal)  # reading it would wait for a writer for ever
    elif how == "deep":
        journal.write_bytes(merged.MAGIC + b"[" * 100_000 + b"\n")
    else:
        head_end = raw.index(b"\n", len(merged.MAGIC))
        head = raw[len(merged.MAGIC) : head_end].replace(b'"counts": [', b'"counts": [Infinity, ')
        journal.write_bytes(merged.MAGIC + head + raw[head_end:])
    assert merged.read(inputs) is None
    corpus = load_corpus(inputs)
    assert not corpus.replayed and facts(corpus) == facts(load_corpus(inputs, use_cache=False))
