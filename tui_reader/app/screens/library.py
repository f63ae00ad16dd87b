"""All bookmarks, across every collection (issue 19, finding 14).

The main screen's bookmark view can only show the bookmarks whose papers the open collection
holds; the others were invisible although the status line counted them. Each bookmark keeps a
snapshot of its paper (bookmarks.json v3, with the full record), so this screen shows every one:
the open collection's paper when it holds it (marked ``●`` and listed first), else the snapshot,
as ``tui-reader bookmarks export`` does (library/export.py ``paper_of``).

The list comes from the bookmarks alone (no file read); a snapshot is read when its row comes
into sight (50,000 take seconds to read, and their papers hundreds of MB to keep).

The store is read in a worker (a snapshot read opens its pack), and every write, copy, citation
and browser call runs in one too; the screen takes what it needs in its constructor and knows
nothing of the main screen. All text comes from files: it is drawn as Segments or Content (never
markup), made safe with clean_label.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

from tui_reader.app.browser import browser_problem
from tui_reader.app.tmux import terminal_copy_problem
from tui_reader.app.widgets.paper_detail import PaperDetail, paper_content, tags_content
from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label
from tui_reader.library.bookmarks import Bookmark, BookmarkStore, ReadOnlyStore
from tui_reader.library.citation import citation
from tui_reader.library.clipboard import CopyOutcome, copy_text
from tui_reader.library.links import attachment_paths, best_link, existing_file, file_link

Lookup = Callable[[str], Paper | None]

SNAPSHOT_SOURCE = "from the bookmark's snapshot: not in the open collection"
NO_SNAPSHOT = (
    "No snapshot of this paper was kept (bookmarked before snapshots were); open its collection to see it."
)
NOT_HERE = "Not in the open collection: c, y and o work from its snapshot."
HERE_MARK = "● "
WIDEST = 40  # cells the tags column is measured to
YEAR, VENUE = 4, 16  # cells of the year and (at most) the venue columns
STILL_READING = "Still reading this bookmark's snapshot…"


@dataclass(frozen=True, slots=True)
class Entry:
    """One bookmark as listed: its paper (the open collection's, else the snapshot's, else None)
    and the list's columns, made safe in the worker. Listed first from the bookmark alone
    (``read`` False), then filled in once its paper is read."""

    mark: Bookmark
    here: bool
    title: str
    tags: str
    paper: Paper | None = None
    read: bool = False
    year: str = ""
    venue: str = ""

    @property
    def pid(self) -> str:
        return self.mark.id


TagMemo = dict[tuple[str, ...], str]


def listed(mark: Bookmark, here: Container[str], memo: TagMemo) -> Entry:
    """The bookmark as the list first shows it: no file read. ``memo``: tag lines made so far
    (most bookmarks share a few tag sets)."""
    key = tuple(mark.tags)
    tags = memo.get(key)
    if tags is None:
        tags = memo[key] = clean_label(tag_label(mark.tags))
    return Entry(mark, mark.id in here, clean_label(mark.title or mark.id), tags)


def filled(entry: Entry, lookup: Lookup | None) -> Entry:
    """The entry with its paper: the open collection's (``lookup``, asked only for its own ids),
    else the snapshot (read from its pack: call it in a worker), never changed here."""
    mark = entry.mark
    paper = lookup(mark.id) if lookup is not None and entry.here else None
    if paper is None:
        paper = mark.snapshot
    if paper is None:
        return replace(entry, read=True)
    title = clean_label(paper.title) if paper.title else entry.title
    year = "" if paper.year is None else str(paper.year)
    return replace(entry, paper=paper, read=True, title=title, year=year, venue=clean_label(paper.venue))


def widest_tags(entries: Sequence[Entry]) -> int:
    """Cells of the widest tags among the entries (up to WIDEST): the tags column's width. A
    pass over them all: done in the worker."""
    return max((min(WIDEST, cell_len(e.tags[:WIDEST])) for e in entries if e.tags), default=0)


@contextlib.contextmanager
def no_collections() -> Iterator[None]:
    """Making thousands of entries and papers makes no cycles but can set off full
    collections, which hold the GIL, and so the UI thread, for a second or more (1.4-1.9 s
    measured with 50,000 snapshots read at once). As bookmark.py does while it reads the file."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def ordered(entries: Sequence[Entry]) -> list[Entry]:
    """The open collection's first, then the others; the newest bookmark first in each (of two
    added in the same second, the one later in the file)."""
    newest = sorted(reversed(entries), key=lambda e: e.mark.added, reverse=True)
    return sorted(newest, key=lambda e: not e.here)


