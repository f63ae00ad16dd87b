"""The stores of read state, arrivals, search history and session: each keeps jsonstore.py's
discipline (as bookmarks do). Two instances on one file lose nothing; a corrupt file is set aside
with a notice; a newer version's file is read, never written; unknown keys survive a write."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui_reader.library.arrivals import ArrivalStore
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.history import LIMIT, SearchHistory
from tui_reader.library.jsonstore import JsonStore, StoreNotSaved, dict_of
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import Session, SessionStore


@dataclass
class Kind:
    """How to drive one store in the tests below."""

    name: str
    file: str
    open: Callable[[Path], object]
    change: Callable[[object, str], None]  # make a change identified by a word
    holds: Callable[[object, str], bool]  # a fresh instance sees that change


def _record(store: object, word: str) -> None:
    assert isinstance(store, ArrivalStore)
    store.record([word])


def _arrived(path: Path, word: str) -> bool:
    found = ArrivalStore(path).record([word, "zzz-probe"])  # a launch: the word was seen before
    return word not in found.new and not found.first_visit


KINDS = [
    Kind(
        "read",
        "read.json",
        ReadStore,
        lambda s, w: s.mark_read([w]),  # type: ignore[attr-defined]
        lambda s, w: w in s,  # type: ignore[operator]
    ),
    Kind(
        "history",
        "history.json",
        SearchHistory,
        lambda s, w: s.add(w),  # type: ignore[attr-defined]
        lambda s, w: w in s.all(),  # type: ignore[attr-defined]
    ),
    Kind(
        "session",
        "session.json",
        SessionStore,
        lambda s, w: s.save(w, Session(query=w)),  # type: ignore[attr-defined]
        lambda s, w: s.get(w).query == w,  # type: ignore[attr-defined]
    ),
]


@pytest.fixture(params=KINDS, ids=lambda k: k.name)
def kind(request: pytest.FixtureRequest) -> Kind:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of its own (tmp_path also holds the isolated XDG folders)."""
    path = tmp_path / "store"
    path.mkdir()
    return path


def on_disk(path: Path) -> dict[str, object]:
    return json.loads(path.read_text("utf-8"))  # type: ignore[no-any-return]


def test_two_instances_on_one_file_lose_nothing(kind: Kind, folder: Path) -> None:
    path = folder / kind.file
    first, second = kind.open(path), kind.open(path)  # both opened before either writes
    kind.change(first, "alpha")
    kind.change(second, "beta")
    kind.change(first, "gamma")
    fresh = kind.open(path)
    assert all(kind.holds(fresh, w) for w in ("alpha", "beta", "gamma"))
    assert on_disk(path)["version"] == 1


def test_arrival_stores_on_one_file_lose_no_visit(folder: Path) -> None:
    path = folder / "collections" / "key.json"
    first, second = ArrivalStore(path), ArrivalStore(path)
    first.record(["a", "b"], "2026-01-01T00:00:00+00:00")
    second.record(["a", "c"], "2026-01-02T00:00:00+00:00")  # saw "a" through the first's visit
    visits = on_disk(path)["visits"]
    assert visits == [
        {"at": "2026-01-01T00:00:00+00:00", "ids": "a b"},
        {"at": "2026-01-02T00:00:00+00:00", "ids": "c"},
    ]


