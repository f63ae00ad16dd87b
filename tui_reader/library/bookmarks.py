"""Bookmarks: a versioned JSON file that two running readers can share without losing a write.

Every change is read-merge-write under an exclusive lock, written atomically (through a symlink
to its target). A file we cannot parse is moved aside byte-for-byte and the user told; a file
from a newer version, or one we cannot read or lock, is left alone and the store turns read-only.
Bookmarks whose paper is not in the open corpus are kept, and so is everything in the file this
version does not understand (other top-level keys, entries without a usable id), verbatim.
Titles, notes and dates are made safe for the terminal as they are read.
"""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tui_reader.atomic import (
    NotRegularFile,
    atomic_write_bytes,
    file_lock,
    open_regular,
    real_path,
    remove_leftovers,
)
from tui_reader.corpus.text import clean_label, clean_text, safe_json

VERSION = 1
MAX_FILE_BYTES = 64 * 2**20  # a bookmarks file larger than this is not read (and not written)
_KNOWN = ("id", "title", "added", "note")


class ReadOnlyStore(Exception):
    """Bookmarks cannot be saved: the file is from a newer tui-reader, cannot be read, or its
    folder cannot be written. The message says which, in words fit for the user."""


class BookmarksNotSaved(ReadOnlyStore):
    """Writing failed (a full disk, ...); the file on disk is unchanged. A ReadOnlyStore, so every
    caller that already reports those reports this too."""


@dataclass(slots=True)
class Bookmark:
    id: str
    title: str
    added: str
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # fields we do not know: kept as-is

    def to_dict(self) -> dict[str, object]:
        return {**self.extra, "id": self.id, "title": self.title, "added": self.added, "note": self.note}


