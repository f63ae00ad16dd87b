"""Papers the user marked "not interested", per tag: the recommender's explicit negatives.

``not-interested.json`` is ``{"version": 1, "tags": {"<tag, case-blind>": ["<id>", ...]},
"all": ["<id>", ...]}`` ("all": the recommendations from every bookmark), one file for every
collection (ids are the papers' own), kept with jsonstore's discipline: two readers marking
papers at once both keep theirs; a corrupt file is set aside; entries this version does not
understand are kept. A tag's list is its own: a paper not wanted for one tag may be for another.
"""

from __future__ import annotations

from pathlib import Path

from tui_reader.corpus.text import clean_label
from tui_reader.library.jsonstore import Doc, JsonStore, dict_of, expect, list_of

TAGS = "tags"
ALL = "all"
MAX_IDS = 100_000  # per tag: a list past this keeps its newest


def _check(doc: Doc) -> None:
    expect(doc, TAGS, dict)
    expect(doc, ALL, list)
    tags = doc.get(TAGS)
    if isinstance(tags, dict) and not all(isinstance(v, list) for v in tags.values()):
        raise ValueError(f"{TAGS!r} holds a tag whose papers are not a list")


def tag_key(tag: str | None) -> str | None:
    """A tag as the file keys it (spaces collapsed, case-blind, as bookmarks compare tags);
    None: every bookmark."""
    return None if tag is None else " ".join(clean_label(tag).split()).casefold()


def _entries(doc: Doc, tag: str | None, create: bool = False) -> list[object] | None:
    key = tag_key(tag)
    if key is None:
        return list_of(doc, ALL) if create else _as_list(doc.get(ALL))
    tags = dict_of(doc, TAGS) if create else doc.get(TAGS)
    if not isinstance(tags, dict):
        return None
    if create:
        tags.setdefault(key, [])
    return _as_list(tags.get(key))


def _as_list(value: object) -> list[object] | None:
    return value if isinstance(value, list) else None


def _ids(entries: list[object] | None) -> frozenset[str]:
    return frozenset(e for e in entries or () if isinstance(e, str))


class NotInterested:
    """The "not interested" lists, read from the file at each call (another reader may write)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = JsonStore(path, "not-interested list", _check)

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    def ids(self, tag: str | None) -> frozenset[str]:
        """The papers not wanted for ``tag`` (None: for every bookmark)."""
        return _ids(_entries(self._store.load(), tag))

    def add(self, tag: str | None, pid: str) -> frozenset[str]:
        """Mark ``pid`` not interested for ``tag``; the tag's papers now. Raises ReadOnlyStore
        (a message fit for the user) when it cannot be saved."""

        def change(doc: Doc) -> frozenset[str]:
            entries = _entries(doc, tag, create=True)
            assert entries is not None
            if pid not in entries:
                entries.append(pid)
                del entries[: max(0, len(entries) - MAX_IDS)]
            return _ids(entries)

        return self._store.update(change)

    def reset(self, tag: str | None) -> int:
        """Clear ``tag``'s list; how many papers it held (0: nothing written)."""

        def change(doc: Doc) -> int:
            entries = _entries(doc, tag)
            count = len(_ids(entries))
            if entries is not None:  # what is not an id is not this version's: kept
                entries[:] = [e for e in entries if not isinstance(e, str)]
            return count

        return self._store.update(change, write=bool)
