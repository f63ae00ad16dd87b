"""Saved searches in the reader: ``w`` saves the search on show under a name, ``I`` opens the
inbox (each saved search: ``NAME  12 new · 40 unread · 300 total``), Enter there opens one.

Opening a saved search pushes an ordinary search view on the model's stack (its query, Enter's
answer) whose rows come with the new matches first, marked ``+`` while unread; opening it marks
it visited (library/inbox.py says what "new" means). Esc on that view goes back to the inbox,
its cursor on that search; Esc in the inbox goes back to the view below. The status line counts
the papers new to at least one saved search (``inbox: 5 new``).

Every count, save and visit runs in a worker; the counts are Enter's answers (the searcher's
``SearchMode.ENTER``, every match), asked when the user's own search is not waiting, and asked
again when a newer search stopped one. Names and queries are data: shown through clean_label,
drawn as Content (never markup).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from tui_reader import paths
from tui_reader.app.messages import IndexDamagedFound, ResultsReady
from tui_reader.app.model import Entry, Kind, View
from tui_reader.app.screens.answers import snippets
from tui_reader.app.screens.inbox_screens import InboxScreen, SaveSearchScreen
from tui_reader.app.widgets.status_line import StatusLine
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged
from tui_reader.library.arrivals import collection_file
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.inbox import Count, Timeline, all_new, count, new_first, open_timeline
from tui_reader.library.saved import Refused, SavedSearch, SavedSearches, folded

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Searcher, SearchResult

TRIES = 4  # a count stopped by a newer search is asked again this often
WAIT = 3.0  # seconds a count waits for the user's own search to be answered first


class Inbox:
    """The main screen's saved searches: saving, counting, the inbox screen, opening one."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.searches: list[SavedSearch] = []
        self.counts: dict[str, Count] = {}  # folded name -> its counts
        self.opened: list[tuple[Entry, str, frozenset[str]]] = []  # views opened, their new papers
        self.shown: InboxScreen | None = None
        self._counting = False
        self._again = False
        self._known = False  # the saved searches were read once
        screen.watch(screen, "result", self._list_marks, init=False)  # every view put on screen

    # -- keys -------------------------------------------------------------------------------------
    def query_to_save(self) -> str:
        """The query ``w`` would save: the view's (or the one typed); "" on a view of no query."""
        screen = self.screen
        view = screen.model.view
        if view.kind in (Kind.SIMILAR, Kind.RELATED):
            return ""  # a paper's or a draft's likeness: no query to save
        return view.query.strip() or screen.search_bar.value.strip()

    def can_run(self, action: str, otherwise: bool | None) -> bool | None:
        """check_action: ``w`` only with a search to save."""
        if action == "save_search" and not self.query_to_save():
            return None
        return otherwise

    def save(self) -> None:
        """``w``: save the query on show (or typed) under a name the user gives."""
        screen = self.screen
        query = self.query_to_save()
        if not query:
            screen.notify("Nothing to save: search first, then w saves the search.", severity="warning")
            return
        taken = [s.name for s in self.searches]
        screen.app.push_screen(SaveSearchScreen(query, taken), partial(self._named, query))

    def open(self, cursor: str = "") -> None:
        """``I``: the inbox, counted again (the counts fill in as they come)."""
        screen = self.screen
        self.shown = InboxScreen(self.searches, self.counts, cursor, known=self._known, change=self._change)
        screen.app.push_screen(self.shown, self._chosen)
        self._read_only_list()  # the names at once, the counts when they come
        self.recount()

    def left(self, before: Entry) -> None:
        """After Esc: if it took a saved search's view off the stack, the inbox comes back."""
        stack = self.screen.model.stack
        name = next((n for e, n, _ in self.opened if e is before), None)
        self.opened = [o for o in self.opened if any(o[0] is e for e in stack)]
        if name is not None and not any(e is before for e in stack):
            self.open(cursor=name)

    def index_ready(self) -> None:
        self.recount()

    # -- counting ---------------------------------------------------------------------------------
    def recount(self) -> None:
        screen = self.screen
        if screen.searcher is None or screen.corpus is None:
            return
        if self._counting:
            self._again = True
            return
        self._counting = True
        work = partial(self._count, screen.corpus, screen.searcher, screen.search_sets, screen.read)
        screen.run_worker(work, thread=True, group="inbox", exit_on_error=False)

    def _read_only_list(self) -> None:
        """Before the index is ready: the names, without counts (read in a worker)."""

        def read() -> None:
            store = SavedSearches(paths.saved_searches_file())
            self._call(self._counted, store.all(), {}, store.warnings)

        self.screen.run_worker(read, thread=True, group="inbox-list", exit_on_error=False)

    def _count(self, corpus: Corpus, searcher: Searcher, sets: Any, read: frozenset[str]) -> None:
        try:
            store = SavedSearches(paths.saved_searches_file())
            searches = store.all()
            counts, warnings = self._counts(searches, corpus, searcher, sets, read) if searches else ({}, [])
            self._call(self._counted, searches, counts, [*store.warnings, *warnings])
        finally:
            self._call(self._done_counting)

    def _counts(
        self, searches: list[SavedSearch], corpus: Corpus, searcher: Searcher, sets: Any, read: frozenset[str]
    ) -> tuple[dict[str, Count], list[str]]:
        """Each search's counts, and the timeline's warnings. The timeline (~1.3 s of Python at
        2.7M papers, holding the GIL) is read once the user's own search is answered: read at
        once, it made the search typed while the index opened take 1.5 s instead of 0.1."""
        self._wait_for_top(WAIT)
        timeline, warnings = open_timeline(collection_file(paths.data_dir(), corpus), corpus.ids)
        counts = {}
        for saved in searches:
            result = self._enter(searcher, saved.query, sets, len(corpus))
            rows = [h.row for h in result.hits]
            counts[folded(saved.name)] = count(
                saved, rows, corpus.ids, timeline, read, corpus.key, total=result.total,
                exact=result.exact and not result.stopped, notice=result.notice,
            )  # fmt: skip
        return counts, warnings

    def _wait_for_top(self, seconds: float) -> None:
        """Up to ``seconds`` while the view on show waits for its answer (it goes first)."""
        until = time.monotonic() + seconds
        while self.screen.model.top.waiting and time.monotonic() < until:
            time.sleep(0.05)

    def _enter(self, searcher: Searcher, query: str, sets: Any, size: int, wait: bool = True) -> SearchResult:
        """Enter's whole answer to ``query``, asked again if a newer search stopped it;
        ``wait``: after the user's own search (a count, not the view on show)."""
        from tui_reader.search import SearchMode

        result = None
        for _ in range(TRIES):
            self._wait_for_top(WAIT if wait else 0)
            result = searcher.search(query, SearchMode.ENTER, max(size, 1), time_limit=None, sets=sets)
            if result.stopped != "replaced":
                break
        assert result is not None
        return result

    def _call(self, fn: Callable[..., None], *args: object) -> None:
        with contextlib.suppress(RuntimeError):  # the app has closed
            self.screen.app.call_from_thread(fn, *args)

    def _done_counting(self) -> None:
        self._counting = False
        if self._again:
            self._again = False
            self.recount()

    def _counted(self, searches: list[SavedSearch], counts: dict[str, Count], warnings: list[str]) -> None:
        self.searches, self._known = searches, True
        if counts or not searches:
            self.counts = counts
        for warning in warnings:
            self.screen.notify(warning, severity="warning")
        self._show_counts()

    def _show_counts(self) -> None:
        with contextlib.suppress(Exception):  # the status line is not there (the screen closing)
            self.screen.query_one(StatusLine).inbox_new = len(all_new(self.counts.values()))
        if self.shown is not None and self.shown.is_attached:
            self.shown.fill(self.searches, self.counts)

    # -- saving -----------------------------------------------------------------------------------
    def _named(self, query: str, name: str | None) -> None:
        if name is not None:
            work = partial(self._save, name, query)
            self.screen.run_worker(work, thread=True, group="inbox-save", exit_on_error=False)

    def _save(self, name: str, query: str) -> None:
        notify = self.screen.notify
        try:
            saved = SavedSearches(paths.saved_searches_file()).add(name, query)
        except (Refused, ReadOnlyStore) as exc:
            self._call(partial(notify, clean_label(str(exc)).capitalize(), severity="warning"))
            return
        self._call(notify, f"Saved {saved.shown_name!r}: I shows the inbox.")
        self._call(self.recount)

    def _change(self, name: str, new: str) -> None:
        work = partial(self._changed, name, new)
        self.screen.run_worker(work, thread=True, group="inbox-save", exit_on_error=False)

    def _changed(self, name: str, new: str) -> None:
        """Rename the search ``name`` to ``new``, or remove it (``new`` '')."""
        notify = self.screen.notify
        store = SavedSearches(paths.saved_searches_file())
        try:
            done = store.rename(name, new) if new else store.remove(name)
        except (Refused, ReadOnlyStore) as exc:
            self._call(partial(notify, clean_label(str(exc)).capitalize(), severity="warning"))
            return
        said = f"Renamed to {done.shown_name!r}." if new else f"Removed {done.shown_name!r}."
        self._call(notify, said)
        self._call(self._counted, store.all(), self.counts, store.warnings)
        self._call(self.recount)

    # -- opening one ------------------------------------------------------------------------------
    def _chosen(self, name: str | None) -> None:
        self.shown = None
        if name is None:
            return
        screen = self.screen
        saved = next((s for s in self.searches if folded(s.name) == folded(name)), None)
        if saved is None:
            return
        if screen.searcher is None or screen.corpus is None:
            screen.notify(f"Saved searches open once the index is ready ({screen.index_state}).")
            return
        screen.remember_place()
        entry = screen.model.push(View(saved.query))
        screen.search_bar.set_value(saved.query)
        screen.search_shown(entry)
        number = screen.model.request(entry)
        ask = partial(self._answer, entry, number, saved, screen.corpus, screen.searcher)
        work = partial(ask, screen.search_sets, screen.read, screen.visible_results())
        screen.run_worker(work, thread=True, group="search", exit_on_error=False)
        screen.papers.focus()

    def _answer(
        self, entry: Entry, number: int, saved: SavedSearch, corpus: Corpus, searcher: Searcher,
        sets: Any, read: frozenset[str], visible: int,
    ) -> None:  # fmt: skip
        """The saved search's answer, new matches first; the search is marked visited."""
        from tui_reader.search import SearchMode

        timeline, _ = open_timeline(collection_file(paths.data_dir(), corpus), corpus.ids)
        try:
            result = self._enter(searcher, saved.query, sets, len(corpus), wait=False)
        except IndexDamaged as exc:  # as any search: the screen rebuilds the index, then asks again
            self.screen.post_message(IndexDamagedFound(exc, saved.query, SearchMode.ENTER))
            return
        rows = [h.row for h in result.hits]
        counted = count(saved, rows, corpus.ids, timeline, read, corpus.key, total=result.total)
        shown = new_first(rows, corpus.ids, counted.new)
        result = answer_new_first(result, shown, counted, saved)
        self._visit(saved, corpus, timeline)
        self._call(self._visited, entry, saved, counted)
        self._call(self.recount)  # a count begun before the visit was written would say new again
        first = snippets(corpus, shown[:visible], result)
        self.screen.post_message(ResultsReady(number, result, shown, result.order, first))

    def _visit(self, saved: SavedSearch, corpus: Corpus, timeline: Timeline) -> None:
        try:
            SavedSearches(paths.saved_searches_file()).visited([saved.name], corpus.key, timeline.seen_upto())
        except ReadOnlyStore as exc:
            self._call(partial(self.screen.notify, clean_label(str(exc)), severity="warning"))

    def _visited(self, entry: Entry, saved: SavedSearch, counted: Count) -> None:
        self.opened.append((entry, saved.name, counted.new))
        self.counts[folded(saved.name)] = dataclasses.replace(counted, new=frozenset())
        self._show_counts()

    def _list_marks(self) -> None:
        """The list marks (``+``) the papers new since the last launch, and on a saved search's
        view those new to it."""
        screen, top = self.screen, self.screen.model.top
        new = next((n for e, _, n in self.opened if e is top), frozenset())
        screen.papers.new = screen.new | new if new else screen.new


def answer_new_first(
    result: SearchResult, rows: list[int], counted: Count, saved: SavedSearch
) -> SearchResult:
    """Enter's answer with its hits in the order shown, saying how many are new."""
    by_row = {h.row: h for h in result.hits}
    n = len(counted.new)
    said = f"{saved.shown_name}: {n:,} new since it was last opened" + (", listed first (+)" if n else "")
    notice = f"{result.notice}; {said}" if result.notice else said
    return dataclasses.replace(result, hits=[by_row[r] for r in rows], notice=notice)
