"""What is on the reader's screen, as plain values: a stack of views and the requests that fill them.

A ``View`` says what the user asked to see (a query, an order, a restriction, what it is similar
to) and where they were in it (the cursor's paper, the scroll offset). An ``Entry`` pairs a view
with the answer it was given. Enter, ``s``, a facet, ``B`` and ``U`` push an entry; Esc pops one,
and the entry below comes back exactly as it was left: nothing is searched again to go back.

Every request for an answer takes the next number from the model and is remembered by the entry
it is for. An answer is applied to the entry still waiting for that number, wherever it is in the
stack, and to nothing else: a late answer can never land on a newer view, and an answer is never
lost because the user pushed a view while it was on its way.

No Textual here: the model is tested without Pilot.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_reader.search import SearchResult

MAX_DEPTH = 50  # views kept for Esc; the oldest go first


class Sort(StrEnum):
    """The orders ``S`` cycles through (names shared with library/sorting.py)."""

    RELEVANCE = "relevance"
    YEAR = "year"
    VENUE = "venue"
    TITLE = "title"
    ADDED = "added"


class Restriction(StrEnum):
    """Which papers of the answer the list keeps."""

    ALL = "all"
    BOOKMARKS = "bookmarks"
    UNREAD = "unread"


class Kind(StrEnum):
    """What kind of list a view is."""

    COLLECTION = "collection"  # no query: the whole collection
    TYPING = "typing"  # type-ahead's answer to the words so far
    SEARCH = "search"  # Enter's answer
    SIMILAR = "similar"  # papers similar to one
    RELATED = "related"  # papers like a draft (what am I missing: app/screens/related.py)


@dataclass(frozen=True, slots=True)
class View:
    """What the user asked to see, and where they were in it."""

    query: str = ""
    sort: Sort = Sort.RELEVANCE
    restriction: Restriction = Restriction.ALL
    similar_to: str = ""  # the id of the paper the list is similar to ('' for none)
    related: str = ""  # the draft the list is like, as shown ('' for none): its answer is asked once
    typing: bool = False  # the query is being typed: type-ahead answers it
    cursor: str = ""  # the id of the paper under the cursor ('' for the first)
    scroll: int = 0  # the list's scroll offset, in lines

    @property
    def kind(self) -> Kind:
        if self.similar_to:
            return Kind.SIMILAR
        if self.related:
            return Kind.RELATED
        if not self.query.strip():
            return Kind.COLLECTION
        return Kind.TYPING if self.typing else Kind.SEARCH

    def replace(self, **changes: Any) -> View:
        return dataclasses.replace(self, **changes)

    def same_list(self, other: View) -> bool:
        """The same papers asked for (the cursor and the scroll aside)."""
        return self.replace(cursor="", scroll=0) == other.replace(cursor="", scroll=0)


@dataclass(slots=True, eq=False)
class Entry:
    """A view on the stack and the answer it has (None while it waits, or for the collection)."""

    view: View
    result: SearchResult | None = None  # the answer as shown (in the view's order)
    request: int = 0  # the number of the answer it waits for (0: none)
    order: str = "relevance"  # the order the list is in now ('collection' when scores tie)
    rows: Any = None  # the corpus rows shown, once worked out (None: not yet)
    retries: int = 0  # answers asked again because an older request's search cut them short
    patient: bool = False  # asked without Enter's time limit: an answer of it once stopped there

    @property
    def waiting(self) -> bool:
        return self.request != 0


@dataclass(slots=True)
class ReaderModel:
    """The stack of views; the top one is on screen."""

    stack: list[Entry] = field(default_factory=lambda: [Entry(View())])
    last_request: int = 0

    @property
    def top(self) -> Entry:
        return self.stack[-1]

    @property
    def view(self) -> View:
        return self.top.view

    @property
    def depth(self) -> int:
        return len(self.stack)

    def push(self, view: View) -> Entry:
        """A new view on top; the one below keeps its answer, cursor and scroll for Esc."""
        entry = Entry(view)
        self.stack.append(entry)
        del self.stack[: max(0, len(self.stack) - MAX_DEPTH)]
        return entry

    def replace(self, view: View, keep_answer: bool = False) -> Entry:
        """The top view changed in place (typing, another order): it needs a new answer, unless
        ``keep_answer`` (only where it stands changed)."""
        top = self.top
        if keep_answer:
            top.view = view
            return top
        self.stack[-1] = Entry(view)
        return self.stack[-1]

    def pop(self) -> Entry | None:
        """Back to the view below, as it was left; None at the bottom."""
        if len(self.stack) < 2:
            return None
        self.stack.pop()
        return self.top

    def reset(self, view: View) -> Entry:
        """A single view (a session restored, the collection from the palette)."""
        self.stack = [Entry(view)]
        return self.top

    def moved(self, cursor: str, scroll: int) -> None:
        """The user moved in the list on show: remember where, for Esc and the session."""
        top = self.top
        if top.view.cursor != cursor or top.view.scroll != scroll:
            top.view = top.view.replace(cursor=cursor, scroll=scroll)

    # -- requests -------------------------------------------------------------------------------
    def request(self, entry: Entry | None = None) -> int:
        """A number for the next answer ``entry`` (the top by default) waits for."""
        entry = entry or self.top
        self.last_request += 1
        entry.request = self.last_request
        return entry.request

    def waiting_for(self, request: int) -> Entry | None:
        """The entry that waits for answer ``request``; None: nobody does any more."""
        if request == 0:
            return None
        return next((e for e in reversed(self.stack) if e.request == request), None)

    def answer(self, request: int, result: SearchResult | None, rows: Any, order: str) -> Entry | None:
        """Apply an answer to the entry waiting for it; None (and nothing changes) if none is."""
        entry = self.waiting_for(request)
        if entry is None:
            return None
        entry.result, entry.rows, entry.order, entry.request = result, rows, order, 0
        return entry

    def stopped_in_time(
        self, request: int, result: SearchResult | None, rows: Any, order: str
    ) -> Entry | None:
        """An Enter answer that stopped at its time limit (a busy machine, a cold disk: a launch)
        for an entry not yet asked without it: the entry, now ``patient`` (ask it again: the
        exact answer follows). It keeps the partial page as its rows only if that loses nothing:
        more rows than it has, with the view's cursor paper among them if it has one (else the
        cursor would move off it). None: apply the answer as it is."""
        entry = self.waiting_for(request)
        if entry is None or result is None or result.stopped != "time" or result.typing or entry.patient:
            return None
        entry.patient = True
        cursor = entry.view.cursor
        more = len(rows) > (0 if entry.rows is None else len(entry.rows))
        if more and (not cursor or any(h.id == cursor for h in result.hits)):
            entry.result, entry.rows, entry.order = result, rows, order
        return entry

    def is_current(self, request: int) -> bool:
        """The answer to ``request`` is for the view on screen."""
        return request != 0 and self.top.request == request