def short(text: str, limit: int = 60) -> str:
    """A title for a one-line message: cut at a word, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit // 2, limit)
    return text[: cut if cut > 0 else limit - 1] + "…"


def shown_paper(entry: Entry) -> Paper | None:
    """The entry's paper as the pane shows and ``y`` cites it: the bookmark's title when the
    snapshot has none, and where it comes from in place of its source files when it is a
    snapshot (a copy: the snapshot is never changed)."""
    paper = entry.paper
    if paper is None:
        return None
    if entry.here and paper.sources and paper.title:
        return paper
    where = paper.sources if entry.here and paper.sources else [SNAPSHOT_SOURCE]
    return replace(paper, title=paper.title or entry.mark.title, sources=list(where))


def detail_content(entry: Entry) -> Content:
    """The detail pane's text: the paper in full (paper_content), or what the bookmark alone
    holds while its paper is read or when it has no snapshot."""
    paper = shown_paper(entry)
    if paper is not None:
        return paper_content(paper, entry.mark, [], [])
    mark = entry.mark
    told = NO_SNAPSHOT if entry.read else "Reading its snapshot…"
    parts = [Content(entry.title).stylize("bold"), Content("\n\n")]
    parts += [Content(told).stylize("italic $text-muted"), Content("\n\n")]
    parts += [
        Content("★ Bookmarked").stylize("bold $warning"),
        Content(f" {mark.added[:10]}").stylize("$text-muted"),
    ]
    if mark.tags:
        parts += [Content("\nTags: ").stylize("bold"), tags_content(mark.tags)]
    if mark.note:
        parts += [Content("\nNote: ").stylize("bold"), Content(mark.note)]
    return Content.assemble(*parts)


def copied_line(what: str, chars: int, outcome: CopyOutcome, terminal: str) -> str:
    """Where the copy went, in one line."""
    done = f"Copied {what} ({chars:,} chars)"
    if outcome.ok and not terminal:
        return f"{done}."
    if outcome.ok:
        return f"{done} to the system clipboard; the terminal copy may not arrive: {terminal}."
    if not terminal:
        return f"{done} through the terminal only ({outcome.detail})."
    return f"Copying {what} may have failed: {outcome.detail}; {terminal}."


# -- what the workers report ------------------------------------------------------------------
class _Loaded(Message, bubble=False):
    """The list, from the bookmarks alone (their papers not read yet)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.tags_width = widest_tags(entries)  # measured in the worker
        super().__init__()


class _Filled(Message, bubble=False):
    """Entries with their papers read (rows that came into sight)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        super().__init__()


class _Removed(Message, bubble=False):
    def __init__(self, pid: str, title: str, was: bool, problem: str = "") -> None:
        self.pid = pid
        self.title = title
        self.was = was  # False: it was gone from the file already (another reader removed it)
        self.problem = problem  # why it could not be removed ('' when it was)
        super().__init__()


class _Said(Message, bubble=False):
    """A worker's one-line outcome (a copy, an opened link, a failure)."""

    def __init__(self, text: str, problem: bool = False, redraw: bool = False) -> None:
        self.text = text
        self.problem = problem
        self.redraw = redraw  # a browser may have written to the terminal: draw over it
        super().__init__()


class _ToCopy(Message, bubble=False):
    """Text a worker made (a BibTeX entry) or a link no browser can open: copy it here."""

    def __init__(self, text: str, what: str, lead: str = "") -> None:
        self.text = text
        self.what = what
        self.lead = lead
        super().__init__()


