"""Issue 19's trial findings 1, 2, 3, 4 and 6 and its "also wanted" items, driven as a user drives
the reader (Pilot keys and resizes) on a small real collection with a real index.

Each test reproduced its finding on the code the issue was filed against (a6895b3: they were
strict xfails there) and passes on the views redesign; the assertions read only what the user
sees or what persists (the list's rows, cursor and scroll, the search bar, the detail pane, the
status line, the notices and toasts, read.json and the bookmarks file).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import detail_text, drained, enter_query, ready, status_text, write_jsonl
from textual.pilot import Pilot

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen
from tui_reader.library.sorting import SORT_LABELS, title_key

MakeApp = Callable[..., ReaderApp]

READ_DELAY = 0.1  # seconds (config.toml); the waits below are several times longer
DWELL = 0.8  # a pause well past READ_DELAY (timers run late on a busy machine)

TOPICS: dict[str, list[str]] = {
    "contrastive": ["contrastive", "representation", "augmentation", "embedding", "negatives"],
    "diffusion": ["diffusion", "denoising", "sampler", "score", "noise"],
    "robot": ["robot", "grasping", "manipulation", "gripper", "tactile"],
    "graph": ["graph", "message", "passing", "node", "edges"],
    "bandit": ["bandit", "regret", "exploration", "arms", "thompson"],
}
NAMES = [
    "Zephyr",
    "Kestrel",
    "Amber",
    "Quartz",
    "Marigold",
    "Bramble",
    "Orchid",
    "Cobalt",
    "Juniper",
    "Saffron",
    "Tundra",
    "Willow",
    "Lantern",
    "Ember",
    "Hazel",
    "Nectar",
    "Obsidian",
    "Pebble",
    "Quill",
    "Russet",
    "Sable",
    "Thistle",
    "Umber",
    "Velvet",
    "Wren",
    "Yarrow",
    "Acorn",
    "Basil",
    "Cinder",
    "Dune",
    "Fennel",
    "Garnet",
    "Heron",
    "Iris",
    "Jasper",
    "Kelp",
    "Lichen",
    "Moss",
    "Nutmeg",
    "Opal",
]
VENUES = ("ICML", "NeurIPS", "CVPR", "AAAI", "ICLR")
LONG_TITLE = (
    "Contrastive representation learning with augmentation invariances for remarkably robust"
    " embeddings of everything"
)


def paper(i: int) -> dict[str, object]:
    """Paper i: topic i % 5, a distinct first word (so title order is not collection order), a
    year and venue that vary, a link, and 'learning' in every abstract."""
    topic = list(TOPICS)[i % len(TOPICS)]
    words = TOPICS[topic]
    name = NAMES[i % len(NAMES)] + (f" {i // len(NAMES)}" if i >= len(NAMES) else "")
    repeat = " ".join([words[0]] * (1 + i % 4))
    abstract = (
        f"{name} studies {repeat} learning with {words[1]} and {words[2]}. We report {words[3]}"
        f" {words[4]} results; {name.lower()} {words[1 + i % 4]} learning" + " more" * (i % 7) + "."
    )
    return {
        "title": LONG_TITLE if i == 0 else f"{name} {words[0]} {words[1 + i % 3]}",
        "year": 2015 + (i * 7) % 10,
        "venue": f"{VENUES[(i * 3) % len(VENUES)]} {2015 + (i * 7) % 10}",
        "url": f"https://example.org/paper/{i}",
        "authors": [f"{name} Author", "Shared Person"],
        "abstract": abstract,
    }


@pytest.fixture
def papers40(tmp_path: Path) -> Path:
    folder = tmp_path / "forty"
    folder.mkdir()
    return write_jsonl(folder / "papers.jsonl", [paper(i) for i in range(40)])


@pytest.fixture
def papers150(tmp_path: Path) -> Path:
    """More matches for 'learning' than one page of results (100)."""
    folder = tmp_path / "many"
    folder.mkdir()
    return write_jsonl(folder / "papers.jsonl", [paper(i) for i in range(150)])


@pytest.fixture
def timed(config_file: Path) -> Path:
    """A config with a short read_delay: papers on screen that long count as read."""
    config_file.write_text(f"read_delay = {READ_DELAY}\n", encoding="utf-8")
    return config_file


def read_ids(data_dir: Path) -> set[str]:
    path = data_dir / "read.json"
    return set(json.loads(path.read_text())["read"]) if path.exists() else set()


def bookmarked_ids(bookmarks_path: Path) -> set[str]:
    if not bookmarks_path.exists():
        return set()
    entries = json.loads(bookmarks_path.read_text())["bookmarks"]
    return {e["id"] for e in entries} if isinstance(entries, list) else set(entries)


def ids_of(screen: MainScreen, rows: object) -> list[str]:
    assert screen.corpus is not None
    return [screen.corpus.ids[r] for r in rows]  # type: ignore[attr-defined]


def highlighted_id(screen: MainScreen) -> str | None:
    row = screen.papers.highlighted_row
    return None if row is None or screen.corpus is None else screen.corpus.ids[row]


def cursor_visible(screen: MainScreen) -> bool:
    """The cursor's paper is drawn within the list's visible lines."""
    papers = screen.papers
    row = papers.highlighted_row
    if row is None or not papers.rows:
        return False
    index = list(papers.rows).index(row)
    per_row = max(1, papers.virtual_size.height // len(papers.rows))
    top = int(papers.scroll_offset.y)
    height = papers.scrollable_content_region.height
    return top <= index * per_row and (index + 1) * per_row <= top + height


def detail_shows_cursor_paper(screen: MainScreen) -> bool:
    row = screen.papers.highlighted_row
    assert row is not None and screen.corpus is not None
    return screen.corpus.titles[row] in " ".join(detail_text(screen.app).split())


def toasts(app: ReaderApp) -> list[object]:
    return list(app.screen.query("Toast"))


async def press(pilot: Pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await drained(pilot)


# -- finding 1: Esc pops the view stack ---------------------------------------------------------


async def test_esc_out_of_similar_papers_restores_the_search(make_app: MakeApp, papers40: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "contrastive")
        await press(pilot, "j", "j")
        rows, third, scroll = list(screen.papers.rows), highlighted_id(screen), screen.papers.scroll_offset.y
        assert len(rows) == 8 and third == ids_of(screen, rows)[2]
        await press(pilot, "s")
        assert list(screen.papers.rows) != rows  # the similar papers are on show
        await press(pilot, "escape")
        assert screen.search_bar.value == "contrastive"
        assert list(screen.papers.rows) == rows
        assert highlighted_id(screen) == third
        assert screen.papers.scroll_offset.y == scroll
        assert "contrastive" in status_text(screen)


async def test_esc_out_of_similar_papers_keeps_the_scroll(make_app: MakeApp, papers40: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "learning")  # every paper, two lines each: more than a screen
        await press(pilot, *["j"] * 25)
        rows, on, scroll = list(screen.papers.rows), highlighted_id(screen), screen.papers.scroll_offset.y
        assert scroll > 0
        await press(pilot, "s", "escape")
        assert screen.search_bar.value == "learning" and list(screen.papers.rows) == rows
        assert highlighted_id(screen) == on and screen.papers.scroll_offset.y == scroll


async def test_esc_esc_pops_similar_then_search_back_to_the_sorted_collection(
    make_app: MakeApp, papers40: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, "S")  # collection order -> year (the default order is relevance)
        await press(pilot, *["j"] * 5)
        sorted_rows, before = list(screen.papers.rows), highlighted_id(screen)
        sorted_status = status_text(screen)
        await enter_query(pilot, "contrastive")
        await press(pilot, "j", "j")
        results, on_result = list(screen.papers.rows), highlighted_id(screen)
        await press(pilot, "s")
        await press(pilot, "escape")  # similar -> the search
        assert (screen.search_bar.value, list(screen.papers.rows)) == ("contrastive", results)
        assert highlighted_id(screen) == on_result
        await press(pilot, "escape")  # the search -> the sorted collection
        assert screen.search_bar.value == ""
        assert list(screen.papers.rows) == sorted_rows
        assert highlighted_id(screen) == before
        assert status_text(screen) == sorted_status


async def test_esc_pops_the_unread_view_to_where_the_cursor_was(make_app: MakeApp, papers40: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, "j", "j", "j", "u", "g")  # the fourth paper read; back on the first
        rows, on_top = list(screen.papers.rows), highlighted_id(screen)
        await press(pilot, "U", "j", "j", "j", "j")  # the unread view: move in it
        assert highlighted_id(screen) != on_top and len(screen.papers.rows) == 39
        await press(pilot, "escape")
        assert list(screen.papers.rows) == rows
        assert highlighted_id(screen) == on_top  # where it was when U was pressed


async def test_esc_pops_a_facet_choice_back_to_the_search(make_app: MakeApp, papers40: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "learning")
        await press(pilot, "j", "j", "j")
        results, on_result = list(screen.papers.rows), highlighted_id(screen)
        await press(pilot, "f")
        await pilot.pause(0.2)
        await press(pilot, "enter")  # the first value (a year) narrows the query
        assert screen.search_bar.value.startswith("learning ") and screen.search_bar.value != "learning "
        assert len(screen.papers.rows) < len(results)
        await press(pilot, "escape")
        assert screen.search_bar.value == "learning"
        assert list(screen.papers.rows) == results and highlighted_id(screen) == on_result


# -- finding 2: read means read -----------------------------------------------------------------


async def test_typing_and_pausing_does_not_mark_the_top_hit_read(
    make_app: MakeApp, papers40: Path, timed: Path, data_dir: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        first = highlighted_id(screen)
        await pilot.press("slash", *"diffusion")
        await pilot.pause(DWELL)
        await drained(pilot)
        top = highlighted_id(screen)
        assert screen.corpus is not None and top != first
        assert "diffusion" in screen.corpus.abstract(screen.papers.rows[0])  # type-ahead's answer
        assert app.focused is screen.search_bar.input
        assert top not in read_ids(data_dir)


async def test_launching_marks_nothing_read_until_the_user_moves(
    make_app: MakeApp, papers40: Path, timed: Path, data_dir: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        first = highlighted_id(screen)
        await pilot.pause(DWELL)
        await drained(pilot)
        assert read_ids(data_dir) == set() and first not in screen.read
        await pilot.press("j")  # moving: the paper moved to is read once shown for read_delay
        await pilot.pause(DWELL)
        await drained(pilot)
        assert read_ids(data_dir) == {highlighted_id(screen)}


async def test_the_session_restored_paper_is_not_marked_read_at_launch(
    make_app: MakeApp, papers40: Path, config_file: Path, data_dir: Path
) -> None:
    app = make_app(papers40)  # read_delay = 0 (conftest): this visit reads nothing by itself
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, "j", "j", "j", "j")
        left_on = highlighted_id(screen)
    assert read_ids(data_dir) == set()
    config_file.write_text(f"read_delay = {READ_DELAY}\n", encoding="utf-8")
    again = make_app(papers40)
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.pause(DWELL)
        await drained(pilot)
        assert highlighted_id(screen) == left_on  # the session put the cursor back
        assert read_ids(data_dir) == set()
        await press(pilot, "enter")  # Enter reads it
        assert read_ids(data_dir) == {left_on}


async def test_the_top_similar_paper_is_not_marked_read_until_the_user_moves(
    make_app: MakeApp, papers40: Path, timed: Path, data_dir: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, "j", "j")
        await pilot.pause(DWELL)
        await drained(pilot)
        before = read_ids(data_dir)
        await press(pilot, "s")
        assert app.focused is screen.papers
        top = highlighted_id(screen)
        assert top is not None and top not in before
        await pilot.pause(DWELL)
        await drained(pilot)
        assert read_ids(data_dir) == before
        await pilot.press("j")
        await pilot.pause(DWELL)
        await drained(pilot)
        assert read_ids(data_dir) == before | {highlighted_id(screen)}


async def test_control_moving_in_the_list_marks_the_paper_read(
    make_app: MakeApp, papers40: Path, timed: Path, data_dir: Path
) -> None:
    """The other side of finding 2 (passes before and after the fix): a paper the user moved to
    and left on screen, the focus in the list, for read_delay is read."""
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "j")
        await pilot.pause(DWELL)
        await drained(pilot)
        assert highlighted_id(screen) in read_ids(data_dir)


# -- finding 3: a sort pressed right after Enter ------------------------------------------------


class Gate:
    """Holds back searches while it is shut: a search runs as long as Enter's does on a large
    collection, so a key pressed right after Enter lands while it runs (as in the trial), every
    time. The answer is still Whoosh's own."""

    def __init__(self) -> None:
        self._shut = threading.Event()
        self._open = threading.Event()

    def shut(self) -> None:
        self._open.clear()
        self._shut.set()

    def open(self) -> None:
        self._shut.clear()
        self._open.set()

    def wait(self) -> None:
        if self._shut.is_set():
            self._open.wait(timeout=10)


