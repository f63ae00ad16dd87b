"""Issue 10's fixes from the user trial: the hidden detail pane's width, scrolling the detail pane
with j/k/Space, the help and palette listing the reader's own commands once, index progress that
never goes back, and copying inside tmux."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import fake_tool, ready, write_jsonl
from textual.command import CommandList

from tui_reader.app import tmux
from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import IndexProgress
from tui_reader.app.progress import OverallProgress
from tui_reader.app.screens import loading as main
from tui_reader.app.screens.help import HelpScreen

MakeApp = Callable[..., ReaderApp]


def notices(app: ReaderApp) -> list[str]:
    return [n.message for n in app._notifications]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_hiding_the_detail_gives_the_list_the_whole_screen(
    make_app: MakeApp, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await ready(pilot)
        panes = screen.query_one("#panes").region
        assert screen.papers.region.width < size[0] or screen.papers.region.height < panes.height
        await pilot.press("d")
        await pilot.pause()
        assert not screen.detail.display
        assert screen.papers.region.width == size[0] == app.screen.size.width
        assert screen.papers.region.height == panes.height
        await pilot.press("d")
        await pilot.pause()
        assert screen.detail.display and screen.detail.region.width > 0


async def test_j_k_and_space_scroll_the_detail_pane(make_app: MakeApp, tmp_path: Path) -> None:
    long = " ".join(f"sentence {i} of a long abstract." for i in range(600))
    corpus = write_jsonl(
        tmp_path / "long.jsonl",
        [{"title": "Long", "abstract": long}, {"title": "Short", "abstract": "A short one."}],
    )
    app = make_app(corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        detail = screen.detail
        await pilot.press("tab")
        assert app.focused is detail
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert detail.scroll_y == 3
        await pilot.press("k")
        await pilot.pause()
        assert detail.scroll_y == 2
        await pilot.press("space")
        await pilot.pause()
        assert detail.scroll_y > 2 + detail.scrollable_content_region.height // 2
        await pilot.press("G")
        await pilot.pause()
        assert detail.scroll_y == detail.max_scroll_y > 0
        await pilot.press("g")
        await pilot.pause()
        assert detail.scroll_y == 0
        assert screen.papers.cursor == 0  # the list did not move
        await pilot.press("escape", "j")
        assert app.focused is screen.papers and screen.papers.cursor == 1


async def test_help_lists_the_readers_own_keys_in_columns(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.text()
        for textual_own in ("Scroll Left", "Scroll Right", "Page Left", "Focus Next", "Copy selected text"):
            assert textual_own not in text
        for ours in (
            "Scroll down",
            "Page down",
            "Bookmark the highlighted paper",
            "Tab / Shift+Tab",
            "ctrl+p",
        ):
            assert ours in text
        keys = help_screen.query(".help-keys")
        texts = help_screen.query(".help-text")
        assert len(keys) == len(texts) > 20
        assert len({w.region.right for w in keys}) == 1  # one column of keys ...
        assert len({w.region.x for w in texts}) == 1  # ... and one of descriptions
        wrapped = [w for w in texts if w.region.height > 1]
        assert wrapped, "a long description wraps within its column"


async def test_the_palette_lists_quit_once(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        titles = [c.title for c in app.get_system_commands(screen)]
        assert titles.count("Quit") == 1 and "Theme" in titles
        await pilot.press("ctrl+p", *"quit")
        await pilot.pause(0.5)
        commands = app.screen.query_one(CommandList)
        shown = [commands.get_option_at_index(i).prompt for i in range(commands.option_count)]
        assert [str(p).split("\n")[0] for p in shown].count("Quit") == 1  # title, then help
        await pilot.press("escape")


def test_overall_progress_never_goes_back() -> None:
    overall = OverallProgress()
    calls = [
        (0, 0, "waiting for another tui-reader"),
        (0, 1000, "indexing"),
        (500, 1000, "indexing"),
        (17, 100, "writing the index"),
        (700, 1000, "indexing"),  # a late count from another process
        (100, 100, "writing the index"),
        (1000, 1000, "finishing"),
        (1000, 1000, "some new phase"),
    ]
    shown = [overall.update(*call) for call in calls]
    assert shown == [
        "waiting for another tui-reader",
        "indexing 0%",
        "indexing 40%",
        "writing the index 82%",
        "indexing 82%",
        "writing the index 95%",
        "finishing 99%",
        "some new phase 99%",
    ]
    assert overall.update(1000, 1000, "some new phase") is None  # no repeats
    updating = OverallProgress()
    assert [updating.update(n, 200, "updating") for n in (0, 100, 200)] == [
        "updating 0%",
        "updating 49%",
        "updating 99%",
    ]


async def test_the_status_shows_one_rising_figure_while_building(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    class Recorded(IndexProgress):
        def __init__(self, state: str) -> None:
            seen.append(state)
            super().__init__(state)

    monkeypatch.setattr(main, "IndexProgress", Recorded)
    records = [{"title": f"Paper {i}", "abstract": f"Words about topic {i} and more."} for i in range(600)]
    app = make_app(write_jsonl(tmp_path / "six-hundred.jsonl", records))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "ready"
    figures = [int(s.rsplit(" ", 1)[1].rstrip("%")) for s in seen if s.endswith("%")]
    assert len(figures) > 3 and figures == sorted(figures) and figures[-1] <= 99
    assert any(s.startswith("indexing") for s in seen)


@pytest.mark.parametrize(
    ("tmux_says", "expected"),
    [
        ("echo off", "tmux has set-clipboard off"),
        ("echo external", "tmux has set-clipboard external"),
        ("exit 1", "could not ask tmux whether set-clipboard is on"),
        ("echo on", ""),
    ],
)
def test_terminal_copy_problem_asks_tmux(bin_dir: Path, tmux_says: str, expected: str) -> None:
    fake_tool(bin_dir, "tmux", tmux_says)
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "PATH": str(bin_dir)}
    problem = tmux.terminal_copy_problem(env)
    assert problem.startswith(expected) and (not expected or tmux.TMUX_FIX in problem)
    assert tmux.terminal_copy_problem({"PATH": str(bin_dir)}) == ""  # not inside tmux


async def test_copy_inside_tmux_without_set_clipboard_says_so(
    make_app: MakeApp, fake_xclip: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_tool(bin_dir, "tmux", 'test "$*" = "show-options -gv set-clipboard" && echo off')
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        abstract = screen.corpus.paper(0).abstract
        assert fake_xclip.read_text() == abstract  # the system clipboard still got it
        assert notices(app)[-1] == (
            f'Copied the abstract ({len(abstract):,} chars) (tmux has set-clipboard off (add "set -g'
            ' set-clipboard on" to ~/.tmux.conf)).'
        )
        fake_tool(bin_dir, "tmux", "echo on")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert notices(app)[-1] == f"Copied the abstract ({len(abstract):,} chars)."