# -- the list ---------------------------------------------------------------------------------
class BookmarkList(ScrollView, can_focus=True):
    """One line a bookmark (``●`` title, year, venue, tags), drawn on demand: 50,000 bookmarks
    cost what 40 do."""

    BINDINGS = [
        Binding("j,down", "cursor_down", "Down", show=False),
        Binding("k,up", "cursor_up", "Up", show=False),
        Binding("g,home", "first", "First", show=False),
        Binding("G,end", "last", "Last", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("enter", "select", "Go to", show=False),
    ]
    COMPONENT_CLASSES = {
        "bookmark-list--cursor",
        "bookmark-list--here",
        "bookmark-list--meta",
        "bookmark-list--tags",
        "bookmark-list--empty",
    }
    DEFAULT_CSS = """
    BookmarkList { overflow-x: hidden; }
    BookmarkList > .bookmark-list--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    BookmarkList:blur > .bookmark-list--cursor {
        background: $block-cursor-blurred-background; text-style: none;
    }
    BookmarkList > .bookmark-list--here { color: $success; text-style: bold; }
    BookmarkList > .bookmark-list--meta { color: $text-muted; }
    BookmarkList > .bookmark-list--tags { color: $text-accent; }
    BookmarkList > .bookmark-list--empty { color: $text-muted; text-style: italic; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Highlighted(Message):
        def __init__(self, index: int | None) -> None:
            self.index = index
            super().__init__()

    class Selected(Message):
        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    class RowsWanted(Message):
        """Rows in sight whose papers are not read yet (each asked for once)."""

        def __init__(self, entries: list[Entry]) -> None:
            self.entries = entries
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self._at: dict[str, int] = {}  # id -> its row
        self._tags_width = 0  # cells of the widest tags listed
        self._asked: set[str] = set()  # ids whose papers were asked for
        self._asking = False
        self.empty_text = "Reading the bookmarks…"

    def set_entries(self, entries: list[Entry], cursor: int = 0, tags_width: int | None = None) -> None:
        """``tags_width``: the widest tags (see widest_tags), when known."""
        self.entries = entries
        self._at = {e.pid: i for i, e in enumerate(entries)}
        if tags_width is not None:
            self._tags_width = tags_width
        self.virtual_size = Size(0, len(entries))
        self.cursor = cursor
        self.refresh()

    def update_entries(self, entries: list[Entry]) -> None:
        """Entries filled in (matched by id: one removed meanwhile stays out)."""
        for entry in entries:
            i = self._at.get(entry.pid)
            if i is not None:
                self.entries[i] = entry
        self.refresh()

    def _ask(self) -> None:
        """Ask for the papers of the rows in sight not read yet."""
        self._asking = False
        top = int(self.scroll_y)
        sight = self.entries[top : top + self.scrollable_content_region.height + 1]
        wanted = [e for e in sight if not e.read and e.pid not in self._asked]
        if wanted:
            self._asked.update(e.pid for e in wanted)
            self.post_message(self.RowsWanted(wanted))

    @property
    def current(self) -> Entry | None:
        return self.entries[self.cursor] if 0 <= self.cursor < len(self.entries) else None

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.entries) - 1)) if self.entries else 0

    def watch_cursor(self, value: int) -> None:
        self.scroll_to_region(Region(0, value, 1, 1), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(value if self.entries else None))

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.entries) - 1

    def action_page_down(self) -> None:
        self.cursor += self._page()

    def action_page_up(self) -> None:
        self.cursor -= self._page()

    def action_select(self) -> None:
        if self.entries:
            self.post_message(self.Selected(self.cursor))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + int(self.scroll_y)
        if 0 <= index < len(self.entries):
            self.cursor = index
            if event.chain > 1:
                self.action_select()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = y + int(self.scroll_y)
        if not self.entries:
            if index == 0:
                style = base + self.get_component_rich_style("bookmark-list--empty")
                return Strip([Segment(" " + self.empty_text, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if index >= len(self.entries):
            return Strip.blank(width, base)
        style = base
        if index == self.cursor:
            style = base + self.get_component_rich_style("bookmark-list--cursor")
        entry = self.entries[index]
        if not entry.read and not self._asking and entry.pid not in self._asked:
            self._asking = True
            self.call_later(self._ask)
        return Strip(self._segments(entry, style, width)).crop_extend(0, width, style)

    def _part(self, name: str, style: Style) -> Style:
        return style + self.get_component_rich_style(f"bookmark-list--{name}", partial=True)

    def _columns(self, room: int) -> tuple[int, int, int]:
        """Widths of the year, venue and tags columns (0: not shown): each while the title
        keeps half the line (the tags only as wide as the widest listed)."""
        wanted = (YEAR, min(VENUE, room // 5), min(self._tags_width, room // 4))
        widths = [0, 0, 0]
        left = room
        for n, width in enumerate(wanted):
            if width and left - width - 2 >= room // 2:
                widths[n] = width
                left -= width + 2
        return widths[0], widths[1], widths[2]

    def _segments(self, entry: Entry, style: Style, width: int) -> list[Segment]:
        """``●`` (in the open collection), the title, then the columns that fit."""
        mark = Segment(HERE_MARK if entry.here else "  ", self._part("here", style))
        room = width - 2
        columns = self._columns(room)
        title_width = room - sum(w + 2 for w in columns if w)
        out = [mark, Segment(padded(entry.title, title_width), style)]
        for text, kind, column in zip(
            (entry.year, entry.venue, entry.tags), ("meta", "meta", "tags"), columns, strict=True
        ):
            if column:
                out += [Segment("  ", style), Segment(padded(text, column), self._part(kind, style))]
        return out


def padded(text: str, width: int) -> str:
    """``text`` in exactly ``width`` cells: cut with an ellipsis, or padded with spaces."""
    cut = fit(text, width)
    return cut + " " * max(0, width - cell_len(cut))


def fit(text: str, width: int) -> str:
    """Cut to ``width`` terminal cells, with an ellipsis (a long text measured only in part)."""
    if width <= 0:
        return ""
    if len(text) > 4 * width:
        text = text[: 4 * width]
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"


# -- the screen -------------------------------------------------------------------------------
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
            message = _Loaded(entries)
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
            self.post_message(_Said(f"Could not read the bookmarks' snapshots: {exc}", True))
            return
        self.post_message(_Filled(done))

    @on(_Loaded)
    def _loaded(self, event: _Loaded) -> None:
        self.bookmark_list.empty_text = "No bookmarks yet: b on a paper bookmarks it."
        self.bookmark_list.set_entries(event.entries, tags_width=event.tags_width)
        self._summarise()
        if not event.entries:
            self.detail.show_message(self.bookmark_list.empty_text)

    @on(_Filled)
    def _filled(self, event: _Filled) -> None:
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
            self.post_message(_Removed(pid, title, False, str(exc)))
            return
        if self.on_removed is not None:  # told even when the screen closed meanwhile
            with contextlib.suppress(RuntimeError):  # the app is ending
                self.app.call_from_thread(self.on_removed, pid)
        self.post_message(_Removed(pid, title, was))

    @on(_Removed)
    def _removed(self, event: _Removed) -> None:
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
        self.post_message(_Said(f"{lead} {told}" if lead else told, not outcome.ok or bool(terminal)))

    @work(thread=True, group="library-clipboard")
    def make_bibtex(self, paper: Paper, note: str) -> None:
        try:
            made = citation(paper, note)
        except Exception as exc:  # a field the writer chokes on must not take the reader down
            self.post_message(_Said(f"No BibTeX entry to copy: {exc.__class__.__name__}: {exc}", True))
            return
        self.post_message(_ToCopy(made.entry, "BibTeX entry"))

    @work(thread=True, group="library-browser")
    def open_in_browser(self, link: str | None, title: str, files: list[Path]) -> None:
        """As the main screen's ``o``: the attachment when it exists, else the link; webbrowser
        may wait for the browser to return, so never on the UI thread."""
        found = existing_file(files)
        target = (file_link(found) if found is not None else None) or link
        if target is None:
            self.post_message(_Said(f"Attachment not found ({files[0]}), and no link.", True))
            return
        why = browser_problem()
        if why:
            self.post_message(_ToCopy(target, "link", f"No browser to open it here ({why})."))
            return
        self.app.open_url(target)
        self.post_message(_Said(f"Opened in the browser: {target}", redraw=True))

    @on(_ToCopy)
    def _to_copy(self, event: _ToCopy) -> None:
        self.copy_out(event.text, event.what, event.lead)

    @on(_Said)
    def _said(self, event: _Said) -> None:
        if event.redraw:
            self.app.refresh(layout=True)
        self.say(event.text, event.problem)
