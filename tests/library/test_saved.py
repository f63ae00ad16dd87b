"""Saved searches: saving, renaming, deleting; names and queries kept as data; the file's discipline."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.library.jsonstore import ReadOnlyStore
from tui_reader.library.saved import MAX_NAME, BadInput, Refused, SavedSearches


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "saved-searches.json"


def test_add_list_rename_remove_survive_reopening(store_path: Path) -> None:
    store = SavedSearches(store_path)
    store.add("ranking", "learning to rank")
    store.add("diffusion", "diffusion guidance")
    assert [(s.name, s.query) for s in SavedSearches(store_path).all()] == [
        ("ranking", "learning to rank"),
        ("diffusion", "diffusion guidance"),
    ]
    renamed = store.rename("RANKING", "Rank")  # found whatever the case
    assert (renamed.name, renamed.query) == ("Rank", "learning to rank")
    again = SavedSearches(store_path)
    assert [s.name for s in again.all()] == ["Rank", "diffusion"]
    gone = again.remove("  diffusion ")
    assert gone.query == "diffusion guidance"
    assert [s.name for s in SavedSearches(store_path).all()] == ["Rank"]
    doc = json.loads(store_path.read_text(encoding="utf-8"))
    assert doc["version"] == 1 and doc["searches"][0]["created"]


def test_refusals_change_nothing(store_path: Path) -> None:
    store = SavedSearches(store_path)
    store.add("ranking", "learning to rank")
    before = store_path.read_bytes()
    for name in ("", "   ", "\t\n"):
        with pytest.raises(BadInput, match="needs a name"):
            store.add(name, "x")
    with pytest.raises(BadInput, match="needs a query"):
        store.add("other", "  ")
    with pytest.raises(BadInput, match="at most"):
        store.add("n" * (MAX_NAME + 1), "x")
    with pytest.raises(Refused, match=r"already named .ranking.*--replace"):
        store.add(" Ranking ", "other words")
    with pytest.raises(Refused, match="no saved search is named 'nope'"):
        store.remove("nope")
    with pytest.raises(Refused, match="no saved search is named"):
        store.rename("nope", "x")
    store.add("second", "y")
    before = store_path.read_bytes()
    with pytest.raises(Refused, match="already named"):
        store.rename("second", "RANKING")
    with pytest.raises(BadInput):
        store.rename("second", " ")
    assert store_path.read_bytes() == before
    assert [s.name for s in SavedSearches(store_path).all()] == ["ranking", "second"]


def test_replace_keeps_the_place_and_starts_afresh(store_path: Path) -> None:
    store = SavedSearches(store_path)
    store.add("a", "first")
    store.add("b", "second")
    store.visited(["a"], "coll", "2026-01-01T00:00:00+00:00")
    assert store.get("a") is not None and store.get("a").visited == {"coll": "2026-01-01T00:00:00+00:00"}
    store.add("A", "changed", replace=True)
    assert [(s.name, s.query, s.visited) for s in store.all()] == [("A", "changed", {}), ("b", "second", {})]


def test_rename_to_another_case_of_itself(store_path: Path) -> None:
    store = SavedSearches(store_path)
    store.add("ranking", "q")
    assert store.rename("ranking", "Ranking").name == "Ranking"


def test_hostile_names_and_queries_are_data(store_path: Path) -> None:
    name, query = "\x1b[31mred\x07 [b]bold[/b]", "title:x \x1b]52;c;aGk=\x07 [red]"
    store = SavedSearches(store_path)
    store.add(name, query)
    found = SavedSearches(store_path).get(name)
    assert found is not None and (found.name, found.query) == (name, query)  # kept exactly
    raw = store_path.read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\x07" not in raw  # escaped in the file
    assert "\x1b" not in found.shown_name and "\x07" not in found.shown_query
    assert "[b]bold[/b]" in found.shown_name  # markup is text, shown as typed


def test_visited_moves_forward_only(store_path: Path) -> None:
    store = SavedSearches(store_path)
    store.add("a", "q")
    store.visited(["a"], "coll", "2026-01-02T00:00:00+00:00")
    store.visited(["a"], "coll", "2026-01-01T00:00:00+00:00")  # an older reader's view
    store.visited(["a"], "other", "2026-01-01T00:00:00+00:00")
    assert SavedSearches(store_path).all()[0].visited == {
        "coll": "2026-01-02T00:00:00+00:00",
        "other": "2026-01-01T00:00:00+00:00",
    }


def test_two_instances_lose_nothing(store_path: Path) -> None:
    one, two = SavedSearches(store_path), SavedSearches(store_path)
    one.add("a", "q1")
    two.add("b", "q2")  # two never re-read: its change merges with what is on disk
    with pytest.raises(Refused):
        two.add("a", "q3")
    assert [s.name for s in SavedSearches(store_path).all()] == ["a", "b"]


def test_unknown_entries_and_keys_survive(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    doc = {
        "version": 1,
        "future": {"x": 1},
        "searches": [
            {"name": "kept", "query": "q", "created": "", "visited": {}, "colour": "blue"},
            {"weird": True},
            "a string",
        ],
    }
    store_path.write_text(json.dumps(doc), encoding="utf-8")
    os.chmod(store_path, 0o600)
    store = SavedSearches(store_path)
    assert [s.name for s in store.all()] == ["kept"]
    store.add("new", "q2")
    store.rename("kept", "still")
    out = json.loads(store_path.read_text(encoding="utf-8"))
    assert out["future"] == {"x": 1}
    assert out["searches"][0]["colour"] == "blue" and out["searches"][0]["name"] == "still"
    assert out["searches"][1:3] == [{"weird": True}, "a string"]
    assert os.stat(store_path).st_mode & 0o777 == 0o600


def test_corrupt_file_is_set_aside(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_text('{"version": 1, "searches": {"not": "a list"}}', encoding="utf-8")
    store = SavedSearches(store_path)
    assert store.all() == [] and any("corrupt" in w for w in store.warnings)
    assert list(store_path.parent.glob("saved-searches.json.corrupt-*"))
    store.add("a", "q")
    assert [s.name for s in SavedSearches(store_path).all()] == ["a"]


def test_newer_version_is_left_alone(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_text('{"version": 9, "searches": []}', encoding="utf-8")
    store = SavedSearches(store_path)
    with pytest.raises(ReadOnlyStore, match="newer"):
        store.add("a", "q")
    assert json.loads(store_path.read_text(encoding="utf-8"))["version"] == 9


def test_lives_in_the_data_folder() -> None:
    assert paths.saved_searches_file().parent == paths.data_dir()


def test_replace_keeps_what_a_newer_version_stored_beside_the_search(store_path: Path) -> None:
    """``saved add --replace`` wrote a fresh entry: a key this version does not know was lost."""
    store_path.parent.mkdir(parents=True)
    entry = {"name": "kept", "query": "q", "created": "", "visited": {"c": "2026-01-01"}, "colour": "blue"}
    store_path.write_text(json.dumps({"version": 1, "searches": [entry]}), encoding="utf-8")
    SavedSearches(store_path).add("kept", "changed", replace=True)
    out = json.loads(store_path.read_text(encoding="utf-8"))["searches"][0]
    assert (out["query"], out["visited"], out["colour"]) == ("changed", {}, "blue")
