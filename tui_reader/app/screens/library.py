"""All bookmarks, across every collection (issue 19, finding 14).

The main screen's bookmark view can only show the bookmarks whose papers the open collection
holds; the others were invisible although the status line counted them. Each bookmark keeps a
snapshot of its paper (bookmarks.json v3, with the full record), so this screen shows every one:
the open collection's paper when it holds it (marked ``●`` and listed first), else the snapshot,
as ``tui-reader bookmarks export`` does (library/export.py ``paper_of``).

The list comes from the bookmarks alone (no file read); a snapshot is read when its row comes
into sight (50,000 take seconds to read, and their papers hundreds of MB to keep). The entries
and the workers' messages: library_model.py; the list: library_list.py.

The store is read in a worker (a snapshot read opens its pack), and every write, copy, citation
and browser call runs in one too; the screen takes what it needs in its constructor and knows
nothing of the main screen. All text comes from files: it is drawn as Segments or Content (never
markup), made safe with clean_label.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Container
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui_reader.app.browser import browser_problem
from tui_reader.app.screens.library_list import BookmarkList
from tui_reader.app.screens.library_model import (
    HERE_MARK,
    NOT_HERE,
    STILL_READING,
    Entry,
    Filled,
    Loaded,
    Lookup,
    Removed,
    Said,
    TagMemo,
    ToCopy,
    copied_line,
    detail_content,
    filled,
    listed,
    ordered,
    short,
    shown_paper,
)
from tui_reader.app.tmux import terminal_copy_problem
from tui_reader.app.widgets.paper_detail import PaperDetail
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label
from tui_reader.library.bookmark import no_collections
from tui_reader.library.bookmarks import BookmarkStore, ReadOnlyStore
from tui_reader.library.citation import citation
from tui_reader.library.clipboard import CopyOutcome, copy_text
from tui_reader.library.links import attachment_paths, best_link, existing_file, file_link


class LibraryScreen(Screen[str | None]):
    """Every bookmark. Dismisses with the id of the paper chosen with Enter (one in the open
    collection) for the main screen to go to, or None (Esc)."""

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="Close the bookmarks"),
        Binding("enter", "go", "Go to", show=False, tooltip="Go to the paper (one in the open collection)"),
        Binding("c", "copy_abstract", "Copy", tooltip="Copy the abstract"),
        Binding("y", "copy_bibtex", "BibTeX", tooltip="Copy the BibTeX entry (its note included)"),
        Binding("o", "open_link", "Open", tooltip="Open the attachment or the link in the browser"),
        Binding(
            "b", "remove", "Remove", tooltip="Remove the bookmark (twice for one not in the open collection)"
        ),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    DEFAULT_CSS = """
    LibraryScreen { layout: vertical; }
    LibraryScreen #library-summary { height: 1; padding: 0 1; background: $panel; }
    LibraryScreen #library-panes { height: 1fr; }
    LibraryScreen #library-list { width: 45%; min-width: 30; border-right: vkey $border-blurred; }
    LibraryScreen #library-list:focus { border-right: vkey $border; }
    LibraryScreen #library-detail { width: 1fr; }
    LibraryScreen.-narrow #library-panes { layout: vertical; }
    LibraryScreen.-narrow #library-list {
        width: 1fr; height: 40%; border-right: none; border-bottom: hkey $border-blurred;
    }
    LibraryScreen.-narrow #library-detail { height: 1fr; }
    LibraryScreen #library-message {
        height: auto; max-height: 3; padding: 0 1; color: $text-muted; display: none;
    }
    LibraryScreen #library-message.-problem { color: $text-error; }
    """

    def __init__(
        self,
        store: BookmarkStore,
        here: Container[str],
        lookup: Lookup | None = None,
        *,
        on_removed: Callable[[str], None] | None = None,
        copy: Callable[[str], CopyOutcome] = copy_text,
    ) -> None:
        """``here``: the ids of the open collection's papers; ``lookup``: its ``Corpus.get``
        (called in a worker), so its bookmarks show the paper as it is now, not its snapshot;
        ``on_removed``: told each id whose bookmark ``b`` removed (on the UI thread, once
        written, even if this screen closed meanwhile), so the screen below can show it;
        ``copy``: the system clipboard route (besides OSC 52)."""
        super().__init__()
        self.store = store
        self.here = here
        self.lookup = lookup
        self.on_removed = on_removed
        self.copy_system = copy
        self._armed = ""  # a bookmark b must be pressed on again to remove (not in this collection)
        self._removing: set[str] = set()  # ids being removed
        self._writing = threading.Lock()  # one write at a time (each in its own worker, in order)
        self._problem = ""

    def compose(self) -> ComposeResult:
        yield Static(Content("All bookmarks").stylize("bold"), id="library-summary")
        with Horizontal(id="library-panes"):
            yield BookmarkList(id="library-list")
            yield PaperDetail(id="library-detail")
        yield Static(Content(""), id="library-message")
        yield Footer()

    @property
    def bookmark_list(self) -> BookmarkList:
        return self.query_one(BookmarkList)

    @property
    def detail(self) -> PaperDetail:
        return self.query_one(PaperDetail)

    def on_mount(self) -> None:
        self.bookmark_list.focus()
        self.detail.show_message("Reading the bookmarks…")
        self.load()

    # -- reading ----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="library-read")
    def load(self) -> None:
        """The list, from the bookmarks alone (the papers are read as their rows come into sight)."""
        memo: TagMemo = {}
        with no_collections():
            entries = ordered([listed(m, self.here, memo) for m in self.store.all()])
            message = Loaded(entries)
        self.post_message(message)

    @on(BookmarkList.RowsWanted)
    def _rows_wanted(self, event: BookmarkList.RowsWanted) -> None:
        self.read_papers(event.entries)

    @work(thread=True, group="library-read")
    def read_papers(self, entries: list[Entry]) -> None:
        """The papers of rows in sight (a snapshot opens its pack: one file for ~1/256th)."""
        try:
            with no_collections():
                done = [filled(e, self.lookup) for e in entries]
        except OSError as exc:  # a pack that cannot be read is none: this is the unexpected rest
            self.post_message(Said(f"Could not read the bookmarks' snapshots: {exc}", True))
            return
        self.post_message(Filled(done))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        self.bookmark_list.empty_text = "No bookmarks yet: b on a paper bookmarks it."
        self.bookmark_list.set_entries(event.entries, tags_width=event.tags_width)
        self._summarise()
        if not event.entries:
            self.detail.show_message(self.bookmark_list.empty_text)

    @on(Filled)
    def _filled(self, event: Filled) -> None:
        listed = self.bookmark_list
        before = listed.current
        listed.update_entries(event.entries)
        now = listed.current
        if now is not None and now is not before:
            self.detail.show(detail_content(now))

    def _summarise(self) -> None:
        entries = self.bookmark_list.entries
        local = sum(e.here for e in entries)
        text = f"All bookmarks: {len(entries):,}"
        if entries:
            text += f" · {HERE_MARK}{local:,} in this collection · {len(entries) - local:,} in others"
        self.query_one("#library-summary", Static).update(Content(text).stylize_before("bold"))

    @on(BookmarkList.Highlighted)
    def _highlighted(self, event: BookmarkList.Highlighted) -> None:
        entry = self.bookmark_list.current
        if entry is not None:
            self.detail.show(detail_content(entry))
        if entry is None or entry.pid != self._armed:
            self._disarm()

    def say(self, text: str, problem: bool = False) -> None:
        """The screen's one message line (no toasts over the panes)."""
        line = self.query_one("#library-message", Static)
        line.update(Content(clean_label(text)))
        line.set_class(problem, "-problem")
        line.display = bool(text)

    def _disarm(self) -> None:
        if self._armed:
            self._armed = ""
            self.say("")

    # -- keys -------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss(None)

    def action_go(self) -> None:
        self.bookmark_list.action_select()

    @on(BookmarkList.Selected)
    def _selected(self, event: BookmarkList.Selected) -> None:
        entry = self.bookmark_list.current
        if entry is None:
            return
        if entry.here:
            self.dismiss(entry.pid)
        else:
            self.say(NOT_HERE)

    def _read_entry(self) -> Entry | None:
        """The cursor's bookmark once its paper is read (said so while it is not)."""
        entry = self.bookmark_list.current
        if entry is not None and not entry.read:
            self.say(STILL_READING)
            return None
        return entry

    def action_copy_abstract(self) -> None:
        entry = self._read_entry()
        if entry is None:
            return
        if entry.paper is None or not entry.paper.abstract:
            self.say(f"No abstract to copy: {short(entry.title)}", problem=True)
            return
        self.copy_out(entry.paper.abstract, "abstract")

    def action_copy_bibtex(self) -> None:
        entry = self._read_entry()
        if entry is not None:
            paper = shown_paper(entry) or Paper(id=entry.pid, title=entry.mark.title, abstract="")
            self.make_bibtex(paper, entry.mark.note)

    def action_open_link(self) -> None:
        entry = self._read_entry()
        if entry is None:
            return
        paper = entry.paper
        files = attachment_paths(paper, []) if paper is not None else []  # absolute paths only
        link = best_link(paper) if paper is not None else None
        if not files and link is None:
            self.say(f"No link: the record has no URL, DOI or arXiv id ({short(entry.title)}).", problem=True)
            return
        self.open_in_browser(link, entry.title, files)

    def action_remove(self) -> None:
        entry = self.bookmark_list.current
        if entry is None or entry.pid in self._removing:
            return
        if not entry.here and self._armed != entry.pid:
            self._armed = entry.pid
            self.say("b again removes it (its collection is not open: it cannot be bookmarked again here).")
            return
        self._armed = ""
        self._removing.add(entry.pid)
        self.say(f"Removing the bookmark: {short(entry.title)}")
        self.remove_bookmark(entry.pid, entry.title)

    # -- writing ----------------------------------------------------------------------------
    @work(thread=True, group="library-write")
    def remove_bookmark(self, pid: str, title: str) -> None:
        """Runs to the end even if the screen closes meanwhile (a thread is not stopped)."""
        try:
            with self._writing:
                was = self.store.remove(pid)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(Removed(pid, title, False, str(exc)))
            return
        if self.on_removed is not None:  # told even when the screen closed meanwhile
            with contextlib.suppress(RuntimeError):  # the app is ending
                self.app.call_from_thread(self.on_removed, pid)
        self.post_message(Removed(pid, title, was))

    @on(Removed)
    def _removed(self, event: Removed) -> None:
        self._removing.discard(event.pid)
        if event.problem:
            self.say(f"Bookmark not removed: {event.problem}", problem=True)
            return
        self._drop(event.pid)
        gone = "Removed the bookmark" if event.was else "Already removed (by another reader?)"
        self.say(f"{gone}: {short(event.title)}")

    def _drop(self, pid: str) -> None:
        """Take the bookmark out of the list, the cursor staying on the row it was on."""
        listed = self.bookmark_list
        keep = listed.cursor
        entries = [e for e in listed.entries if e.pid != pid]
        if len(entries) == len(listed.entries):
            return
        listed.set_entries(entries, min(keep, max(0, len(entries) - 1)))
        self._summarise()
        if not entries:
            listed.empty_text = "No bookmarks left."
            self.detail.show_message("No bookmarks left.")

    # -- clipboard and browser --------------------------------------------------------------
    def copy_out(self, text: str, what: str, lead: str = "") -> None:
        self.app.copy_to_clipboard(text)  # OSC 52: works over SSH, never raises
        self.copy_to_system(text, what, lead)

    @work(thread=True, group="library-clipboard")
    def copy_to_system(self, text: str, what: str, lead: str = "") -> None:
        outcome = self.copy_system(text)
        terminal = terminal_copy_problem()  # runs tmux: here, off the UI thread
        told = copied_line(what, len(text), outcome, terminal)
        self.post_message(Said(f"{lead} {told}" if lead else told, not outcome.ok or bool(terminal)))

    @work(thread=True, group="library-clipboard")
    def make_bibtex(self, paper: Paper, note: str) -> None:
        try:
            made = citation(paper, note)
        except Exception as exc:  # a field the writer chokes on must not take the reader down
            self.post_message(Said(f"No BibTeX entry to copy: {exc.__class__.__name__}: {exc}", True))
            return
        self.post_message(ToCopy(made.entry, "BibTeX entry"))

    @work(thread=True, group="library-browser")
    def open_in_browser(self, link: str | None, title: str, files: list[Path]) -> None:
        """As the main screen's ``o``: the attachment when it exists, else the link; webbrowser
        may wait for the browser to return, so never on the UI thread."""
        found = existing_file(files)
        target = (file_link(found) if found is not None else None) or link
        if target is None:
            self.post_message(Said(f"Attachment not found ({files[0]}), and no link.", True))
            return
        why = browser_problem()
        if why:
            self.post_message(ToCopy(target, "link", f"No browser to open it here ({why})."))
            return
        self.app.open_url(target)
        self.post_message(Said(f"Opened in the browser: {target}", redraw=True))

    @on(ToCopy)
    def _to_copy(self, event: ToCopy) -> None:
        self.copy_out(event.text, event.what, event.lead)

    @on(Said)
    def _said(self, event: Said) -> None:
        if event.redraw:
            self.app.refresh(layout=True)
        self.say(event.text, event.problem)
