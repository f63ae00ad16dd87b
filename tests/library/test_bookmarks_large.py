"""Issue 22, item 3: version 3 keeps snapshots beside the list, so a change writes the list and
only the packs of the snapshots it made; version-2 files are read as they are and upgraded by the
first change with a byte-for-byte copy. Snapshots keep Paper.record (an export from a snapshot
has every field). Bookmarks can be renamed (old id -> new id) in one write, with a copy kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore, digest
from tui_reader.library.export import export


def paper(pid: str, **kw: object) -> Paper:
    fields: dict[str, object] = {
        "id": pid,
        "title": f"Title {pid}",
        "abstract": f"About {pid}.",
        "year": 2020,
    }
    fields.update(kw)
    return Paper(**fields)  # type: ignore[arg-type]


RECORD = {
    "type": "article-journal",
    "container-title": "Journal of Tests",
    "volume": "12",
    "issue": "3",
    "page": "45-67",
    "publisher": "Test Press",
    "custom": {"owner": "ada", "timestamp": "2020.01.01"},
}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "bookmarks.json"


def packs(path: Path) -> dict[str, bytes]:
    folder = path.with_name(path.name + ".snapshots")
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


def test_a_version_2_file_is_read_as_is_and_upgraded_by_the_first_change(path: Path) -> None:
    v2 = {
        "version": 2,
        "mine": {"kept": True},
        "bookmarks": [
            {
                "id": "p1",
                "title": "One",
                "added": "2024-01-01",
                "note": "n",
                "tags": ["a"],
                "paper": {"title": "One", "year": 2001, "doi": "10.1/one", "future": [1]},
            },
            {"id": "p2", "title": "Two", "added": "2024-01-02", "note": ""},
        ],
    }
    path.parent.mkdir(parents=True)
    raw = json.dumps(v2, indent=2).encode()
    path.write_bytes(raw)
    store = BookmarkStore(path)
    assert store.older_file and store.get("p1").snapshot.doi == "10.1/one"  # type: ignore[union-attr]
    assert path.read_bytes() == raw and packs(path) == {}  # opening changes nothing
    store.set_note("p2", "upgraded")
    assert path.with_name("bookmarks.json.v2.bak").read_bytes() == raw
    doc = json.loads(path.read_text("utf-8"))
    assert doc["version"] == 3 and doc["mine"] == {"kept": True}
    first = doc["bookmarks"][0]
    assert "paper" not in first and first["snapshot"] == digest(v2["bookmarks"][0]["paper"])  # type: ignore[index]
    (pack,) = packs(path).values()
    assert json.loads(pack)["snapshots"][first["snapshot"]] == v2["bookmarks"][0]["paper"]  # type: ignore[index]
    again = BookmarkStore(path).get("p1")
    assert again is not None and again.snapshot is not None and again.snapshot.year == 2001
    assert again.to_dict()["paper"] == v2["bookmarks"][0]["paper"]  # type: ignore[index]  # unknown kept


def test_a_change_writes_the_list_and_only_the_pack_of_its_snapshot(path: Path) -> None:
    store = BookmarkStore(path)
    for n in range(300):
        store.add(f"p{n}", f"Title {n}", snapshot=paper(f"p{n}"))
    before = packs(path)
    assert len(before) > 100  # snapshots spread over the packs
    store.add_tags("p7", ["x"])  # no new snapshot: no pack written
    assert packs(path) == before
    store.add("new", "New", snapshot=paper("new", abstract="Something else."))
    after = packs(path)
    changed = [name for name in after if after[name] != before.get(name)]
    assert len(changed) == 1
    ref = json.loads(path.read_text("utf-8"))["bookmarks"][-1]["snapshot"]
    assert changed == [f"{ref[:2]}.json"]
    assert "abstract" not in path.read_text("utf-8")  # the list holds no snapshot


def test_what_a_caller_holds_never_changes_under_it(path: Path) -> None:
    """The reader compares the bookmarks it shows with the store's after a change."""
    store = BookmarkStore(path)
    store.add("a", "A")
    shown = tuple(store.all())
    store.set_note("a", "a note")
    assert shown[0].note == "" and tuple(store.all()) != shown
    assert store.get("a").note == "a note"  # type: ignore[union-attr]


