"""The manifest's papers without a dict of every paper (issue 21: an update at 2.7M held two of
them, ~0.9 GB): signatures as 64-bit numbers, "docs" written and compared a run at a time, the
same bytes and the same (removed, added, changed) as the dicts gave, for runs shorter and
longer than the collection; and a real index updated through them."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import SEED_FILES

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index import manifest as module
from tui_reader.search.index.manifest import compare, doc_sig, docs_json, signatures
from tui_reader.search.index.persistent import SearchIndex

RUNS = [1, 2, 3, 1 << 16]
IDS = st.lists(st.text(st.sampled_from('ab"\\\n\u00e9\ud800\U0001f600'), max_size=3), unique=True, max_size=8)
SIGS = st.integers(0, (1 << 64) - 1)


@pytest.mark.parametrize("run", RUNS)
@given(ids=IDS, data=st.data())
def test_docs_are_the_dicts_json_byte_for_byte(run: int, ids: list[str], data: st.DataObject) -> None:
    sigs = np.array(data.draw(st.lists(SIGS, min_size=len(ids), max_size=len(ids))), np.uint64)
    saved, module.RUN = module.RUN, run
    try:
        raw = docs_json(ids, sigs)
    finally:
        module.RUN = saved
    as_dict = {pid: f"{int(s):016x}" for pid, s in zip(ids, sigs, strict=True)}
    assert raw == json.dumps(as_dict, separators=(",", ":")).encode()


@pytest.mark.parametrize("run", RUNS)
@given(old_ids=IDS, new_ids=IDS, data=st.data())
def test_compare_gives_what_the_two_dicts_gave(
    run: int, old_ids: list[str], new_ids: list[str], data: st.DataObject
) -> None:
    small = st.integers(0, 2)  # few values: some papers unchanged, some changed
    old = {pid: f"{data.draw(small):016x}" for pid in old_ids}
    sigs = np.array([data.draw(small) for _ in new_ids], np.uint64)
    new = {pid: f"{int(s):016x}" for pid, s in zip(new_ids, sigs, strict=True)}
    want = (
        [pid for pid in old if pid not in new],
        [pid for pid in new if pid not in old],
        [pid for pid, sig in new.items() if pid in old and old[pid] != sig],
    )
    saved, module.RUN = module.RUN, run
    try:
        assert compare(dict(old), new_ids, sigs) == want
    finally:
        module.RUN = saved


@pytest.mark.parametrize("run", [2, 1 << 16])
def test_an_added_file_updates_the_index_and_its_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: int
) -> None:
    monkeypatch.setenv("TUI_READER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(module, "RUN", run)
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy2(SEED_FILES[0], folder / SEED_FILES[0].name)
    first = load_corpus([folder])
    assert SearchIndex(first).ensure().action == "built"
    shutil.copy2(SEED_FILES[1], folder / SEED_FILES[1].name)
    corpus = load_corpus([folder])
    ix = SearchIndex(corpus)
    report = ix.ensure()
    assert (report.action, report.added, report.removed) == ("updated", len(corpus) - len(first), 0)
    docs = json.loads(ix.manifest_path.read_bytes())["docs"]
    assert docs == {corpus.ids[i]: doc_sig(corpus, i) for i in range(len(corpus))}
    assert list(docs) == list(corpus.ids)
    assert [f"{int(s):016x}" for s in signatures(corpus)] == list(docs.values())
    with ix.searcher() as s:
        assert s.doc_count() == len(corpus)
    ix.close()
    assert SearchIndex(load_corpus([folder])).ensure().action == "unchanged"


HEX_IDS = st.lists(st.text(st.sampled_from("0a9f"), min_size=3, max_size=3), unique=True, max_size=12)
WORD_IDS = st.lists(st.text(st.sampled_from("xY0 "), min_size=2, max_size=2), unique=True, max_size=12)


@given(old_ids=st.one_of(HEX_IDS, WORD_IDS, IDS), new_ids=st.one_of(HEX_IDS, WORD_IDS, IDS), data=st.data())
def test_changes_read_from_the_file_are_what_the_dict_gave(
    old_ids: list[str], new_ids: list[str], data: st.DataObject
) -> None:
    """manifest.changes: fixed-width plain ids compared as arrays, any others through the
    dict; the same (removed, added, changed) as compare() over the manifest's docs."""
    small = st.integers(0, 2)
    old_sigs = np.array([data.draw(small) for _ in old_ids], np.uint64)
    sigs = np.array([data.draw(small) for _ in new_ids], np.uint64)
    raw = module.encode({"layout": module.LAYOUT, "roots": ["x"]}, old_ids, old_sigs)
    want = compare({pid: f"{int(s):016x}" for pid, s in zip(old_ids, old_sigs, strict=True)}, new_ids, sigs)
    fast = module._changes_fixed(raw, new_ids, sigs)
    every = old_ids + new_ids
    plain = all(c.isascii() and c.isprintable() and c not in '"\\' for p in every for c in p)
    uniform = old_ids and plain and len({len(p) for p in every}) == 1 and old_ids[0]
    assert (fast is not None) == bool(uniform)  # the arrays' way exactly when every id is plain
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "manifest.json"
        path.write_bytes(raw)
        assert module.changes(path, new_ids, sigs) == want
        assert module.changes(path, new_ids, sigs[::-1].copy()) == compare(
            json.loads(raw)["docs"], new_ids, sigs[::-1].copy()
        )
        path.write_bytes(raw[:-3] + b"}")  # cut short: no docs to compare with, every paper added
        assert module.changes(path, new_ids, sigs) == ([], list(new_ids), [])