@pytest.fixture
def search_gate(monkeypatch: pytest.MonkeyPatch) -> Gate:
    from tui_reader.search.searcher import Searcher

    gate, search = Gate(), Searcher.search

    def gated(self: Searcher, *args: Any, **kwargs: Any) -> Any:
        gate.wait()
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Searcher, "search", gated)
    return gate


def titles_sorted(screen: MainScreen) -> bool:
    assert screen.corpus is not None
    keys = [title_key(screen.corpus.titles[r]) for r in screen.papers.rows]
    return keys == sorted(keys)


async def test_a_sort_pressed_right_after_enter_applies_to_its_answer(
    make_app: MakeApp, papers40: Path, config_file: Path, search_gate: Gate
) -> None:
    config_file.write_text('read_delay = 0\nsort = "venue"\n', encoding="utf-8")
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash")
        screen.search_bar.input.value = "learning"
        search_gate.shut()
        await pilot.press("enter", "S")  # venue -> title, while Enter's search runs
        search_gate.open()
        await pilot.pause(0.3)
        await drained(pilot)
        assert len(screen.papers.rows) == 40 and "learning" in status_text(screen)
        assert f"by {SORT_LABELS['title']}" in status_text(screen)
        assert "sorting" not in status_text(screen)
        assert titles_sorted(screen)
        await press(pilot, "S")  # the order after title: date added, not relevance
        await pilot.pause(0.3)
        await drained(pilot)
        assert f"by {SORT_LABELS['added']}" in status_text(screen)
        assert "sorting" not in status_text(screen) and "relevance" not in status_text(screen)


