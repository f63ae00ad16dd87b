"""The compact corpus (issue 21): ids and titles as columns memory-mapped from the parse cache, the
id lookup as sorted hashes. The same papers, ids, folds and lookups as lists and a dict gave."""

from __future__ import annotations

import json
import pickle
import tracemalloc
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.corpus import folding, outcomes, views
from tui_reader.corpus import meta as cache_meta
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.meta import MAGIC, FileData

BULK = 1024  # views.BULK (4096) patched down: the same switch at a quarter of the rows
N = BULK + 600  # past BULK: a whole file is appended and checked through its hashes


def _lines(n: int, salt: str = "") -> list[str]:
    out = []
    for i in range(n):
        if i % 13 == 3:  # one work, many records: they fold into one paper
            out.append(json.dumps({"title": "Same", "abstract": "The same abstract, twice over and again."}))
        else:
            title = f"Paper {i}{salt} on graphs \u00e9t\u00e9" if i % 5 == 0 else f"Paper {i}{salt} on graphs"
            out.append(json.dumps({"title": title, "abstract": f"Abstract {i}{salt} about graphs."}))
    return out


@pytest.fixture(autouse=True)
def _one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    assert BULK < views.BULK
    monkeypatch.setattr(views, "BULK", BULK)
    monkeypatch.setattr(folding, "BULK", BULK)  # folding imports it by name


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _listed(corpus: Corpus) -> Corpus:
    """The same files as lists without a lookup: the corpus as it was built before issue 21."""
    files = [
        FileData(
            d.path,
            list(d.ids),
            list(d.titles),
            bytearray(d.generated),
            d.rows,
            list(d.warnings),
            bytes(d.keys),
        )
        for d in corpus.files
    ]
    return Corpus(files, corpus.roots, [])


def _same(a: Corpus, b: Corpus) -> None:
    assert len(a) == len(b) and list(a.ids) == list(b.ids) and list(a.titles) == list(b.titles)
    assert [p.to_dict() for p in a] == [p.to_dict() for p in b]
    for i, pid in enumerate(b.ids):
        assert a.index_of[pid] == i and a.resolve(pid) == i


def test_a_cached_load_builds_no_string_per_paper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_meta, "MAP_BYTES", 0)  # mapped as a large file's is
    path = _write(tmp_path / "big.jsonl", _lines(N))
    first = load_corpus([path])
    tracemalloc.start()
    try:
        again = load_corpus([path])
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(again) == len(first) and held < 40 * len(again), held  # lists and a dict: ~250 B a paper
    assert again.ids[7] == first.ids[7] and again.titles[-1] == first.titles[-1]


