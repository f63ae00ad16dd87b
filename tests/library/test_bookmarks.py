"""Bookmarks: a versioned JSON file, written atomically, shared safely between processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.atomic import atomic_write_bytes
from tui_reader.corpus.corpus import Corpus
from tui_reader.library import bookmarks
from tui_reader.library.bookmarks import VERSION, BookmarksNotSaved, BookmarkStore, ReadOnlyStore
from tui_reader.library.export import export


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "bookmarks.json"


def on_disk(path: Path) -> dict[str, object]:
    return json.loads(path.read_text("utf-8"))


def leftovers(folder: Path) -> list[str]:
    """Anything in the folder but the store and its lock file."""
    return sorted(p.name for p in folder.iterdir() if p.name not in ("bookmarks.json", "bookmarks.json.lock"))


def test_default_location_is_in_the_isolated_data_dir(isolated_env: Path) -> None:
    assert paths.bookmarks_file().is_relative_to(isolated_env)


def test_file_shape(store_path: Path) -> None:
    store = BookmarkStore(store_path)
    assert len(store) == 0 and not store_path.exists()  # nothing written until a change
    mark = store.add("abc123", "A title", note="a note")
    data = on_disk(store_path)
    assert data == {
        "version": 3,
        "generation": data["generation"],  # new at every write: a change can tell nobody wrote since
        "bookmarks": [
            {"id": "abc123", "title": "A title", "added": mark.added, "note": "a note"},
        ],
    }
    assert VERSION == 3 and re.fullmatch("[0-9a-f]{32}", data["generation"])  # type: ignore[arg-type]
    assert datetime.fromisoformat(mark.added).tzinfo is not None
    assert store_path.read_text("utf-8").endswith("\n")


def test_add_remove_toggle_note(store_path: Path) -> None:
    store = BookmarkStore(store_path)
    first = store.add("a", "Alpha")
    again = store.add("a", "Alpha renamed")
    assert again.added == first.added and again.title == "Alpha" and len(store) == 1
    store.add("b", "Beta")
    assert [b["id"] for b in on_disk(store_path)["bookmarks"]] == ["a", "b"]
    assert "a" in store and store.ids() == {"a", "b"}
    store.set_note("a", "remember this")
    store.set_note("c", "note on a new one", title="Gamma")
    assert store.get("a").note == "remember this"  # type: ignore[union-attr]
    assert store.get("c").title == "Gamma"  # type: ignore[union-attr]
    assert store.remove("b") is True
    assert store.remove("b") is False
    assert store.toggle("a", "Alpha") is False and "a" not in store
    assert store.toggle("a", "Alpha") is True and "a" in store
    assert {b["id"] for b in on_disk(store_path)["bookmarks"]} == {"a", "c"}
    assert {b.id for b in BookmarkStore(store_path).all()} == {"a", "c"}


def test_writes_leave_no_temp_files(store_path: Path) -> None:
    store = BookmarkStore(store_path)
    for n in range(20):
        store.add(f"id{n}", f"T{n}")
        if n % 3 == 0:
            store.remove(f"id{n}")
    assert leftovers(store_path.parent) == []
    assert len(on_disk(store_path)["bookmarks"]) == 13  # type: ignore[arg-type]


def test_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "atomic" / "f.json"
    target.parent.mkdir()
    target.write_bytes(b"old content")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old content"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


def test_stores_merge_instead_of_overwriting(store_path: Path) -> None:
    one, two = BookmarkStore(store_path), BookmarkStore(store_path)
    one.add("from-one", "1")
    two.add("from-two", "2")  # two's copy is stale, but the change merges with the file
    assert {b["id"] for b in on_disk(store_path)["bookmarks"]} == {"from-one", "from-two"}
    one.remove("from-two")
    two.reload()
    assert two.ids() == {"from-one"}


@pytest.mark.parametrize(
    "garbage",
    [
        b"\x00\xff\xfe garbage \x80\x81",
        b'{"version": 1, "bookmarks": [',
        b"[1, 2, 3]",
        b'{"bookmarks": []}',
        b"",
    ],
    ids=["binary", "truncated", "list", "no-version", "empty"],
)
def test_corrupt_file_is_moved_aside_byte_for_byte(store_path: Path, garbage: bytes) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(garbage)
    store = BookmarkStore(store_path)
    assert len(store) == 0 and not store.read_only
    backups = list(store_path.parent.glob("bookmarks.json.corrupt-*"))
    assert len(backups) == 1
    assert backups[0].read_bytes() == garbage
    assert len(store.warnings) == 1 and backups[0].name in store.warnings[0]
    # the store works again, and the backup is left alone
    store.add("x", "X")
    assert on_disk(store_path)["version"] == VERSION
    assert backups[0].read_bytes() == garbage


def test_second_corrupt_file_gets_its_own_backup(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    for content in (b"first garbage", b"second garbage"):
        store_path.write_bytes(content)
        BookmarkStore(store_path)
    backups = sorted(store_path.parent.glob("bookmarks.json.corrupt-*"))
    assert sorted(p.read_bytes() for p in backups) == [b"first garbage", b"second garbage"]


def test_newer_version_is_never_overwritten(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    raw = json.dumps(
        {
            "version": 4,
            "bookmarks": [
                {"id": "keep", "title": "Kept", "added": "2030-01-01", "note": "", "tags": ["x"]},
            ],
            "future": True,
        }
    ).encode()
    store_path.write_bytes(raw)
    store = BookmarkStore(store_path)
    assert store.read_only and store.ids() == {"keep"}
    assert store.warnings and "version 4" in store.warnings[0]
    assert store.get("keep").tags == ["x"]  # type: ignore[union-attr]
    with pytest.raises(ReadOnlyStore):
        store.add("new", "New")
    with pytest.raises(ReadOnlyStore):
        store.remove("keep")
    with pytest.raises(ReadOnlyStore):
        store.set_note("keep", "note")
    assert store_path.read_bytes() == raw
    assert leftovers(store_path.parent) == []
    assert store.ids() == {"keep"}


def test_newer_version_with_a_new_shape_is_never_overwritten(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    raw = json.dumps({"version": 4, "bookmarks": {"keep": {"title": "Kept"}}}).encode()
    store_path.write_bytes(raw)
    store = BookmarkStore(store_path)
    with pytest.raises(ReadOnlyStore):
        store.add("new", "New")
    assert store_path.read_bytes() == raw


def test_bookmarks_outside_the_corpus_are_kept(store_path: Path, seed_corpus: Corpus) -> None:
    store = BookmarkStore(store_path)
    store.add("deadbeef0000", "From another collection", note="elsewhere")
    pid = seed_corpus.ids[0]
    store.add(pid, seed_corpus.titles[0])
    reopened = BookmarkStore(store_path)
    assert reopened.ids() == {"deadbeef0000", pid}
    exported = json.loads(export(reopened.all(), seed_corpus.get, "json"))
    by_id = {e["id"]: e for e in exported}
    assert by_id["deadbeef0000"]["in_corpus"] is False
    assert by_id["deadbeef0000"]["title"] == "From another collection"
    assert by_id[pid]["in_corpus"] is True
    assert by_id[pid]["abstract"] == seed_corpus.paper(0).abstract
    markdown = export(reopened.all(), seed_corpus.get, "markdown")
    assert "From another collection" in markdown and "not in the open corpus" in markdown


_WORKER = """
import sys, time
from pathlib import Path
from tui_reader.library.bookmarks import BookmarkStore
path, tag, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.005)
store = BookmarkStore(path)
for n in range(50):
    store.add(f"{tag}-{n}", f"{tag} paper {n}")
