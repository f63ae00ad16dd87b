"""Issue 19's findings 5, 7, 8, 9 and 10 (the widgets' part), and one-line notices, driven with
Pilot on the real reader and read off the screen as drawn (the compositor's lines).

Two wirings are the screen's to make (it composes the widgets): the footer must be a
``ReaderFooter`` and the list must be bound to the screen's corpus and order. ``wired`` makes
them on the screen under test when the screen does not yet, so these tests exercise the widgets
in the real screen; the tests marked xfail check that the screen makes them itself.

16 colours: a terminal with TERM=xterm gets Textual's truecolor styles rounded to the 16
standard colours when they are written out (``Color.downgrade(ColorSystem.STANDARD)``, rich's
Strip rendering); a theme with ``ansi=True`` (``ansi-dark``) draws in the terminal's own 16
colours. ``colour_pairs`` does the first rounding itself on the list's drawn Strips; the second
is ``app.theme = "ansi-dark"``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import detail_text, drained, enter_query, ready, settle, write_jsonl
from rich.color import ColorSystem
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Footer

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.widgets.facets import FacetPanel
from tui_reader.app.widgets.footer import ReaderFooter, choose
from tui_reader.app.widgets.notices import fit_words, notice_width, one_line
from tui_reader.app.widgets.paper_detail import DetailView, ReadingState
from tui_reader.app.widgets.status_line import StatusLine
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]

LONG_TITLE = (
    "Contrastive representation learning with augmentation invariances for remarkably robust"
    " embeddings of everything"
)
VENUES = ("ICML", "NeurIPS", "CVPR", "AAAI", "ICLR")
WIDTHS = (60, 80, 120)


def paper(i: int) -> dict[str, object]:
    words = ("graph", "diffusion", "robot", "bandit")[i % 4]
    return {
        "title": LONG_TITLE if i == 0 else f"Paper {i} on {words} learning",
        "year": 2015 + i % 10,
        "venue": f"{VENUES[i % len(VENUES)]} {2015 + i % 10}",
        "url": f"https://example.org/paper/{i}",
        "doi": f"10.1000/x{i}",
        "authors": [f"Author{i} Family{i}", "Shared Person", "Third Person", "Fourth Person"],
        "abstract": f"Abstract{i} opens here. We study {words} learning with many words that make the"
        " abstract run well past the width of one line so that snippets must be cut somewhere"
        " in the middle of their text, and we say so.",
    }


@pytest.fixture
def papers30(tmp_path: Path) -> Path:
    folder = tmp_path / "thirty"
    folder.mkdir()
    return write_jsonl(folder / "papers.jsonl", [paper(i) for i in range(30)])


# -- helpers ----------------------------------------------------------------------------------


def screen_lines(app: ReaderApp) -> list[str]:
    """The screen's text as drawn, one string per terminal line."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, color_system=None)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()


async def wired(pilot: Pilot) -> MainScreen:
    """The screen, with the footer a ReaderFooter and the list bound to the corpus and order."""
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    footer = screen.query_one(Footer)
    if not isinstance(footer, ReaderFooter):
        await footer.remove()
        await screen.mount(ReaderFooter())
    papers = screen.papers
    if not papers._reactive_connect or "corpus" not in papers._reactive_connect:
        with screen._context():
            papers.data_bind(type(screen).corpus, order=type(screen).order)
    await pilot.pause(0.1)
    await pilot.pause()
    return screen


def status_drawn(app: ReaderApp) -> str:
    return screen_lines(app)[-2]


def footer_drawn(app: ReaderApp) -> str:
    return screen_lines(app)[-1]


# -- finding 5: the status line and the footer fit ----------------------------------------------


