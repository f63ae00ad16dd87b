"""The user's stores follow the paper ids of issue 18, once per collection.

Paper ids were the hash of the abstract (or the title); they now follow the identity rule
(corpus/identity.py) and the old id is kept as an alias (``Corpus.resolve``). The first time a
collection opens after the change, every id the stores hold that the collection knows only as an
alias is renamed to the paper's id: bookmarks (with their tags and notes), read state, the
collection's saved session and its visits. Each file is copied byte for byte beside itself before
its first rename (``<name>.ids-v1.bak``) and written atomically under its lock; nothing is merged
or dropped (a bookmark whose new id is bookmarked already keeps its old id). ``ids.json``
records the collections done, so later launches cost nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tui_reader.atomic import atomic_write_bytes
from tui_reader.corpus.corpus import Corpus
from tui_reader.library.arrivals import ArrivalStore, collection_file, only_listed
from tui_reader.library.bookmarks import Bookmark, BookmarkStore, ReadOnlyStore
from tui_reader.library.jsonstore import Doc, JsonStore, dict_of, expect, list_of
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import SessionStore

IDS_VERSION = 2  # 1: the abstract's hash; 2: the identity rule (issue 18)
KEY = "collections"
BACKUP = ".ids-v1.bak"


@dataclass(slots=True)
class Migrated:
    renamed: dict[str, str] = field(default_factory=dict)  # old id -> new id, of ids some store held
    warnings: list[str] = field(default_factory=list)


def _check(doc: Doc) -> None:
    expect(doc, KEY, dict)


def done_store(data_dir: Path) -> JsonStore:
    return JsonStore(data_dir / "ids.json", "id migration", _check)


def migrate(
    corpus: Corpus,
    data_dir: Path,
    bookmarks: BookmarkStore,
    read: ReadStore | None,
    session: SessionStore | None,
    arrivals: ArrivalStore | None = None,
) -> Migrated:
    """Rename the stores' old ids of this collection's papers (once per collection; call it in a
    worker: the first look-up of an alias reads every row). Store problems become warnings.
    A collection marked done costs one small read. Stores holding only the collection's ids
    write nothing (compared again next time), unless one is its visits store, which may hold
    every id it ever listed (~1.4 s at 1M): that is compared once, and the collection marked done."""
    done = done_store(data_dir)
    if done.path.exists() and dict_of(done.load(), KEY).get(corpus.key) == IDS_VERSION:
        return Migrated()
    held = set(bookmarks.ids()) | (set(read.ids()) if read is not None else set())
    saved = session.get(corpus.key).paper if session is not None else ""
    held |= {saved} if saved else set()
    texts = _visit_texts(arrivals) if arrivals is not None else []
    listed = only_listed(texts, corpus.ids)  # a relaunch: no set of every id (~0.7 GB at 2.7M)
    visits = set() if listed else {pid for joined in texts for pid in joined.split()}
    if not held and not visits and not listed:
        return Migrated()
    unknown = (held | visits) - corpus.index_of.keys()  # all at once (IdIndex.absent)
    mapping = _mapping(corpus, unknown) if unknown else {}
    result = Migrated({old: new for old, new in mapping.items() if old in held})
    steps: list[tuple[str, Callable[[], None]]] = [("bookmarks", lambda: _bookmarks(bookmarks, mapping))]
    if read is not None:
        steps.append(("read state", lambda: _read(read, mapping)))
    if session is not None:
        steps.append(("session", lambda: _session(session, corpus.key, mapping)))
    if arrivals is not None and not listed:  # only the collection's ids: none is an old one
        steps.append(("collection's history", lambda: _arrivals(arrivals, mapping)))
    for what, step in steps if mapping else ():
        try:
            step()
        except (ReadOnlyStore, OSError) as exc:
            result.warnings.append(f"could not carry the {what} over to the new paper ids: {exc}")
    if not result.warnings and (unknown or visits or listed):
        try:
            done.update(lambda doc: dict_of(doc, KEY).__setitem__(corpus.key, IDS_VERSION))
        except ReadOnlyStore as exc:
            if mapping:  # with nothing renamed, a mark not kept only means comparing again
                result.warnings.append(str(exc))
    return result


def _mapping(corpus: Corpus, unknown: set[str]) -> dict[str, str]:
    """Old id -> the paper's id, for each id not the collection's that it knows as an alias."""
    out: dict[str, str] = {}
    for pid in unknown:
        i = corpus.resolve(pid)
        if i is not None:
            out[pid] = corpus.ids[i]
    return out


def _backup(store: JsonStore) -> None:
    """The file as it is, beside it, before the first rename (an earlier copy is kept)."""
    path = store.path.resolve()
    backup = path.with_name(path.name + BACKUP)
    if os.path.lexists(backup) or not path.is_file():
        return
    atomic_write_bytes(backup, path.read_bytes())


def _bookmarks(store: BookmarkStore, mapping: Mapping[str, str]) -> None:
    if not any(old in store for old in mapping):
        return
    _backup(store._store)
    rename = getattr(store, "rename_ids", None)  # the stores' own, where it has one
    if callable(rename):
        rename(dict(mapping))
        return

    def apply(items: dict[str, Bookmark]) -> int:
        renamed = {}
        for pid, mark in items.items():
            new = mapping.get(pid)
            if new is not None and new not in items:
                mark.id = new
                pid = new
            renamed[pid] = mark
        changed = len(set(renamed) - set(items))
        items.clear()
        items.update(renamed)  # the same order
        return changed

    store._change(apply, changed=bool)


def _read(store: ReadStore, mapping: Mapping[str, str]) -> None:
    if not any(old in store for old in mapping):
        return
    _backup(store._store)

    def change(doc: Doc) -> None:
        entries = dict_of(doc, "read")
        for old, new in mapping.items():
            if old in entries:
                when, other = entries.pop(old), entries.get(new)
                if isinstance(other, str) and isinstance(when, str):
                    when = min(when, other)  # read under both ids: the first time counts
                entries[new] = when

    store._store.update(change)
    store.reload()


def _session(store: SessionStore, key: str, mapping: Mapping[str, str]) -> None:
    paper = store.get(key).paper
    if paper not in mapping:
        return
    _backup(store._store)

    def change(doc: Doc) -> None:
        entry = dict_of(doc, "collections").get(key)
        if isinstance(entry, dict) and entry.get("paper") in mapping:
            entry["paper"] = mapping[str(entry["paper"])]

    store._store.update(change)


def _visit_texts(store: ArrivalStore) -> list[str]:
    """Each visit's ids as recorded: one space-separated text a visit."""
    entries = store._store.load().get("visits")
    return [
        entry["ids"]
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("ids"), str)
    ]


