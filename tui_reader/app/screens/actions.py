"""Actions on the highlighted paper: bookmark, note, copy. A mixin of MainScreen, kept apart so
the screen's file stays about state and flow; the file writes run in thread workers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from tui_reader.app.screens.note import NoteScreen
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.clipboard import as_markdown_quote, copy_text

if TYPE_CHECKING:
    from tui_reader.app.widgets.paper_list import PaperList
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import BookmarkStore


class PaperActions:
    """Needs the screen's ``corpus``, ``store``, ``papers``, ``app`` and ``_current()``."""

    corpus: Corpus | None
    store: BookmarkStore | None
    bookmarks_only: bool

    if TYPE_CHECKING:
        from textual.app import App

        app: App[None]
        papers: PaperList

        def _current(self) -> int | None: ...
        def apply_view(self) -> None: ...
        def update_status(self) -> None: ...
        def show_detail(self, row: int | None) -> None: ...

    def action_toggle_bookmark(self) -> None:
        row = self._current()
        if row is not None and self.corpus is not None:
            self.toggle_bookmark(self.corpus.ids[row], self.corpus.titles[row])

    @work(thread=True, group="bookmarks")
    def toggle_bookmark(self, pid: str, title: str) -> None:
        assert self.store is not None
        try:
            on_now = self.store.toggle(pid, title)
        except (ReadOnlyStore, OSError) as exc:
            self.app.call_from_thread(
                self.app.notify, f"Bookmarks not saved: {exc}", severity="error", markup=False
            )
            return
        message = ("Bookmarked: " if on_now else "Removed bookmark: ") + title
        self.app.call_from_thread(self._bookmarks_changed, message)

    def _bookmarks_changed(self, message: str) -> None:
        assert self.store is not None
        self.papers.marked = self.store.ids()
        self.papers.refresh()
        self.app.notify(message, markup=False, timeout=3)
        if self.bookmarks_only:
            self.apply_view()
        else:
            self.update_status()
        self.show_detail(self.papers.highlighted_row)

    def action_edit_note(self) -> None:
        row = self._current()
        if row is None or self.corpus is None or self.store is None:
            return
        pid, title = self.corpus.ids[row], self.corpus.titles[row]
        mark = self.store.get(pid)

        def save(note: str | None) -> None:
            if note is not None:
                self.save_note(pid, title, note)

        self.app.push_screen(NoteScreen(title, mark.note if mark else ""), save)

    @work(thread=True, group="bookmarks")
    def save_note(self, pid: str, title: str, note: str) -> None:
        assert self.store is not None
        try:
            self.store.set_note(pid, note, title)
        except (ReadOnlyStore, OSError) as exc:
            self.app.call_from_thread(
                self.app.notify, f"Note not saved: {exc}", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self._bookmarks_changed, f"Note saved: {title}")

    def action_copy_abstract(self) -> None:
        self._copy(markdown=False)

    def action_copy_markdown(self) -> None:
        self._copy(markdown=True)

    def _copy(self, markdown: bool) -> None:
        row = self._current()
        if row is None or self.corpus is None:
            return
        paper = self.corpus.paper(row)
        text = (
            as_markdown_quote(paper.title, paper.abstract, paper.sources, paper.url)
            if markdown
            else paper.abstract
        )
        self.app.copy_to_clipboard(text)  # OSC 52: works over SSH, never raises
        self.copy_to_system(text, "Markdown quote" if markdown else "abstract", paper.title)

    @work(thread=True, group="clipboard")
    def copy_to_system(self, text: str, what: str, title: str) -> None:
        outcome = copy_text(text)
        route = (
            "to the terminal and the system clipboard"
            if outcome.ok
            else f"through the terminal only ({outcome.detail})"
        )
        self.app.call_from_thread(
            self.app.notify,
            f"Copied {what} ({len(text):,} chars) {route}.",
            title=title[:60],
            markup=False,
            timeout=4,
        )
