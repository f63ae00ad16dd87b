"""The top entry of the model, projected onto the screen: the list's rows and cursor, the detail
pane, the reactives the status line binds, the line under the search bar; and what can run now
(``check_action``).

Only this module fills the list. It fills it with the top entry's rows, puts the cursor on the
view's paper (or the first) and the scroll where the view left it, and then tells the read
tracker where the cursor landed by itself (that paper is not read until the user moves).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_reader.app.messages import ResultsReady
from tui_reader.app.model import Entry, Kind, Restriction
from tui_reader.app.screens.answers import TITLES
from tui_reader.app.screens.searching import result_info
from tui_reader.app.widgets.paper_detail import ReadingState, paper_content, shown_abstract, shown_title
from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.text import clean_label
from tui_reader.search import querytext

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.library.bookmarks import Bookmark
    from tui_reader.search import SearchResult

RETRIES = 2  # a request's answer cut short by an older search starting late is asked again

NEEDS_PAPER = frozenset(
    {
        "toggle_read", "toggle_bookmark", "edit_note", "edit_tags", "copy_abstract", "copy_markdown",
        "copy_bibtex", "copy_cite", "open_link", "copy_link", "similar", "toggle_select",
    }
)  # fmt: skip


class Shown:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._sets: dict[str, frozenset[str]] | None = None
        self._sets_of: tuple[object, object, object] | None = None

    # -- answers --------------------------------------------------------------------------------
    def answered(self, event: ResultsReady) -> None:
        screen, model = self.screen, self.screen.model
        result = event.result
        if result is not None and result.incomplete:  # one letter so far: keep the list
            if model.waiting_for(event.request) is model.top:
                model.top.request = 0
                screen.search_bar.info("Keep typing…")
            return
        if self._asked_again(model.waiting_for(event.request), result):
            return
        cut = model.stopped_in_time(event.request, result, event.rows, event.order)
        if cut is not None:
            self._still_searching(cut, event)
            return
        entry = model.answer(event.request, result, event.rows, event.order)
        if entry is None:
            return  # nobody waits for it any more
        if entry is model.top:
            if entry.view.kind is Kind.SIMILAR:
                screen.search_bar.set_value("")  # the list is not that query's answer now
            screen.search_bar.info(*result_info(entry))
            self.show(entry, snippets=event.snippets)
            screen.facets.shown(entry)

    def _asked_again(self, waiting: Entry | None, result: SearchResult | None) -> bool:
        """An answer cut short because an older request's search began after it: ask again."""
        if waiting is None or result is None or result.stopped != "replaced" or result.typing:
            return False
        if waiting.retries >= RETRIES:
            return False
        waiting.retries += 1
        self.screen.searching.ask(waiting)
        return True

    def _still_searching(self, entry: Entry, event: ResultsReady) -> None:
        """Enter's answer stopped at its time limit: the page found so far if the model kept it,
        a line that says the search goes on, and the same view asked again without the limit."""
        screen = self.screen
        if entry is screen.model.top:
            if entry.rows is event.rows:
                self.show(entry, snippets=event.snippets)
            screen.search_bar.info(still_searching(event.result))
        screen.searching.ask(entry)

    def landed_on_a_stand_in(self, row: int | None) -> bool:
        """The cursor landed by itself on a list that stands in for the view's answer (the
        titles' scan before the index is ready, a search cut at its time limit): the view keeps
        its own paper, for the answer that follows (a restored session returns to it exactly)."""
        screen = self.screen
        result, corpus = screen.model.top.result, screen.corpus
        if result is None or corpus is None:
            return False
        if (corpus.ids[row] if row is not None else "") != screen.reading.landing:
            return False  # the user moved
        return result.stopped is not None or result.kind == TITLES

    def show(self, entry: Entry, snippets: dict | None = None) -> None:
        """Put ``entry`` on screen: its rows, its cursor, its scroll."""
        screen = self.screen
        corpus, papers = screen.corpus, screen.papers
        screen.view, screen.sort, screen.order = entry.view.restriction, entry.view.sort, entry.order
        screen.result = entry.result
        if corpus is None or entry.rows is None:
            return
        rows = entry.rows
        elsewhere = 0  # bookmarks of other collections: counted only where the view shows bookmarks
        if entry.view.restriction is Restriction.BOOKMARKS:
            elsewhere = sum(1 for b in screen.bookmarks if b.id not in corpus.index_of)
        papers.empty_text = empty_text(entry, elsewhere)
        if entry.view.restriction is Restriction.BOOKMARKS and elsewhere and not entry.view.query:
            noun = "bookmark is" if elsewhere == 1 else "bookmarks are"
            screen.search_bar.info(f"{elsewhere:,} more {noun} in other collections: a shows every bookmark")
        keep = corpus.index_of.get(entry.view.cursor) if entry.view.cursor else None
        with_snippets = bool(entry.result is not None and entry.result.terms)
        if with_snippets or keep is None or not papers.grow(rows, keep):
            papers.set_rows(rows, snippets=with_snippets, keep=keep)
        if snippets:
            papers.set_snippets(snippets)
        screen.shown_entry = entry
        screen.shown = len(rows)
        screen.refresh_bindings()  # what can run changed (a suggestion to accept, ...)
        scroll = entry.view.scroll
        if scroll:
            papers.call_after_refresh(self._scroll_back, entry, scroll)
        row = papers.highlighted_row
        screen.reading.landed(corpus.ids[row] if row is not None else "")
        screen.highlighted = row
        screen.session.changed()

    def _scroll_back(self, entry: Entry, scroll: int) -> None:
        if self.screen.shown_entry is entry:
            self.screen.papers.scroll_to(y=scroll, animate=False, immediate=True)
            self.cursor_into_sight()

    def cursor_into_sight(self) -> None:
        """The cursor's row is always in the list's window (after a resize, a view restored)."""
        papers = self.screen.papers
        if not papers.rows:
            return
        height = papers.scrollable_content_region.height
        line = papers.cursor * (2 if papers.snippets or papers.virtual_size.height > len(papers.rows) else 1)
        top = round(papers.scroll_y)
        if not (top <= line < top + max(1, height - 1)):
            papers.scroll_to(y=max(0, line - height // 3), animate=False, immediate=True)

    # -- the panes ------------------------------------------------------------------------------
    def show_detail(self) -> None:
        screen = self.screen
        row, corpus = screen.highlighted, screen.corpus or screen.loader.growing_corpus
        if corpus is None or row is None or row >= len(corpus.ids):
            screen.detail.show_message(screen.papers.empty_text if corpus else "Loading…")
            return
        paper = corpus.paper(row)
        result = screen.model.top.result
        terms = result.terms if result is not None else frozenset()
        title, (abstract, _) = shown_title(paper.title), shown_abstract(paper.abstract)
        read_at = screen.reading.read_at(paper.id)
        state = ReadingState(paper.id in screen.new, read_at)
        bookmark = screen.marks.get(paper.id)
        content = paper_content(paper, bookmark, _spans(title, terms), _spans(abstract, terms), state)
        screen.detail.show(content)

    def bookmarks_changed(self, bookmarks: tuple[Bookmark, ...]) -> None:
        screen = self.screen
        screen.papers.marked = frozenset(screen.marks)
        screen.papers.tags = {b.id: tag_label(b.tags) for b in bookmarks if b.tags}
        self.show_detail()

    def count_unread(self) -> None:
        screen, corpus = self.screen, self.screen.corpus
        if corpus is not None:
            screen.unread = len(corpus) - sum(1 for pid in screen.read if pid in corpus.index_of)

    def sets(self) -> dict[str, frozenset[str]]:
        """The sets for ``is:`` and ``tag:``, made again only when one of them changed."""
        screen = self.screen
        source = (screen.read, screen.bookmarks, screen.new)
        if (
            self._sets is None
            or self._sets_of is None
            or any(a is not b for a, b in zip(source, self._sets_of, strict=True))
        ):
            self._sets = {
                "read": screen.read,
                "bookmarked": frozenset(b.id for b in screen.bookmarks),
                "new": screen.new,
                **querytext.tag_sets((b.id, b.tags) for b in screen.bookmarks),
            }
            self._sets_of = source
        return self._sets

    # -- what can run ---------------------------------------------------------------------------
    def can_run(self, action: str) -> bool | None:
        screen = self.screen
        if action in NEEDS_PAPER and screen.corpus is None and screen.loader.growing_corpus is None:
            return None
        if action == "accept_suggestion":
            return bool(screen.result is not None and screen.result.suggestion)
        if action == "undo":
            return screen.reading.can_undo()
        if action in ("similar", "toggle_facets") and screen.searcher is None:
            return None
        if action == "export_results" and screen.corpus is None:
            return None
        return True


def still_searching(result: SearchResult | None) -> str:
    """The line under the bar while a search that hit its time limit runs on: a lower bound."""
    if result is None:
        return "Still searching: the exact answer follows…"
    took = f"{result.took_ms / 1000:.1f} s"
    return f"Still searching after {took}: {result.count_text} matches so far, the exact answer follows…"


def empty_text(entry: Entry, elsewhere: int = 0) -> str:
    view = entry.view
    if view.kind is not Kind.COLLECTION:
        result = entry.result
        if result is not None and result.suggestion:
            return f"No matches. Did you mean: {clean_label(result.suggestion)} (ctrl+y)"
        if result is not None and result.stopped == "time":
            return "The search stopped at its time limit before it found a match: Enter tries again."
        none = {Restriction.BOOKMARKS: " (none bookmarked)", Restriction.UNREAD: " (none unread)"}
        return "No matches." + none.get(view.restriction, "")
    if view.restriction is Restriction.BOOKMARKS and elsewhere:
        return f"No bookmarks in this collection ({elsewhere:,} in others: a shows them)."
    if view.restriction is Restriction.BOOKMARKS:
        return "No bookmarks yet: press b on a paper to bookmark it."
    if view.restriction is Restriction.UNREAD:
        return "Nothing unread: every paper here is read (U shows them all)."
    return "No papers in this corpus."


def _spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """Matched words to mark; imports the analyzer (and Whoosh) only once there is a query."""
    if not terms:
        return []
    from tui_reader.search import match_spans

    return match_spans(text, terms)
