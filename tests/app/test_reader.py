"""The reader driven with Pilot over the bundled seeds: real corpus, real index, real files."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import detail_text, drained, ready, settle, status_text, type_into
from textual.widgets import Input, Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.help import HelpScreen
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.screens.note import NoteScreen
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.search.fast import score
from tui_reader.search.query import completion, terms

MakeApp = Callable[..., ReaderApp]


def info_text(app: ReaderApp) -> str:
    return str(app.screen.query_one("#search-info", Static).visual)


async def test_start_state(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        papers = screen.query_one(PaperList)
        assert app.focused is papers
        assert len(papers.rows) == 30
        assert papers.cursor == 0
        first = screen.corpus.paper(papers.rows[0])
        assert first.abstract in detail_text(app)
        assert first.title in detail_text(app)
        status = status_text(screen)
        assert "30 papers of 30" in status and "index: ready" in status


async def test_moving(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        papers = screen.papers
        await pilot.press("j", "j", "down")
        assert papers.cursor == 3
        await pilot.press("k")
        assert papers.cursor == 2
        await pilot.press("G")
        assert papers.cursor == 29
        assert screen.corpus.paper(29).abstract in detail_text(app)
        await pilot.press("g")
        assert papers.cursor == 0
        await pilot.press("pagedown")
        assert papers.cursor > 10
        await pilot.press("pageup")
        assert papers.cursor == 0
        await pilot.press("tab")
        assert app.focused is screen.detail


async def test_search_as_you_type_enter_and_escape(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"graph neu")
        await settle(pilot)
        assert screen.result is not None and screen.result.kind == "typing"
        titles = [screen.corpus.titles[r] for r in screen.papers.rows]
        assert titles and titles[0].startswith("Graph neural networks")
        assert re.search(r"\d+ match(es)? in \d+ ms", info_text(app))
        await pilot.press(*"ral")
        await settle(pilot)
        typed = set(screen.papers.rows)
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is screen.papers
        assert screen.result is not None and screen.result.kind == "enter" and screen.result.exact
        assert 1 <= len(screen.papers.rows) <= len(typed) and set(screen.papers.rows) <= typed
        # the query's words are marked in the detail pane
        assert "graph" in " ".join(screen.result.terms)
        await pilot.press("escape")  # list focused, query active: clears it
        await settle(pilot)
        assert screen.result is None and len(screen.papers.rows) == 30
        assert screen.search_bar.value == ""


async def test_escape_ladder_from_search_bar(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"diffusion")
        await settle(pilot)
        assert screen.result is not None
        await pilot.press("escape")  # leaves the bar, keeps the query
        assert app.focused is screen.papers
        assert screen.result is not None and screen.search_bar.value == "diffusion"
        await pilot.press("escape")  # clears the query
        await settle(pilot)
        assert screen.result is None and screen.search_bar.value == ""


async def test_bad_query_and_suggestion(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *'"graph neural', "enter")
        await settle(pilot)
        assert "couldn't parse" in info_text(app)
        assert screen.papers.rows, "plain-word results are still shown"
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"lerning", "enter")
        await settle(pilot)
        assert screen.result is not None and screen.result.total == 0
        assert "Did you mean: learning" in info_text(app)


async def test_bookmark_view_and_note(make_app: MakeApp, bookmarks_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        pid = screen.corpus.ids[1]
        data = json.loads(bookmarks_path.read_text())
        assert data["version"] == 3 and [b["id"] for b in data["bookmarks"]] == [pid]
        assert pid in screen.papers.marked
        assert "★ Bookmarked" in detail_text(app)
        await pilot.press("B")
        assert list(screen.papers.rows) == [1]
        await pilot.press("n")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"read this twice", "ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        data = json.loads(bookmarks_path.read_text())
        assert data["bookmarks"][0]["note"] == "read this twice"
        assert "read this twice" in detail_text(app)
        await pilot.press("B")
        assert len(screen.papers.rows) == 30
        await pilot.press("k", "j", "b")  # un-bookmark
        await app.workers.wait_for_complete()
        assert json.loads(bookmarks_path.read_text())["bookmarks"] == []


async def test_bookmarks_show_on_next_start(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("b")
        await app.workers.wait_for_complete()
        pid = screen.corpus.ids[0]
    again = make_app()
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert pid in screen.papers.marked
        await pilot.press("B")
        await drained(pilot)  # the restricted view is worked out in a worker
        assert [screen.corpus.ids[r] for r in screen.papers.rows] == [pid]


async def test_similar_papers(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert screen.result is not None and screen.result.kind == "similar"
        rows = list(screen.papers.rows)
        assert rows and 0 not in rows
        await pilot.press("escape")
        await settle(pilot)
        assert screen.result is None and len(screen.papers.rows) == 30


async def test_help_is_generated_from_bindings(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text()
        for expected in (
            "Bookmark the highlighted paper",
            "Copy the abstract",
            "Down",
            "Last",
            "Scroll down",
        ):
            assert expected in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_runs_actions_and_goes_to_paper(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("ctrl+p")
        await type_into(pilot, "bookmarks only")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert screen.bookmarks_only
        await pilot.press("B")
        target = next(i for i, t in enumerate(screen.corpus.titles) if t.startswith("ConPress"))
        await pilot.press("ctrl+p")
        await type_into(pilot, "ConPress")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert screen.papers.highlighted_row == target


async def test_narrow_terminal_stacks_panes(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(70, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.has_class("-narrow")
        papers, detail = screen.papers.region, screen.detail.region
        assert detail.y >= papers.bottom - 1 and detail.width > 60
        await pilot.press("d")
        assert not screen.detail.display


async def test_results_page_in_as_the_cursor_nears_the_end(make_app: MakeApp, tmp_path: Path) -> None:
    from pilot_helpers import write_jsonl

    from tui_reader.search.query import modes as main

    corpus = write_jsonl(
        tmp_path / "many.jsonl",
        [
            {"title": f"Alpha study {i}", "abstract": f"An alpha abstract number {i} about things."}
            for i in range(main.PAGE + 100)
        ],
    )
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"alpha", "enter")
        await settle(pilot)
        assert len(screen.papers.rows) == main.PAGE
        await pilot.press("G")
        await settle(pilot)
        assert len(screen.papers.rows) == main.PAGE + 100
        assert screen.papers.cursor == main.PAGE - 1  # stays on the same paper


def _whoosh_rows(screen: MainScreen, text: str) -> list[int]:
    """Whoosh's own answer on the reader's own index: the reference for Enter."""
    assert screen.searcher is not None and screen.index is not None and screen.corpus is not None
    q, _ = screen.searcher.parse(text)
    with screen.index.searcher() as s:
        return [screen.corpus.index_of[hit["id"]] for hit in s.search(q, limit=None)]


LARGE_SIDE = [
    (completion, "SMALL_CORPUS", 0),
    (completion, "COMPLETION_POSTINGS", 1),
    (score, "SKIP_BELOW", 0),
    (score, "MAX_TERMS", 1),
    (score, "PHRASE_CHECKS", 2),
    (terms, "PREFIX_EXPANSIONS", 2),
]


@pytest.mark.parametrize("side", ["small", "large"])
@pytest.mark.parametrize(
    "text", ["diffusion mod", "graph NOT neural", '"language models"', "title:diffusion OR sampl", "grap*"]
)
async def test_enter_is_whooshs_answer_and_typing_shows_more(
    make_app: MakeApp, text: str, side: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter reads every word as typed: the list, its order and its count are Whoosh's. While
    typing, the list holds at least every paper the words typed so far match (or says it is a
    best-so-far). "large": every size switch set as an 87k collection sets it."""
    if side == "large":
        for module, name, value in LARGE_SIDE:
            monkeypatch.setattr(module, name, value)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash")
        await type_into(pilot, text)
        await settle(pilot)
        assert screen.result is not None and screen.result.kind == "typing"
        typed = set(screen.papers.rows)
        expected = _whoosh_rows(screen, text)
        assert set(expected) <= typed or ("best so far" in info_text(app) and not screen.result.exact)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.result is not None and screen.result.kind == "enter"
        assert list(screen.papers.rows) == expected
        assert screen.result.exact and screen.result.total == len(expected)
        noun = "match" if len(expected) == 1 else "matches"
        assert (f"{len(expected)} {noun} in" in info_text(app)) or not expected