async def test_status_line_keeps_the_index_state_at_60_80_120(
    make_app: MakeApp, papers30: Path, bookmarks_path: Path
) -> None:
    """With bookmarks of another collection and a query, the line ends with the index's state at
    every width (at 120 it ended '★ 2 (2 not in'), the least important parts dropped first."""
    store = BookmarkStore(bookmarks_path)
    store.add("deadbeef0001", "From another collection")
    store.add("deadbeef0002", "From another one")
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await pilot.press("b")
        await drained(pilot)
        await enter_query(pilot, "graph learning")
        for width in WIDTHS:
            await pilot.resize_terminal(width, 30)
            await pilot.pause(0.1)
            line = status_drawn(app).rstrip()
            assert line.endswith("index: ready"), (width, line)
            assert len(line) <= width - 1
        status = screen.query_one(StatusLine)
        assert "★ 3 (2 elsewhere)" in status.content.plain
        await pilot.resize_terminal(120, 30)
        await pilot.pause(0.1)
        assert "★ 3" in status_drawn(app) and "query: graph learning" in status_drawn(app)


async def test_one_match_is_one_match(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "Abstract7")
        status = screen.query_one(StatusLine).content.plain
        assert "1 shown of 1 match ·" in status, status


async def test_footer_keeps_help_and_quit_at_60_80_120(make_app: MakeApp, papers30: Path) -> None:
    """At 80 columns Textual's footer ran '? Help' and 'q Quit' off the edge."""
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await wired(pilot)
        for width in WIDTHS:
            await pilot.resize_terminal(width, 30)
            await pilot.pause(0.2)
            await pilot.pause()
            line = footer_drawn(app)
            assert "? Help" in line and "q Quit" in line, (width, line)
            assert "/ Search" in line, (width, line)
        assert "s Similar" in line and "^p palette" in line  # at 120 there is room for all


