"""One bookmark and how a bookmarks file's entries become bookmarks (the store is bookmarks.py)."""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label, clean_text, safe_json
from tui_reader.library.jsonstore import (
    Doc,
    Encoded,
    StoreNotSaved,
    listed_lines,
)
from tui_reader.library.snapshots import Packs, digest, read_snapshot, snapshot_dict

VERSION = 3
MAX_FILE_BYTES = 64 * 2**20  # a bookmarks file larger than this is not read (and not written)
KEY = "bookmarks"
MAX_TAG = 100  # characters of a tag worth keeping
_KNOWN = ("id", "title", "added", "note")
PACKS = ".snapshots"  # bookmarks.json.snapshots/: the snapshot packs
# The snapshot's fields: what a citation needs. Text fields are one line; the abstract keeps lines.
SNAPSHOT_TEXT = ("title", "venue", "url", "doi", "arxiv", "kind")
SNAPSHOT_LISTS = ("authors", "keywords")
SNAPSHOT = ("title", "authors", "year", "venue", "url", "doi", "arxiv", "keywords", "kind", "abstract")
RECORD = "record"  # Paper.record (RECORD.md): kept whole, so an export from a snapshot has every field

T = TypeVar("T")
_REF = re.compile(r"[0-9a-f]{32}")


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


@dataclass(slots=True)
class Bookmark:
    id: str
    title: str
    added: str
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # fields we do not know: kept as-is
    tags: list[str] = field(default_factory=list)  # normalised, sorted case-blind
    snapshot_ref: str = ""  # the digest of its snapshot in the packs ("": none, or not yet written)
    _raw: dict[str, object] | None = field(default=None, repr=False)  # the snapshot, not yet parsed
    _snap: Paper | None = field(default=None, repr=False)
    _snap_extra: dict[str, object] = field(default_factory=dict, repr=False)
    _packs: Packs | None = field(default=None, repr=False, compare=False)
    _line: tuple[tuple[object, ...], Encoded] | None = field(default=None, repr=False, compare=False)

    def _state(self) -> tuple[object, ...]:
        """What the list's entry is made of: while it is the same, the line written is too."""
        tags = tuple(self.tags)
        return (self.id, self.title, self.added, self.note, tags, self.snapshot_ref, len(self.extra))

    @property
    def snapshot(self) -> Paper | None:
        """The paper's citation fields when last seen (id = this id), read when first asked for."""
        if self._snap is None and self._raw is None and self.snapshot_ref and self._packs is not None:
            self._raw = self._packs.get(self.snapshot_ref)
        if self._snap is None and self._raw is not None:
            self._snap, self._snap_extra = read_snapshot(self._raw, self.id)
        return self._snap

    @property
    def snapshot_extra(self) -> dict[str, object]:
        """What the snapshot holds that this version does not understand: kept verbatim."""
        return self._snap_extra if self.snapshot is not None else {}

    def copy(self) -> Bookmark:
        """A copy to change (its lists and dicts its own; the snapshot, never changed in place,
        shared)."""
        return Bookmark(
            self.id,
            self.title,
            self.added,
            self.note,
            dict(self.extra),
            list(self.tags),
            self.snapshot_ref,
            self._raw,
            self._snap,
            self._snap_extra,
            self._packs,
            self._line,
        )

    def has_tag(self, name: str) -> bool:
        want = _tag_key(name)
        return any(t.casefold() == want for t in self.tags)

    def _base(self) -> dict[str, object]:
        out = {**self.extra, "id": self.id, "title": self.title, "added": self.added, "note": self.note}
        if self.tags:
            out["tags"] = list(self.tags)
        return out

    def snapshot_content(self) -> dict[str, object] | None:
        """The snapshot as it is kept: its fields and what it held that we do not understand."""
        if self._snap is not None:
            return {**self._snap_extra, **snapshot_dict(self._snap)}
        if self._raw is not None:
            return self._raw
        snap = self.snapshot
        return None if snap is None else {**self._snap_extra, **snapshot_dict(snap)}

    def to_dict(self) -> dict[str, object]:
        """The bookmark with its snapshot inline (``paper``): what ``list --json`` shows."""
        out = self._base()
        snap = self.snapshot_content()
        if snap is not None:
            out["paper"] = snap
        return out

    def file_entry(self, new: dict[str, dict[str, object]]) -> Encoded:
        """The entry as the version-3 list keeps it, as JSON (the line read or last written, when
        nothing changed since); a snapshot not yet in the packs is added to ``new``."""
        if not self.snapshot_ref and (self._snap is not None or self._raw is not None):
            content = self.snapshot_content()
            assert content is not None
            self.snapshot_ref = digest(content)
            new[self.snapshot_ref] = content
        state = self._state()
        if self._line is not None and self._line[0] == state:
            return self._line[1]
        out = self._base()
        if self.snapshot_ref:
            out["snapshot"] = self.snapshot_ref
        line = Encoded(safe_json(out))
        self._line = (state, line)
        return line

    def takeread_snapshot(self, paper: Paper) -> bool:
        """Keep the paper's fields (made safe as a read would make them); True if they changed."""
        fresh, _ = read_snapshot(snapshot_dict(paper), self.id)
        if not self.title:
            self.title = fresh.title
        current = self.snapshot
        if current is not None and snapshot_dict(current) == snapshot_dict(fresh):
            return False
        self._snap, self._raw, self.snapshot_ref = fresh, None, ""
        return True


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _text(value: object) -> str | None:
    """A known field's value as a string; None if it is neither a string nor missing."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def _bookmark(
    entry: object, packs: Packs | None = None, tag_memo: dict[tuple[str, ...], list[str]] | None = None
) -> Bookmark | None:
    """An entry with a string id and string (or missing) fields, made safe to show. A ``tags`` or
    ``paper`` of a shape this version does not know stays in ``extra``, verbatim. ``tag_memo``:
    tag lists already normalised in this read (most bookmarks share a few)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    title, added, note = _text(entry.get("title")), _text(entry.get("added")), _text(entry.get("note"))
    if title is None or added is None or note is None:
        return None
    extra = {k: v for k, v in entry.items() if k not in _KNOWN}
    mark = Bookmark(clean_label(entry["id"]), clean_label(title), clean_label(added), clean_text(note), extra)
    if not extra:
        return mark
    tags = extra.get("tags")
    if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        key = tuple(tags)
        memo = tag_memo if tag_memo is not None else {}
        found = memo.get(key)
        if found is None:
            found = memo[key] = normalise_tags(tags)
        mark.tags = list(found)
        del extra["tags"]
    snap = extra.get("paper")  # version 2: inline, parsed when first asked for
    if isinstance(snap, dict):
        mark._raw = snap
        del extra["paper"]
    ref = extra.get("snapshot")  # version 3: in the packs
    if isinstance(ref, str) and _REF.fullmatch(ref):
        mark.snapshot_ref, mark._packs = ref, packs
        del extra["snapshot"]
    return mark


