"""The inbox: per saved search, how many of its matches are new, unread, and how many there are.

The counts are of the papers Enter's answer to the saved query lists (the reader's search, and
``tui-reader search QUERY``'s total). This module gets that answer as corpus rows and does the
rest; it knows no Whoosh (the callers search).

What *new* means, exactly. A collection's arrivals (library/arrivals.py) record, per launch of
the reader, the papers no earlier launch saw, and when. A saved search remembers, per
collection, up to when it had seen that collection's arrivals: the time of the latest arrival
among the papers the reader held when the search was opened there (``seen_upto``). A match is
**new** when it entered the collection after that time (or, for a search never opened in that
collection, after the search was saved); it stays new until the search is opened in the reader
again. Also:

- the papers of a collection's first launch are where it starts: never new;
- a paper in the files that no launch has recorded yet (a file grew since the reader last
  opened it) is new, to ``tui-reader inbox`` as to the next launch, which records it; the
  index takes it in by updating, not rebuilding (``SearchIndex.ensure``);
- only opening a saved search in the reader (Enter in the inbox) marks it visited.
  ``tui-reader inbox`` never does, so a cron job or a shell prompt clears nothing. It records
  nothing either, but for a collection no launch has seen, whose papers it records as the
  first launch would (nothing is new then, and later arrivals count).

**Unread** is matched and not in the read state (library/reading.py; read in any collection).
The status line's figure is the papers new to at least one saved search, each counted once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui_reader.library.arrivals import KEY as VISITS
from tui_reader.library.arrivals import Arrivals, ArrivalStore, arrivals
from tui_reader.library.jsonstore import Doc, JsonStore, expect
from tui_reader.library.reading import now
from tui_reader.library.saved import SavedSearch


@dataclass(frozen=True, slots=True)
class Timeline:
    """When each paper of the open collection entered it, from its arrivals."""

    visit_of: Sequence[int]  # per corpus row: the visit that first saw it
    times: Sequence[str]  # each visit's time, oldest first
    recorded: int  # visits on record: a row of visit ``recorded`` or later is not recorded yet

    @classmethod
    def of(cls, found: Arrivals, recorded: int | None = None) -> Timeline:
        """The reader's launch (its visit recorded); ``recorded`` when it was not (a read)."""
        times = found.visits
        return cls(found.visit_of, times, len(times) if recorded is None else recorded)

    @classmethod
    def read(cls, doc: Doc, ids: Sequence[str]) -> Timeline:
        """The collection's arrivals as on disk, with ``ids`` the collection's papers now;
        nothing is written (``tui-reader inbox``)."""
        found, fresh = arrivals(doc, ids, now())
        recorded = len(found.visits) - (1 if fresh and not found.first_visit else 0)
        if found.first_visit:  # no launch yet: every paper is where it starts
            return cls([0] * len(ids), [], 0)
        return cls(found.visit_of, found.visits, recorded)

    def is_new(self, row: int, since: str) -> bool:
        visit = self.visit_of[row] if row < len(self.visit_of) else 0
        if visit == 0:
            return False  # the first launch's papers
        if visit >= self.recorded:
            return True  # not recorded yet: it arrives now
        return self.times[visit] > since

    def seen_upto(self) -> str:
        """When the latest of the collection's papers arrived: a search opened now has seen
        everything up to then (papers another reader recorded later stay new)."""
        latest = max(self.visit_of, default=0)
        if latest < min(self.recorded, len(self.times)):
            return self.times[latest]
        return now()


def _check(doc: Doc) -> None:
    expect(doc, VISITS, list)


def open_timeline(
    path: Path, ids: Sequence[str], roots: Sequence[str] = (), *, first_launch: bool = False
) -> tuple[Timeline, list[str]]:
    """The collection's timeline from its arrivals file (``userdata.collection_file``), read
    only; with ``first_launch``, a collection no launch has seen is recorded as its first launch
    would record it (``tui-reader inbox``). With the warnings of a file that does not read."""
    store = JsonStore(path, "collection's history", _check)
    doc = store.load()
    visits = doc.get(VISITS)
    if first_launch and not store.read_only and not (isinstance(visits, list) and visits):
        keeper = ArrivalStore(path, roots)
        found = keeper.record(ids)
        return Timeline.of(found), [*store.warnings, *keeper.warnings]
    return Timeline.read(doc, ids), list(store.warnings)


@dataclass(frozen=True, slots=True)
class Count:
    """One saved search's line in the inbox."""

    search: SavedSearch
    new: frozenset[str]  # ids of the new matches
    unread: int
    total: int
    exact: bool = True  # False: the search was stopped; the counts are lower bounds
    notice: str | None = None

    @property
    def line(self) -> str:
        """``NAME  12 new · 40 unread · 300 total``, safe for a terminal."""
        more = "" if self.exact else "+"
        return (
            f"{self.search.shown_name}  {len(self.new):,}{more} new · {self.unread:,}{more} unread · "
            f"{self.total:,}{more} total"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.search.name,
            "query": self.search.query,
            "new": len(self.new),
            "unread": self.unread,
            "total": self.total,
            "total_exact": self.exact,
            "notice": self.notice,
        }


def count(
    search: SavedSearch,
    rows: Sequence[int],
    ids: Sequence[str],
    timeline: Timeline,
    read: Collection[str],
    collection: str,
    *,
    total: int | None = None,
    exact: bool = True,
    notice: str | None = None,
) -> Count:
    """The counts of one saved search whose answer (Enter's) is ``rows`` of the collection."""
    since = search.since(collection)
    new = frozenset(ids[r] for r in rows if timeline.is_new(r, since))
    unread = sum(1 for r in rows if ids[r] not in read)
    return Count(search, new, unread, len(rows) if total is None else total, exact, notice)


def all_new(counts: Iterable[Count]) -> frozenset[str]:
    """The papers new to at least one saved search (the status line counts each once)."""
    out: set[str] = set()
    for c in counts:
        out |= c.new
    return frozenset(out)


def new_first(rows: Sequence[int], ids: Sequence[str], new: Collection[str]) -> list[int]:
    """Enter's answer with the new matches first, each part in the answer's order."""
    return [r for r in rows if ids[r] in new] + [r for r in rows if ids[r] not in new]