def test_cached_parsed_and_listed_corpora_are_the_same(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.jsonl", _lines(N))
    parsed = load_corpus([path])
    cached = load_corpus([path])
    _same(cached, parsed)
    _same(cached, load_corpus([path], use_cache=False))
    _same(cached, _listed(cached))
    assert len(cached) < N  # the repeated work folded into one paper


def test_two_large_files_fold_as_lists_did(tmp_path: Path) -> None:
    one = _write(tmp_path / "one.jsonl", _lines(N))
    # the second file: half of the first's works again (fold), and as many of its own
    two = _write(tmp_path / "two.jsonl", _lines(N)[::2] + _lines(N // 2, salt="b"))
    first = load_corpus([one, two])
    cached = load_corpus([one, two])
    _same(cached, first)
    _same(cached, _listed(cached))
    _same(cached, load_corpus([one, two], use_cache=False))
    own = sum(1 for i in range(N // 2) if i % 13 != 3)  # "Same" was in both
    assert len(cached) == len(load_corpus([one])) + own


def test_an_old_layout_meta_is_read_without_parsing_and_written_anew(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.jsonl", _lines(N))
    expected = load_corpus([path])
    (meta,) = (paths.cache_dir() / "parsed").glob("*.meta")
    header = cache_meta.read_meta(meta)
    assert header is not None
    data = expected.files[0]
    old = {
        "version": header["version"],
        "path": header["path"],
        "signature": header["signature"],
        "ids": list(data.ids),
        "titles": list(data.titles),
        "generated": bytearray(data.generated),
        "warnings": data.warnings,
        "keys": bytes(data.keys),
        "offsets": list(data.rows.offsets or ()),
        "rows": header["rows"],
    }
    meta.write_bytes(pickle.dumps(old))
    again = load_corpus([path])
    _same(again, expected)
    assert meta.read_bytes().startswith(MAGIC)
    assert [p.name for p in meta.parent.glob("*.rows")] == [header["rows"]]  # no parse: the same rows
    _same(load_corpus([path]), expected)


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_a_meta_cut_short_is_parsed_again(tmp_path: Path, cut: float) -> None:
    path = _write(tmp_path / "big.jsonl", _lines(N))
    expected = load_corpus([path])
    (meta,) = (paths.cache_dir() / "parsed").glob("*.meta")
    raw = meta.read_bytes()
    meta.write_bytes(raw[: int(len(raw) * cut)])
    _same(load_corpus([path]), expected)


def test_ids_titles_and_the_lookup_act_as_list_and_dict(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.jsonl", _lines(N))
    load_corpus([path])
    corpus = load_corpus([path])
    ids, titles = list(corpus.ids), list(corpus.titles)
    assert corpus.ids == ids and corpus.titles == titles and titles == corpus.titles
    assert corpus.ids[::3] == ids[::3] and corpus.titles[5:9] == titles[5:9] and corpus.ids[-1] == ids[-1]
    assert corpus.titles[len(titles) - 3 :] == titles[-3:] and corpus.ids[10:2] == []
    with pytest.raises(IndexError):
        corpus.ids[len(ids)]
    assert ids[4] in corpus.ids and "nope" not in corpus.ids and "Same" in corpus.titles
    index = corpus.index_of
    assert len(index) == len(ids) and list(index) == ids and index.get("nope", -1) == -1
    assert index.get("nope") is None and "nope" not in index and 3 not in index
    with pytest.raises(KeyError):
        index["nope"]
    assert {ids[0], "nope"} - index.keys() == {"nope"} and dict(index.items())[ids[2]] == 2
    assert frozenset(corpus.ids) == frozenset(ids) and sorted(corpus.titles) == sorted(titles)


def test_the_ids_missing_from_a_set_are_found_at_once(tmp_path: Path) -> None:
    """A store's ids checked against the collection (the visits of every launch) in one go,
    the same answer as one look-up each, without filing every id in a dict."""
    path = _write(tmp_path / "big.jsonl", _lines(N))
    load_corpus([path])
    corpus = load_corpus([path])
    held = set(corpus.ids) | {"nope", "x" * 12, "\u00e9" * 12, ""}
    before = corpus.index_of._misses
    assert held - corpus.index_of.keys() == {"nope", "x" * 12, "\u00e9" * 12, ""}
    assert not corpus.index_of.keys().isdisjoint(held) and corpus.index_of.keys().isdisjoint({"nope"})
    assert corpus.index_of._misses - before < 10  # not one look-up per id
    listed = _listed(corpus)
    assert held - listed.index_of.keys() == held - corpus.index_of.keys()


def test_a_folded_collection_iterates_and_slices_as_it_indexes(tmp_path: Path) -> None:
    """Runs of one file's rows are decoded at once; papers a fold moved, one by one: the same."""
    one = _write(tmp_path / "one.jsonl", _lines(N))
    two = _write(tmp_path / "two.jsonl", _lines(N)[::3] + _lines(300, salt="c"))
    load_corpus([one, two])
    for corpus in (load_corpus([one]), load_corpus([one, two])):
        n = len(corpus)
        for column in (corpus.ids, corpus.titles):
            each = [column[i] for i in range(n)]
            assert list(column) == each
            assert (
                column[3 : n - 7] == each[3 : n - 7] and column[BULK - 5 : BULK + 40000] == each[BULK - 5 :]
            )