def test_a_change_merges_with_another_readers_write(path: Path) -> None:
    one, two = BookmarkStore(path), BookmarkStore(path)
    for n in range(5):
        one.add(f"one{n}", "1")  # one keeps its own copy: nobody else wrote
        two.add(f"two{n}", "2")  # two's copy is stale: it reads the file again
    three = BookmarkStore(path)
    assert three.ids() == {f"{w}{n}" for w in ("one", "two") for n in range(5)}
    three.set_note("one0", "from three")
    one.add_tags("one1", ["t"])
    assert BookmarkStore(path).get("one0").note == "from three"  # type: ignore[union-attr]
    assert BookmarkStore(path).get("one1").tags == ["t"]  # type: ignore[union-attr]


def test_snapshots_keep_the_record_and_an_export_from_one_has_every_field(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p1", "A Study", snapshot=paper("p1", title="A Study", authors=["Ada Lovelace"], record=RECORD))
    reopened = BookmarkStore(path).get("p1")
    assert reopened is not None and reopened.snapshot is not None
    assert reopened.snapshot.record == RECORD
    bib = export(BookmarkStore(path).all(), lambda _pid: None, "bibtex")  # no collection open
    for text in ("Journal of Tests", "12", "45", "Test Press", "2020.01.01"):
        assert text in bib, text
    evil = dict(RECORD, publisher="Bad \x1b]0;x\x07 Press", custom={"raw": "as \x1b given"})
    store.add("p2", "B", snapshot=paper("p2", record=evil))
    snap = BookmarkStore(path).get("p2").snapshot  # type: ignore[union-attr]
    assert snap is not None and "\x1b" not in str(snap.record["publisher"])
    assert snap.record["custom"] == {"raw": "as \x1b given"}  # "custom" stays verbatim


def test_rename_ids_in_one_write_with_a_copy_kept(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("old1", "One", note="n1", snapshot=paper("old1"))
    store.add_tags("old1", ["t"])
    store.add("old2", "Two")
    store.add("taken", "Already here")
    assert store.rename_ids({"old1": "new1", "old2": "taken", "missing": "x"}) == {"old1": "new1"}
    assert store.ids() == {"new1", "old2", "taken"}  # a new id bookmarked already: not merged
    mark = BookmarkStore(path).get("new1")
    assert mark is not None and (mark.note, mark.tags, mark.title) == ("n1", ["t"], "One")
    assert mark.snapshot is not None and mark.snapshot.id == "new1"
    (kept,) = path.parent.glob("bookmarks.json.renamed-*.json")
    copy = json.loads(kept.read_text("utf-8"))
    assert copy["renamed"] == {"old1": "new1"} and copy["bookmarks"][0]["id"] == "old1"
    assert copy["bookmarks"][0]["paper"]["title"] == "Title old1"
    assert store.rename_ids({"nothing": "here"}) == {}


def test_a_removed_or_refreshed_snapshot_leaves_the_packs(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p1", "One", snapshot=paper("p1"))
    store.add("p2", "Two", snapshot=paper("p2"))
    first = BookmarkStore(path).get("p1").snapshot_ref  # type: ignore[union-attr]
    store.refresh_snapshots({"p1": paper("p1", venue="ICML")}.get)
    held = b"".join(packs(path).values())
    assert first.encode() not in held and b"ICML" in held and b"About p2." in held
    store.remove("p1")
    store.remove("p2")
    assert b"About p" not in b"".join(packs(path).values())  # nothing of a removed bookmark kept


def test_a_damaged_pack_is_set_aside_before_it_is_written_again(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p1", "One", snapshot=paper("p1"))
    ref = store.get("p1").snapshot_ref  # type: ignore[union-attr]
    pack = path.with_name(path.name + ".snapshots") / f"{ref[:2]}.json"
    pack.write_bytes(b'{"version": 1, "snapsh')  # a damaged pack: its snapshot is missing
    reopened = BookmarkStore(path)
    assert reopened.get("p1").snapshot is None and reopened.get("p1").title == "One"  # type: ignore[union-attr]
    reopened.refresh_snapshots({"p1": paper("p1")}.get)  # taken again from the collection
    assert BookmarkStore(path).get("p1").snapshot is not None  # type: ignore[union-attr]
    (aside,) = pack.parent.glob(f"{ref[:2]}.json.corrupt-*")
    assert aside.read_bytes() == b'{"version": 1, "snapsh'