def test_a_corrupt_file_is_set_aside_with_a_notice(kind: Kind, folder: Path) -> None:
    path = folder / kind.file
    path.write_bytes(b'{"version": 1, "half')
    store = kind.open(path)
    backups = list(folder.glob(f"{kind.file}.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == b'{"version": 1, "half'
    warnings = store.warnings  # type: ignore[attr-defined]
    assert any("was corrupt" in w and backups[0].name in w for w in warnings)
    kind.change(store, "after")  # a fresh start that saves
    assert kind.holds(kind.open(path), "after")


def test_a_file_of_the_wrong_shape_is_set_aside_too(folder: Path) -> None:
    path = folder / "read.json"
    path.write_text('{"version": 1, "read": ["not", "an", "object"]}')
    store = ReadStore(path)
    assert len(store) == 0 and list(folder.glob("read.json.corrupt-*"))
    assert "was corrupt" in store.warnings[0]


def test_a_newer_version_is_read_and_never_written(kind: Kind, folder: Path) -> None:
    path = folder / kind.file
    kind.change(kind.open(path), "old")
    data = on_disk(path)
    data["version"] = 7
    data["future"] = {"kept": True}
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    store = kind.open(path)
    assert kind.holds(store, "old")  # what it can understand is read
    assert any("newer tui-reader (version 7)" in w for w in store.warnings)  # type: ignore[attr-defined]
    with pytest.raises(ReadOnlyStore, match="newer tui-reader"):
        kind.change(store, "new")
    assert path.read_bytes() == before


def test_unknown_keys_survive_a_write(kind: Kind, folder: Path) -> None:
    path = folder / kind.file
    path.write_text(json.dumps({"version": 1, "from_a_plugin": [1, 2, 3]}))
    kind.change(kind.open(path), "x")
    assert on_disk(path)["from_a_plugin"] == [1, 2, 3]


def test_a_full_disk_leaves_the_file_unchanged(
    kind: Kind, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / kind.file
    kind.change(kind.open(path), "before")
    before = path.read_bytes()

    def full(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tui_reader.library.jsonstore.atomic_write_bytes", full)
    store = kind.open(path)
    with pytest.raises(StoreNotSaved, match="no space left on device"):
        kind.change(store, "after")
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == sorted([kind.file, f"{kind.file}.lock"])


# -- each store's own rules ----------------------------------------------------------------------
def test_read_state_keeps_the_first_time_and_forgets_on_unread(folder: Path) -> None:
    store = ReadStore(folder / "read.json")
    store.mark_read(["a"])
    first = store.when("a")
    assert first is not None and "T" in first
    store.mark_read(["a", "b"])
    assert store.when("a") == first and store.ids() == {"a", "b"}
    store.apply({"a": False, "c": True})
    assert store.ids() == {"b", "c"} and store.when("a") is None
    assert set(on_disk(folder / "read.json")["read"]) == {"b", "c"}  # type: ignore[arg-type]


def test_read_state_not_saved_still_holds_what_was_asked(folder: Path) -> None:
    path = folder / "read.json"
    path.write_text(json.dumps({"version": 9, "read": {}}))
    store = ReadStore(path)
    with pytest.raises(ReadOnlyStore):
        store.mark_read(["a"])
    assert "a" in store  # the list must not undo the key the user pressed


def test_arrivals_first_visit_then_new_papers(folder: Path) -> None:
    path = folder / "c.json"
    store = ArrivalStore(path, ["/papers"])
    first = store.record(["a", "b", "c"], "2026-01-01T00:00:00+00:00")
    assert first.first_visit and first.new == frozenset() and first.visit_of == [0, 0, 0]
    again = store.record(["a", "b", "c"], "2026-01-02T00:00:00+00:00")
    assert not again.first_visit and again.new == frozenset()
    assert again.previous == "2026-01-01T00:00:00+00:00"
    grown = store.record(["d", "a", "b", "c", "e"], "2026-01-03T00:00:00+00:00")
    assert grown.new == {"d", "e"} and grown.visit_of == [1, 0, 0, 0, 1]
    assert grown.previous == "2026-01-02T00:00:00+00:00"
    later = store.record(["a", "e"], "2026-01-04T00:00:00+00:00")  # b, c, d left the collection
    assert later.new == frozenset() and later.visit_of == [0, 1]
    back = store.record(["b"], "2026-01-05T00:00:00+00:00")  # a paper that comes back is not new
    assert back.new == frozenset()
    data = on_disk(path)
    assert data["roots"] == ["/papers"] and data["last"] == "2026-01-05T00:00:00+00:00"
    assert [v["ids"] for v in data["visits"]] == ["a b c", "d e"]  # type: ignore[index, union-attr]


def test_arrivals_from_a_store_that_cannot_be_written(folder: Path) -> None:
    path = folder / "c.json"
    ArrivalStore(path).record(["a"], "2026-01-01T00:00:00+00:00")
    data = on_disk(path)
    data["version"] = 3
    path.write_text(json.dumps(data))
    found = ArrivalStore(path).record(["a", "b"], "2026-01-02T00:00:00+00:00")
    assert found.new == {"b"}  # still answered, from what is on disk
    store = ArrivalStore(path)
    store.record(["a"])
    assert any("not recorded" in w for w in store.warnings)


def test_history_is_most_recent_first_folded_and_capped(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui_reader.library.history.LIMIT", 30)  # 500 writes take a second
    history = SearchHistory(folder / "history.json")
    for query in ("graph neural", "diffusion", "graph   neural", "  "):
        history.add(query)
    assert history.all() == ["graph neural", "diffusion"]
    assert history.starting_with("GRA") == ["graph neural"]
    for n in range(50):
        history.add(f"query {n}")
    assert len(history.all()) == 30 and history.all()[0] == "query 49"
    assert len(on_disk(folder / "history.json")["searches"]) == 30  # type: ignore[arg-type]
    assert LIMIT == 500


def test_session_is_per_collection_and_tolerates_odd_values(folder: Path) -> None:
    path = folder / "session.json"
    store = SessionStore(path)
    store.save("one", Session("diffusion", "unread", "year", "abc"), ["/a"])
    store.save("two", Session("", "all", "relevance", ""))
    assert store.get("one") == Session("diffusion", "unread", "year", "abc")
    assert store.get("missing") == Session()
    data = on_disk(path)
    data["collections"]["two"]["view"] = "sideways"  # type: ignore[index]
    data["collections"]["two"]["sort"] = 42  # type: ignore[index]
    path.write_text(json.dumps(data))
    assert SessionStore(path).get("two") == Session(view="all", sort=None)


# -- jsonstore's own rules ---------------------------------------------------------------------
def test_an_older_file_is_upgraded_once_with_its_copy_kept(folder: Path) -> None:
    path = folder / "thing.json"
    raw = b'{"version": 1, "items": ["a"], "plugin": true}'
    path.write_bytes(raw)
    seen: list[int] = []

    def upgrade(doc: dict[str, object], old: int) -> None:
        seen.append(old)
        doc["items"] = {"a": 1}  # version 2 keeps a map

    store = JsonStore(path, "things", lambda _doc: None, version=2, upgrade=upgrade)
    assert store.load()["version"] == 1 and path.read_bytes() == raw  # reading upgrades nothing
    store.update(lambda doc: dict_of(doc, "items").update(b=2))
    assert seen == [1]
    assert on_disk(path) == {"version": 2, "items": {"a": 1, "b": 2}, "plugin": True}
    assert (folder / "thing.json.v1.bak").read_bytes() == raw
    store.update(lambda doc: dict_of(doc, "items").update(c=3))
    assert seen == [1]  # upgraded once


def test_a_change_that_changes_nothing_writes_nothing(folder: Path) -> None:
    path = folder / "thing.json"
    store = JsonStore(path, "things", lambda _doc: None)
    assert store.update(lambda doc: len(doc), write=bool) == 0
    assert not path.exists()
    store.update(lambda doc: doc.update(x=1))
    before = path.stat()
    store.update(lambda doc: doc.get("y"), write=lambda found: found is not None)
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_messages_name_the_store(folder: Path) -> None:
    path = folder / "x.json"
    path.write_text('{"version": 5}')
    one = JsonStore(path, "read state", lambda _doc: None)
    many = JsonStore(path, "bookmarks", lambda _doc: None, plural=True)
    for store, subject in ((one, "the read state"), (many, "bookmarks")):
        store.load()
        with pytest.raises(ReadOnlyStore, match=f"^could not save {subject}: .* newer tui-reader"):
            store.update(lambda doc: doc)