print(len(store))
"""


def test_two_processes_lose_nothing(store_path: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(store_path), tag, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("left", "right")
    ]
    time.sleep(0.3)  # both interpreters up and waiting, then start together
    go.touch()
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert 50 <= int(out) <= 100
    marks = on_disk(store_path)["bookmarks"]
    got = [m["id"] for m in marks]  # type: ignore[union-attr]
    assert len(got) == len(set(got)) == 100
    assert set(got) == {f"{t}-{n}" for t in ("left", "right") for n in range(50)}
    assert leftovers(store_path.parent) == []


# -- export -------------------------------------------------------------------------------------
@pytest.fixture
def marked(store_path: Path, seed_corpus: Corpus) -> BookmarkStore:
    store = BookmarkStore(store_path)
    for row, note in ((2, "read the MoE part"), (6, "")):
        store.add(seed_corpus.ids[row], seed_corpus.titles[row], note=note)
    return store


def test_export_json(marked: BookmarkStore, seed_corpus: Corpus) -> None:
    data = json.loads(export(marked.all(), seed_corpus.get, "json"))
    assert [e["title"] for e in data] == [seed_corpus.titles[2], seed_corpus.titles[6]]
    assert data[0]["note"] == "read the MoE part"
    assert data[0]["sources"] == seed_corpus.sources(2) and data[0]["year"] == 2026


def test_export_markdown(marked: BookmarkStore, seed_corpus: Corpus) -> None:
    text = export(marked.all(), seed_corpus.get, "markdown")
    assert text.startswith("# Bookmarks")
    for row in (2, 6):
        assert f"## {seed_corpus.titles[row]}" in text
        assert seed_corpus.ids[row] in text
        assert "> " + seed_corpus.paper(row).abstract in text
    assert "**Note:** read the MoE part" in text
    assert " · ICML 2026\n" in text  # the venue and year, as the detail pane shows them


def test_export_unknown_format(marked: BookmarkStore, seed_corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="yaml"):
        export(marked.all(), seed_corpus.get, "yaml")


# -- version 1 files ------------------------------------------------------------------------------
V1 = {
    "version": 1,
    "theme": {"kept": [1, 2]},
    "bookmarks": [
        {"id": "a", "title": "Alpha", "added": "2024-01-01T00:00:00+00:00", "note": "n", "colour": "red"},
        {"id": 7, "title": "not understood"},
        {"id": "b", "title": "Beta", "added": "2024-01-02T00:00:00+00:00", "note": ""},
    ],
}


def test_a_version_1_file_is_upgraded_on_the_first_write_with_a_backup(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    raw = json.dumps(V1, indent=4).encode()
    store_path.write_bytes(raw)
    store = BookmarkStore(store_path)
    assert store.ids() == {"a", "b"} and not store.read_only
    assert store_path.read_bytes() == raw  # reading changes nothing
    assert store.remove("missing") is False and store_path.read_bytes() == raw  # nor does a no-op
    store.set_tags("b", ["new"])
    backup = store_path.with_name("bookmarks.json.v1.bak")
    assert backup.read_bytes() == raw  # byte for byte
    data = on_disk(store_path)
    assert data["version"] == VERSION and data["theme"] == {"kept": [1, 2]}
    marks = data["bookmarks"]
    assert marks[0] == V1["bookmarks"][0]  # type: ignore[index]  # untouched, unknown key and all
    assert marks[1] == {**V1["bookmarks"][2], "tags": ["new"]}  # type: ignore[index, dict-item]
    assert marks[2] == V1["bookmarks"][1]  # type: ignore[index]  # kept verbatim, after the rest
    # an upgraded file is not upgraded again, and an earlier backup is never overwritten
    backup.write_bytes(b"an older backup")
    store.add("c", "Gamma")
    assert backup.read_bytes() == b"an older backup"
    store_path.write_bytes(raw)  # a version-1 file again (copied back by hand): its backup stays
    store.add("d", "Delta")
    assert backup.read_bytes() == b"an older backup" and on_disk(store_path)["version"] == VERSION


@pytest.mark.parametrize("older", [1, 2])
def test_an_older_reader_refuses_a_version_3_file(
    store_path: Path, monkeypatch: pytest.MonkeyPatch, older: int
) -> None:
    BookmarkStore(store_path).set_tags("a", ["x"], title="Alpha")
    raw = store_path.read_bytes()
    monkeypatch.setattr(bookmarks, "VERSION", older)  # the reader as it was before
    old = BookmarkStore(store_path)
    assert old.read_only and old.ids() == {"a"}
    assert old.warnings == [f"{store_path} is from a newer tui-reader (version 3); not changing it"]
    with pytest.raises(ReadOnlyStore, match=r"could not save bookmarks: .* newer tui-reader"):
        old.add("b", "Beta")
    assert store_path.read_bytes() == raw
    assert leftovers(store_path.parent) == []


def test_toggle_is_one_change(store_path: Path) -> None:
    one, two = BookmarkStore(store_path), BookmarkStore(store_path)
    assert one.toggle("a", "A") is True
    assert two.toggle("a", "A") is False  # two's copy never saw "a": the file decides
    assert on_disk(store_path)["bookmarks"] == []


def test_no_upgrade_without_its_backup(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    raw = json.dumps(V1).encode()
    store_path.write_bytes(raw)
    store_path.with_name("bookmarks.json.v1.bak").mkdir()  # in the way of the copy
    store = BookmarkStore(store_path)
    with pytest.raises(BookmarksNotSaved) as caught:
        store.add("c", "Gamma")
    assert str(caught.value) == (
        "could not save bookmarks: cannot keep a copy of the version-1 file (is a directory); "
        "the file is unchanged"
    )
    assert store_path.read_bytes() == raw
