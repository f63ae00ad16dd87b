"""When papers entered a collection: what is new since the last visit, and "date added" order.

One file per collection (``collections/<Corpus.key>.json``, keyed by the roots the user opened):
``{"version": 1, "roots": [...], "last": "<ISO time>", "visits": [{"at": "<ISO time>",
"ids": "<id> <id> ..."}]}``. Each launch that finds papers no earlier launch saw appends one visit
holding just those ids, space-separated (87k twelve-character ids are ~1.1 MB); ``last`` is the
time of the latest launch. A paper is *new* when it entered since the previous launch; on a
collection's first launch nothing is new. A paper that leaves and comes back is not new again.

Kept with jsonstore's discipline, so two readers opening the same collection at once both record
their launch and lose no visit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.jsonstore import Doc, JsonStore, expect, list_of
from tui_reader.library.reading import now

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

KEY = "visits"


def collection_file(data_dir: Path, corpus: Corpus) -> Path:
    """The collection's arrivals file: keyed by the roots the user opened (``Corpus.key``)."""
    return data_dir / "collections" / f"{corpus.key}.json"


@dataclass(frozen=True, slots=True)
class Arrivals:
    new: frozenset[str] = frozenset()  # ids that entered since the previous launch
    first_visit: bool = True
    previous: str = ""  # when the collection was opened before this launch ('' the first time)
    visit_of: list[int] = field(default_factory=list)  # per id given: the visit that first saw it
    visits: list[str] = field(default_factory=list)  # when each visit was


def _check(doc: Doc) -> None:
    expect(doc, KEY, list)


def _visits(doc: Doc) -> list[tuple[str, str]]:
    """(time, ids) of each visit we understand, oldest first."""
    out = []
    entries = doc.get(KEY)
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        at, ids = entry.get("at"), entry.get("ids")
        if isinstance(at, str) and isinstance(ids, str):
            out.append((at, ids))
    return out


def arrivals(doc: Doc, ids: Sequence[str], stamp: str) -> tuple[Arrivals, list[str]]:
    """What a launch at ``stamp`` finds, and the ids it is the first to see (to record)."""
    visits = _visits(doc)
    times = [at for at, _ in visits]
    appended = _appended(visits, ids)
    if appended is not None:  # the collection starts with what its visits listed, in order
        fresh = list(ids[len(appended) :])  # unique ids: none of the rest is in a visit
        visit_of = appended + [len(times)] * len(fresh)
    else:
        seen: dict[str, int] = {}
        for n, (_, joined) in enumerate(visits):
            for pid in joined.split():
                seen.setdefault(pid, n)
        fresh = list(dict.fromkeys(pid for pid in ids if pid not in seen))
        visit_of = [seen.get(pid, len(times)) for pid in ids]
    last = doc.get("last")
    previous = last if isinstance(last, str) else (times[-1] if times else "")
    found = Arrivals(
        new=frozenset(fresh) if times else frozenset(),
        first_visit=not times,
        previous=previous,
        visit_of=visit_of,
        visits=[*times, stamp] if fresh else times,
    )
    return found, fresh


def _appended(visits: list[tuple[str, str]], ids: Sequence[str]) -> list[int] | None:
    """The visit of each of the collection's first papers when they are exactly what its visits
    recorded, in their order (a relaunch, or papers added after them): no dict of every id (~2.5
    s and hundreds of MB at 1M); None otherwise. Each visit recorded only ids no earlier one
    had (a collection's ids are unique), so equal texts mean equal answers to the general
    rule's. Compared a run of ids at a time: neither side is split into millions of strings."""
    parts = [joined for _, joined in visits if joined.strip()]
    if not parts or not all(_canonical(joined) for joined in parts):
        return None
    known = _prefix(" ".join(parts), ids)
    if known is None:
        return None
    visit_of: list[int] = []
    for n, (_, joined) in enumerate(visits):
        if joined.strip():
            visit_of.extend([n] * (joined.count(" ") + 1))
    return visit_of if len(visit_of) == known else None


NOT_CANONICAL = re.compile(r"[^\S ]|  |\A | \Z")  # \s is str.split()'s whitespace (both isspace)
RUN = 1 << 14  # ids joined and compared at a time


def only_listed(texts: Sequence[str], ids: Sequence[str]) -> bool:
    """Whether the visits' ``texts``, joined, are exactly the collection's first ids (a relaunch):
    then every id they hold is one of its papers', known without splitting them into a set."""
    parts = [joined for joined in texts if joined.strip()]
    return bool(parts) and all(map(_canonical, parts)) and _prefix(" ".join(parts), ids) is not None


def _canonical(joined: str) -> bool:
    """``joined == " ".join(joined.split())`` without the split: single spaces between words."""
    return NOT_CANONICAL.search(joined) is None


def _prefix(text: str, ids: Sequence[str]) -> int | None:
    """k when ``text == " ".join(ids[:k])`` for some k >= 1, else None; a run of ids at a time."""
    at = known = 0
    for start in range(0, len(ids), RUN):
        run = ids[start : start + RUN]
        piece = (" " if start else "") + " ".join(run)
        if text.startswith(piece, at):
            at, known = at + len(piece), known + len(run)
            continue
        for pid in run:  # the text ends in this run, or differs
            if at == len(text):
                break
            piece = (" " if known else "") + pid
            if not text.startswith(piece, at):
                return None
            at, known = at + len(piece), known + 1
        break
    return known if known and at == len(text) else None


class ArrivalStore:
    def __init__(self, path: Path, roots: Sequence[str] = ()) -> None:
        self.path = path
        self.roots = list(roots)
        self._store = JsonStore(path, "collection's history", _check)

    @property
    def warnings(self) -> list[str]:
        return self._store.warnings

    def record(self, ids: Sequence[str], stamp: str | None = None) -> Arrivals:
        """One launch of the collection holding ``ids``: record the ids no launch saw before and
        the time, and say what is new. A store that cannot be written still answers (from what
        is on disk), with a warning."""
        stamp = stamp or now()

        def change(doc: Doc) -> Arrivals:
            found, fresh = arrivals(doc, ids, stamp)
            if fresh:
                list_of(doc, KEY).append({"at": stamp, "ids": " ".join(fresh)})
            doc["last"] = stamp
            if self.roots:
                doc["roots"] = self.roots
            return found

        try:
            return self._store.update(change)
        except ReadOnlyStore as exc:
            self._store.warnings.append(f"{exc}; papers new since the last visit are not recorded")
            found, _ = arrivals(self._store.load(), ids, stamp)
            return found
