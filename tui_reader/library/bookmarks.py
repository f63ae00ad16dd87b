"""Bookmarks: a versioned JSON file that two running readers can share without losing a write.

Every change is read-merge-write under an exclusive lock, written atomically. A file we cannot
parse is moved aside byte-for-byte and the user told; a file from a newer version is left alone
and the store turns read-only. Bookmarks whose paper is not in the open corpus are kept.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tui_reader.atomic import atomic_write_bytes, file_lock

VERSION = 1


class ReadOnlyStore(Exception):
    """The file was written by a newer tui-reader; writing would lose what it knows."""


@dataclass(slots=True)
class Bookmark:
    id: str
    title: str
    added: str
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # fields we do not know: kept as-is

    def to_dict(self) -> dict[str, object]:
        return {**self.extra, "id": self.id, "title": self.title, "added": self.added, "note": self.note}


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class BookmarkStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_only = False
        self.warnings: list[str] = []
        self._items: dict[str, Bookmark] = {}
        self.reload()

    # -- reading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the file (another process may have changed it)."""
        with file_lock(self.path):
            self._items = self._read()

    def _read(self) -> dict[str, Bookmark]:
        """Parse the file; call with the lock held. Corrupt files are set aside, never rewritten."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.read_only = True
            self.warnings.append(f"cannot read {self.path} ({exc.strerror}); bookmarks are read-only")
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
            version = data.get("version") if isinstance(data, dict) else None
            if not isinstance(version, int):
                raise ValueError("not a versioned bookmarks file")
            if version > VERSION:  # a newer shape we may not understand: read what we can
                self.read_only = True
                self.warnings.append(
                    f"{self.path} is from a newer tui-reader (version {version}); not changing it"
                )
                entries = data.get("bookmarks")
                return self._entries(entries if isinstance(entries, list) else [])
            if not isinstance(data.get("bookmarks"), list):
                raise ValueError("not a bookmarks file")
        except (ValueError, UnicodeDecodeError) as exc:
            backup = self._set_aside()
            self.warnings.append(
                f"{self.path} was corrupt ({exc.__class__.__name__}); kept as {backup.name}, "
                "starting with no bookmarks"
            )
            return {}
        return self._entries(data["bookmarks"])

    @staticmethod
    def _entries(entries: list[object]) -> dict[str, Bookmark]:
        items: dict[str, Bookmark] = {}
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                known = {"id", "title", "added", "note"}
                items[entry["id"]] = Bookmark(
                    entry["id"],
                    str(entry.get("title", "")),
                    str(entry.get("added", "")),
                    str(entry.get("note", "") or ""),
                    {k: v for k, v in entry.items() if k not in known},
                )
        return items

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while backup.exists():
            n += 1
            backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        os.replace(self.path, backup)
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
        with file_lock(self.path):
            current = self._read()
            if self.read_only:
                self._items = current or self._items
                raise ReadOnlyStore(self.warnings[-1] if self.warnings else str(self.path))
            apply(current)
            payload = {"version": VERSION, "bookmarks": [b.to_dict() for b in current.values()]}
            atomic_write_bytes(self.path, (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode())
            self._items = current

    def add(self, pid: str, title: str, note: str = "") -> Bookmark:
        def apply(items: dict[str, Bookmark]) -> None:
            if pid not in items:
                items[pid] = Bookmark(pid, title, _now(), note)

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
                items[pid] = Bookmark(pid, title, _now(), note)
            else:
                mark.note = note

        self._change(apply)
