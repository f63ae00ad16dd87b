"""Where the reader was, per collection: the query, the view, the order and the paper under the
cursor, restored on the next launch of the same collection.

``session.json`` is ``{"version": 1, "collections": {"<Corpus.key>": {"query": "...", "view":
"all", "sort": "relevance", "paper": "<id>", "saved": "<ISO time>", "roots": [...]}}}``, kept with
jsonstore's discipline: two readers on different collections both keep theirs; on the same one the
last to save wins. At most LIMIT collections are remembered (the least recently saved go first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui_reader.corpus.text import clean_label
from tui_reader.library.history import MAX_QUERY
from tui_reader.library.jsonstore import Doc, JsonStore, dict_of, expect
from tui_reader.library.reading import now
from tui_reader.library.sorting import SORTS, VIEWS

KEY = "collections"
LIMIT = 200


@dataclass(frozen=True, slots=True)
class Session:
    query: str = ""
    view: str = "all"
    sort: str | None = None  # None: the configured default
    paper: str = ""  # id of the highlighted paper


def _check(doc: Doc) -> None:
    expect(doc, KEY, dict)


def _str(entry: dict[str, object], key: str) -> str:
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def _session(entry: object) -> Session:
    """What we understand of one collection's entry; anything odd falls back to the default."""
    if not isinstance(entry, dict):
        return Session()
    view, sort = _str(entry, "view"), _str(entry, "sort")
    return Session(
        query=clean_label(_str(entry, "query"))[:MAX_QUERY],
        view=view if view in VIEWS else "all",
        sort=sort if sort in SORTS else None,
        paper=clean_label(_str(entry, "paper"))[:100],
    )


class SessionStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(path, "session", _check)
        self._entries = self._read()

    def _read(self) -> dict[str, object]:
        entries = self._store.load().get(KEY)
        return entries if isinstance(entries, dict) else {}

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    def get(self, key: str) -> Session:
        """The collection's session as last saved (by any reader)."""
        self._entries = self._read()
        return _session(self._entries.get(key))

    def save(self, key: str, session: Session, roots: Sequence[str] = ()) -> None:
        stamp = now()

        def change(doc: Doc) -> None:
            entries = dict_of(doc, KEY)
            old = entries.get(key)
            entry: dict[str, object] = dict(old) if isinstance(old, dict) else {}
            entry.update(
                query=session.query,
                view=session.view,
                sort=session.sort or "relevance",
                paper=session.paper,
                saved=stamp,
            )
            if roots:
                entry["roots"] = list(roots)
            entries.pop(key, None)
            entries[key] = entry  # the most recent last
            _trim(entries)

        self._store.update(change)


def _trim(entries: dict[str, object]) -> None:
    """Keep the LIMIT most recently saved, in their order: one sort, not a scan per entry dropped
    (20,000 entries took 47 s to quit). Equal times: the earlier in the file goes first."""
    excess = len(entries) - LIMIT
    if excess <= 0:
        return
    by_age = sorted(entries, key=lambda k: _saved(entries[k]))  # stable: file order for ties
    for k in by_age[:excess]:
        del entries[k]


def _saved(entry: object) -> str:
    return _str(entry, "saved") if isinstance(entry, dict) else ""
