"""The reader screen's state, as reactives, and the handles its parts share.

MainScreen is assembled from this base and the mixins that build on it, one concern each
(``search_flow``: searching; ``arranging``: view and order; ``reading``: read state; ``session``:
history and what is restored; ``actions``: the other commands); all of them see the same typed
state.
Changing a reactive is all any of them does: MainScreen's watchers redraw the list and the detail
pane, and the status line is bound to the same reactives.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from tui_reader.app.widgets.paper_detail import PaperDetail
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.corpus.text import clean_label, clean_text
from tui_reader.library.config import Config
from tui_reader.search import querytext
from tui_reader.search.modes import SearchMode

NOTICE_LIMIT = 600  # characters of a notice (an exception may carry a whole traceback)

if TYPE_CHECKING:  # Whoosh loads in the worker that opens the index, after the first paint
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.corpus.paper import Paper
    from tui_reader.library.bookmarks import Bookmark, BookmarkStore
    from tui_reader.library.history import SearchHistory
    from tui_reader.library.reading import ReadStore
    from tui_reader.library.session import SessionStore
    from tui_reader.library.sorting import SortColumns
    from tui_reader.search.index import SearchIndex
    from tui_reader.search.searcher import Searcher, SearchResult


class ReaderState(Screen[None]):
    # -- state (watchers in MainScreen; the status line is bound to these) -------------------
    corpus: var[Corpus | None] = var["Corpus | None"](None, init=False)
    """The collection being read; None until it is loaded."""
    result: var[SearchResult | None] = var["SearchResult | None"](None, init=False, always_update=True)
    """The search (or similar papers) on show; None: the whole collection. Every answer redraws."""
    view: var[str] = var("all", init=False)
    """Which papers of the result (or of the collection) to show: 'all', 'bookmarks', 'unread'."""
    sort: var[str] = var("relevance", init=False)
    """The order asked for: 'relevance' (collection order without a query), 'year', 'venue',
    'title', 'added' (library/sorting.py)."""
    order: var[str] = var("relevance", init=False)
    """The order the list is in now ('collection' when relevance fell back to it; a typed query
    stays in relevance order until Enter)."""
    collection_order: var[Sequence[int] | None] = var["Sequence[int] | None"](None, init=False)
    """The collection's rows in ``sort`` order, worked out in a worker; None: collection order."""
    read: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers read (in any collection)."""
    new: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers that entered the collection since the last visit."""
    unread: var[int] = var(0, init=False)
    """How many papers of the collection are unread (for the status line)."""
    bookmarks: var[tuple[Bookmark, ...]] = var["tuple[Bookmark, ...]"]((), init=False)
    """The bookmarks as last read from the store (notes included)."""
    index_state: var[str] = var("loading", init=False)
    """'loading', 'building 40%', 'updating', 'ready', 'unavailable', ..."""
    highlighted: var[int | None] = var["int | None"](None, init=False, always_update=True)
    """The corpus row under the list's cursor."""
    shown: var[int] = var(0, init=False)
    """How many rows the list holds (derived from the above; for the status line)."""

    def __init__(self) -> None:
        super().__init__()
        # services, set once they exist; not state the panes draw
        self.store: BookmarkStore | None = None
        self.read_store: ReadStore | None = None
        self.history: SearchHistory | None = None
        self.session_store: SessionStore | None = None
        self.config = Config(Path("config.toml"))  # the defaults; MainScreen is given the user's
        self.columns: SortColumns | None = None  # per-paper sort keys, built once in a worker
        self.visit_of: Sequence[int] = ()  # per corpus row: the visit that added it
        self.base: SearchResult | None = None  # the result as the searcher ordered it
        self.index: SearchIndex | None = None
        self.searcher: Searcher | None = None
        self._columns_lock = threading.Lock()
        self._columns_corpus: Corpus | None = None
        self.keep_cursor = True  # show_view keeps the cursor on its paper (False: a new answer)
        self._seq = 0  # the number of the latest search request: older answers are dropped
        self._order_seq = 0  # the same, for the whole collection's order
        self._pending: tuple[str, SearchMode] | None = None  # typed before the index was ready
        self._sets: dict[str, frozenset[str]] | None = None  # search_sets, until the state changes
        self._sets_of: tuple[object, object, object] | None = None

    # -- widgets --------------------------------------------------------------------------------
    @property
    def papers(self) -> PaperList:
        return self.query_one(PaperList)

    @property
    def detail(self) -> PaperDetail:
        return self.query_one(PaperDetail)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    @property
    def bookmarks_only(self) -> bool:
        return self.view == "bookmarks"

    @property
    def search_sets(self) -> dict[str, frozenset[str]]:
        """The reader's own sets of paper ids, for the searcher's ``is:`` and ``tag:`` filters
        (every tag in use has its set: a tag missing here means no paper carries it). Built again
        only when one of them changes (each change makes a new frozenset or tuple)."""
        source = (self.read, self.bookmarks, self.new)
        if (
            self._sets is None
            or self._sets_of is None
            or any(a is not b for a, b in zip(source, self._sets_of, strict=True))
        ):
            self._sets = {
                "read": self.read,
                "bookmarked": frozenset(b.id for b in self.bookmarks),
                "new": self.new,
                **querytext.tag_sets((b.id, b.tags) for b in self.bookmarks),
            }
            self._sets_of = source
        return self._sets

    def _current(self) -> int | None:
        row = self.papers.highlighted_row
        if row is None:
            self.notify("No paper highlighted.", severity="warning")
        return row

    def _current_paper(self) -> Paper | None:
        """The highlighted paper; None (said so when nothing is highlighted) while there is none."""
        row = self._current()
        if row is None or self.corpus is None:
            return None
        return self.corpus.paper(row)

    # -- filled in by the mixins and MainScreen -------------------------------------------------
    def show_view(self) -> None:
        """Redraw the list from the state (MainScreen)."""

    def results_shown(self, result: SearchResult | None) -> None:
        """A search's answer (None: the whole collection) is on screen (faceting.py)."""

    def remember_search(self, text: str) -> None:
        """A search was run with Enter: put it in the history (session.py)."""

    # -- notices ------------------------------------------------------------------------------
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice the reader shows. It often quotes data (a path, an exception, a title):
        controls are made visible, never obeyed, and it is never parsed as markup, whatever
        ``markup`` says."""
        text = clean_text(message)
        if len(text) > NOTICE_LIMIT:
            text = text[: NOTICE_LIMIT - 1] + "…"
        self.app.notify(text, title=clean_label(title)[:60], severity=severity, timeout=timeout, markup=False)


def sentence(text: str) -> str:
    """A clause from a lower layer ("the index was damaged; rebuilt it") as a sentence to show."""
    text = clean_label(text.strip())
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