@dataclass(slots=True)
class _Doc:
    """The file as read: what we understand, what we keep verbatim, and why it must not be written."""

    items: dict[str, Bookmark] = field(default_factory=dict)
    top: dict[str, object] = field(default_factory=dict)  # other top-level keys
    opaque: list[object] = field(default_factory=list)  # entries we do not understand
    problem: str = ""  # non-empty: read-only, and this is why


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _text(value: object) -> str | None:
    """A known field's value as a string; None if it is neither a string nor missing."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def _bookmark(entry: object) -> Bookmark | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    title, added, note = (_text(entry.get(k)) for k in _KNOWN[1:])
    if title is None or added is None or note is None:
        return None
    extra = {k: v for k, v in entry.items() if k not in _KNOWN}
    return Bookmark(clean_label(entry["id"]), clean_label(title), clean_label(added), clean_text(note), extra)


class BookmarkStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_only = False
        self.warnings: list[str] = []
        self._items: dict[str, Bookmark] = {}
        self.reload()

    def _warn(self, message: str) -> None:
        message = clean_label(message)
        if message not in self.warnings:
            self.warnings.append(message)

    @property
    def _shown(self) -> str:
        return clean_label(str(self.path))

    # -- reading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the file (another process may have changed it)."""
        target = real_path(self.path)
        try:
            with file_lock(target):
                doc = self._read(target)
                # temp files of writes that were killed (a live writer would hold the lock)
                remove_leftovers(target.parent, [f".{glob.escape(target.name)}.*.tmp"], min_age=0)
        except OSError as exc:  # no lock file can be made there (a read-only folder): read anyway
            doc = self._read(target)
            problem = f"cannot write in {target.parent} ({exc.strerror or exc})"
            doc.problem = doc.problem or problem
            self._warn(f"{problem}; bookmarks can be read but not saved")
        self._items = doc.items
        self.read_only = bool(doc.problem)

    def _read(self, target: Path) -> _Doc:
        """Parse the file; call with the lock held. Corrupt files are set aside, never rewritten.
        Never raises OSError: a file that cannot be read makes the store read-only instead."""
        try:
            with open_regular(target) as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return _Doc()
        except OSError as exc:
            problem = (
                f"{self._shown} is {exc.strerror}"  # a FIFO, a folder...: never opened
                if isinstance(exc, NotRegularFile)
                else f"cannot read {self._shown} ({exc.strerror or exc})"
            )
            self._warn(f"{problem}; bookmarks are read-only")
            return _Doc(problem=problem)
        if len(raw) > MAX_FILE_BYTES:
            problem = f"{self._shown} is larger than {MAX_FILE_BYTES // 2**20} MiB"
            self._warn(f"{problem}; not reading it, bookmarks are read-only")
            return _Doc(problem=problem)
        try:
            data = json.loads(raw.decode("utf-8"))
            version = data.get("version") if isinstance(data, dict) else None
            if not isinstance(version, int):
                raise ValueError("not a versioned bookmarks file")
            if version > VERSION:  # a newer shape we may not understand: read what we can
                problem = f"{self._shown} is from a newer tui-reader (version {version}); not changing it"
                self._warn(problem)
                entries = data.get("bookmarks")
                return self._entries(entries if isinstance(entries, list) else [], problem)
            if not isinstance(data.get("bookmarks"), list):
                raise ValueError("not a bookmarks file")
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return self._corrupt(target, exc)
        doc = self._entries(data["bookmarks"])
        doc.top = {k: v for k, v in data.items() if k not in ("version", "bookmarks")}
        if doc.opaque:
            self._warn(
                f"{self._shown}: {len(doc.opaque)} entr{'y' if len(doc.opaque) == 1 else 'ies'} "
                "this version does not understand, kept unchanged"
            )
        return doc

    def _corrupt(self, target: Path, exc: BaseException) -> _Doc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc.__class__.__name__
        try:
            backup = self._set_aside(target)
        except OSError as err:
            problem = f"{self._shown} is corrupt ({why}) and cannot be set aside ({err.strerror or err})"
            self._warn(f"{problem}; bookmarks are read-only")
            return _Doc(problem=problem)
        self._warn(
            f"{self._shown} was corrupt ({why}); kept as {clean_label(backup.name)}, "
            "starting with no bookmarks"
        )
        return _Doc()

    @staticmethod
    def _entries(entries: list[object], problem: str = "") -> _Doc:
        """Entries with a string id and string (or missing) fields become bookmarks, made safe to
        show; any other entry, and a second one with an id already seen, is kept verbatim."""
        doc = _Doc(problem=problem)
        for entry in entries:
            mark = _bookmark(entry)
            if mark is None or mark.id in doc.items:
                doc.opaque.append(entry)
            else:
                doc.items[mark.id] = mark
        return doc

    def _set_aside(self, target: Path) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = target.with_name(f"{target.name}.corrupt-{stamp}")
        n = 1
        while backup.exists():
            n += 1
            backup = target.with_name(f"{target.name}.corrupt-{stamp}-{n}")
        os.replace(target, backup)
        return backup

    # -- queries ----------------------------------------------------------------------------
    def __contains__(self, pid: object) -> bool:
        return pid in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, pid: str) -> Bookmark | None:
        return self._items.get(pid)

    def all(self) -> list[Bookmark]:
        return list(self._items.values())

    def ids(self) -> set[str]:
        return set(self._items)

    # -- changes ----------------------------------------------------------------------------
    def _change(self, apply: Callable[[dict[str, Bookmark]], None]) -> None:
        """Read-merge-write: apply the change to what is on disk now, not to our stale copy."""
        target = real_path(self.path)
        try:
            with file_lock(target):
                doc = self._read(target)
                self.read_only = bool(doc.problem)
                if doc.problem:
                    self._items = doc.items or self._items
                    raise ReadOnlyStore(f"could not save bookmarks: {doc.problem}")
                apply(doc.items)
                self._write(target, doc)
                self._items = doc.items
        except OSError as exc:  # only the lock: _read and _write raise no OSError
            self.read_only = True
            raise ReadOnlyStore(
                f"could not save bookmarks: cannot write in {clean_label(str(target.parent))} "
                f"({exc.strerror or exc})"
            ) from exc

    def _write(self, target: Path, doc: _Doc) -> None:
        payload = {
            "version": VERSION,
            **doc.top,
            "bookmarks": [b.to_dict() for b in doc.items.values()] + doc.opaque,
        }
        try:
            data = (safe_json(payload, indent=2) + "\n").encode("utf-8")
        except (ValueError, RecursionError) as exc:  # kept entries too deep to write back
            raise BookmarksNotSaved(
                f"could not save bookmarks: {self._shown} holds data this version cannot write back "
                f"({exc.__class__.__name__}); the file is unchanged"
            ) from exc
        try:
            atomic_write_bytes(target, data)
        except OSError as exc:
            reason = (exc.strerror or str(exc)).lower()
            raise BookmarksNotSaved(
                f"could not save bookmarks: {reason} ({clean_label(str(target))}); the file is unchanged"
            ) from exc

    def add(self, pid: str, title: str, note: str = "") -> Bookmark:
        def apply(items: dict[str, Bookmark]) -> None:
            if pid not in items:
                items[pid] = Bookmark(pid, clean_label(title), _now(), clean_text(note))

        self._change(apply)
        return self._items[pid]

    def remove(self, pid: str) -> bool:
        existed = pid in self._items

        def apply(items: dict[str, Bookmark]) -> None:
            items.pop(pid, None)

        self._change(apply)
        return existed

    def toggle(self, pid: str, title: str) -> bool:
        """True if the paper is bookmarked afterwards."""
        self.reload()
        if pid in self._items:
            self.remove(pid)
            return False
        self.add(pid, title)
        return True

    def set_note(self, pid: str, note: str, title: str = "") -> None:
        def apply(items: dict[str, Bookmark]) -> None:
            mark = items.get(pid)
            if mark is None:
                items[pid] = Bookmark(pid, clean_label(title), _now(), clean_text(note))
            else:
                mark.note = clean_text(note)

        self._change(apply)
