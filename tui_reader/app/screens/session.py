"""What the reader remembers between launches: the search history (Up/Down in the search bar, the
palette's recent searches) and, per collection, the session: the top view (query, restriction,
order and the paper under the cursor), restored when the same collection is opened again.

The session is saved a moment after it changes (in a worker) and once more, on the UI thread, as
the screen closes. History is written when a search is run with Enter (or from the history).
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from tui_reader.app.messages import NotSaved
from tui_reader.app.model import Kind, Restriction, Sort, View
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.history import LIMIT, SearchHistory, folded
from tui_reader.library.session import Session, SessionStore

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.library.userdata import UserData

E = TypeVar("E", Sort, Restriction)

SAVE_EVERY = 2.0  # seconds between checks for a session to save


class SessionKeeper:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.store: SessionStore | None = None
        self.history: SearchHistory | None = None
        self._now: Session | None = None  # the session as it stands
        self._saved: Session | None = None  # ... and as it was last saved

    # -- restoring ------------------------------------------------------------------------------
    def restore(self, data: UserData, browsed_to: str = "") -> None:
        """The last session's view, under the collection (Esc from it shows the collection); the
        paper the user moved to while the files were read wins over the session's."""
        screen = self.screen
        self.store, self.history = data.session, data.history
        screen.search_bar.history = data.history.all()
        restored = data.restored
        sort = _enum(Sort, restored.sort or screen.config.sort, Sort.RELEVANCE)
        restriction = _enum(Restriction, restored.view, Restriction.ALL)
        cursor = browsed_to or restored.paper
        typed = screen.search_bar.value.strip()  # typed while loading: that wins
        query = typed or restored.query
        model = screen.model
        bottom = model.reset(View(sort=sort, restriction=restriction if not query else Restriction.ALL))
        bottom.view = bottom.view.replace(cursor="" if query else cursor)
        screen.searching.ask(bottom)
        if query:
            screen.search_bar.set_value(query)
            top = model.push(View(query, sort, restriction, cursor=cursor if not typed else ""))
            screen.searching.ask(top)
        screen.view, screen.sort = model.view.restriction, model.view.sort
        self._saved = restored
        screen.set_interval(SAVE_EVERY, self._save_if_changed)

    # -- saving ---------------------------------------------------------------------------------
    def changed(self) -> None:
        """Note where the reader is now (the widgets are gone by the time the screen unmounts)."""
        screen = self.screen
        if screen.corpus is not None and screen.is_mounted:
            self._now = self.current()

    def current(self) -> Session:
        """The top view, as a session (similar papers: the view they were asked from)."""
        model = self.screen.model
        entries = [e for e in model.stack if e.view.kind is not Kind.SIMILAR] or model.stack[:1]
        view = entries[-1].view
        paper = model.view.cursor
        return Session(query=view.query, view=str(view.restriction), sort=str(view.sort), paper=paper)

    def _save_if_changed(self) -> None:
        screen, session = self.screen, self._now
        if session is None or session == self._saved or self.store is None or screen.corpus is None:
            return
        self._saved = session
        work = partial(self._save, self.store, screen.corpus.key, session, self._roots())
        screen.run_worker(work, thread=True, group="session", exit_on_error=False)

    def _roots(self) -> list[str]:
        corpus = self.screen.corpus
        return [str(r) for r in corpus.roots] if corpus is not None else []

    def _save(self, store: SessionStore, key: str, session: Session, roots: list[str]) -> None:
        try:
            store.save(key, session, roots)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(NotSaved("Session", exc))

    def closing(self) -> None:
        """The reader is closing: save where it was, now (a small file, on the UI thread)."""
        store, corpus, session = self.store, self.screen.corpus, self._now
        if store is None or corpus is None or session is None or session == self._saved:
            return
        with contextlib.suppress(ReadOnlyStore, OSError):  # nowhere left to say it failed
            store.save(corpus.key, session, self._roots())

    # -- history --------------------------------------------------------------------------------
    def remember_search(self, text: str) -> None:
        query = folded(text)
        if not query or self.history is None:
            return
        bar = self.screen.search_bar
        bar.history = [query, *(q for q in bar.history if folded(q) != query)][:LIMIT]
        work = partial(self._add, self.history, query)
        self.screen.run_worker(work, thread=True, group="history", exit_on_error=False)

    def _add(self, history: SearchHistory, query: str) -> None:
        try:
            history.add(query)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(NotSaved("Search history", exc))


def _enum(kind: type[E], value: str | None, default: E) -> E:
    """A stored name as the enum (an unknown one from a newer version: the default)."""
    try:
        return kind(value or default)
    except ValueError:
        return default
