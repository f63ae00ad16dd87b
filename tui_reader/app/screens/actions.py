"""The reader's commands (see commands.py): the keys' actions on the screen's state, and the
bookmark, note and clipboard work they start. File writes and the system clipboard run in thread
workers that report with messages; the handlers here turn those into state and notices.
"""

from __future__ import annotations

from textual import on, work
from textual.widgets import Input

from tui_reader.app.messages import BookmarksChanged, BookmarksNotSaved, Copied
from tui_reader.app.screens.help import HelpScreen
from tui_reader.app.screens.note import NoteScreen
from tui_reader.app.screens.search_flow import SearchFlow
from tui_reader.app.screens.state import sentence
from tui_reader.app.tmux import terminal_copy_problem
from tui_reader.library.bookmarks import BookmarkStore, ReadOnlyStore
from tui_reader.library.clipboard import as_markdown_quote, copy_text
from tui_reader.search.modes import SearchMode


class PaperActions(SearchFlow):
    # -- view ---------------------------------------------------------------------------------
    def action_focus_search(self) -> None:
        self.search_bar.input.focus()

    def action_back(self) -> None:
        """Escape ladder: leave the bar or detail pane, then clear the query, then the filter."""
        focused = self.focused
        if isinstance(focused, Input) or focused is self.detail:
            self.papers.focus()
        elif self.result is not None or self.search_bar.value:
            self.search_bar.set_value("")
            self.start_search("", SearchMode.ENTER)
        elif self.bookmarks_only:
            self.bookmarks_only = False

    def action_toggle_bookmarks_view(self) -> None:
        self.bookmarks_only = not self.bookmarks_only

    def action_toggle_detail(self) -> None:
        """Hide or show the detail pane; hidden, the list takes the whole width (and height)."""
        detail = self.detail
        if detail.display and self.focused is detail:
            self.papers.focus()
        detail.display = not detail.display
        self.set_class(not detail.display, "-no-detail")

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit(self) -> None:
        self.app.exit()

    def action_similar(self) -> None:
        row = self._current()
        if row is not None:
            self.search_similar(row)

    def go_to_row(self, row: int) -> None:
        """Palette 'go to paper': show it even if the current query or filter hides it."""
        if not self.papers.move_to_row(row):
            self._seq += 1  # a search still running must not bring the query back
            self.workers.cancel_group(self, "search")
            self.search_bar.set_value("")
            self.search_bar.info("")
            self.result, self.bookmarks_only = None, False
            self.papers.move_to_row(row)
        self.papers.focus()

    # -- bookmarks ----------------------------------------------------------------------------
    def action_toggle_bookmark(self) -> None:
        row = self._current()
        if row is not None and self.corpus is not None and self.store is not None:
            self.toggle_bookmark(self.store, self.corpus.ids[row], self.corpus.titles[row])

    def action_edit_note(self) -> None:
        row = self._current()
        store = self.store
        if row is None or self.corpus is None or store is None:
            return
        pid, title = self.corpus.ids[row], self.corpus.titles[row]
        mark = store.get(pid)

        def save(note: str | None) -> None:
            if note is not None:
                self.save_note(store, pid, title, note)

        self.app.push_screen(NoteScreen(title, mark.note if mark else ""), save)

    @work(thread=True, group="bookmarks")
    def toggle_bookmark(self, store: BookmarkStore, pid: str, title: str) -> None:
        try:
            on_now = store.toggle(pid, title)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(BookmarksNotSaved("Bookmarks", exc))
            return
        self.post_message(BookmarksChanged(("Bookmarked: " if on_now else "Removed bookmark: ") + title))

    @work(thread=True, group="bookmarks")
    def save_note(self, store: BookmarkStore, pid: str, title: str, note: str) -> None:
        try:
            store.set_note(pid, note, title)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(BookmarksNotSaved("Note", exc))
            return
        self.post_message(BookmarksChanged(f"Note saved: {title}"))

    @on(BookmarksChanged)
    def _bookmarks_changed(self, event: BookmarksChanged) -> None:
        if self.store is not None:
            self.bookmarks = tuple(self.store.all())  # watchers: marks, view, status, detail
        self.notify(event.notice, timeout=3)

    @on(BookmarksNotSaved)
    def _bookmarks_not_saved(self, event: BookmarksNotSaved) -> None:
        """One sentence: "Note not saved: no space left on device (…); the file is unchanged." """
        reason = str(event.error).strip() or event.error.__class__.__name__
        for prefix in ("could not save bookmarks:", "could not save the bookmarks:"):
            if reason.lower().startswith(prefix):
                reason = reason[len(prefix) :].strip()
        self.notify(sentence(f"{event.what} not saved: {reason}"), severity="error")

    # -- clipboard ----------------------------------------------------------------------------
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
        terminal = terminal_copy_problem()  # runs tmux: here, off the UI thread
        self.post_message(Copied(what, len(text), title, outcome.ok, outcome.detail, terminal))

    @on(Copied)
    def _copied(self, event: Copied) -> None:
        self.notify(
            copied_notice(event),
            title=event.title,
            severity="warning" if event.terminal else "information",
            timeout=8 if event.terminal else 4,
        )


def copied_notice(event: Copied) -> str:
    """What arrived where, in one sentence (two when the terminal copy may be lost)."""
    what = f"{event.what} ({event.chars:,} chars)"
    if not event.terminal:
        if event.system:
            return f"Copied {what} to the terminal and the system clipboard."
        return f"Copied {what} through the terminal only ({event.detail})."
    if event.system:
        return f"Copied {what} to the system clipboard. The terminal copy may not arrive: {event.terminal}."
    return (
        f"Copying {what} may have failed: {event.detail}, and the terminal copy may not arrive:"
        f" {event.terminal}."
    )