# -- finding 4: the cursor stays on its paper, in sight -----------------------------------------


async def test_after_a_resize_the_cursor_is_in_sight(make_app: MakeApp, papers40: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, *["j"] * 30)
        on = highlighted_id(screen)
        assert cursor_visible(screen)
        await pilot.resize_terminal(60, 20)
        await pilot.pause(0.3)
        await drained(pilot)
        assert highlighted_id(screen) == on
        assert cursor_visible(screen)


async def test_after_esc_esc_the_list_and_the_detail_show_the_same_paper(
    make_app: MakeApp, papers40: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        last = screen.corpus.ids[39]  # the collection's last paper: far below the list's first page
        await enter_query(pilot, "opal")  # a search whose answer fits the pane: that paper only
        assert ids_of(screen, screen.papers.rows) == [last] and highlighted_id(screen) == last
        await press(pilot, "escape", "escape")
        await pilot.pause(0.2)
        assert detail_shows_cursor_paper(screen)
        assert cursor_visible(screen)


async def test_each_sort_keeps_the_cursor_on_its_paper_in_sight(
    make_app: MakeApp, papers150: Path, config_file: Path
) -> None:
    config_file.write_text('read_delay = 0\nsort = "relevance"\n', encoding="utf-8")
    app = make_app(papers150)  # 'learning' matches more than a page of results
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "learning")
        await press(pilot, *["j"] * 12)
        on = highlighted_id(screen)
        for _ in range(5):
            await press(pilot, "S")
            await pilot.pause(0.2)
            await drained(pilot)
            assert highlighted_id(screen) == on, status_text(screen)
            assert cursor_visible(screen), status_text(screen)
        await press(pilot, "escape")
        await press(pilot, *["j"] * 12)
        on = highlighted_id(screen)
        for _ in range(5):  # the whole collection too
            await press(pilot, "S")
            await pilot.pause(0.2)
            await drained(pilot)
            assert highlighted_id(screen) == on, status_text(screen)
            assert cursor_visible(screen), status_text(screen)


