"""Search history (Up/Down, the palette), "did you mean" with ctrl+y, the session restored on the
next launch, and config.toml (theme, keys, bad entries), with Pilot on real files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pilot_helpers import drained, enter_query, notices, ready, settle, status_text
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.help import HelpScreen

MakeApp = Callable[..., ReaderApp]


async def palette(pilot: Pilot, text: str, open_it: bool = True) -> None:
    """Open the command palette (ctrl+p) and give it ``text``, as typed."""
    if open_it:
        await pilot.press("ctrl+p")
    await pilot.pause(0.1)
    pilot.app.screen.query_one(Input).value = text
    await pilot.pause(0.4)


def info_text(app: ReaderApp) -> str:
    return str(app.screen.query_one("#search-info", Static).visual)


async def test_up_and_down_walk_the_history(make_app: MakeApp, data_dir: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        for query in ("diffusion models", "graph neural", "diffusion   models", "language"):
            await enter_query(pilot, query)
        saved = json.loads((data_dir / "history.json").read_text())["searches"]
        assert [s["query"] for s in saved] == ["language", "diffusion models", "graph neural"]
        bar = screen.search_bar
        await pilot.press("slash", "ctrl+a", "ctrl+k", "up")
        assert bar.value == "language"
        await pilot.press("up", "up")
        assert bar.value == "graph neural"
        await settle(pilot)
        await pilot.press("up")  # no earlier one: stays
        assert bar.value == "graph neural" and "No earlier search" in info_text(app)
        await pilot.press("down", "down")
        assert bar.value == "language"
        await pilot.press("down")  # past the newest: what was typed
        assert bar.value == ""
        await pilot.press(*"dif", "up")  # only those starting with what is typed
        assert bar.value == "diffusion models"
        await pilot.press("up")
        assert bar.value == "diffusion models"
        await settle(pilot)
        assert screen.result is not None and screen.result.query == "diffusion models"  # searched as typed


async def test_the_palette_lists_recent_searches(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "graph neural")
        await pilot.press("escape")  # clears the query
        await settle(pilot)
        assert screen.result is None
        await palette(pilot, "graph neu")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.result is not None and screen.result.query == "graph neural"
        assert screen.search_bar.value == "graph neural"


async def test_ctrl_y_searches_the_suggestion(make_app: MakeApp, data_dir: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.check_action("accept_suggestion", ()) is False  # hidden: nothing to accept
        await enter_query(pilot, "lerning")
        assert screen.result is not None and screen.result.suggestion == "learning"
        assert "ctrl+y searches it" in info_text(app)
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert screen.result is not None and screen.result.query == "learning" and screen.result.total > 0
        assert screen.search_bar.value == "learning"
        history = json.loads((data_dir / "history.json").read_text())["searches"]
        assert [s["query"] for s in history] == ["learning", "lerning"]


async def test_the_session_comes_back_on_the_next_launch(make_app: MakeApp, data_dir: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "language models")
        await pilot.press("S", "S", "S")  # title order
        await drained(pilot)
        await pilot.press("j", "j", "j", "b", "B")
        await drained(pilot)
        assert screen.view == "bookmarks" and len(screen.papers.rows) == 1
        paper = screen.corpus.ids[screen.papers.highlighted_row]  # type: ignore[union-attr, index]
        rows = list(screen.papers.rows)
    session = json.loads((data_dir / "session.json").read_text())["collections"]
    assert [(s["query"], s["view"], s["sort"], s["paper"]) for s in session.values()] == [
        ("language models", "bookmarks", "title", paper)
    ]
    again = make_app()
    async with again.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await settle(pilot)
        assert screen.search_bar.value == "language models"
        assert (screen.view, screen.sort) == ("bookmarks", "title")
        assert list(screen.papers.rows) == rows
        assert screen.corpus.ids[screen.papers.highlighted_row] == paper  # type: ignore[union-attr, index]
        assert "by title, A to Z" in status_text(screen) and "query: language models" in status_text(screen)
        await pilot.press("escape", "escape")  # the query, then the bookmarks view
        await settle(pilot)
        assert screen.result is None and screen.view == "all" and len(screen.papers.rows) == 30
        await pilot.press("G")
        last = screen.corpus.ids[screen.papers.highlighted_row]  # type: ignore[union-attr, index]
    third = make_app()
    async with third.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await settle(pilot)
        assert screen.search_bar.value == "" and screen.papers.cursor == 29
        assert screen.corpus.ids[screen.papers.highlighted_row] == last  # type: ignore[union-attr, index]
        assert [screen.corpus.titles[r] for r in screen.papers.rows] == sorted(  # type: ignore[union-attr]
            screen.corpus.titles,  # type: ignore[union-attr]
            key=lambda t: t.casefold().lstrip("\"'“(["),
        )


async def test_config_theme_keys_and_sort(make_app: MakeApp, config_file: Path, browser: Path) -> None:
    config_file.write_text(
        '# mine\ntheme = "nord"  # keep\nsort = "title"\nread_delay = 0\n\n[keys]\nopen_link = "O"\n'
    )
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert app.theme == "nord" and screen.sort == "title" and "by title" in status_text(screen)
        await pilot.press("o")  # o is free now
        await drained(pilot)
        assert not browser.exists()
        await pilot.press("O")
        await drained(pilot)
        assert notices(app)[-1].startswith("This paper has no link")  # the seeds have none
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.screen.sections()[0][1])
        assert rows["O"].startswith("Open the paper's attachment")
        await pilot.press("escape")
        app.theme = "gruvbox"  # as the palette's theme picker sets it
        await drained(pilot)
        await pilot.pause(0.1)
        assert config_file.read_text() == (
            '# mine\ntheme = "gruvbox"  # keep\nsort = "title"\nread_delay = 0\n\n[keys]\nopen_link = "O"\n'
        )
        assert any(n.startswith('Theme "gruvbox" saved in') for n in notices(app))


async def test_a_bad_config_says_where_and_the_rest_applies(make_app: MakeApp, config_file: Path) -> None:
    config_file.write_text('read_delay = 0\nsort = "sideways"\ntheme = "nord"\n[keys]\nopen_link = "b"\n')
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert app.theme == "nord" and screen.sort == "relevance"
        told = notices(app)
        assert f"{config_file}, line 2: sort must be one of relevance, year, venue, title, added, " in told[0]
        assert told[1] == f'{config_file}, line 5: "b" is already the key of toggle_bookmark; keeping "o"'
        await pilot.press("b")  # still the bookmark key
        await drained(pilot)
        assert len(screen.bookmarks) == 1


async def test_theme_picked_in_the_palette_is_saved(make_app: MakeApp, config_file: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await palette(pilot, "theme")
        await pilot.press("enter")
        await pilot.pause(0.3)
        await palette(pilot, "dracula", open_it=False)
        await pilot.press("enter")
        await pilot.pause(0.2)
        await drained(pilot)
        assert app.theme == "dracula"
    assert 'theme = "dracula"' in config_file.read_text() and "read_delay = 0" in config_file.read_text()
