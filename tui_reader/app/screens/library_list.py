"""The all-bookmarks list (library.py): one line a bookmark, drawn on demand as the paper list
is, so 50,000 bookmarks cost what 40 do; the rows in sight ask for their papers."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_reader.app.screens.library_model import HERE_MARK, VENUE, YEAR, Entry


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
