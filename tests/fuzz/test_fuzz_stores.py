"""Fuzz the readers of the user's stores with mutations of files the stores themselves wrote.

For any bytes in any of a store's files: opening and reading never raise; a file said to be
corrupt is set aside (its bytes still on disk, under another name), not deleted; and unless the
store says it is read-only, a change made after opening is there for the next instance.
config.toml (the user's own text, never rewritten wholesale): load_config never raises, its
problems are one clean line each, and the config is usable."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fuzzing import bad_chars, mutated, no_hang, run, tally
from hypothesis import strategies as st

from tui_reader.app.commands import reader_keys, reserved_keys
from tui_reader.corpus.paper import Paper
from tui_reader.library.arrivals import ArrivalStore
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.config import load_config, save_theme
from tui_reader.library.history import SearchHistory
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import Session, SessionStore

PAPER = Paper(
    id="p1",
    title="On {Braces} and $\\alpha$",
    abstract="An abstract.\nTwo lines.",
    authors=["Ada Lovelace", "Émile Borel"],
    venue="ICML",
    year=2026,
    url="https://example.org/p1",
    doi="10.1234/abc",
    keywords=["graphs"],
)


@dataclass
class Kind:
    file: str
    fill: Callable[[Path], None]  # write a valid store by the store's own calls
    open_read: Callable[[Path], object]  # open a fresh instance and read everything it holds
    change: Callable[[Path, str], None]  # a change named by a word
    holds: Callable[[Path, str], bool]  # a fresh instance sees that change
    read_only: Callable[[object], bool]


def _bm_fill(path: Path) -> None:
    store = BookmarkStore(path)
    store.add("p1", PAPER.title, "a note", snapshot=PAPER)
    store.add("p2", "Second", "")
    store.add_tags("p1", ["maths", "to read"])
    store.set_note("p2", "line one\nline two")


def _bm_read(path: Path) -> object:
    store = BookmarkStore(path)
    for mark in store.all():
        _ = (mark.snapshot, mark.tags, mark.note, mark.to_dict())
    store.tag_counts()
    return store


def _read_fill(path: Path) -> None:
    ReadStore(path).mark_read(["p1", "p2", "p3"])


def _history_fill(path: Path) -> None:
    history = SearchHistory(path)
    for q in ["learning", "title:graph", '"neural network"']:
        history.add(q)


def _session_fill(path: Path) -> None:
    store = SessionStore(path)
    store.save("k1", Session("learning", "all", None, "p1"), ["/tmp/a"])
    store.save("k2", Session("graph", "bookmarks", "year", "p2"))


def _session_read(path: Path) -> object:
    store = SessionStore(path)
    store.get("k1")
    store.get("k2")
    return store


def _arrivals_fill(path: Path) -> None:
    ArrivalStore(path).record(["p1", "p2"])
    ArrivalStore(path).record(["p1", "p2", "p3"])


def _arrived(path: Path, word: str) -> bool:
    found = ArrivalStore(path).record([word, "zzz-probe"])
    return word not in found.new and not found.first_visit


KINDS = {
    "bookmarks": Kind(
        "bookmarks.json",
        _bm_fill,
        _bm_read,
        lambda p, w: BookmarkStore(p).add(w, "T " + w, "n", snapshot=PAPER) and None,
        lambda p, w: w in BookmarkStore(p),
        lambda s: s.read_only,  # type: ignore[attr-defined]
    ),
    "read": Kind(
        "read.json",
        _read_fill,
        lambda p: (s := ReadStore(p), s.ids())[0],
        lambda p, w: ReadStore(p).mark_read([w]),
        lambda p, w: w in ReadStore(p),
        lambda s: s.read_only,  # type: ignore[attr-defined]
    ),
    "history": Kind(
        "history.json",
        _history_fill,
        lambda p: (s := SearchHistory(p), s.all())[0],
        lambda p, w: SearchHistory(p).add(w),
        lambda p, w: w in SearchHistory(p).all(),
        lambda s: s._store.read_only,  # type: ignore[attr-defined]
    ),
    "session": Kind(
        "session.json",
        _session_fill,
        _session_read,
        lambda p, w: SessionStore(p).save(w, Session(query=w)),
        lambda p, w: SessionStore(p).get(w).query == w,
        lambda s: s._store.read_only,  # type: ignore[attr-defined]
    ),
    "arrivals": Kind(
        "arrivals.json",
        _arrivals_fill,
        lambda p: (s := ArrivalStore(p), s.record(["p1", "p2"]))[0],  # a launch reads it
        lambda p, w: ArrivalStore(p).record([w]) and None,
        _arrived,
        lambda s: s._store.read_only,  # type: ignore[attr-defined]
    ),
}


def _valid(kind: Kind) -> dict[str, bytes]:
    """Every file a filled store leaves, by name relative to its folder."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        kind.fill(folder / kind.file)
        return {
            str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")
        }


VALID = {name: _valid(kind) for name, kind in KINDS.items()}


def check_store(name: str, target: str, raw: bytes) -> None:
    kind, files = KINDS[name], VALID[name]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for rel, content in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(raw if rel == target else content)
        path = folder / kind.file
        with no_hang():
            store = kind.open_read(path)
        warnings: list[str] = store.warnings  # type: ignore[attr-defined]
        for w in warnings:
            assert not bad_chars(w, newline=False), w
        if any("corrupt" in w for w in warnings):
            tally("set aside")
            kept = [p for p in folder.rglob("*") if p.is_file() and p.read_bytes() == raw]
            assert kept, f"corrupt {target} not kept: {warnings}"
        if kind.read_only(store):
            tally("read-only")
            assert warnings
            return
        tally("usable")
        with no_hang():
            kind.change(path, "fuzz-word")
            assert kind.holds(path, "fuzz-word")
            kind.open_read(path)


OTHERS = [c for v in VALID.values() for c in v.values()]


def store_files(name: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """One of the store's files, and new bytes for it."""
    files = VALID[name]
    return st.sampled_from(sorted(files)).flatmap(
        lambda target: st.tuples(st.just(target), mutated([files[target]], OTHERS))
    )


@pytest.mark.parametrize("name", list(KINDS))
def test_store_reader_never_fails(name: str) -> None:
    run(name, store_files(name), lambda file: check_store(name, *file))


@pytest.mark.parametrize("name", list(KINDS))
def test_the_valid_stores_read_clean(name: str) -> None:
    for target, content in VALID[name].items():
        check_store(name, target, content)


CONFIG = b"""theme = "nord"
sort = "year"
read_delay = 2.5

[keys]
open_link = "O"
quit = "ctrl+q"
"""
THEMES = {"textual-dark", "nord", "gruvbox"}


def check_config(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_bytes(raw)
        with no_hang():
            config = load_config(path, reader_keys(), THEMES, reserved_keys())
        tally("problems" if config.problems else "clean")
        for problem in config.problems:
            assert isinstance(problem, str) and not bad_chars(problem, newline=False), problem
        assert config.sort and config.read_delay >= 0
        try:
            save_theme(path, "gruvbox")
        except Exception as exc:  # ConfigNotSaved is the one it may say
            assert type(exc).__name__ == "ConfigNotSaved", exc
            return
        again = load_config(path, reader_keys(), THEMES, reserved_keys())
        if not any("theme" in p for p in again.problems):
            assert again.theme == "gruvbox"


def test_config_reader_never_fails() -> None:
    run("config", mutated([CONFIG], [CONFIG, *VALID["session"].values()]), check_config)


def test_the_valid_config_reads_clean() -> None:
    check_config(CONFIG)
