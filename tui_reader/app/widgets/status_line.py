"""The status line: what is shown, of how many, the query, the order, unread and new papers, the
bookmarks and the index's state.

It owns no state: the screen binds its reactives here (``data_bind``), and every change to them
repaints the line. Built as Content, so a query or a path is never read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from tui_reader.corpus.text import clean_label
from tui_reader.library.sorting import sort_label

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import Bookmark
    from tui_reader.search.searcher import SearchResult


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    corpus: reactive[Corpus | None] = reactive["Corpus | None"](None)
    result: reactive[SearchResult | None] = reactive["SearchResult | None"](None)
    view: reactive[str] = reactive("all")
    sort: reactive[str] = reactive("relevance")
    order: reactive[str] = reactive("relevance")
    bookmarks: reactive[tuple[Bookmark, ...]] = reactive["tuple[Bookmark, ...]"](())
    unread: reactive[int] = reactive(0)
    new: reactive[frozenset[str]] = reactive(frozenset())
    index_state: reactive[str] = reactive("loading")
    shown: reactive[int] = reactive(0)
    loaded: reactive[int] = reactive(0)
    """Papers read so far while the files are parsed (0: not reading)."""

    def render(self) -> Content:
        return self.content

    @property
    def content(self) -> Content:
        """The line as it is drawn (tests read it here)."""
        parts: list[Content] = []
        corpus, result = self.corpus, self.result
        if corpus is None and self.loaded:
            parts.append(Content(f"Reading papers… {self.loaded:,}"))
        elif corpus is None:
            parts.append(Content("Loading…" if self.index_state == "loading" else "No collection open"))
        else:
            if result is not None:
                which = {"bookmarks": " bookmarked", "unread": " unread"}.get(self.view, "")
                parts.append(Content(f"{self.shown:,}{which} shown of {result.count_text} matches"))
                label = "" if result.kind == "similar" else "query: "
                parts.append(Content(clean_label(f"{label}{result.query}")).stylize("bold"))
                parts.append(Content(f"{result.took_ms:.0f} ms"))
            else:
                what = "paper" if self.shown == 1 else "papers"
                what = {"bookmarks": f"bookmarked {what}", "unread": f"unread {what}"}.get(self.view, what)
                parts.append(Content(f"{self.shown:,} {what} of {len(corpus):,}"))
            parts.append(Content(self._order_text()))
            if not (self.view == "unread" and result is None):  # it says so already
                parts.append(Content(f"{self.unread:,} unread"))
            if self.new:
                parts.append(Content(f"{len(self.new):,} new").stylize("$success"))
            if self.bookmarks:
                missing = sum(1 for b in self.bookmarks if b.id not in corpus.index_of)
                mark = f"★ {len(self.bookmarks)}" + (f" ({missing} not in this corpus)" if missing else "")
                parts.append(Content(mark))
        parts.append(Content(clean_label(f"index: {self.index_state}")))
        return Content(" · ").join(parts)

    def _order_text(self) -> str:
        """'by year, newest first'; 'in collection order'; a typed query's order until Enter."""
        result = self.result
        if self.order == "collection" or (result is None and self.order == "relevance"):
            shown = "in collection order"
        else:
            shown = f"by {sort_label(self.order, result is not None)}"
        if self.sort != self.order and not (self.sort == "relevance" and self.order == "collection"):
            if result is not None and result.typing:
                shown += f" ({sort_label(self.sort, True)} on Enter)"
            elif result is not None and len(result.hits) < result.total:
                shown += " (not every match could be loaded to sort)"
            else:
                shown += " (sorting…)"
        return shown