@contextlib.contextmanager
def no_collections() -> Iterator[None]:
    """Reading 50,000 bookmarks (or making their papers) makes no cycles, but would trigger a
    hundred collections, which hold the GIL, and so the UI thread, for a second or more."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@dataclass(slots=True)
class _Parsed:
    items: dict[str, Bookmark] = field(default_factory=dict)
    opaque: list[object] = field(default_factory=list)  # entries we do not understand: verbatim


def _parse(entries: list[object], packs: Packs | None = None, raw: bytes | None = None) -> _Parsed:
    """Usable entries become bookmarks; any other entry, and a second one with an id already
    seen, is kept verbatim. ``raw``: the file, whose lines a write reuses for unchanged entries."""
    parsed = _Parsed()
    lines = listed_lines(raw, KEY, len(entries))
    memo: dict[tuple[str, ...], list[str]] = {}
    for n, entry in enumerate(entries):
        mark = _bookmark(entry, packs, memo)
        if mark is None or mark.id in parsed.items:
            parsed.opaque.append(entry)
        else:
            parsed.items[mark.id] = mark
            if lines is not None and mark._raw is None:
                mark._line = (mark._state(), Encoded(lines[n]))
    return parsed


def _check(doc: Doc) -> None:
    if not isinstance(doc.get(KEY), list):
        raise ValueError("not a bookmarks file")
