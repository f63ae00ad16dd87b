"""``is:`` filters: a query narrowed to (or away from) the reader's own sets of papers.

The sets (read, bookmarked, new, tagged: carrying any tag; and one per tag, for ``tag:name``) are
the user's, kept by library/; the searcher is given them as paper ids and turns them into Whoosh
document numbers, which Whoosh's own FilterCollector applies (``allow`` and ``restrict``): the
answer is Whoosh's ``search(q, filter=..., mask=...)``.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.search.query.querytext import IS_FILTERS, TAG

Sets = Mapping[str, frozenset[str]]  # "read", "bookmarked", "new", "tagged", "tag:<name>" -> ids
Numbering = Callable[[], Callable[[str], int | None]]  # gives a paper id -> document number lookup
BY_ROWS = 2000  # more ids than this are looked up through the numbering, not one by one in Whoosh

_lock = threading.Lock()
# reader -> (hash of a set of ids -> its document numbers): an updated index is a new reader
_docnums: weakref.WeakKeyDictionary[object, OrderedDict[int, frozenset[int]]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class Restriction:
    allow: frozenset[int] | None  # only these documents (None: any)
    deny: frozenset[int]  # never these
    notice: str | None = None

    def kept(self, scores: dict[int, float]) -> dict[int, float]:
        """The matches (docnum -> score) this lets through, as Whoosh's filter and mask do."""
        allow, deny = self.allow, self.deny
        if allow is not None and len(allow) < len(scores):
            return {d: scores[d] for d in sorted(allow) if d in scores and d not in deny}
        return {d: v for d, v in scores.items() if (allow is None or d in allow) and d not in deny}


def restriction(
    s: WhooshSearcher,
    wanted: tuple[str, ...],
    unknown: tuple[str, ...],
    sets: Sets | None,
    numbering: Numbering | None = None,
) -> Restriction:
    """What ``is:`` words ask for, as document numbers of this searcher's reader; words it cannot
    apply (unknown, or a set the caller does not keep) are named in the notice, not guessed."""
    allow: frozenset[int] | None = None
    deny: set[int] = set()
    # a tag nobody has used is an empty set, not a filter to ignore: the reader's sets list every tag
    untagged = [w for w in wanted if w.startswith(TAG) and sets is not None and w not in sets]
    if untagged:
        allow = frozenset()
    missing = [w for w in wanted if w != "unread" and w not in untagged and (sets is None or w not in sets)]
    if "unread" in wanted and (sets is None or "read" not in sets):
        missing.append("unread")
    for word in wanted:
        if word in missing or word in untagged:
            continue
        if word == "unread":
            deny |= _numbers(s, (sets or {})["read"], numbering)
            continue
        found = _numbers(s, (sets or {})[word], numbering)
        allow = found if allow is None else allow & found
    notes = []
    if unknown:
        known = ", ".join(f"is:{w}" for w in IS_FILTERS)
        notes.append(f"unknown filter {', '.join('is:' + w for w in unknown)} (known: {known}); ignored")
    if untagged:
        notes.append(f"no paper is tagged {', '.join(repr(w[len(TAG) :]) for w in untagged)}")
    if missing:
        named = ", ".join(w if w.startswith(TAG) else "is:" + w for w in missing)
        notes.append(f"{named} needs the reader's own data; ignored")
    return Restriction(allow, frozenset(deny), "; ".join(notes) or None)


@dataclass(frozen=True, slots=True)
class Only:
    """A view's restriction, by paper id: the papers ``among`` (None: any) that are not
    ``besides``. The bookmarks view is ``Only(among=bookmarked)``, the unread view
    ``Only(besides=read)``. Applied inside the search (a Whoosh filter and mask), so the count and
    every page are of the restricted answer."""

    among: frozenset[str] | None = None
    besides: frozenset[str] = frozenset()

    def key(self) -> tuple[int, int, int, int]:
        among = self.among
        return (
            -1 if among is None else len(among),
            0 if among is None else hash(among),
            len(self.besides),
            hash(self.besides),
        )


def narrowed(
    s: WhooshSearcher, by: Restriction | None, only: Only | None, numbering: Numbering | None = None
) -> Restriction | None:
    """``is:`` filters (``by``) and the view's restriction (``only``) together, as one filter
    (both must allow) and one mask (either denies). ``numbering`` looks many ids up at once
    (the searcher's, from the index's document rows: a view of 30k papers in ~10 ms rather than
    ~1 s of Whoosh's ``document_number``)."""
    if only is None:
        return by
    allow = by.allow if by is not None else None
    if only.among is not None:
        among = _numbers(s, only.among, numbering)
        allow = among if allow is None else allow & among
    deny = by.deny if by is not None else frozenset()
    if only.besides:
        deny = deny | _numbers(s, only.besides, numbering)
    return Restriction(allow, deny, by.notice if by is not None else None)


def key(sets: Sets | None) -> tuple[tuple[str, int, int], ...]:
    """A cache key for the sets' contents (a frozenset keeps its hash once computed)."""
    return tuple(sorted((name, len(ids), hash(ids)) for name, ids in (sets or {}).items()))


def _numbers(s: WhooshSearcher, ids: frozenset[str], numbering: Numbering | None = None) -> frozenset[int]:
    """Document numbers of these paper ids in this reader (cached: a view asks again and again)."""
    reader = s.reader()
    with _lock:
        known = _docnums.setdefault(reader, OrderedDict())
        found = known.get(hash(ids) ^ len(ids))
        if found is not None:
            known.move_to_end(hash(ids) ^ len(ids))
            return found
    if numbering is not None and len(ids) > BY_ROWS:
        number = numbering()
        numbers = frozenset(n for n in map(number, ids) if n is not None)
    else:
        numbers = frozenset(n for n in (s.document_number(id=pid) for pid in ids) if n is not None)
    with _lock:
        known[hash(ids) ^ len(ids)] = numbers
        while len(known) > 16:
            known.popitem(last=False)
    return numbers
