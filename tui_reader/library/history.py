"""Search history: the searches run with Enter, most recent first, each once, at most LIMIT.

``history.json`` is ``{"version": 1, "searches": [{"query": "...", "at": "<ISO time>"}]}``, kept
with jsonstore's discipline: two readers adding searches at once both keep theirs. A search run
again moves to the front (the same words with other spacing are the same search). Entries this
version does not understand are kept, at their place, until the cap drops them.
"""

from __future__ import annotations

from pathlib import Path

from tui_reader.corpus.text import clean_label
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.jsonstore import Doc, JsonStore, expect, list_of
from tui_reader.library.reading import now

KEY = "searches"
LIMIT = 500
MAX_QUERY = 1000  # characters of a query worth keeping


def _check(doc: Doc) -> None:
    expect(doc, KEY, list)


def folded(query: str) -> str:
    """The form two searches are compared in: words, whatever the spacing."""
    return " ".join(query.split())


def _query(entry: object) -> str | None:
    query = entry.get("query") if isinstance(entry, dict) else None
    return query if isinstance(query, str) else None


def _queries(doc: Doc) -> list[str]:
    out: list[str] = []
    entries = doc.get(KEY)
    for entry in entries if isinstance(entries, list) else []:
        query = _query(entry)
        if query is not None and query.strip():
            out.append(clean_label(query))
    return out


class SearchHistory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(path, "search history", _check)
        self._items: list[str] = []
        self.reload()

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    def reload(self) -> None:
        self._items = _queries(self._store.load())

    def all(self) -> list[str]:
        """Most recent first."""
        return list(self._items)

    def starting_with(self, prefix: str) -> list[str]:
        """The searches that start with ``prefix`` (case-insensitive), most recent first."""
        want = folded(prefix).casefold()
        return [q for q in self._items if folded(q).casefold().startswith(want)]

    def add(self, query: str) -> None:
        """Put a search at the front (once), merged into what is on disk now."""
        query = folded(query)[:MAX_QUERY]
        if not query:
            return

        def change(doc: Doc) -> list[str]:
            entries = list_of(doc, KEY)
            kept = [e for e in entries if (q := _query(e)) is None or folded(q) != query]
            entries[:] = [{"query": query, "at": now()}, *kept][:LIMIT]
            return _queries(doc)

        try:
            self._items = self._store.update(change)
        except ReadOnlyStore:  # not saved (the caller says so); this session still has it
            self._items = [query, *(q for q in self._items if folded(q) != query)][:LIMIT]
            raise
