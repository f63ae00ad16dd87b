"""Bookmarks: a versioned JSON file two running readers share without losing a write (jsonstore).

Version 2 added, per entry, ``tags`` and ``paper``: a snapshot of the paper's citation fields
(and, since issue 18, its full ``record``), taken when it is bookmarked, tagged or noted and
refreshed while a collection holding it is open, so an export is complete without the collection.

Version 3 (issue 22: 50,000 bookmarks made a 38 MB file that every change parsed and rewrote)
keeps the snapshots beside the list: ``bookmarks.json`` holds the list, each entry naming its
snapshot by the digest of its content (``"snapshot": "<32 hex>"``), and the snapshots live in
``bookmarks.json.snapshots/XX.json``, 256 packs keyed by the digest's first two hex digits. A
change writes the list and only the packs of the snapshots it made (content-addressed: a pack
only gains entries, so two readers never clash); snapshots are read when first asked for. The
list carries a generation stamp, so a change skips parsing it again when no other reader wrote
since. A version-1 or -2 file is read as it is and upgraded by the user's first change (kept
byte for byte as ``bookmarks.json.v1.bak`` / ``.v2.bak``), not by opening it; an older reader
refuses a version-3 file. What this version does not know is kept.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from tui_reader.atomic import atomic_write_bytes, new_file_mode, open_regular, real_path
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label, clean_text, safe_json
from tui_reader.library.jsonstore import (
    Doc,
    Encoded,
    JsonStore,
    ReadOnlyStore,
    StoreNotSaved,
    list_of,
    listed_lines,
    set_aside,
)

__all__ = [
    "VERSION",
    "Bookmark",
    "BookmarkStore",
    "BookmarksNotSaved",
    "ReadOnlyStore",
    "normalise_tags",
    "snapshot_dict",
]

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


def snapshot_dict(paper: Paper) -> dict[str, object]:
    """The paper's citation fields as the file keeps them (only those set)."""
    out: dict[str, object] = {}
    for key in SNAPSHOT:
        value = getattr(paper, key)
        if value or (key == "year" and value is not None):
            out[key] = list(value) if isinstance(value, list) else value
    if paper.record:
        out[RECORD] = json.loads(json.dumps(paper.record))  # a copy, plain JSON
    return out


def _clean_record(value: object, verbatim: bool = False) -> object:
    """A record read back: its text made safe as the importers made it, "custom" verbatim."""
    if isinstance(value, str):
        return value if verbatim else clean_text(value)
    if isinstance(value, list):
        return [_clean_record(v, verbatim) for v in value]
    if isinstance(value, dict):
        return {k: _clean_record(v, verbatim or k == "custom") for k, v in value.items()}
    return value


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
        elif key == RECORD and isinstance(value, dict):
            known[key] = _clean_record(value)
        else:
            other[key] = value
    paper = Paper(id=pid, title="", abstract="")
    for key, value in known.items():
        setattr(paper, key, value)
    return paper, other