async def test_b_then_b_keeps_the_cursor_on_its_paper_in_sight(
    make_app: MakeApp, papers40: Path, bookmarks_path: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        await press(pilot, *["j"] * 20, "b")
        on = highlighted_id(screen)
        assert bookmarked_ids(bookmarks_path) == {on}
        await press(pilot, "B")
        assert ids_of(screen, screen.papers.rows) == [on] and highlighted_id(screen) == on
        await press(pilot, "B")
        await pilot.pause(0.2)
        assert highlighted_id(screen) == on and len(screen.papers.rows) == 40
        assert cursor_visible(screen)
        assert detail_shows_cursor_paper(screen)


# -- finding 6: notices are one line --------------------------------------------------------------


def toast_lines(app: ReaderApp) -> list[int]:
    """Lines of text each toast on screen shows (its content, without its padding)."""
    return [t.content_region.height for t in app.screen.query("Toast")]  # type: ignore[attr-defined]


def cut_mid_word(title: str, text: str) -> bool:
    """``text`` quotes a beginning of ``title`` that stops inside a word."""
    for end in range(len(title), 9, -1):
        if title[:end] in text:
            return end < len(title) and title[end - 1] != " " and title[end] != " "
    return False


async def test_a_copy_gives_a_one_line_notice(make_app: MakeApp, papers40: Path, no_clipboard: None) -> None:
    app = make_app(papers40)  # no clipboard tool (as over SSH): the copy goes through the terminal
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await press(pilot, "c")
        await pilot.pause(0.2)
        notice = list(app._notifications)[-1]
        assert "\n" not in notice.message and "\n" not in notice.title
        assert toast_lines(app) and all(lines == 1 for lines in toast_lines(app)), toast_lines(app)


async def test_copy_keys_in_a_row_leave_one_toast(
    make_app: MakeApp, papers40: Path, fake_xclip: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        for key in ("c", "C", "y", "Y", "L"):
            await press(pilot, key)
        await pilot.pause(0.2)
        assert 1 <= len(toasts(app)) <= 2
        assert all(lines == 1 for lines in toast_lines(app)), toast_lines(app)


async def test_a_title_in_a_notice_is_never_cut_mid_word(
    make_app: MakeApp, papers40: Path, fake_xclip: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "remarkably")
        assert highlighted_id(screen) == ids_of(screen, [0])[0]  # the paper with the long title
        for key in ("c", "u", "b", "y"):
            await press(pilot, key)
        await pilot.pause(0.2)
        shown = [(n.title, n.message) for n in app._notifications]
        assert shown
        for title, message in shown:
            assert not cut_mid_word(LONG_TITLE, title), title
            assert not cut_mid_word(LONG_TITLE, message), message


# -- also wanted: A marks the view read (with undo); a selection that b acts on ----------------------


async def test_a_marks_every_paper_in_the_view_read(
    make_app: MakeApp, papers40: Path, data_dir: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "contrastive")
        shown = set(ids_of(screen, screen.papers.rows))
        assert len(shown) == 8
        await press(pilot, "A")
        assert read_ids(data_dir) == shown
        assert "32 unread" in status_text(screen)


async def test_ctrl_z_undoes_a(make_app: MakeApp, papers40: Path, data_dir: Path) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await press(pilot, "u")  # read before A: stays read after the undo
        kept = read_ids(data_dir)
        await enter_query(pilot, "contrastive")
        await press(pilot, "A")
        assert read_ids(data_dir) == kept | set(ids_of(screen, screen.papers.rows))
        await press(pilot, "ctrl+z")
        assert read_ids(data_dir) == kept


async def test_v_selects_and_b_bookmarks_every_selected_paper(
    make_app: MakeApp, papers40: Path, bookmarks_path: Path
) -> None:
    app = make_app(papers40)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        rows = list(screen.papers.rows)
        await press(pilot, "j", "v", "j", "v", "j")  # v selects and moves down: the second and the fourth
        await press(pilot, "b")
        assert bookmarked_ids(bookmarks_path) == set(ids_of(screen, [rows[1], rows[3]]))
