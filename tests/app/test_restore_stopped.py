"""An Enter search (a restored session's, or typed) that stops at its time limit -- at a launch the
machine is busy and the disk cold -- is asked again without it, and the exact answer lands on the
view: never an empty "0 shown of 0+" page. The stop is forced (a deadline already past), never
timed; the model's half is tested without Pilot."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pilot_helpers import enter_query, ready, settle, status_text
from textual.widgets import Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.model import ReaderModel, View
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.screens.shown import empty_text
from tui_reader.search import Hit, SearchMode, SearchResult

MakeApp = Callable[..., ReaderApp]
QUERY = "language models"
PAST = -1.0  # a deadline that has passed when the search's first check comes: it always stops


def cut(total: int, ids: list[str], stopped: str = "time", kind: str = "enter") -> SearchResult:
    hits = [Hit(i, pid, 1.0) for i, pid in enumerate(ids)]
    return SearchResult(QUERY, hits, total, exact=False, stopped=stopped, kind=kind)


def test_a_stopped_enter_answer_is_asked_again_once_and_keeps_nothing_empty() -> None:
    model = ReaderModel()
    entry = model.push(View(QUERY, cursor="p2"))
    first = model.request()
    assert model.stopped_in_time(first, cut(0, []), [], "relevance") is entry
    assert entry.patient and entry.rows is None  # an empty page is not shown: it waits on
    second = model.request()
    assert model.stopped_in_time(second, cut(5, ["p1", "p2"]), [0, 1], "relevance") is None  # once
    assert model.answer(second, cut(5, ["p1"]), [0], "relevance") is entry  # then as it is


def test_the_partial_page_is_kept_only_if_it_loses_nothing() -> None:
    model = ReaderModel()
    entry = model.push(View(QUERY, cursor="p2"))
    number = model.request()
    assert model.stopped_in_time(number, cut(1, ["p1"]), [0], "relevance") is entry
    assert entry.rows is None  # the cursor's paper is not in it: the cursor would move off it
    entry = model.replace(View(QUERY))
    number = model.request()
    assert model.stopped_in_time(number, cut(2, ["p1", "p2"]), [0, 1], "relevance") is entry
    assert entry.rows == [0, 1] and entry.result is not None and entry.result.count_text == "2+"


def test_typing_and_replaced_answers_are_not_for_it() -> None:
    model = ReaderModel()
    model.push(View(QUERY))
    number = model.request()
    assert model.stopped_in_time(number, cut(0, [], stopped="replaced"), [], "relevance") is None
    assert model.stopped_in_time(number, cut(0, [], kind="typing"), [], "relevance") is None
    assert model.stopped_in_time(number, None, [], "relevance") is None
    assert model.stopped_in_time(number + 1, cut(0, []), [], "relevance") is None  # nobody waits


def info(screen: MainScreen) -> str:
    return str(screen.query_one("#search-info", Static).visual)


def exact(screen: MainScreen) -> SearchResult:
    assert screen.searcher is not None and screen.corpus is not None
    return screen.searcher.search(QUERY, SearchMode.ENTER, len(screen.corpus), time_limit=None)


async def test_a_restored_search_that_stops_at_its_limit_comes_back_exactly(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with make_app().run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, QUERY)
        await pilot.press("j", "j", "j")
        await settle(pilot)
        paper = screen.corpus.ids[screen.papers.highlighted_row]  # type: ignore[union-attr, index]
        rows = list(screen.papers.rows)
    monkeypatch.setattr("tui_reader.search.searcher.TIME_LIMIT", PAST)
    async with make_app().run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await settle(pilot)
        assert screen.searcher is not None
        assert screen.searcher.search(QUERY, SearchMode.ENTER).stopped == "time"  # the stop is real
        whole = exact(screen)
        assert whole.exact and whole.total == len(rows) > 3
        assert screen.model.top.patient  # it stopped, and was asked again
        assert list(screen.papers.rows) == rows == [h.row for h in whole.hits][: len(rows)]
        assert screen.corpus.ids[screen.papers.highlighted_row] == paper  # type: ignore[union-attr, index]
        assert screen.result is not None and screen.result.exact and screen.result.total == whole.total
        assert f"of {whole.total:,} matches" in status_text(screen) and "+" not in status_text(screen)
        assert "stopped" not in info(screen)


async def test_enter_that_stops_twice_says_it_is_a_lower_bound(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui_reader.search.searcher.TIME_LIMIT", PAST)
    monkeypatch.setattr("tui_reader.app.screens.answers.PATIENT_LIMIT", PAST)
    async with make_app().run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, QUERY)
        await settle(pilot)
        top = screen.model.top
        assert top.patient and top.result is not None and top.result.stopped == "time"
        assert "+ matches" in status_text(screen) and "stopped after" in info(screen)
        if not top.rows:
            assert "No matches" not in empty_text(top)  # an estimate never passes for "none"
    monkeypatch.setattr("tui_reader.app.screens.answers.PATIENT_LIMIT", 30.0)
    async with make_app().run_test(size=(120, 30)) as pilot:  # the same text with Enter: exact
        screen = await ready(pilot)
        await enter_query(pilot, QUERY)
        await settle(pilot)
        whole = exact(screen)
        assert screen.result is not None and screen.result.exact and screen.result.total == whole.total
        assert list(screen.papers.rows) == [h.row for h in whole.hits][: len(screen.papers.rows)]
