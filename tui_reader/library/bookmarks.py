"""Bookmarks: a versioned JSON file two running readers share without losing a write (jsonstore).

Version 2 adds, per entry, ``tags`` and ``paper``: a snapshot of the paper's citation fields,
taken when it is bookmarked, tagged or noted and refreshed while a collection holding it is open,
so an export is complete without the collection. A version-1 file is upgraded by the user's first
change (kept as ``bookmarks.json.v1.bak``), not by opening it. What it does not know is kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label, clean_text
from tui_reader.library.jsonstore import Doc, JsonStore, ReadOnlyStore, StoreNotSaved, list_of

__all__ = [
    "VERSION",
    "Bookmark",
    "BookmarkStore",
    "BookmarksNotSaved",
    "ReadOnlyStore",
    "normalise_tags",
    "snapshot_dict",
]

VERSION = 2
MAX_FILE_BYTES = 64 * 2**20  # a bookmarks file larger than this is not read (and not written)
KEY = "bookmarks"
MAX_TAG = 100  # characters of a tag worth keeping
_KNOWN = ("id", "title", "added", "note")
# The snapshot's fields: what a citation needs. Text fields are one line; the abstract keeps lines.
SNAPSHOT_TEXT = ("title", "venue", "url", "doi", "arxiv", "kind")
SNAPSHOT_LISTS = ("authors", "keywords")
SNAPSHOT = ("title", "authors", "year", "venue", "url", "doi", "arxiv", "keywords", "kind", "abstract")

T = TypeVar("T")


class BookmarksNotSaved(StoreNotSaved):
    """Writing failed (a full disk, ...); the file on disk is unchanged. A ReadOnlyStore, so every
    caller that already reports those reports this too."""


def normalise_tags(tags: Iterable[str]) -> list[str]:
    """Tags as kept: made safe, split at commas, spaces collapsed, empty ones dropped, one per
    spelling compared case-blind (the first spelling wins), sorted case-blind."""
    seen: dict[str, str] = {}
    for raw in tags:
        for part in clean_label(raw).split(","):
            tag = " ".join(part.split())[:MAX_TAG].strip()
            if tag:
                seen.setdefault(tag.casefold(), tag)
    return sorted(seen.values(), key=lambda t: (t.casefold(), t))


def _tag_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def snapshot_dict(paper: Paper) -> dict[str, object]:
    """The paper's citation fields as the file keeps them (only those set)."""
    out: dict[str, object] = {}
    for key in SNAPSHOT:
        value = getattr(paper, key)
        if value or (key == "year" and value is not None):
            out[key] = list(value) if isinstance(value, list) else value
    return out


def _snapshot(raw: dict[str, object], pid: str) -> tuple[Paper, dict[str, object]]:
    """A snapshot read from the file: its fields made safe, and what it holds that is not one
    (or not of the right type), kept verbatim."""
    known: dict[str, object] = {}
    other: dict[str, object] = {}
    for key, value in raw.items():
        if key in SNAPSHOT_TEXT and isinstance(value, str):
            known[key] = clean_label(value)
        elif key == "abstract" and isinstance(value, str):
            known[key] = clean_text(value)
        elif key in SNAPSHOT_LISTS and isinstance(value, list) and all(isinstance(v, str) for v in value):
            known[key] = [clean_label(v) for v in value]
        elif key == "year" and isinstance(value, int) and not isinstance(value, bool):
            known[key] = value
        else:
            other[key] = value
    paper = Paper(id=pid, title="", abstract="")
    for key, value in known.items():
        setattr(paper, key, value)
    return paper, other


