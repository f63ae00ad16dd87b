"""The reader's commands (see commands.py): the keys' actions on the screen's state, and the
bookmark, note, clipboard and browser work they start. File writes, citations, the system
clipboard and the browser run in thread workers that report with messages; the handlers here turn
those into state and notices. (Views and order: arranging.py; read state: reading.py; history:
session.py; tags: annotating.py.)
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.message import Message
from textual.widgets import Input

from tui_reader.app.browser import browser_problem
from tui_reader.app.messages import BookmarksChanged, BookmarksNotSaved, Copied, LinkOpened, NoBrowser
from tui_reader.app.screens.annotating import Annotating
from tui_reader.app.screens.help import HelpScreen
from tui_reader.app.screens.note import NoteScreen
from tui_reader.app.tmux import terminal_copy_problem
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore, ReadOnlyStore
from tui_reader.library.citation import citation
from tui_reader.library.clipboard import as_markdown_quote, copy_text
from tui_reader.library.links import attachment_paths, best_link, existing_file, file_link
from tui_reader.search.modes import SearchMode

NO_LINK = "This paper has no link: its record has no URL, DOI or arXiv id."
NO_FILE = "Attachment not found ({path}), and the record has no URL, DOI or arXiv id."
NO_ABSTRACT = "This paper has no abstract to copy: its source lists it by title only."


class CitationMade(Message, bubble=False):
    """The highlighted paper's citation, written in a worker (bibtexparser loads on first use)."""

    def __init__(self, text: str, what: str, title: str, shown: str = "", error: str = "") -> None:
        self.text = text
        self.what = what  # "BibTeX entry", "citation"
        self.title = title
        self.shown = shown  # short enough to show in the notice (\cite{key})
        self.error = error  # why it could not be written ('' when it was)
        super().__init__()


class NoTarget(Message, bubble=False):
    """``o`` found neither the attachment on disk nor a link (said in ``text``)."""

    def __init__(self, text: str, title: str) -> None:
        self.text = text
        self.title = title
        super().__init__()


