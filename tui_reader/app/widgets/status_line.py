"""The status line: what is shown, of how many, the query, the bookmarks and the index's state.

It owns no state: the screen binds its reactives here (``data_bind``), and every change to them
repaints the line. Built as Content, so a query or a path is never read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from tui_reader.corpus.text import clean_label

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
    bookmarks_only: reactive[bool] = reactive(False)
    bookmarks: reactive[tuple[Bookmark, ...]] = reactive["tuple[Bookmark, ...]"](())
    index_state: reactive[str] = reactive("loading")
    shown: reactive[int] = reactive(0)

    def render(self) -> Content:
        return self.content

    @property
    def content(self) -> Content:
        """The line as it is drawn (tests read it here)."""
        parts: list[Content] = []
        corpus, result = self.corpus, self.result
        if corpus is None:
            parts.append(Content("Loading…" if self.index_state == "loading" else "No collection open"))
        else:
            if result is not None:
                parts.append(Content(f"{self.shown:,} shown of {result.count_text} matches"))
                label = "" if result.kind == "similar" else "query: "
                parts.append(Content(clean_label(f"{label}{result.query}")).stylize("bold"))
                parts.append(Content(f"{result.took_ms:.0f} ms"))
            else:
                what = "paper" if self.shown == 1 else "papers"
                what = f"bookmarked {what}" if self.bookmarks_only else what
                parts.append(Content(f"{self.shown:,} {what} of {len(corpus):,}"))
            if self.bookmarks:
                missing = sum(1 for b in self.bookmarks if b.id not in corpus.index_of)
                mark = f"★ {len(self.bookmarks)}" + (f" ({missing} not in this corpus)" if missing else "")
                parts.append(Content(mark))
        parts.append(Content(clean_label(f"index: {self.index_state}")))
        return Content(" · ").join(parts)
