"""Issue 22, item 12: a write keeps the store file's mode (every JSON store, bookmarks too)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tui_reader.atomic import atomic_write_bytes
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.history import SearchHistory
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import Session, SessionStore


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("bits", [0o644, 0o600, 0o640, 0o664])
def test_every_store_keeps_the_file_mode(tmp_path: Path, bits: int) -> None:
    stores = {
        "bookmarks.json": (lambda p: BookmarkStore(p).add("a", "A"), {"version": 2, "bookmarks": []}),
        "read.json": (lambda p: ReadStore(p).mark_read(["a"]), {"version": 1, "read": {}}),
        "history.json": (lambda p: SearchHistory(p).add("graph"), {"version": 1, "searches": []}),
        "session.json": (lambda p: SessionStore(p).save("k", Session(query="q")), {"version": 1}),
    }
    for name, (change, doc) in stores.items():
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        path.chmod(bits)
        change(path)
        assert mode(path) == bits, name
        change(path)
        assert mode(path) == bits, name


def test_a_symlinked_store_keeps_its_target_mode(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "bookmarks.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"version": 2, "bookmarks": []}))
    real.chmod(0o644)
    link = tmp_path / "bookmarks.json"
    link.symlink_to(real)
    BookmarkStore(link).add("a", "A")
    assert link.is_symlink() and mode(real) == 0o644


def test_a_new_file_follows_the_umask_and_an_upgrade_backup_the_file(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write_bytes(tmp_path / "new.json", b"{}")
    finally:
        os.umask(old)
    assert mode(tmp_path / "new.json") == 0o640
    path = tmp_path / "bookmarks.json"
    path.write_text(json.dumps({"version": 1, "bookmarks": []}))
    path.chmod(0o644)
    BookmarkStore(path).add("a", "A")  # the upgrade: a byte-for-byte copy of the old file
    assert mode(path.with_name("bookmarks.json.v1.bak")) == 0o644 and mode(path) == 0o644
