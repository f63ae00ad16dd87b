"""Read state: which papers the user has read, and when. One file for every collection: ids are
hashes of the abstract, so a paper read in one collection is read in every other that holds it.

``read.json`` is ``{"version": 1, "read": {"<paper id>": "<ISO time first read>"}}``, kept with
jsonstore's discipline (locked read-merge-write, atomic, corrupt files set aside, newer versions
read-only). Marking unread removes the id; marking read keeps the first time it was read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.jsonstore import Doc, JsonStore, dict_of, expect

KEY = "read"


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _check(doc: Doc) -> None:
    expect(doc, KEY, dict)


def _read_ids(doc: Doc) -> dict[str, str]:
    entries = doc.get(KEY)
    if not isinstance(entries, dict):
        return {}
    return {pid: when if isinstance(when, str) else "" for pid, when in entries.items()}


class ReadStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(path, "read state", _check)
        self._read: dict[str, str] = {}
        self.reload()

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    def reload(self) -> None:
        """Re-read the file (another reader may have changed it)."""
        self._read = _read_ids(self._store.load())

    # -- queries ----------------------------------------------------------------------------
    def __contains__(self, pid: object) -> bool:
        return pid in self._read

    def __len__(self) -> int:
        return len(self._read)

    def ids(self) -> frozenset[str]:
        return frozenset(self._read)

    def when(self, pid: str) -> str | None:
        """When the paper was first read (ISO time), None if it is unread."""
        return self._read.get(pid)

    # -- changes ----------------------------------------------------------------------------
    def apply(self, changes: Mapping[str, bool]) -> None:
        """Mark each id read (True) or unread (False), merged into what is on disk now."""
        if not changes:
            return
        stamp = now()

        def change(doc: Doc) -> dict[str, str]:
            entries = dict_of(doc, KEY)
            for pid, read in changes.items():
                if read:
                    entries.setdefault(pid, stamp)
                else:
                    entries.pop(pid, None)
            return _read_ids(doc)

        try:
            self._read = self._store.update(change)  # ours merged with every other reader's
        except ReadOnlyStore:
            # Not saved (the caller says so), but what we show is what the user asked for:
            # the view must not undo a key they pressed.
            self._read = dict(self._read)
            for pid, read in changes.items():
                if read:
                    self._read.setdefault(pid, stamp)
                else:
                    self._read.pop(pid, None)
            raise

    def mark_read(self, pids: Iterable[str]) -> None:
        self.apply(dict.fromkeys(pids, True))

    def mark_unread(self, pids: Iterable[str]) -> None:
        self.apply(dict.fromkeys(pids, False))
