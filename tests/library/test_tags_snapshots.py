"""Bookmarks version 2: tags, multi-line notes and the snapshot of each paper, kept with the
store's discipline (merged with what is on disk, made safe as read, unknown parts kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.paper import Paper
from tui_reader.library import jsonstore
from tui_reader.library.bookmarks import VERSION, BookmarkStore, normalise_tags, snapshot_dict

NOTE = "first line\n\tindented second line\nthird line"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "bookmarks.json"


def on_disk(path: Path) -> dict[str, object]:
    return json.loads(path.read_text("utf-8"))  # type: ignore[no-any-return]


def entries(path: Path) -> dict[str, dict[str, object]]:
    """The list's entries, each snapshot read from its pack beside the file (as ``paper``)."""
    out = {}
    for entry in on_disk(path)["bookmarks"]:  # type: ignore[union-attr]
        ref = entry.pop("snapshot", None)
        if ref is not None:
            pack = path.with_name(path.name + ".snapshots") / f"{ref[:2]}.json"
            entry["paper"] = json.loads(pack.read_text("utf-8"))["snapshots"][ref]
        out[entry["id"]] = entry
    return out


def a_paper(pid: str = "p1", **kw: object) -> Paper:
    fields: dict[str, object] = {
        "title": "Deep Nets",
        "abstract": "An abstract\nof two lines.",
        "authors": ["Ada Lovelace"],
        "venue": "ICML",
        "year": 2024,
        "url": "https://example.org/p1",
        "doi": "10.1/x",
        "arxiv": "2401.00001",
        "keywords": ["nets"],
        "kind": "inproceedings",
        **kw,
    }
    return Paper(id=pid, sources=["/somewhere/file.bib"], **fields)  # type: ignore[arg-type]


# -- tags -------------------------------------------------------------------------------------
def test_tags_are_normalised() -> None:
    given = ["  ML ", "ml", "theory, Deep   learning", "", "  ", ",", "x" * 150, "\x1b[1mbold"]
    assert normalise_tags(given) == ["Deep learning", "ML", "theory", "x" * 100, "\u241b[1mbold"]


def test_tagging_bookmarks_the_paper_and_untagging_keeps_it(path: Path) -> None:
    store = BookmarkStore(path)
    mark = store.set_tags("p1", ["ML", "Theory"], title="Deep Nets", snapshot=a_paper())
    assert "p1" in store and mark.tags == ["ML", "Theory"] and mark.title == "Deep Nets"
    assert entries(path)["p1"]["tags"] == ["ML", "Theory"]
    assert entries(path)["p1"]["paper"] == snapshot_dict(a_paper())
    store.set_tags("p1", [])
    assert "p1" in store and store.get("p1").tags == []  # type: ignore[union-attr]
    assert "tags" not in entries(path)["p1"]  # no tags: no key
    assert store.remove_tags("missing", ["x"]) is None and "missing" not in store


def test_tag_queries_are_case_blind(path: Path) -> None:
    store = BookmarkStore(path)
    store.set_tags("a", ["ML", "vision"], title="A")
    store.set_tags("b", ["ml"], title="B")
    store.set_tags("c", ["Ml", "Theory"], title="C")
    store.add("d", "D")
    assert store.ids_with_tag("ml") == store.ids_with_tag(" ML ") == {"a", "b", "c"}
    assert store.ids_with_tag("nothing") == set()
    assert store.tag_counts() == {"ML": 3, "Theory": 1, "vision": 1}  # ties: the sorted spelling
    assert store.all_tags() == ["ML", "Theory", "vision"]
    assert BookmarkStore(path).tag_counts() == store.tag_counts()  # as read back


def test_tag_changes_merge_with_what_is_on_disk(path: Path) -> None:
    one, two = BookmarkStore(path), BookmarkStore(path)
    one.add_tags("p", ["alpha"], title="P")
    two.add_tags("p", ["beta", "ALPHA"], title="P")  # a stale copy: merged, "alpha" kept as it was
    assert BookmarkStore(path).get("p").tags == ["alpha", "beta"]  # type: ignore[union-attr]
    one.remove_tags("p", ["Beta"])
    assert entries(path)["p"]["tags"] == ["alpha"]


