"""Bookmarks: a versioned JSON file, written atomically, shared safely between processes."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.atomic import atomic_write_bytes
from tui_reader.corpus.corpus import Corpus
from tui_reader.library.bookmarks import VERSION, BookmarkStore, ReadOnlyStore
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
        "version": 1,
        "bookmarks": [
            {"id": "abc123", "title": "A title", "added": mark.added, "note": "a note"},
        ],
    }
    assert VERSION == 1
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
    assert on_disk(store_path)["version"] == 1
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
            "version": 2,
            "bookmarks": [
                {"id": "keep", "title": "Kept", "added": "2030-01-01", "note": "", "tags": ["x"]},
            ],
            "future": True,
        }
    ).encode()
    store_path.write_bytes(raw)
    store = BookmarkStore(store_path)
    assert store.read_only and store.ids() == {"keep"}
    assert store.warnings and "version 2" in store.warnings[0]
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
    raw = json.dumps({"version": 2, "bookmarks": {"keep": {"title": "Kept"}}}).encode()
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


def test_export_bibtex(marked: BookmarkStore, seed_corpus: Corpus) -> None:
    text = export(marked.all(), seed_corpus.get, "bibtex")
    assert text.count("@misc{") == 2
    for row in (2, 6):
        assert f"@misc{{tr_{seed_corpus.ids[row]}," in text
        assert f"title = {{{seed_corpus.titles[row]}}}" in text
    assert "note = {read the MoE part}" in text
    assert "booktitle = {ICML}" in text and "year = {2026}" in text
    assert text.count("{") == text.count("}")


def test_export_bibtex_escapes_specials(store_path: Path) -> None:
    store = BookmarkStore(store_path)
    store.add("x1", "50% of R&D {braces} #1 a_b $5", note="costs \\ less")
    text = export(store.all(), lambda _pid: None, "bibtex")
    assert "title = {50\\% of R\\&D braces \\#1 a\\_b \\$5}" in text
    assert "note = {costs  less}" in text
    assert text.count("{") == text.count("}")


def test_export_unknown_format(marked: BookmarkStore, seed_corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="yaml"):
        export(marked.all(), seed_corpus.get, "yaml")
