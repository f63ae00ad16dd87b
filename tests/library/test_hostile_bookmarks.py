"""Hostile bookmarks files (issue 13): nothing reaches the terminal raw, nothing hangs, nothing
the reader does not understand is lost, and a file that cannot be written says so in one line.

Real files in tmp_path; anything that could hang (a FIFO) runs in a subprocess with a timeout.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_cli

from tui_reader import atomic
from tui_reader.library import bookmarks
from tui_reader.library.bookmarks import BookmarksNotSaved, BookmarkStore, ReadOnlyStore
from tui_reader.library.export import FORMATS, export

RAW = ("\x1b", "\x07", "\x9b", "\x90", "\x9d", "\r")
HOSTILE_NOTE = "read \x1b]52;c;ZWNobyBwd25lZA==\x1b\\ this\x1b[2J\r\nsecond line\x9b31m \ud800 end"
HOSTILE_TITLE = "Title \x1b]0;pwned\x07 with \x1b[2J clear"


def no_raw_controls(text: str) -> bool:
    return not any(ch in text for ch in RAW)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "bookmarks.json"
    path.parent.mkdir(parents=True)
    return path


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


def write_store(path: Path, doc: object) -> bytes:
    raw = json.dumps(doc).encode()  # ensure_ascii: the escapes are JSON's, the file is plain ASCII
    path.write_bytes(raw)
    return raw


def hostile_doc() -> dict[str, object]:
    return {
        "version": 1,
        "bookmarks": [
            {
                "id": "abc123",
                "title": HOSTILE_TITLE,
                "added": "2024-01-01\x1b[31m",
                "note": HOSTILE_NOTE,
                "tags": ["ok", "\x1b[1mbold"],  # known since version 2: made safe
                "colour": ["kept \x9b verbatim", "\x1b[1m"],
            },
            {"id": "ok0001", "title": "Plain", "added": "2024-01-02", "note": ""},
        ],
    }


# -- 1. terminal sequences in the store ---------------------------------------------------------
def test_titles_and_notes_are_made_safe_as_they_are_read(store_path: Path) -> None:
    write_store(store_path, hostile_doc())
    store = BookmarkStore(store_path)
    mark = store.get("abc123")
    assert mark is not None and store.warnings == []
    for value in (mark.id, mark.title, mark.added, mark.note):
        assert no_raw_controls(value) and "\ud800" not in value
    assert mark.title == "Title \u241b]0;pwned\u2407 with \u241b[2J clear"  # visible, not obeyed
    assert mark.note.splitlines() == [
        "read \u241b]52;c;ZWNobyBwd25lZA==\u241b\\ this\u241b[2J",
        "second line\\x9b31m \\ud800 end",
    ]
    assert mark.extra == {"colour": ["kept \x9b verbatim", "\x1b[1m"]}  # not shown: kept exactly
    assert mark.tags == ["ok", "\u241b[1mbold"]
    for fmt in FORMATS:
        text = export(store.all(), lambda _pid: None, fmt)
        assert no_raw_controls(text), fmt
        text.encode("utf-8")  # no lone surrogate either
    data = json.loads(export(store.all(), lambda _pid: None, "json"))
    assert data[0]["colour"] == ["kept \x9b verbatim", "\x1b[1m"]  # exact once decoded


def test_text_given_to_the_store_is_made_safe_too(store_path: Path) -> None:
    store = BookmarkStore(store_path)
    store.add("p1", HOSTILE_TITLE, note="\x1b[2Jnote")
    store.set_note("p2", "a\rb\x07", title="\x9bX")
    assert store.get("p1").title == "Title \u241b]0;pwned\u2407 with \u241b[2J clear"  # type: ignore[union-attr]
    assert store.get("p1").note == "\u241b[2Jnote"  # type: ignore[union-attr]
    assert store.get("p2").note == "a\nb\u2407" and store.get("p2").title == "\\x9bX"  # type: ignore[union-attr]
    assert no_raw_controls(store_path.read_text("utf-8"))


def test_cli_bookmarks_list_and_export_print_no_escapes(store_path: Path, cwd: Path) -> None:
    write_store(store_path, hostile_doc())
    calls = [
        ("bookmarks", "list"),
        ("bookmarks", "list", "--json"),
        *(("bookmarks", "export", "--format", fmt) for fmt in FORMATS),
    ]
    for args in calls:
        result = run_cli(*args, "--bookmarks", str(store_path), cwd=cwd)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
        assert no_raw_controls(result.stdout) and no_raw_controls(result.stderr), args
        citing = any(fmt in args for fmt in ("bibtex", "ris", "csl-json"))
        assert ("anonndtitle" if citing else "abc123") in result.stdout, args  # the key, or the id
        assert "\u241b" in result.stdout
        if "--json" in args or "json" in args:
            (entry, _plain) = json.loads(result.stdout)
            assert entry["colour"] == ["kept \x9b verbatim", "\x1b[1m"]
    # a hostile path: the warning that names it is safe as well
    odd = store_path.with_name("odd\x1b[2J.json")
    odd.write_bytes(b"garbage")
    result = run_cli("bookmarks", "list", "--bookmarks", str(odd), cwd=cwd)
    assert result.returncode == 0 and "was corrupt" in result.stderr
    assert no_raw_controls(result.stderr) and "odd\u241b[2J.json" in result.stderr


# -- 2. a FIFO where the file should be ----------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_bookmarks_file_does_not_hang(store_path: Path, cwd: Path) -> None:
    os.mkfifo(store_path)
    listed = run_cli("bookmarks", "list", "--bookmarks", str(store_path), cwd=cwd, timeout=30)
    assert listed.returncode == 0 and listed.stdout == ""
    assert f"{store_path} is not a regular file (a FIFO); bookmarks are read-only" in listed.stderr
    added = run_cli("bookmarks", "add", "deadbeef", "--bookmarks", str(store_path), cwd=cwd, timeout=30)
    assert added.returncode == 2  # no such paper: the FIFO did not get in the way
    store = BookmarkStore(store_path)  # safe in-process now that it is known not to block
    assert store.read_only and len(store) == 0
    with pytest.raises(ReadOnlyStore, match=r"could not save bookmarks: .* is not a regular file"):
        store.add("x", "X")
    assert os.path.exists(store_path) and not store_path.is_file()  # still the FIFO


# -- 6. what the reader does not understand is kept --------------------------------------------
def test_unknown_keys_and_entries_survive_a_change(store_path: Path) -> None:
    strange: list[object] = [
        {"id": 5, "title": "numeric id"},
        "s",
        None,
        {"id": "t1", "title": ["not", "a", "string"]},
        {"id": "dup", "title": "second copy", "added": "x", "note": ""},
    ]
    doc = {
        "version": 1,
        "settings": {"theme": "dark", "nested": [1, 2, {"x": None}]},
        "bookmarks": [
            {"id": "dup", "title": "first copy", "added": "2024-01-01", "note": "n"},
            *strange,
        ],
        "zzz": 1,
    }
    raw = write_store(store_path, doc)
    store = BookmarkStore(store_path)
    assert store.ids() == {"dup"} and store.get("dup").title == "first copy"  # type: ignore[union-attr]
    assert store.warnings == [f"{store_path}: 5 entries this version does not understand, kept unchanged"]
    store.add("new1", "New")
    after = json.loads(store_path.read_text("utf-8"))
    assert after["settings"] == doc["settings"] and after["zzz"] == 1 and after["version"] == 3
    assert store_path.with_name("bookmarks.json.v1.bak").read_bytes() == raw  # the old file, kept
    first, added, *rest = after["bookmarks"]
    assert first == {"id": "dup", "title": "first copy", "added": "2024-01-01", "note": "n"}
    assert added["id"] == "new1" and rest == strange
    store.remove("dup")
    assert json.loads(store_path.read_text("utf-8"))["bookmarks"][1:] == strange


def test_deeply_nested_file_is_set_aside_as_corrupt(store_path: Path) -> None:
    raw = b'{"version": 1, "bookmarks": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    store_path.write_bytes(raw)
    store = BookmarkStore(store_path)
    assert len(store) == 0 and not store.read_only
    (backup,) = store_path.parent.glob("bookmarks.json.corrupt-*")
    assert backup.read_bytes() == raw
    (warning,) = store.warnings
    assert "was corrupt (nested too deeply)" in warning and backup.name in warning
    store.add("x", "X")
    assert [b["id"] for b in json.loads(store_path.read_text("utf-8"))["bookmarks"]] == ["x"]


def test_symlinked_file_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "bookmarks.json"
    real.parent.mkdir()
    write_store(real, {"version": 1, "bookmarks": [{"id": "a", "title": "A", "added": "", "note": ""}]})
    link = tmp_path / "data" / "bookmarks.json"
    link.parent.mkdir()
    link.symlink_to(real)
    store = BookmarkStore(link)
    store.add("b", "B")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert [b["id"] for b in json.loads(real.read_text("utf-8"))["bookmarks"]] == ["a", "b"]
    assert (real.parent / "bookmarks.json.lock").exists()  # the target is locked, not the link
    assert sorted(p.name for p in link.parent.iterdir()) == ["bookmarks.json"]
    # a link to a file that does not exist yet: the target is created, the link stays
    dangling = tmp_path / "data" / "later.json"
    dangling.symlink_to(tmp_path / "dotfiles" / "later.json")
    BookmarkStore(dangling).add("c", "C")
    assert dangling.is_symlink() and (tmp_path / "dotfiles" / "later.json").is_file()


def test_leftover_temp_files_are_removed_on_open(store_path: Path) -> None:
    BookmarkStore(store_path).add("a", "A")
    leftover = store_path.with_name(".bookmarks.json.k1ll3d.tmp")
    leftover.write_bytes(b'{"version": 1, "bookmarks": [')  # a write killed half-way
    other = store_path.with_name(".other.json.x.tmp")
    other.write_bytes(b"not ours")
    store = BookmarkStore(store_path)
    assert store.ids() == {"a"} and not leftover.exists() and other.exists()


def test_oversized_file_is_not_read_and_left_alone(store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bookmarks, "MAX_FILE_BYTES", 2**20)
    raw = write_store(store_path, {"version": 1, "bookmarks": [], "pad": "x" * 2**20})
    store = BookmarkStore(store_path)
    assert store.read_only and len(store) == 0
    assert store.warnings == [f"{store_path} is larger than 1 MiB; not reading it, bookmarks are read-only"]
    with pytest.raises(ReadOnlyStore):
        store.add("x", "X")
    assert store_path.read_bytes() == raw


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_reads_bookmarks_and_says_they_cannot_be_saved(store_path: Path) -> None:
    raw = write_store(
        store_path, {"version": 1, "bookmarks": [{"id": "a", "title": "A", "added": "", "note": ""}]}
    )
    store_path.parent.chmod(0o555)
    try:
        store = BookmarkStore(store_path)
        assert store.ids() == {"a"} and store.read_only
        (warning,) = store.warnings
        assert "cannot write in" in warning and "bookmarks can be read but not saved" in warning
        with pytest.raises(ReadOnlyStore, match="could not save bookmarks: cannot write in"):
            store.add("b", "B")
    finally:
        store_path.parent.chmod(0o755)
    assert store_path.read_bytes() == raw


def test_full_disk_on_add_is_one_clear_message(store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = BookmarkStore(store_path)
    store.add("a", "A")
    before = store_path.read_bytes()

    def no_space(_fd: int) -> None:  # what the kernel answers when the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", no_space)
    with pytest.raises(BookmarksNotSaved) as caught:
        store.add("b", "B")
    assert isinstance(caught.value, ReadOnlyStore)  # what the reader and the CLI already report
    assert str(caught.value) == (
        f"could not save bookmarks: no space left on device ({store_path}); the file is unchanged"
    )
    monkeypatch.undo()
    assert store_path.read_bytes() == before and store.ids() == {"a"}
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["bookmarks.json", "bookmarks.json.lock"]


def _limit_file_size() -> None:  # in the child before exec: writes past 64 bytes fail (EFBIG)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


def test_cli_add_on_a_disk_that_cannot_take_it(store_path: Path, cwd: Path, tmp_path: Path) -> None:
    """A real write error from the kernel (a file size limit stands in for a full disk)."""
    raw = write_store(store_path, {"version": 1, "bookmarks": []})
    ids = run_cli("list", "--json", cwd=cwd)
    pid = json.loads(ids.stdout)[0]["id"]
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    env["TUI_READER_CACHE_DIR"] = str(tmp_path / "cache")  # the parse cache cannot grow either
    result = subprocess.run(
        [sys.executable, "-m", "tui_reader", "bookmarks", "add", pid, "--bookmarks", str(store_path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_file_size,
        check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert errors == [
        f"tui-reader: error: could not save bookmarks: file too large ({store_path}); the file is unchanged"
    ]
    assert store_path.read_bytes() == raw
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["bookmarks.json", "bookmarks.json.lock"]