def test_untagging_a_paper_not_bookmarked_writes_nothing(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p", "P")
    before = path.stat()
    assert store.remove_tags("other", ["x"]) is None and store.remove("other") is False
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not replaced


# -- notes ------------------------------------------------------------------------------------
def test_a_three_line_note_round_trips(path: Path) -> None:
    store = BookmarkStore(path)
    store.set_note("p1", NOTE, title="Deep Nets", snapshot=a_paper())
    assert store.get("p1").note == NOTE  # type: ignore[union-attr]
    assert entries(path)["p1"]["note"] == NOTE
    assert BookmarkStore(path).get("p1").note == NOTE  # type: ignore[union-attr]
    store.set_note("p1", "one\r\ntwo\rthree\x1b[2J")  # line ends made newlines, escapes shown
    assert BookmarkStore(path).get("p1").note == "one\ntwo\nthree\u241b[2J"  # type: ignore[union-attr]


# -- snapshots --------------------------------------------------------------------------------
def test_the_snapshot_is_taken_when_bookmarked_tagged_or_noted(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p1", "Deep Nets", snapshot=a_paper())
    store.add_tags("p2", ["x"], snapshot=a_paper("p2", title="Second"))
    store.set_note("p3", "n", snapshot=a_paper("p3", title="Third"))
    assert store.get("p2").title == "Second"  # type: ignore[union-attr]  # no title given: the paper's
    for pid in ("p1", "p2", "p3"):
        snap = entries(path)[pid]["paper"]
        assert isinstance(snap, dict) and snap["doi"] == "10.1/x" and snap["year"] == 2024
        assert set(snap) == {
            "title",
            "authors",
            "year",
            "venue",
            "url",
            "doi",
            "arxiv",
            "keywords",
            "kind",
            "abstract",
        }
    reread = BookmarkStore(path).get("p1")
    assert reread is not None and reread.snapshot is not None
    assert snapshot_dict(reread.snapshot) == snapshot_dict(a_paper())
    assert reread.snapshot.sources == []  # where the paper was read is not the bookmark's business


def test_refresh_takes_new_snapshots_in_one_write(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = BookmarkStore(path)
    store.add("p1", "Deep Nets")  # bookmarked before snapshots existed
    store.add("p2", "Old", snapshot=a_paper("p2", title="Old"))
    store.add("gone", "Not in the collection")
    writes: list[Path] = []
    real_write = jsonstore.atomic_write_bytes

    def counted(target: Path, data: bytes) -> None:
        writes.append(target)
        real_write(target, data)

    monkeypatch.setattr(jsonstore, "atomic_write_bytes", counted)
    papers = {"p1": a_paper("p1"), "p2": a_paper("p2", title="Old", venue="NeurIPS", year=2025)}
    assert store.refresh_snapshots(papers.get) == 2
    assert len(writes) == 1
    assert entries(path)["p2"]["paper"]["venue"] == "NeurIPS"  # type: ignore[index]
    assert "paper" not in entries(path)["gone"]
    assert store.refresh_snapshots(papers.get) == 0 and len(writes) == 1  # nothing changed: no write
    assert BookmarkStore(path).refresh_snapshots(papers.get) == 0 and len(writes) == 1


def test_opening_never_upgrades_a_version_1_file(path: Path) -> None:
    """An older tui-reader may still use the file: only the user's first change upgrades it."""
    v1 = {"version": 1, "bookmarks": [{"id": "p1", "title": "Deep Nets", "added": "2026-01-01", "note": ""}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(v1), "utf-8")
    before = path.read_bytes()
    papers = {"p1": a_paper("p1")}
    store = BookmarkStore(path)
    assert store.older_file and store.refresh_snapshots(papers.get) == 0
    assert path.read_bytes() == before and not path.with_name(path.name + ".v1.bak").exists()
    store.set_note("p1", "now", snapshot=papers["p1"])  # the user's change: upgraded, backed up
    assert (
        on_disk(path)["version"] == VERSION and path.with_name(path.name + ".v1.bak").read_bytes() == before
    )
    assert not store.older_file and store.refresh_snapshots(papers.get) == 0  # its snapshot is fresh


def test_refresh_from_the_seed_collection(path: Path, seed_corpus: Corpus) -> None:
    store = BookmarkStore(path)
    for row in (1, 3):
        store.add(seed_corpus.ids[row], seed_corpus.titles[row])
    assert store.refresh_snapshots(seed_corpus.get) == 2
    snap = entries(path)[seed_corpus.ids[1]]["paper"]
    assert snap == {  # the seeds have no authors or links: what they have is kept
        "title": seed_corpus.titles[1],
        "abstract": seed_corpus.paper(1).abstract,
        "venue": "ICML",
        "year": 2026,
    }


def test_snapshots_are_made_safe_and_keep_what_they_do_not_understand(path: Path) -> None:
    path.parent.mkdir(parents=True)
    doc = {
        "version": 2,
        "bookmarks": [
            {
                "id": "p1",
                "title": "T",
                "added": "2024-01-01",
                "note": "",
                "tags": ["ok"],
                "paper": {
                    "title": "Evil \x1b]0;x\x07 title",
                    "abstract": "line\nline \x1b[2J",
                    "authors": ["A \x9b B"],
                    "year": "2020",  # not a number: kept as it is, not used
                    "keywords": [1, 2],  # not strings: the same
                    "future": {"kept": True},
                },
            },
            {
                "id": "p2",
                "title": "U",
                "added": "",
                "note": "",
                "tags": "not a list",
                "paper": ["nor a dict"],
            },
        ],
    }
    path.write_text(json.dumps(doc))
    store = BookmarkStore(path)
    assert store.warnings == []
    snap = store.get("p1").snapshot  # type: ignore[union-attr]
    assert snap is not None and snap.title == "Evil \u241b]0;x\u2407 title"
    assert snap.abstract == "line\nline \u241b[2J" and snap.authors == ["A \\x9b B"]
    assert snap.year is None and snap.keywords == []
    odd = store.get("p2")
    assert odd is not None and odd.tags == [] and odd.snapshot is None
    store.set_note("p1", "touched")
    store.set_note("p2", "touched")
    after = entries(path)
    kept = after["p1"]["paper"]
    assert isinstance(kept, dict)
    assert kept["year"] == "2020" and kept["keywords"] == [1, 2] and kept["future"] == {"kept": True}
    assert after["p2"]["tags"] == "not a list" and after["p2"]["paper"] == ["nor a dict"]  # verbatim
    assert "\x1b" not in path.read_text("utf-8")
