"""The reader screen's state, as reactives, and the handles its parts share.

MainScreen is assembled from this base and two mixins that build on it (``search_flow`` and
``actions``); each file keeps to one concern, and all of them see the same typed state.
Changing a reactive is all any of them does: MainScreen's watchers redraw the list and the detail
pane, and the status line is bound to the same reactives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from tui_reader.app.widgets.paper_detail import PaperDetail
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.corpus.text import clean_label, clean_text
from tui_reader.search.modes import SearchMode

NOTICE_LIMIT = 600  # characters of a notice (an exception may carry a whole traceback)

if TYPE_CHECKING:  # Whoosh loads in the worker that opens the index, after the first paint
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import Bookmark, BookmarkStore
    from tui_reader.search.index import SearchIndex
    from tui_reader.search.searcher import Searcher, SearchResult


class ReaderState(Screen[None]):
    # -- state (watchers in MainScreen; the status line is bound to these) -------------------
    corpus: var[Corpus | None] = var["Corpus | None"](None, init=False)
    """The collection being read; None until it is loaded."""
    result: var[SearchResult | None] = var["SearchResult | None"](None, init=False, always_update=True)
    """The search (or similar papers) on show; None: the whole collection. Every answer redraws."""
    bookmarks_only: var[bool] = var(False, init=False)
    """Show only bookmarked papers (of the result, or of the collection)."""
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
        self.index: SearchIndex | None = None
        self.searcher: Searcher | None = None
        self._seq = 0  # the number of the latest search request: older answers are dropped
        self._pending: tuple[str, SearchMode] | None = None  # typed before the index was ready

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

    def _current(self) -> int | None:
        row = self.papers.highlighted_row
        if row is None:
            self.notify("No paper highlighted.", severity="warning")
        return row

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