def _visit_ids(store: ArrivalStore) -> set[str]:
    return {pid for joined in _visit_texts(store) for pid in joined.split()}


def _arrivals(store: ArrivalStore, mapping: Mapping[str, str]) -> None:
    """Each visit's ids renamed, so papers seen before stay not new and keep their dates added."""
    if not _visit_ids(store) & mapping.keys():
        return
    _backup(store._store)

    def change(doc: Doc) -> None:
        for entry in list_of(doc, "visits"):
            if isinstance(entry, dict) and isinstance(entry.get("ids"), str):
                ids = [mapping.get(pid, pid) for pid in entry["ids"].split()]
                entry["ids"] = " ".join(dict.fromkeys(ids))

    store._store.update(change)


def migrate_files(corpus: Corpus, data_dir: Path, bookmarks_path: Path) -> list[str]:
    """``migrate`` for a command line run: the stores that exist opened here (none is made);
    the warnings to print."""
    visits, read, session = (
        collection_file(data_dir, corpus),
        data_dir / "read.json",
        data_dir / "session.json",
    )
    stores = (
        BookmarkStore(bookmarks_path),
        ReadStore(read) if read.exists() else None,
        SessionStore(session) if session.exists() else None,
        ArrivalStore(visits) if visits.exists() else None,
    )
    # what opening them said (a corrupt file set aside, ...): the command opens them again after
    said = [w for store in stores if store is not None for w in store.warnings]
    return said + migrate(corpus, data_dir, *stores).warnings