def digest(snapshot: dict[str, object]) -> str:
    """A snapshot's name in the packs: the hash of its content (same content, same name)."""
    data = json.dumps(snapshot, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Packs:
    """The snapshots of a version-3 store, beside its file: ``NAME.snapshots/XX.json`` holds
    ``{"version": 1, "snapshots": {digest: snapshot}}`` for the digests starting with XX. A pack
    is read when one of its snapshots is first asked for; writes happen under the store's lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read: dict[str, dict[str, object]] = {}

    @property
    def folder(self) -> Path:
        target = real_path(self.path)
        return target.with_name(target.name + PACKS)

    def _pack(self, prefix: str) -> dict[str, object]:
        pack = self._read.get(prefix)
        if pack is None:
            pack = self._read[prefix] = self._load(self.folder / f"{prefix}.json")
        return pack

    @staticmethod
    def _load(path: Path, to_write: bool = False) -> dict[str, object]:
        """A pack's snapshots; missing or damaged: none (a refresh takes them again). Before a
        damaged pack is written over, it is set aside byte for byte (``XX.json.corrupt-DATE``)."""
        try:
            with open_regular(path) as fh:
                data = json.loads(fh.read().decode("utf-8"))
            found = data.get("snapshots") if isinstance(data, dict) else None
            if not isinstance(found, dict):
                raise ValueError("not a snapshot pack")
            return found
        except OSError:
            return {}
        except (ValueError, UnicodeDecodeError, RecursionError):
            if to_write:
                set_aside(path)  # an OSError here: the write fails, nothing is lost
            return {}

    def get(self, name: str) -> dict[str, object] | None:
        found = self._pack(name[:2]).get(name)
        return found if isinstance(found, dict) else None

    def put(self, snapshots: Mapping[str, dict[str, object]], not_saved: type[StoreNotSaved]) -> None:
        """Add snapshots (call with the store's lock held): each pack they fall in is read as it
        is on disk now and written atomically with them; packs they do not touch are not. A
        write that fails raises ``not_saved``: the list is then not written either."""
        try:
            self._put(snapshots)
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.folder.rmdir()  # made for this write, and left empty: gone again
            reason = (exc.strerror or str(exc)).lower()
            raise not_saved(
                f"could not save bookmarks: {reason} ({clean_label(str(self.path))}); the file is unchanged"
            ) from exc

    def drop(self, names: set[str]) -> None:
        """Forget snapshots no bookmark names (a removed bookmark's, a refreshed one's old):
        only their packs are rewritten. Housekeeping: a pack that cannot be written keeps them."""
        by_pack: dict[str, set[str]] = {}
        for name in names:
            by_pack.setdefault(name[:2], set()).add(name)
        mode = new_file_mode(real_path(self.path))
        for prefix, drop in sorted(by_pack.items()):
            path = self.folder / f"{prefix}.json"
            pack = self._load(path, to_write=True)
            if not drop & pack.keys():
                continue
            for name in drop:
                pack.pop(name, None)
            with contextlib.suppress(OSError):
                self._write(path, pack, mode)
            self._read[prefix] = pack

    @staticmethod
    def _write(path: Path, pack: dict[str, object], mode: int) -> None:
        data = json.dumps({"version": 1, "snapshots": pack}, ensure_ascii=False, separators=(",", ":"))
        atomic_write_bytes(path, (data + "\n").encode("utf-8", "surrogatepass"), mode=mode)

    def _put(self, snapshots: Mapping[str, dict[str, object]]) -> None:
        by_pack: dict[str, dict[str, dict[str, object]]] = {}
        for name, snap in snapshots.items():
            by_pack.setdefault(name[:2], {})[name] = snap
        mode = new_file_mode(real_path(self.path))  # as private as the list
        for prefix, new in sorted(by_pack.items()):
            path = self.folder / f"{prefix}.json"
            pack = self._load(path, to_write=True)
            if all(name in pack for name in new):
                continue
            pack.update(new)
            self._write(path, pack, mode)
            self._read[prefix] = pack


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
            self._snap, self._snap_extra = _snapshot(self._raw, self.id)
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

    def take_snapshot(self, paper: Paper) -> bool:
        """Keep the paper's fields (made safe as a read would make them); True if they changed."""
        fresh, _ = _snapshot(snapshot_dict(paper), self.id)
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
def _no_collections() -> Iterator[None]:
    """Reading 50,000 bookmarks makes no cycles, but would trigger a hundred collections."""
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


class BookmarkStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(
            path,
            "bookmarks",
            _check,
            VERSION,
            plural=True,
            not_saved=BookmarksNotSaved,
            max_bytes=MAX_FILE_BYTES,
            generations=True,
            lines=True,
        )
        self._packs = Packs(path)
        self._items: dict[str, Bookmark] = {}
        self._opaque: list[object] = []
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
        with _no_collections():
            self._reload()

    def _reload(self) -> None:
        doc = self._store.load()
        version = doc.get("version")  # an older file is upgraded by a change, not by opening it
        self.older_file = isinstance(version, int) and not isinstance(version, bool) and version < VERSION
        entries = doc.get(KEY)
        self._packs = Packs(self.path)
        parsed = _parse(entries if isinstance(entries, list) else [], self._packs, self._store.raw)
        self._items, self._opaque = parsed.items, parsed.opaque
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
        self,
        apply: Callable[[dict[str, Bookmark]], T],
        changed: Callable[[T], bool] | None = None,
        *,
        touched: tuple[str, ...] | None = None,
    ) -> T:
        """Read-merge-write: apply the change to what is on disk now, not to our stale copy.
        ``changed(result)`` False: nothing to write. ``touched``: the only bookmarks ``apply``
        may change; then, when nobody wrote since, the bookmarks kept are used (those copied
        first, so what callers hold never changes under them) instead of a new read."""
        fresh: list[_Parsed] = []
        gone: set[str] = set()  # snapshots no bookmark names any more: dropped once the list is written

        def edit(doc: Doc) -> T:
            entries = list_of(doc, KEY)
            if self._store.reused:  # nobody wrote since we did: our bookmarks are the file's
                parsed = _Parsed(dict(self._items), self._opaque)
                for pid in touched or ():
                    mark = parsed.items.get(pid)
                    if mark is not None:
                        parsed.items[pid] = mark.copy()
            else:
                self._packs = Packs(self.path)
                parsed = _parse(entries, self._packs, self._store.raw)
            fresh.append(parsed)
            before = {m.snapshot_ref for m in parsed.items.values()}
            result = apply(parsed.items)
            if changed is not None and not changed(result):
                return result
            new: dict[str, dict[str, object]] = {}
            listed = [b.file_entry(new) for b in parsed.items.values()]
            if not self._store.reused:
                for mark in parsed.items.values():
                    mark._packs = self._packs
            self._packs.put(new, BookmarksNotSaved)  # the snapshots first: the list never names a missing one
            entries[:] = listed + parsed.opaque
            gone.update(before - {m.snapshot_ref for m in parsed.items.values()} - {""})
            return result

        with _no_collections():
            result = self._store.update(
                edit, write=changed, reuse=touched is not None, after=lambda: self._packs.drop(gone)
            )
        self._items, self._opaque = fresh[-1].items, fresh[-1].opaque
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

        return self._change(apply, touched=(pid,))

    def remove(self, pid: str) -> bool:
        """True if it was bookmarked (nothing is written when it was not)."""
        return self._change(lambda items: items.pop(pid, None) is not None, bool, touched=(pid,))

    def toggle(self, pid: str, title: str, snapshot: Paper | None = None) -> bool:
        """True if the paper is bookmarked afterwards."""

        def apply(items: dict[str, Bookmark]) -> bool:
            if items.pop(pid, None) is not None:
                return False
            self._ensure(items, pid, title, snapshot)
            return True

        return self._change(apply, touched=(pid,))

    def set_note(self, pid: str, note: str, title: str = "", snapshot: Paper | None = None) -> Bookmark:
        """Write the note (newlines kept); a paper not bookmarked is bookmarked."""

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.note = clean_text(note)
            return mark

        return self._change(apply, touched=(pid,))

    def set_tags(
        self, pid: str, tags: Iterable[str], title: str = "", snapshot: Paper | None = None
    ) -> Bookmark:
        """Replace the paper's tags (tagging bookmarks it; no tags at all keeps the bookmark)."""
        wanted = normalise_tags(tags)

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.tags = list(wanted)
            return mark

        return self._change(apply, touched=(pid,))

    def add_tags(
        self, pid: str, tags: Iterable[str], title: str = "", snapshot: Paper | None = None
    ) -> Bookmark:
        """Add tags to those on disk now (a spelling already there is kept)."""
        wanted = normalise_tags(tags)

        def apply(items: dict[str, Bookmark]) -> Bookmark:
            mark = self._ensure(items, pid, title, snapshot)
            mark.tags = normalise_tags([*mark.tags, *wanted])
            return mark

        return self._change(apply, touched=(pid,))

    def remove_tags(self, pid: str, tags: Iterable[str]) -> Bookmark | None:
        """Take tags off (compared case-blind); None, and nothing written, if not bookmarked."""
        drop = {t.casefold() for t in normalise_tags(tags)}

        def apply(items: dict[str, Bookmark]) -> Bookmark | None:
            mark = items.get(pid)
            if mark is not None:
                mark.tags = [t for t in mark.tags if t.casefold() not in drop]
            return mark

        return self._change(apply, lambda mark: mark is not None, touched=(pid,))

    def rename_ids(self, mapping: Mapping[str, str]) -> dict[str, str]:
        """Give bookmarks new ids (old -> new), tags, note, date and snapshot kept, in one write
        that costs what any change costs. A new id already bookmarked is not merged: that
        bookmark keeps its old id. Before the write, the renamed entries as they were, and the
        renames, are kept beside the file (``NAME.renamed-DATE.json``). Returns the renames done."""
        done: dict[str, str] = {}

        def apply(items: dict[str, Bookmark]) -> dict[str, str]:
            done.clear()
            for old, new in mapping.items():
                if old in items and new not in items and old != new and new not in done.values():
                    done[old] = new
            if not done:
                return done
            self._keep_renamed(items, done)
            order = list(items.items())
            items.clear()
            for pid, mark in order:
                if pid in done:
                    mark.id = pid = done[pid]
                    if mark._snap is not None:  # the snapshot is the paper's under its id
                        mark._snap = replace(mark._snap, id=pid)
                items[pid] = mark
            return done

        return self._change(apply, bool, touched=tuple(mapping))

    def _keep_renamed(self, items: dict[str, Bookmark], done: dict[str, str]) -> None:
        target = real_path(self.path)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        kept = {"version": 1, "renamed": done, "bookmarks": [items[old].to_dict() for old in done]}
        try:
            atomic_write_bytes(
                target.with_name(f"{target.name}.renamed-{stamp}.json"),
                (safe_json(kept, indent=1) + "\n").encode("utf-8", "surrogatepass"),
                mode=new_file_mode(target),
            )
        except OSError as exc:
            raise BookmarksNotSaved(
                f"could not save bookmarks: cannot keep a copy of the renamed bookmarks "
                f"({(exc.strerror or str(exc)).lower()}); the file is unchanged"
            ) from exc

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