class PaperActions(Annotating):
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
        elif self.view != "all":
            self.view = "all"

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
            self.result, self.view = None, "all"
            self.papers.move_to_row(row)
        self.papers.focus()

    # -- bookmarks ----------------------------------------------------------------------------
    def action_toggle_bookmark(self) -> None:
        paper = self._current_paper()
        if paper is not None and self.store is not None:
            self.toggle_bookmark(self.store, paper)

    def action_edit_note(self) -> None:
        paper, store = self._current_paper(), self.store
        if paper is None or store is None:
            return
        mark = store.get(paper.id)

        def save(note: str | None) -> None:
            if note is not None:
                self.save_note(store, paper, note)

        self.app.push_screen(NoteScreen(paper.title, mark.note if mark else ""), save)

    # Each change keeps a snapshot of the paper's citation fields with the bookmark (exports
    # without the collection open are complete).
    @work(thread=True, group="bookmarks")
    def toggle_bookmark(self, store: BookmarkStore, paper: Paper) -> None:
        try:
            on_now = store.toggle(paper.id, paper.title, snapshot=paper)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(BookmarksNotSaved("Bookmarks", exc))
            return
        self.post_message(
            BookmarksChanged(("Bookmarked: " if on_now else "Removed bookmark: ") + paper.title)
        )

    @work(thread=True, group="bookmarks")
    def save_note(self, store: BookmarkStore, paper: Paper, note: str) -> None:
        try:
            store.set_note(paper.id, note, paper.title, snapshot=paper)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(BookmarksNotSaved("Note", exc))
            return
        self.post_message(BookmarksChanged(f"Note saved: {paper.title}"))

    @on(BookmarksChanged)
    def _bookmarks_changed(self, event: BookmarksChanged) -> None:
        if self.store is not None:
            self.bookmarks = tuple(self.store.all())  # watchers: marks, view, status, detail
        self.notify(event.notice, timeout=3)

    # -- clipboard ----------------------------------------------------------------------------
    def action_copy_abstract(self) -> None:
        self._copy(markdown=False)

    def action_copy_markdown(self) -> None:
        self._copy(markdown=True)

    def _copy(self, markdown: bool) -> None:
        paper = self._current_paper()
        if paper is None:
            return
        if not paper.has_abstract:
            self.notify(NO_ABSTRACT, title=paper.title, severity="warning", timeout=4)
            return
        text = (
            as_markdown_quote(paper.title, paper.abstract, paper.sources, best_link(paper) or "")
            if markdown
            else paper.abstract
        )
        self.copy_out(text, "Markdown quote" if markdown else "abstract", paper.title)

    def copy_out(self, text: str, what: str, title: str, lead: str = "", shown: str = "") -> None:
        self.app.copy_to_clipboard(text)  # OSC 52: works over SSH, never raises
        self.copy_to_system(text, what, title, lead, shown)

    def action_copy_bibtex(self) -> None:
        self._cite(entry=True)

    def action_copy_cite(self) -> None:
        self._cite(entry=False)

    def _cite(self, entry: bool) -> None:
        paper = self._current_paper()
        if paper is None:
            return
        mark = self.store.get(paper.id) if self.store is not None else None
        self.make_citation(paper, mark.note if mark else "", entry)

    @work(thread=True, group="clipboard")
    def make_citation(self, paper: Paper, note: str, entry: bool) -> None:
        try:
            made = citation(paper, note)
        except Exception as exc:  # a field the writer chokes on must not take the reader down
            failed = f"{exc.__class__.__name__}: {exc}"
            self.post_message(CitationMade("", "citation", paper.title, error=failed))
            return
        if entry:  # the bookmark's note goes in as the entry's note field
            self.post_message(CitationMade(made.entry, "BibTeX entry", paper.title))
        else:
            self.post_message(CitationMade(made.cite, "citation", paper.title, made.cite))

    @on(CitationMade)
    def _citation_made(self, event: CitationMade) -> None:
        if event.error:
            self.notify(f"No citation to copy: {event.error}", title=event.title, severity="error")
            return
        self.copy_out(event.text, event.what, event.title, shown=event.shown)

    @work(thread=True, group="clipboard")
    def copy_to_system(self, text: str, what: str, title: str, lead: str = "", shown: str = "") -> None:
        outcome = copy_text(text)
        terminal = terminal_copy_problem()  # runs tmux: here, off the UI thread
        self.post_message(Copied(what, len(text), title, outcome.ok, outcome.detail, terminal, lead, shown))

    # -- links --------------------------------------------------------------------------------
    def _link(self) -> tuple[str, str] | None:
        """The highlighted paper's best link (validated: url, else DOI, else arXiv) and title;
        None (said so) when there is none."""
        paper = self._current_paper()
        if paper is None:
            return None
        link = best_link(paper)
        if link is None:
            self.notify(NO_LINK, title=paper.title, severity="warning", timeout=4)
            return None
        return link, paper.title

    def _source_folders(self) -> list[Path]:
        """The folders of the highlighted paper's source files (relative attachments live there)."""
        row = self.papers.highlighted_row
        if row is None or self.corpus is None:
            return []
        return list(dict.fromkeys(data.path.parent for data, _r in self.corpus.records(row)))

    def action_open_link(self) -> None:
        """The local PDF the record names when it exists (looked for in a worker), else the link."""
        paper = self._current_paper()
        if paper is None:
            return
        files = attachment_paths(paper, self._source_folders())
        link = best_link(paper)
        if not files and link is None:
            self.notify(NO_LINK, title=paper.title, severity="warning", timeout=4)
            return
        self.open_in_browser(link, paper.title, files)

    def action_copy_link(self) -> None:
        found = self._link()
        if found is not None:
            self.copy_link(*found)

    def copy_link(self, link: str, title: str, lead: str = "") -> None:
        self.copy_out(link, "link", title, lead, link)

    @work(thread=True, group="browser")
    def open_in_browser(self, link: str | None, title: str, files: list[Path] | None = None) -> None:
        """App.open_url goes through Python's webbrowser, which honours $BROWSER and may wait for
        the browser command to return: here, in a thread, never on the UI thread (as the look for
        the attachment on disk)."""
        found = existing_file(files or [])
        target = (file_link(found) if found is not None else None) or link
        if target is None:
            missing = str(files[0]) if files else "?"
            self.post_message(NoTarget(NO_FILE.format(path=missing), title))
            return
        why = browser_problem()
        if why:
            self.post_message(NoBrowser(target, title, why))
            return
        self.app.open_url(target)
        self.post_message(LinkOpened(target, title))

    @on(NoTarget)
    def _no_target(self, event: NoTarget) -> None:
        self.notify(event.text, title=event.title, severity="warning", timeout=6)

    @on(LinkOpened)
    def _link_opened(self, event: LinkOpened) -> None:
        self.app.refresh(layout=True)  # a browser that wrote to the terminal: draw over it
        self.notify(f"Opened in the browser: {event.link}", title=event.title, timeout=4)

    @on(NoBrowser)
    def _no_browser(self, event: NoBrowser) -> None:
        self.copy_link(event.link, event.title, f"No browser to open it here ({event.why}).")

    @on(Copied)
    def _copied(self, event: Copied) -> None:
        self.notify(
            copied_notice(event),
            title=event.title,
            severity="warning" if event.terminal else "information",
            timeout=8 if event.terminal else 4,
        )


def copied_notice(event: Copied) -> str:
    """What arrived where, in one sentence (two when the terminal copy may be lost), after the
    event's lead sentence and followed by the text itself when it is short (a link)."""
    what = f"{event.what} ({event.chars:,} chars)"
    if not event.terminal:
        if event.system:
            told = f"Copied {what} to the terminal and the system clipboard."
        else:
            told = f"Copied {what} through the terminal only ({event.detail})."
    elif event.system:
        told = f"Copied {what} to the system clipboard. The terminal copy may not arrive: {event.terminal}."
    else:
        told = (
            f"Copying {what} may have failed: {event.detail}, and the terminal copy may not arrive:"
            f" {event.terminal}."
        )
    if event.shown:
        told = told[:-1] + f": {event.shown}"
    return f"{event.lead} {told}" if event.lead else told
