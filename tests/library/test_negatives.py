"""The "not interested" store: per tag, case-blind, shared by two readers, corrupt files set aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.library.jsonstore import ReadOnlyStore
from tui_reader.library.negatives import NotInterested


def test_each_tag_keeps_its_own_papers(tmp_path: Path) -> None:
    store = NotInterested(tmp_path / "n.json")
    store.add("Diffusion", "a")
    store.add("diffusion ", "b")  # the same tag, as bookmarks compare them
    store.add("graphs", "a")
    store.add(None, "c")
    assert store.ids("DIFFUSION") == {"a", "b"}
    assert store.ids("graphs") == {"a"}
    assert store.ids(None) == {"c"}
    assert store.ids("other") == frozenset()
    doc = json.loads((tmp_path / "n.json").read_text())
    assert doc["version"] == 1 and doc["tags"]["diffusion"] == ["a", "b"] and doc["all"] == ["c"]


def test_two_readers_both_keep_their_marks(tmp_path: Path) -> None:
    one, two = NotInterested(tmp_path / "n.json"), NotInterested(tmp_path / "n.json")
    one.add("t", "a")
    two.add("t", "b")
    assert one.ids("t") == two.ids("t") == {"a", "b"}


def test_reset_clears_one_tag_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    path.write_text(json.dumps({"version": 1, "tags": {"t": ["a", {"future": 1}], "u": ["b"]}, "x": 2}))
    store = NotInterested(path)
    assert store.reset("T") == 1
    assert store.reset("T") == 0
    doc = json.loads(path.read_text())
    assert doc["tags"] == {"t": [{"future": 1}], "u": ["b"]} and doc["x"] == 2


def test_adding_twice_keeps_one(tmp_path: Path) -> None:
    store = NotInterested(tmp_path / "n.json")
    store.add("t", "a")
    assert store.add("t", "a") == {"a"}
    assert json.loads((tmp_path / "n.json").read_text())["tags"]["t"] == ["a"]


def test_a_corrupt_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    path.write_text('{"version": 1, "tags": {"t": "not a list"}}')
    store = NotInterested(path)
    assert store.ids("t") == frozenset()
    assert any("corrupt" in w for w in store.warnings)
    assert list(tmp_path.glob("n.json.corrupt-*"))
    store.add("t", "a")
    assert store.ids("t") == {"a"}


def test_a_newer_file_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    path.write_text(json.dumps({"version": 9, "tags": {"t": ["a"]}}))
    store = NotInterested(path)
    assert store.ids("t") == {"a"}
    with pytest.raises(ReadOnlyStore):
        store.add("t", "b")
    assert json.loads(path.read_text())["version"] == 9


def test_it_lives_in_the_data_folder() -> None:
    assert paths.not_interested_file().parent == paths.data_dir()
