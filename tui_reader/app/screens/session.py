"""What the reader remembers between launches: the search history (Up/Down in the search bar, the
palette's recent searches) and, per collection, the session: query, view, order and the paper
under the cursor, restored when the same collection is opened again.

The session is saved a moment after it changes (in a worker) and once more, on the UI thread, as
the screen closes. History is written when a search is run with Enter (or from the history).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from textual import work

from tui_reader.app.messages import NotSaved
from tui_reader.app.screens.reading import Reading
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.history import LIMIT, SearchHistory, folded
from tui_reader.library.session import Session, SessionStore
from tui_reader.search.modes import SearchMode

if TYPE_CHECKING:
    from tui_reader.library.userdata import UserData

SAVE_EVERY = 2.0  # seconds between checks for a session to save


class SessionKeeping(Reading):
    _restore_paper = ""  # the paper to put the cursor on once the restored list is shown
    _restore_waits = False  # ... once the restored query's answer is in
    _now: Session | None = None  # the session as it stands
    _saved: Session | None = None  # ... and as it was last saved

    # -- restoring ----------------------------------------------------------------------------
    def restore(self, data: UserData) -> None:
        """Before the corpus is shown: the view, the order and the stores of the last session."""
        self.read_store, self.history, self.session_store = data.read, data.history, data.session
        self.search_bar.history = data.history.all()
        restored = data.restored
        self.view = restored.view  # no corpus yet: the watchers only pass them on (status line)
        self.sort = restored.sort or self.config.sort
        self._restore_paper = restored.paper
        self._restore_waits = bool(restored.query)
        self._saved = restored
        self.set_interval(SAVE_EVERY, self._save_if_changed)

    def resume_query(self, query: str) -> None:
        """After the corpus is shown: run the last session's query (when the index is ready)."""
        if query:
            self.search_bar.set_value(query)
            self.start_search(query, SearchMode.ENTER)

    def restored_row(self) -> int | None:
        """The row to keep the cursor on while the list is first filled, if a session says so."""
        corpus = self.corpus
        if not self._restore_paper or corpus is None:
            return None
        if self._restore_waits and self.result is None:
            return None  # the restored query's answer is not in yet
        row = corpus.index_of.get(self._restore_paper)
        self._restore_paper = ""
        return row

    # -- saving -------------------------------------------------------------------------------
    def session_changed(self) -> None:
        """Note where the reader is now (the widgets are gone by the time the screen unmounts)."""
        if self.corpus is not None and self.is_mounted:
            self._now = self.current_session()

    def current_session(self) -> Session:
        corpus, row, result = self.corpus, self.highlighted, self.result
        query = "" if result is not None and result.kind == "similar" else self.search_bar.value.strip()
        paper = corpus.ids[row] if corpus is not None and row is not None else ""
        return Session(query=query, view=self.view, sort=self.sort, paper=paper)

    def _save_if_changed(self) -> None:
        session = self._now
        if session is None or session == self._saved or self.session_store is None or self.corpus is None:
            return
        self._saved = session
        self.save_session(self.session_store, self.corpus.key, session, self._roots())

    def _roots(self) -> list[str]:
        return [str(r) for r in self.corpus.roots] if self.corpus is not None else []

    @work(thread=True, group="session")
    def save_session(self, store: SessionStore, key: str, session: Session, roots: list[str]) -> None:
        try:
            store.save(key, session, roots)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(NotSaved("Session", exc))

    def on_unmount(self) -> None:
        """The reader is closing: save where it was, now (a small file, on the UI thread)."""
        store, corpus, session = self.session_store, self.corpus, self._now
        if store is None or corpus is None or session is None:
            return
        if session != self._saved:
            # nowhere left to say it failed; the previous session stays on disk
            with contextlib.suppress(ReadOnlyStore, OSError):
                store.save(corpus.key, session, self._roots())

    # -- history ------------------------------------------------------------------------------
    def remember_search(self, text: str) -> None:
        query = folded(text)
        if not query or self.history is None:
            return
        bar = self.search_bar
        bar.history = [query, *(q for q in bar.history if folded(q) != query)][:LIMIT]
        self.add_to_history(self.history, query)

    @work(thread=True, group="history")
    def add_to_history(self, history: SearchHistory, query: str) -> None:
        try:
            history.add(query)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(NotSaved("Search history", exc))

    def search_for(self, text: str) -> None:
        """Run a search as if typed and entered (the palette's recent searches, ctrl+y)."""
        self.search_bar.set_value(text)
        self.start_search(text, SearchMode.ENTER)
        self.remember_search(text)
        self.papers.focus()

    def action_accept_suggestion(self) -> None:
        suggestion = self.result.suggestion if self.result is not None else None
        if not suggestion:
            self.notify("No suggestion to accept: it shows under the search bar after Enter.", timeout=3)
            return
        self.search_for(suggestion)