@dataclass(slots=True)
class Bookmark:
    id: str
    title: str
    added: str
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # fields we do not know: kept as-is
    tags: list[str] = field(default_factory=list)  # normalised, sorted case-blind
    snapshot: Paper | None = None  # the paper's citation fields when last seen (id = this id)
    snapshot_extra: dict[str, object] = field(default_factory=dict, repr=False)

    def has_tag(self, name: str) -> bool:
        want = _tag_key(name)
        return any(t.casefold() == want for t in self.tags)

    def to_dict(self) -> dict[str, object]:
        out = {**self.extra, "id": self.id, "title": self.title, "added": self.added, "note": self.note}
        if self.tags:
            out["tags"] = list(self.tags)
        if self.snapshot is not None:
            out["paper"] = {**self.snapshot_extra, **snapshot_dict(self.snapshot)}
        return out

    def take_snapshot(self, paper: Paper) -> bool:
        """Keep the paper's fields (made safe as a read would make them); True if they changed."""
        fresh, _ = _snapshot(snapshot_dict(paper), self.id)
        if not self.title:
            self.title = fresh.title
        if self.snapshot is not None and snapshot_dict(self.snapshot) == snapshot_dict(fresh):
            return False
        self.snapshot = fresh
        return True


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _text(value: object) -> str | None:
    """A known field's value as a string; None if it is neither a string nor missing."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def _bookmark(entry: object) -> Bookmark | None:
    """An entry with a string id and string (or missing) fields, made safe to show. A ``tags`` or
    ``paper`` of a shape this version does not know stays in ``extra``, verbatim."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    title, added, note = (_text(entry.get(k)) for k in _KNOWN[1:])
    if title is None or added is None or note is None:
        return None
    pid = clean_label(entry["id"])
    extra = {k: v for k, v in entry.items() if k not in _KNOWN}
    mark = Bookmark(pid, clean_label(title), clean_label(added), clean_text(note), extra)
    tags = extra.get("tags")
    if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        mark.tags = normalise_tags(tags)
        del extra["tags"]
    snap = extra.get("paper")
    if isinstance(snap, dict):
        mark.snapshot, mark.snapshot_extra = _snapshot(snap, pid)
        del extra["paper"]
    return mark


@dataclass(slots=True)
class _Parsed:
    items: dict[str, Bookmark] = field(default_factory=dict)
    opaque: list[object] = field(default_factory=list)  # entries we do not understand: verbatim


def _parse(entries: list[object]) -> _Parsed:
    """Usable entries become bookmarks; any other entry, and a second one with an id already
    seen, is kept verbatim."""
    parsed = _Parsed()
    for entry in entries:
        mark = _bookmark(entry)
        if mark is None or mark.id in parsed.items:
            parsed.opaque.append(entry)
        else:
            parsed.items[mark.id] = mark
    return parsed


def _check(doc: Doc) -> None:
    if not isinstance(doc.get(KEY), list):
        raise ValueError("not a bookmarks file")


class BookmarkStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(
            path,
            "bookmarks",
            _check,
            VERSION,
            indent=2,
            plural=True,
            not_saved=BookmarksNotSaved,
            max_bytes=MAX_FILE_BYTES,
        )
        self._items: dict[str, Bookmark] = {}
        self.older_file = False
        self.reload()

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    # -- reading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the file (another process may have changed it)."""
        doc = self._store.load()
        version = doc.get("version")  # an older file is upgraded by a change, not by opening it
        self.older_file = isinstance(version, int) and not isinstance(version, bool) and version < VERSION
        entries = doc.get(KEY)
        parsed = _parse(entries if isinstance(entries, list) else [])
        self._items = parsed.items
        if parsed.opaque:
            n = len(parsed.opaque)
            self._store.warn(
                f"{self._store.shown}: {n} entr{'y' if n == 1 else 'ies'} "
                "this version does not understand, kept unchanged"
            )

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

    def tag_counts(self) -> dict[str, int]:
        """Each tag (compared case-blind, shown in its most used spelling) and how many bookmarks
        carry it, sorted case-blind."""
        counts: Counter[str] = Counter()
        spellings: dict[str, Counter[str]] = {}
        for mark in self._items.values():
            for tag in mark.tags:
                counts[tag.casefold()] += 1
                spellings.setdefault(tag.casefold(), Counter())[tag] += 1
        shown = {k: min(s, key=lambda t: (-s[t], t)) for k, s in spellings.items()}
        return {shown[k]: counts[k] for k in sorted(counts)}

    def all_tags(self) -> list[str]:
        return list(self.tag_counts())

    def ids_with_tag(self, name: str) -> set[str]:
        """The bookmarks carrying the tag, compared case-blind."""
        return {pid for pid, mark in self._items.items() if mark.has_tag(name)}

    # -- changes ----------------------------------------------------------------------------
    def _change(
        self, apply: Callable[[dict[str, Bookmark]], T], changed: Callable[[T], bool] | None = None
    ) -> T:
        """Read-merge-write: apply the change to what is on disk now, not to our stale copy.
        ``changed(result)`` False: nothing to write."""
        fresh: list[dict[str, Bookmark]] = []

        def edit(doc: Doc) -> T:
            entries = list_of(doc, KEY)
            parsed = _parse(entries)
            result = apply(parsed.items)
            entries[:] = [b.to_dict() for b in parsed.items.values()] + parsed.opaque
            fresh.append(parsed.items)
            return result

        result = self._store.update(edit, write=changed)
        self._items = fresh[-1]
        self.older_file = self.older_file and changed is not None and not changed(result)
        return result

    @staticmethod
    def _ensure(items: dict[str, Bookmark], pid: str, title: str, snapshot: Paper | None) -> Bookmark:
        """The paper's bookmark, made if needed, with a fresh snapshot when one is given."""
        mark = items.get(pid)
        if mark is None:
            mark = items[pid] = Bookmark(pid, clean_label(title), _now())
        if snapshot is not None:
            mark.take_snapshot(snapshot)
        return mark

    def add(self, pid: str, title: str, note: str = "", snapshot: Paper | None = None) -> Bookmark:
        """Bookmark a paper (a paper already bookmarked keeps its date, title and note)."""

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            new = pid not in items
            mark = self._ensure(items, pid, title, snapshot)
            if new:
                mark.note = clean_text(note)
            return mark

        return self._change(apply)

    def remove(self, pid: str) -> bool:
        """True if it was bookmarked (nothing is written when it was not)."""
        return self._change(lambda items: items.pop(pid, None) is not None, bool)

    def toggle(self, pid: str, title: str, snapshot: Paper | None = None) -> bool:
        """True if the paper is bookmarked afterwards."""

        def apply(items: dict[str, Bookmark]) -> bool:
            if items.pop(pid, None) is not None:
                return False
            self._ensure(items, pid, title, snapshot)
            return True

        return self._change(apply)

    def set_note(self, pid: str, note: str, title: str = "", snapshot: Paper | None = None) -> Bookmark:
        """Write the note (newlines kept); a paper not bookmarked is bookmarked."""

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.note = clean_text(note)
            return mark

        return self._change(apply)

    def set_tags(
        self, pid: str, tags: Iterable[str], title: str = "", snapshot: Paper | None = None
    ) -> Bookmark:
        """Replace the paper's tags (tagging bookmarks it; no tags at all keeps the bookmark)."""
        wanted = normalise_tags(tags)

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.tags = list(wanted)
            return mark

        return self._change(apply)

    def add_tags(
        self, pid: str, tags: Iterable[str], title: str = "", snapshot: Paper | None = None
    ) -> Bookmark:
        """Add tags to those on disk now (a spelling already there is kept)."""
        wanted = normalise_tags(tags)

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.tags = normalise_tags([*mark.tags, *wanted])
            return mark

        return self._change(apply)

    def remove_tags(self, pid: str, tags: Iterable[str]) -> Bookmark | None:
        """Take tags off (compared case-blind); None, and nothing written, if not bookmarked."""
        drop = {t.casefold() for t in normalise_tags(tags)}

        def apply(items: dict[str, Bookmark]) -> Bookmark | None:
            mark = items.get(pid)
            if mark is not None:
                mark.tags = [t for t in mark.tags if t.casefold() not in drop]
            return mark

        return self._change(apply, lambda mark: mark is not None)

    def refresh_snapshots(self, lookup: Callable[[str], Paper | None]) -> int:
        """Re-take the snapshot of every bookmark whose paper ``lookup`` finds (the open
        collection's ``Corpus.get``); the number that changed. One write, only if one did, and
        none while the file is of an older version (the user's first change upgrades it)."""
        if self.older_file:  # opening must not upgrade it: an older tui-reader may still use it
            return 0
        papers = {pid: lookup(pid) for pid in self._items}
        if not any(_stale(mark, papers[pid]) for pid, mark in self._items.items()):
            return 0

        def apply(items: dict[str, Bookmark]) -> int:
            changed = 0
            for pid, mark in items.items():
                paper = papers[pid] if pid in papers else lookup(pid)
                if paper is not None:
                    title = mark.title
                    changed += mark.take_snapshot(paper) or mark.title != title
            return changed

        return self._change(apply, bool)


def _stale(mark: Bookmark, paper: Paper | None) -> bool:
    """Would ``take_snapshot(paper)`` change the bookmark?"""
    if paper is None:
        return False
    if mark.snapshot is None or (not mark.title and paper.title):
        return True
    fresh, _ = _snapshot(snapshot_dict(paper), mark.id)
    return snapshot_dict(mark.snapshot) != snapshot_dict(fresh)
