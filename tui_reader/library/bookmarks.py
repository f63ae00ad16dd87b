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

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from tui_reader.atomic import atomic_write_bytes, new_file_mode, real_path
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label, clean_text, safe_json
from tui_reader.library.bookmark import (
    KEY,
    MAX_FILE_BYTES,
    SNAPSHOT,
    VERSION,
    Bookmark,
    BookmarksNotSaved,
    _check,
    _now,
    _parse,
    _Parsed,
    no_collections,
    normalise_tags,
)
from tui_reader.library.jsonstore import (
    Doc,
    JsonStore,
    ReadOnlyStore,
    list_of,
)
from tui_reader.library.snapshots import Packs, digest, read_snapshot, snapshot_dict

__all__ = [
    "KEY",
    "SNAPSHOT",
    "VERSION",
    "Bookmark",
    "BookmarkStore",
    "BookmarksNotSaved",
    "ReadOnlyStore",
    "digest",
    "normalise_tags",
    "snapshot_dict",
]

T = TypeVar("T")


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
        with no_collections():
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

        with no_collections():
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
            mark.takeread_snapshot(snapshot)
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

    def add_many(self, papers: Sequence[Paper]) -> int:
        """Bookmark every paper, in one write against the file as it is now; a paper already
        bookmarked (here or by another instance) is kept as it is. How many were new."""

        def apply(items: dict[str, Bookmark]) -> int:
            new = [p for p in papers if p.id not in items]
            for paper in new:
                self._ensure(items, paper.id, paper.title, paper)
            return len(new)

        return self._change(apply, bool, touched=tuple(p.id for p in papers))

    def add_tags_many(self, papers: Sequence[Paper], tags: Iterable[str]) -> None:
        """Add tags to every paper (bookmarking those that are not), in one write."""
        wanted = normalise_tags(tags)

        def apply(items: dict[str, Bookmark]) -> None:
            for paper in papers:
                mark = self._ensure(items, paper.id, paper.title, paper)
                mark.tags = normalise_tags([*mark.tags, *wanted])

        self._change(apply, touched=tuple(p.id for p in papers))

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
                    changed += mark.takeread_snapshot(paper) or mark.title != title
            return changed

        return self._change(apply, bool)


def _stale(mark: Bookmark, paper: Paper | None) -> bool:
    """Would ``takeread_snapshot(paper)`` change the bookmark?"""
    if paper is None:
        return False
    if mark.snapshot is None or (not mark.title and paper.title):
        return True
    fresh, _ = read_snapshot(snapshot_dict(paper), mark.id)
    return snapshot_dict(mark.snapshot) != snapshot_dict(fresh)
