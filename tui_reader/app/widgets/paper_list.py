"""A line-virtualised paper list: only the visible lines are ever rendered.

ListView mounts a widget per row (minutes at 87k) and OptionList measures every row on resize
(seconds at 87k); this draws each line on demand from plain lists, as Toolong does, so 87k rows
cost what 40 do. Titles are drawn as Segments, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_reader.app.messages import Snippet


class PaperList(ScrollView, can_focus=True):
    """Rows are corpus indices; titles and marks come from the screen's state. Each title has a
    marker column, ``+`` for a paper new since the last visit (unread), ``•`` for an unread one,
    then ``★`` for a bookmarked one; a tagged paper's tags end its line (``#toread``).

    In a result with snippets, a snippet line drawn before its snippet is known asks for it with
    ``SnippetsWanted``; the screen answers with ``set_snippets``.
    """

    BINDINGS = [
        Binding("j,down", "cursor_down", "Down", show=False),
        Binding("k,up", "cursor_up", "Up", show=False),
        Binding("g,home", "first", "First", show=False),
        Binding("G,end", "last", "Last", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("enter", "select", "Read", show=False),
    ]
    COMPONENT_CLASSES = {
        "paper-list--cursor",
        "paper-list--mark",
        "paper-list--tags",
        "paper-list--unread",
        "paper-list--new",
        "paper-list--snippet",
        "paper-list--match",
        "paper-list--empty",
    }
    DEFAULT_CSS = """
    PaperList { overflow-x: hidden; }
    PaperList > .paper-list--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    PaperList:blur > .paper-list--cursor { background: $block-cursor-blurred-background; text-style: none; }
    PaperList > .paper-list--mark { color: $warning; text-style: bold; }
    PaperList > .paper-list--tags { color: $text-accent; }
    PaperList > .paper-list--unread { color: $text-accent; text-style: bold; }
    PaperList > .paper-list--new { color: $success; text-style: bold; }
    PaperList > .paper-list--snippet { color: $text-muted; }
    PaperList > .paper-list--match { color: $text-accent; text-style: bold; }
    PaperList > .paper-list--empty { color: $text-muted; text-style: italic; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    marked: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the bookmarked papers (the screen sets it from its bookmarks)."""
    read: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers read; the others are marked unread."""
    new: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers new since the last visit."""
    no_abstract: var[frozenset[str]] = var(frozenset, init=False)
    """Ids of papers listed by their title only (no abstract in the source): marked in the list."""
    tags: var[dict[str, str]] = var(dict, init=False)
    """Id -> the paper's tags as shown at the end of its line (tag_label), for tagged papers."""

    class PaperHighlighted(Message):
        """The cursor moved to a paper (row is the corpus index, None when the list is empty)."""

        def __init__(self, row: int | None) -> None:
            self.row = row
            super().__init__()

    class NearEnd(Message):
        """The cursor is close to the last row: a paged result may want to fetch more."""

    class PaperSelected(Message):
        def __init__(self, row: int) -> None:
            self.row = row
            super().__init__()

    class SnippetsWanted(Message):
        """Rows on screen whose snippet line has nothing to show yet."""

        def __init__(self, rows: list[int]) -> None:
            self.rows = rows
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[int] = ()
        self.titles: Sequence[str] = ()
        self.ids: Sequence[str] = ()
        self.snippets: dict[int, Snippet] = {}
        self.empty_text = "No papers."
        self._row_height = 1
        self._snippets_requested = False

    # -- data ---------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[int], *, snippets: bool = False, keep: int | None = None) -> None:
        """Show rows; keep the cursor on corpus row ``keep`` if it is among them."""
        self.rows = rows
        self.snippets = {}
        self._row_height = 2 if snippets else 1
        self.virtual_size = Size(0, len(rows) * self._row_height)
        target = 0
        if keep is not None and rows:
            try:
                target = list(rows).index(keep)
            except ValueError:
                target = 0
        self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor = target
        self.refresh()

    def grow(self, rows: int | Sequence[int], keep: int | None = None) -> bool:
        """Show the collection's first ``rows`` papers (a count, or ``range(count)``) by growing
        the list, when it shows the first ones already in that order, one line each: the cursor
        and the scroll stay (and move to ``keep``, if given). False: the list must be set anew."""
        if isinstance(rows, int):
            rows = range(rows)
        now = self.rows
        if not isinstance(rows, range) or not isinstance(now, range):
            return False
        if not (rows.step == now.step == 1 and rows.start == now.start == 0 and len(now) <= len(rows)):
            return False
        if self.virtual_size.height != len(now) or not now:  # two lines a paper, or nothing yet
            return False
        self.rows = rows
        self.virtual_size = Size(self.virtual_size.width, len(rows))
        self.refresh()
        if keep is not None and keep != self.highlighted_row:
            self.move_to_row(keep)
        return True

    def set_snippets(self, snippets: dict[int, Snippet]) -> None:
        self.snippets.update(snippets)
        self.refresh()

    @property
    def highlighted_row(self) -> int | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def move_to_row(self, row: int) -> bool:
        try:
            self.cursor = list(self.rows).index(row)
        except ValueError:
            return False
        return True

    def watch_marked(self) -> None:
        self.refresh()

    def watch_read(self) -> None:
        self.refresh()

    def watch_new(self) -> None:
        self.refresh()

    def watch_tags(self) -> None:
        self.refresh()

    def watch_no_abstract(self) -> None:
        self.refresh()

    # -- cursor -------------------------------------------------------------------------------
    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, value: int) -> None:
        h = self._row_height
        self.scroll_to_region(Region(0, value * h, 1, h), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.PaperHighlighted(self.highlighted_row))
        if self.rows and value >= len(self.rows) - self._page() - 1:
            self.post_message(self.NearEnd())

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height // self._row_height - 1)

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def action_page_down(self) -> None:
        self.cursor += self._page()

    def action_page_up(self) -> None:
        self.cursor -= self._page()

    def action_select(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.post_message(self.PaperSelected(row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = (offset.y + int(self.scroll_y)) // self._row_height
        if 0 <= index < len(self.rows):
            self.cursor = index
            if event.chain > 1:
                self.action_select()

    # -- drawing ------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        line = y + int(self.scroll_y)
        index, sub = divmod(line, self._row_height)
        if not self.rows:
            if line == 0:
                style = base + self.get_component_rich_style("paper-list--empty")
                return Strip([Segment(" " + self.empty_text, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        style = base
        if index == self.cursor:
            style = base + self.get_component_rich_style("paper-list--cursor")
        if sub == 0:
            segments = self._title_segments(row, style, width)
        else:
            segments = self._snippet_segments(row, style, width)
        return Strip(segments).crop_extend(0, width, style)

    def _title_segments(self, row: int, style: Style, width: int) -> list[Segment]:
        pid = self.ids[row] if self.ids else ""
        if pid in self.read:
            state = Segment(" ", style)
        else:
            kind = "new" if pid in self.new else "unread"
            marker = "+" if kind == "new" else "•"
            state = Segment(
                marker, style + self.get_component_rich_style(f"paper-list--{kind}", partial=True)
            )
        marked = pid in self.marked
        mark = Segment(
            "★ " if marked else "  ",
            style + self.get_component_rich_style("paper-list--mark", partial=True) if marked else style,
        )
        label = self.tags.get(pid)
        if pid in self.no_abstract:  # a citation entry without an abstract: says so in the list
            label = f"(title only) {label or ''}".rstrip()
        if not label or width < 24:
            return [state, mark, Segment(_fit(self.titles[row], width - 3), style)]
        label = _fit(label, (width - 3) // 3)
        room = width - 4 - cell_len(label)
        title = _fit(self.titles[row], room)
        tags = style + self.get_component_rich_style("paper-list--tags", partial=True)
        return [state, mark, Segment(title + " " * (room - cell_len(title) + 1), style), Segment(label, tags)]

    def _snippet_segments(self, row: int, style: Style, width: int) -> list[Segment]:
        snippet = self.snippets.get(row)
        if snippet is None:
            if not self._snippets_requested:
                self._snippets_requested = True
                self.call_later(self._request_snippets)
            return [Segment("    …", style)]
        text, spans = snippet
        start = 0
        if spans and spans[0][0] > 12:  # start near the first match so it is visible
            start = text.rfind(" ", 0, spans[0][0] - 10) + 1
        muted = style + self.get_component_rich_style("paper-list--snippet", partial=True)
        match = style + self.get_component_rich_style("paper-list--match", partial=True)
        segments = [Segment("    " + ("…" if start else ""), muted)]
        pos = start
        for a, b in spans:
            if b <= start:
                continue
            a = max(a, start)
            segments.append(Segment(text[pos:a], muted))
            segments.append(Segment(text[a:b], match))
            pos = b
        segments.append(Segment(text[pos:], muted))
        return segments

    def visible_rows(self) -> list[int]:
        top = int(self.scroll_y) // self._row_height
        count = self.scrollable_content_region.height // self._row_height + 2
        return [self.rows[i] for i in range(top, min(len(self.rows), top + count))]

    def _request_snippets(self) -> None:
        self._snippets_requested = False
        missing = [r for r in self.visible_rows() if r not in self.snippets]
        if missing:
            self.post_message(self.SnippetsWanted(missing))


def tag_label(tags: Sequence[str]) -> str:
    """Tags as a line shows them: ``#toread #"two words"`` (as ``tag:`` would find each)."""
    return " ".join(f'#"{t}"' if any(c.isspace() or c in '()"' for c in t) else f"#{t}" for t in tags)


def _fit(text: str, width: int) -> str:
    """Truncate by terminal cells (wide characters count double), with an ellipsis. Only the
    first few cells' worth is measured: a megabyte-long title costs what a short one does."""
    if width <= 0:
        return ""
    if len(text) > 4 * width:
        return set_cell_size(text[: 4 * width], width - 1) + "…"
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"
