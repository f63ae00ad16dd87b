"""Saved searches: a query kept under a name, for the inbox (library/inbox.py) to count.

``saved-searches.json`` in the data folder (``paths.saved_searches_file()``), one file for every
collection: ``{"version": 1, "searches": [{"name": "...", "query": "...", "created": "<ISO
time>", "visited": {"<collection key>": "<ISO time>"}}]}``. ``visited`` holds, per collection,
up to when that collection's arrivals were seen the last time the search was opened in the
reader (library/inbox.py says exactly what that means); a search never opened in a collection
counts from ``created``.

Names and queries are data: stored as given (a name without its outer blanks), shown through
``clean_label``. Two names are the same name when they are equal ignoring case and spacing
("Ranking" and " ranking "): adding a name in use is refused unless replacing is asked for.
Kept with jsonstore's discipline (version, lock, atomic write, merge with another instance);
entries and keys this version does not understand are written back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui_reader.corpus.text import clean_label
from tui_reader.library.jsonstore import Doc, JsonStore, expect, list_of
from tui_reader.library.reading import now

KEY = "searches"
MAX_NAME = 100  # characters of a name
MAX_QUERY = 1000  # characters of a query (as the search history keeps)


class Refused(ValueError):
    """A change the store will not make (a name in use, none by that name); one line for the user."""


class BadInput(Refused):
    """A name or query that cannot be saved (empty, too long): a usage error."""


@dataclass(frozen=True, slots=True)
class SavedSearch:
    name: str
    query: str
    created: str = ""
    visited: dict[str, str] = field(default_factory=dict)  # collection key -> arrivals seen up to

    @property
    def shown_name(self) -> str:
        return clean_label(self.name)

    @property
    def shown_query(self) -> str:
        return clean_label(self.query)

    def since(self, collection: str) -> str:
        """The time after which an arrival in ``collection`` is new to this search."""
        return self.visited.get(collection) or self.created


def folded(name: str) -> str:
    """The form names are compared in: case and spacing aside."""
    return " ".join(name.split()).casefold()


def checked_name(name: str) -> str:
    """The name as stored (outer blanks off); BadInput when it is empty or too long."""
    name = name.strip()
    if not folded(name):
        raise BadInput("a saved search needs a name")
    if len(name) > MAX_NAME:
        raise BadInput(f"a saved search's name is at most {MAX_NAME} characters ({len(name)} given)")
    return name


def checked_query(query: str) -> str:
    query = query.strip()
    if not query:
        raise BadInput("a saved search needs a query")
    if len(query) > MAX_QUERY:
        raise BadInput(f"a saved search's query is at most {MAX_QUERY} characters ({len(query)} given)")
    return query


def _check(doc: Doc) -> None:
    expect(doc, KEY, list)


def _entry(item: object) -> SavedSearch | None:
    """One entry as a SavedSearch; None for one this version does not understand (kept as is)."""
    if not isinstance(item, dict):
        return None
    name, query, created = item.get("name"), item.get("query"), item.get("created", "")
    if not (isinstance(name, str) and folded(name) and isinstance(query, str) and isinstance(created, str)):
        return None
    raw = item.get("visited")
    visited = {k: v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, dict) else {}
    return SavedSearch(name, query, created, visited)


def _searches(doc: Doc) -> list[SavedSearch]:
    entries = doc.get(KEY)
    found = [_entry(item) for item in (entries if isinstance(entries, list) else [])]
    return [s for s in found if s is not None]


def _index(entries: list[object], name: str) -> int | None:
    """Where the entry named ``name`` (folded) is; None if no entry has it."""
    want = folded(name)
    for i, item in enumerate(entries):
        found = _entry(item)
        if found is not None and folded(found.name) == want:
            return i
    return None


def _missing(name: str) -> Refused:
    return Refused(f"no saved search is named {clean_label(name.strip())!r}")


class SavedSearches:
    """The saved searches, in the order they were saved. Each change is one read-merge-write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(path, "saved searches", _check, plural=True)
        self._items: list[SavedSearch] = []
        self.reload()

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    def reload(self) -> None:
        self._items = _searches(self._store.load())

    def all(self) -> list[SavedSearch]:
        return list(self._items)

    def get(self, name: str) -> SavedSearch | None:
        want = folded(name)
        return next((s for s in self._items if folded(s.name) == want), None)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, name: str, query: str, *, replace: bool = False) -> SavedSearch:
        """Save ``query`` as ``name``; a name in use is Refused unless ``replace`` (the search
        then gets the new name's spelling and query, and starts counting afresh)."""
        name, query = checked_name(name), checked_query(query)
        saved = SavedSearch(name, query, now())

        def change(doc: Doc) -> None:
            entries = list_of(doc, KEY)
            at = _index(entries, name)
            if at is not None and not replace:
                known = _entry(entries[at])
                shown = clean_label(known.name if known else name)
                raise Refused(f"a saved search is already named {shown!r} (--replace replaces it)")
            item = {"name": saved.name, "query": saved.query, "created": saved.created, "visited": {}}
            if at is None:
                entries.append(item)
            else:  # what a newer version keeps beside a search is kept across a replace
                old = entries[at]
                entries[at] = {**(old if isinstance(old, dict) else {}), **item}
            self._items = _searches(doc)

        self._store.update(change)
        return saved

    def remove(self, name: str) -> SavedSearch:
        """Forget the search named ``name`` (Refused if none is); what it was."""

        def change(doc: Doc) -> SavedSearch:
            entries = list_of(doc, KEY)
            at = _index(entries, name)
            if at is None:
                raise _missing(name)
            gone = _entry(entries.pop(at))
            self._items = _searches(doc)
            assert gone is not None
            return gone

        return self._store.update(change)

    def rename(self, old: str, new: str) -> SavedSearch:
        """Give the search named ``old`` the name ``new`` (its query and visits stay)."""
        new = checked_name(new)

        def change(doc: Doc) -> SavedSearch:
            entries = list_of(doc, KEY)
            at, clash = _index(entries, old), _index(entries, new)
            if at is None:
                raise _missing(old)
            if clash is not None and clash != at:
                raise Refused(f"a saved search is already named {clean_label(new)!r}")
            item = entries[at]
            assert isinstance(item, dict)
            item["name"] = new
            self._items = _searches(doc)
            found = _entry(item)
            assert found is not None
            return found

        return self._store.update(change)

    def visited(self, names: list[str], collection: str, upto: str) -> None:
        """The searches ``names`` were opened in ``collection``, whose arrivals were seen up to
        ``upto``: what arrived until then is no longer new to them there."""
        wanted = {folded(n) for n in names}

        def change(doc: Doc) -> bool:
            changed = False
            for item in list_of(doc, KEY):
                found = _entry(item)
                if found is None or folded(found.name) not in wanted or not isinstance(item, dict):
                    continue
                visits = item.get("visited")
                if not isinstance(visits, dict):
                    visits = item["visited"] = {}
                known = visits.get(collection)
                if not isinstance(known, str) or known < upto:  # only forward: seen stays seen
                    visits[collection] = upto
                    changed = True
            self._items = _searches(doc)
            return changed

        self._store.update(change, write=bool)