async def test_the_screen_composes_the_reader_footer(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        assert isinstance(screen.query_one(Footer), ReaderFooter)


def test_footer_chooses_help_and_quit_first_then_the_screens_order() -> None:
    items = [("focus_search", 10), ("toggle_bookmark", 12), ("cycle_sort", 8), ("help", 8), ("quit", 8)]
    assert choose(items, 30, 0) == {"help", "quit", "focus_search"}
    assert choose(items, 50, 12) == {"help", "quit", "focus_search", "toggle_bookmark"}
    assert choose(items, 16, 12) == {"help", "quit"}  # the palette key gives way to them


# -- finding 7: the facet panel obeys the app's keys ------------------------------------------


async def open_facets(pilot: Pilot) -> FacetPanel:
    await pilot.press("f")
    await drained(pilot)
    panel = pilot.app.screen.query_one(FacetPanel)
    assert panel.display and panel.has_focus and panel.facets is not None
    return panel


async def test_j_and_k_move_in_the_facet_panel(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        panel = await open_facets(pilot)
        first = panel.highlighted
        assert first is not None
        await pilot.press("j")
        assert panel.highlighted is not None and panel.highlighted > first
        await pilot.press("k")
        assert panel.highlighted == first


async def test_esc_closes_the_facet_panel_and_the_list_has_the_focus(
    make_app: MakeApp, papers30: Path
) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        panel = await open_facets(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert not panel.display
        assert screen.papers.has_focus


async def test_the_detail_pane_keeps_its_width_with_the_facet_panel_open(
    make_app: MakeApp, papers30: Path
) -> None:
    """At 120 columns it shrank to ~32 columns: the list kept 45% and the panel took 30."""
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await open_facets(pilot)
        await pilot.pause()
        assert screen.detail.size.width >= 42
        assert screen.papers.size.width >= 42


async def test_after_a_facet_value_the_caret_is_at_the_end(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "learning")
        panel = await open_facets(pilot)
        await pilot.press("enter")  # the first value (the newest year)
        await settle(pilot)
        text = screen.search_bar.value
        assert text.startswith("learning year:"), text
        assert screen.search_bar.input.cursor_position == len(text)
        assert panel.display  # still open, counting the narrowed query


# -- finding 8: 16 colours ----------------------------------------------------------------------


def colour_pairs(screen: MainScreen, system: ColorSystem | None) -> dict[str, tuple[object, object]]:
    """The cursor row's text, segment by segment, as (foreground, background) once rounded to
    ``system`` (None: as the theme gives them, an ANSI theme's own numbers)."""
    papers = screen.papers
    row_height = papers.virtual_size.height // len(papers.rows)
    top = papers.cursor * row_height - int(papers.scroll_y)
    pairs: dict[str, tuple[object, object]] = {}
    for y in range(top, top + row_height):
        for segment in papers.render_line(y):
            style = segment.style
            if style is None or not segment.text.strip():
                continue
            fg, bg = style.color, style.bgcolor
            if system is not None:
                fg, bg = (c.downgrade(system) if c is not None else None for c in (fg, bg))
            key = lambda c: None if c is None else (c.number if c.number is not None else c.name)  # noqa: E731
            pairs[segment.text.strip()] = (key(fg), key(bg))
    return pairs


async def cursor_row_with_everything(pilot: Pilot) -> MainScreen:
    """The cursor on a bookmarked, tagged, unread paper of a search (a snippet with matches)."""
    screen = await ready(pilot)
    await enter_query(pilot, "graph")
    await pilot.press("t", *"toread", "enter")
    await drained(pilot)
    screen.papers.focus()
    await pilot.pause()
    return screen


@pytest.mark.parametrize("mode", ["downgraded", "ansi-dark"])
async def test_the_cursor_rows_marks_are_readable_in_16_colours(
    make_app: MakeApp, papers30: Path, mode: str
) -> None:
    """Every part of the cursor row (★, #tags, the unread mark, matched words) is drawn in the
    cursor's own pair of colours, which the theme makes readable; their own colours (yellow,
    green on light grey) were not."""
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await cursor_row_with_everything(pilot)
        if mode == "ansi-dark":
            app.theme = "ansi-dark"
            await pilot.pause()
        pairs = colour_pairs(screen, ColorSystem.STANDARD if mode == "downgraded" else None)
        assert "★" in pairs and "#toread" in pairs and "graph" in pairs and "•" in pairs, pairs
        title = next(v for k, v in pairs.items() if k.startswith("Paper"))
        assert title[0] != title[1]
        assert {k: v for k, v in pairs.items() if v != title} == {}


# -- finding 9: the abstract at 60x20 -----------------------------------------------------------


async def test_at_60x20_the_detail_pane_shows_the_abstract(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(60, 20)) as pilot:
        await ready(pilot)
        await pilot.press("j")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "Abstract1 opens here" in shown, shown


# -- finding 10: the list's column and its cuts -------------------------------------------------


def list_lines(app: ReaderApp, screen: MainScreen) -> list[str]:
    """The list's lines as drawn, without its border, scroll bar and trailing blanks."""
    region = screen.papers.region
    lines = screen_lines(app)[region.y : region.y + region.height]
    return [line[region.x : region.x + region.width].rstrip("▕▁▂▃▄▅▆▇█ ") for line in lines]


@pytest.mark.parametrize("width", [80, 120])
async def test_the_list_shows_year_and_venue(make_app: MakeApp, papers30: Path, width: int) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(width, 30)) as pilot:
        screen = await ready(pilot)
        await wired(pilot)
        lines = list_lines(app, screen)
        assert lines[1].endswith("  2016 NeurIPS"), lines[1]
        await pilot.press("S", "S")  # venue order: the venue first
        await drained(pilot)
        await pilot.pause()
        assert screen.order == "venue"
        rows = [line for line in list_lines(app, screen) if line.strip()]
        assert rows and all(re.search(r"  (AAAI|ICML|NeurIPS|CVPR|ICLR) 20\d\d$", r) for r in rows), rows


async def test_the_screen_binds_the_lists_corpus_and_order(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.papers.corpus is screen.corpus
        await pilot.press("S")
        await drained(pilot)
        assert screen.papers.order == screen.order == "year"


async def test_titles_and_snippets_are_cut_at_a_word(make_app: MakeApp, papers30: Path) -> None:
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await wired(pilot)
        await enter_query(pilot, "contrastive")
        title_line, snippet_line = list_lines(app, screen)[:2]
        shown = title_line[3:].split("…")[0]
        assert "…" in title_line and LONG_TITLE.startswith(shown) and LONG_TITLE[len(shown)] == " ", (
            title_line
        )
        snippet = snippet_line.strip()
        assert snippet.endswith("…"), snippet_line
        words = paper(0)["abstract"].split()  # type: ignore[union-attr]
        assert snippet.lstrip("…").rstrip("…").split()[-1] in words  # a whole word before "…"


async def test_the_column_reads_only_the_rows_on_screen(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list stays virtual: the column reads each row it draws, not the collection."""
    folder = tmp_path / "many"
    folder.mkdir()
    path = write_jsonl(folder / "papers.jsonl", [paper(i) for i in range(600)])
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        corpus = screen.corpus
        assert corpus is not None
        asked: set[int] = set()
        real = corpus.row

        def row(i: int) -> tuple[object, ...]:
            asked.add(i)
            return real(i)

        monkeypatch.setattr(corpus, "row", row)
        await wired(pilot)
        await pilot.press("G")
        await pilot.pause()
        height = screen.papers.scrollable_content_region.height
        assert 0 < len(asked) <= 3 * (height + 2)
        last = list_lines(app, screen)[-1]
        assert last.rstrip().endswith("2024 ICLR") and "Paper 599 on bandit learning " in last


# -- notices are one line -----------------------------------------------------------------------


def test_one_line_collapses_lines_and_cuts_at_a_word() -> None:
    text = 'Copied the citation of "Attention is all you need" to the clipboard.\nInstall xclip to copy.'
    line = one_line(text, 40)
    assert "\n" not in line and len(line) <= 40 and line.endswith("…")
    assert line == 'Copied the citation of "Attention is…'
    assert one_line("short\n\tnotice", 40) == "short notice"
    assert one_line("a\x1b[31mred", 40) == "a\u241b[31mred"  # control characters shown, not obeyed


def test_fit_words_keeps_a_long_first_word_and_wide_characters() -> None:
    assert fit_words("Supercalifragilisticexpialidocious words", 10) == "Supercali…"
    assert fit_words("漢字漢字漢字漢字 漢字", 10) == "漢字漢字…"
    assert fit_words("Graph neural networks are not continuous", 22) == "Graph neural networks…"
    assert fit_words("fits", 4) == "fits"
    assert fit_words("x" * 1_000_000, 10) == "x" * 9 + "…"


async def test_the_detail_pane_can_be_bound_to_a_detail_view(make_app: MakeApp, papers30: Path) -> None:
    """PaperDetail.paper_view (for data_bind): a DetailView shows the paper, a str a message."""
    app = make_app(papers30)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        screen.detail.paper_view = DetailView(screen.corpus.paper(5), reading=ReadingState(read_at="now"))
        await pilot.pause()
        assert detail_text(app).startswith(
            "Paper 5 on diffusion learning\n"
        ) and "Read just now" in detail_text(app)
        screen.detail.paper_view = "No matches."
        await pilot.pause()
        assert detail_text(app) == "No matches."


async def test_at_60x20_the_abstract_shows_with_the_facet_panel_open(
    make_app: MakeApp, papers30: Path
) -> None:
    """Stacked panes: the panel takes 30% of the height, the list and the detail share the rest."""
    app = make_app(papers30)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await ready(pilot)
        await open_facets(pilot)
        screen.papers.cursor = 1  # a title of one line (the first one takes three at 60 columns)
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "Abstract1 opens here" in shown, shown


@pytest.mark.parametrize(("terminal", "room"), [(120, 56), (80, 37), (60, 27)])
async def test_a_notice_cut_to_notice_width_is_one_toast_line(terminal: int, room: int) -> None:
    """A toast is 60 cells wide but at most half the terminal: notice_width is what one of its
    lines holds (measured on a real toast)."""
    from textual.app import App

    assert notice_width(terminal) == room
    app = App()
    async with app.run_test(size=(terminal, 20), notifications=True) as pilot:
        app.notify(one_line("word " * 40, notice_width(terminal)), timeout=30)
        await pilot.pause(0.2)
        [toast] = app.screen.query("Toast")
        assert toast.content_region.height == 1
        app.notify("x" * (room + 1), timeout=30)  # one cell more than fits wraps
        await pilot.pause(0.2)
        assert max(t.content_region.height for t in app.screen.query("Toast")) == 2
