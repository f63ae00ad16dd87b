"""A line-virtualised paper list: only the visible lines are ever rendered.

ListView mounts a widget per row (minutes at 87k) and OptionList measures every row on resize
(seconds at 87k); this draws each line on demand from plain lists, as Toolong does, so 87k rows
cost what 40 do. Titles are drawn as Segments, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
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
from tui_reader.app.widgets.notices import fit_words
from tui_reader.app.widgets.row_columns import RowColumns, column_cap, fit_cells, tag_label

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

__all__ = ["PaperList", "tag_label"]  # tag_label lives in row_columns; importers find it here too


class PaperList(ScrollView, can_focus=True):
    """Rows are corpus indices; titles and marks come from the screen's state. Each title has a
    marker column, ``+`` for a paper new since the last visit (unread), ``•`` for an unread one,
    then ``★`` for a bookmarked one; a tagged paper's tags end its line (``#toread``).

    In a result with snippets, a snippet line drawn before its snippet is known asks for it with
    ``SnippetsWanted``; the screen answers with ``set_snippets``.

    When there is room, a column at the right gives each paper's year and venue (``2019 ICML``),
    or the order's key first (``ICML 2019`` in venue order, the first author in author order):
    read from ``corpus`` (bind it) for the rows drawn only, and kept for a few screens' worth.
    Titles and snippets are cut at a word, with an ellipsis.

    On the cursor row the marks, tags and matched words keep the cursor's colours and differ by
    text style (bold, italic, underline): a colour of their own can be unreadable on the
    cursor's background once a 16-colour terminal has rounded both (grey on grey).
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
        "paper-list--selected",
        "paper-list--mark",
        "paper-list--tags",
        "paper-list--unread",
        "paper-list--new",
        "paper-list--snippet",
        "paper-list--match",
        "paper-list--empty",
        "paper-list--column",
        "paper-list--cursor-mark",
        "paper-list--cursor-tags",
        "paper-list--cursor-match",
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
    PaperList > .paper-list--column { color: $text-muted; }
    PaperList > .paper-list--cursor-mark { text-style: bold; }
    PaperList > .paper-list--cursor-tags { text-style: italic; }
    PaperList > .paper-list--selected { background: $secondary 35%; text-style: bold; }
    PaperList > .paper-list--cursor-match { text-style: bold underline; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    marked: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the bookmarked papers (the screen sets it from its bookmarks)."""
    selected: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers selected (``v``): b, t and E act on them."""
    read: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers read; the others are marked unread."""
    new: var[frozenset[str]] = var(frozenset(), init=False)
    """Ids of the papers new since the last visit."""
    no_abstract: var[frozenset[str]] = var(frozenset, init=False)
    """Ids of papers listed by their title only (no abstract in the source): marked in the list."""
    tags: var[dict[str, str]] = var(dict, init=False)
    """Id -> the paper's tags as shown at the end of its line (tag_label), for tagged papers."""
    corpus: var[Corpus | None] = var["Corpus | None"](None, init=False)
    """The collection the rows index: its year, venue and authors fill the column."""
    order: var[str] = var("relevance", init=False)
    """The order the rows are in ('year', 'venue', 'author', ...): its key leads the column."""

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
        self._columns = RowColumns()  # the year/venue column's fields of the rows drawn
        self._column_for: tuple[object, int] = (None, 0)  # (what the width was worked out for, width)

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

    def watch_corpus(self) -> None:
        self._columns = RowColumns(self.corpus)
        self.refresh()

    def watch_order(self) -> None:
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
        if self.selected and self.ids and self.ids[row] in self.selected:
            style = base + self.get_component_rich_style("paper-list--selected")
        if index == self.cursor:
            style = base + self.get_component_rich_style("paper-list--cursor")
        on_cursor = index == self.cursor
        if sub == 0:
            segments = self._title_segments(row, style, width, on_cursor)
        else:
            segments = self._snippet_segments(row, style, width, on_cursor)
        return Strip(segments).crop_extend(0, width, style)

    def _part_style(self, name: str, style: Style, on_cursor: bool) -> Style:
        """A mark's style: its own colour, or on the cursor row the cursor's, with a text style."""
        if on_cursor:
            name = name.replace("paper-list--", "paper-list--cursor-")
        return style + self.get_component_rich_style(name, partial=True)

    def _title_segments(self, row: int, style: Style, width: int, on_cursor: bool) -> list[Segment]:
        pid = self.ids[row] if self.ids else ""
        if pid in self.read:
            state = Segment(" ", style)
        else:
            kind = "new" if pid in self.new else "unread"
            marker = "+" if kind == "new" else "•"
            name = "paper-list--mark" if on_cursor else f"paper-list--{kind}"
            state = Segment(marker, self._part_style(name, style, on_cursor))
        marked = pid in self.marked
        mark = Segment("★ " if marked else "  ", self._part_style("paper-list--mark", style, on_cursor))
        segments = [state, mark]
        room = width - 3
        column = self._column_text(row, room)
        if column:
            room -= cell_len(column) + 2
        label = self.tags.get(pid)
        if pid in self.no_abstract:  # a citation entry without an abstract: says so in the list
            label = f"(title only) {label or ''}".rstrip()
        if label and room >= 21:
            label = fit_cells(label, room // 3)
            room -= cell_len(label) + 1
        else:
            label = ""
        title = fit_words(self.titles[row], room)
        segments.append(Segment(title + " " * (room - cell_len(title)), style))
        if label:
            segments.append(Segment(" " + label, self._part_style("paper-list--tags", style, on_cursor)))
        if column:
            muted = (
                style
                if on_cursor
                else style + self.get_component_rich_style("paper-list--column", partial=True)
            )
            segments.append(Segment("  " + column, muted))
        return segments

    def _column_text(self, row: int, room: int) -> str:
        """The column as wide as the widest on screen needs, at most what the room allows."""
        width = self._column_width(room)
        if not width:
            return ""
        text = self._columns.text(row, self.order)
        return fit_words(text, width).ljust(width) if text else " " * width

    def _column_width(self, room: int) -> int:
        """The column's width for the rows on screen (kept per frame: O(visible rows))."""
        cap = column_cap(room, self.order) if self.corpus is not None else 0
        if not cap:
            return 0
        key = (int(self.scroll_y), id(self.rows), len(self.rows), cap, self.order, id(self.corpus))
        if self._column_for[0] != key:
            texts = (self._columns.text(r, self.order) for r in self.visible_rows())
            self._column_for = (key, min(cap, max((cell_len(t) for t in texts), default=0)))
        return self._column_for[1]

    def _snippet_segments(self, row: int, style: Style, width: int, on_cursor: bool) -> list[Segment]:
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
        muted = (
            style if on_cursor else style + self.get_component_rich_style("paper-list--snippet", partial=True)
        )
        match = self._part_style("paper-list--match", style, on_cursor)
        lead = "    " + ("…" if start else "")
        shown = fit_words(text[start:], width - cell_len(lead))
        if shown.endswith("…") and not text[start:].startswith(shown):  # cut: the ellipsis stays
            text = text[: start + len(shown) - 1] + "…"
            spans = [(a, min(b, len(text) - 1)) for a, b in spans if a < len(text) - 1]
        segments = [Segment(lead, muted)]
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
