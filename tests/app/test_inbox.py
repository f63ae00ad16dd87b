"""Saved searches in the reader: w saves, I opens the inbox, Enter opens a saved search (new
matches first, marked), Esc comes back to the inbox; the status line counts the new papers. On
the real app, a real collection file that grows between launches, a real store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import drained, ready, settle, status_text
from textual.pilot import Pilot
from textual.widgets import Input

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens import inbox as inbox_module
from tui_reader.app.screens.inbox_screens import InboxScreen, SaveSearchScreen
from tui_reader.app.screens.main import MainScreen
from tui_reader.library.saved import SavedSearches
from tui_reader.search import SearchMode

MakeApp = Callable[..., ReaderApp]
LONG_AGO = "2000-01-01T00:00:00+00:00"  # saved before any launch: launches' stamps are later

FIRST = [
    {"title": "Diffusion models for images", "abstract": "Score based diffusion with guidance."},
    {"title": "Graph networks", "abstract": "Message passing on graphs."},
    {"title": "Guided diffusion for text", "abstract": "Classifier free guidance in diffusion."},
]
LATER = [
    {"title": "Latent diffusion at scale", "abstract": "Diffusion in a latent space."},
    {"title": "Graph transformers", "abstract": "Attention over graphs."},
    {"title": "Diffusion policies for robots", "abstract": "Robots act with diffusion policies."},
]


def _write(path: Path, records: list[dict[str, str]], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)


def _saved(data_dir: Path, *searches: tuple[str, str]) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    items = [{"name": n, "query": q, "created": LONG_AGO, "visited": {}} for n, q in searches]
    (data_dir / "saved-searches.json").write_text(json.dumps({"version": 1, "searches": items}))


async def _inbox(pilot: Pilot) -> InboxScreen:
    await pilot.press("I")
    await drained(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, InboxScreen)
    return screen


def _enter_total(main: MainScreen, query: str) -> tuple[int, set[str]]:
    assert main.searcher is not None and main.corpus is not None
    result = main.searcher.search(query, SearchMode.ENTER, len(main.corpus), time_limit=None)
    return result.total, {h.id for h in result.hits}


async def test_inbox_after_the_file_grows(tmp_path: Path, make_app: MakeApp, data_dir: Path) -> None:
    papers = tmp_path / "papers.jsonl"
    _write(papers, FIRST)
    _saved(data_dir, ("diffusion", "diffusion"), ("graphs", "graphs OR graph"))
    async with make_app(papers).run_test(size=(120, 40)) as pilot:  # the first launch
        main = await ready(pilot)
        await drained(pilot)
        assert "inbox:" not in status_text(main)  # nothing is new the first time
        inbox = await _inbox(pilot)
        total, _ = _enter_total(main, "diffusion")
        assert inbox.lines[0] == f"diffusion  0 new · {total} unread · {total} total"
        first_ids = set(main.corpus.ids) if main.corpus else set()

    _write(papers, LATER, "a")  # papers arrive
    async with make_app(papers).run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await drained(pilot)
        assert main.corpus is not None
        arrived = set(main.corpus.ids) - first_ids
        counts = {}
        for name, query in (("diffusion", "diffusion"), ("graphs", "graphs OR graph")):
            total, matched = _enter_total(main, query)
            counts[name] = (len(matched & arrived), total)
        assert counts["diffusion"][0] == 2 and counts["graphs"][0] == 1
        assert "inbox: 3 new" in status_text(main)  # 3 papers new to a saved search
        inbox = await _inbox(pilot)
        assert inbox.lines == [
            f"{name}  {new} new · {total} unread · {total} total" for name, (new, total) in counts.items()
        ]
        await pilot.press("enter")  # open "diffusion"
        await drained(pilot)
        assert pilot.app.screen is main
        assert main.model.view.query == "diffusion" and main.model.depth == 2
        rows = main.papers.rows
        new_here = {main.corpus.ids[r] for r in rows[:2]}
        _, matched = _enter_total(main, "diffusion")
        assert new_here == matched & arrived  # new matches first
        assert {main.corpus.ids[r] for r in rows} == matched and len(rows) == len(matched)
        assert new_here <= main.papers.new  # marked +
        assert "inbox: 1 new" in status_text(main)  # the graph paper is still new to "graphs"
        await pilot.press("escape")  # back to the inbox, on the search left
        await drained(pilot)
        inbox = pilot.app.screen
        assert isinstance(inbox, InboxScreen)
        assert inbox.lines[0].startswith("diffusion  0 new")
        assert inbox.query_one("#inbox-list").highlighted == 0
        await pilot.press("escape")  # back to the view below, as it was
        await drained(pilot)
        assert pilot.app.screen is main and main.model.depth == 1 and not main.model.view.query
        assert not (new_here & main.papers.new - main.new)  # the marks went with the view

    async with make_app(papers).run_test(size=(120, 40)) as pilot:  # visited: no longer new
        main = await ready(pilot)
        await drained(pilot)
        inbox = await _inbox(pilot)
        assert inbox.lines[0].startswith("diffusion  0 new") and inbox.lines[1].startswith("graphs  1 new")


async def test_w_saves_the_search(make_app: MakeApp, data_dir: Path) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await pilot.press("w")  # nothing to save yet
        await pilot.pause()
        assert not isinstance(pilot.app.screen, SaveSearchScreen)
        main.search_for("diffusion guidance")
        await settle(pilot)
        await pilot.press("w")
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, SaveSearchScreen)
        line = modal.query_one(Input)
        assert line.value == "diffusion guidance"
        line.value = "   "
        await pilot.press("enter")
        assert "needs a name" in str(modal.query_one("#save-problem").visual)
        line.value = "Guided"
        await pilot.press("enter")
        await drained(pilot)
        assert pilot.app.screen is main
        saved = SavedSearches(data_dir / "saved-searches.json").all()
        assert [(s.name, s.query) for s in saved] == [("Guided", "diffusion guidance")]
        await pilot.press("w")  # the same name again: refused in the modal
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, SaveSearchScreen)
        modal.query_one(Input).value = "guided"
        await pilot.press("enter")
        assert "already named 'Guided'" in str(modal.query_one("#save-problem").visual)
        await pilot.press("escape")
        await drained(pilot)
        inbox = await _inbox(pilot)
        assert inbox.lines[0].startswith("Guided  0 new · ")
    assert len(SavedSearches(data_dir / "saved-searches.json")) == 1


async def test_hostile_names_are_shown_escaped(make_app: MakeApp, data_dir: Path) -> None:
    _saved(data_dir, ("\x1b]0;pwned\x07[bold]Loud[/bold]", "graph \x1b[31m"))
    async with make_app().run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await drained(pilot)
        inbox = await _inbox(pilot)
        line = inbox.lines[0]
        assert line.startswith("\u241b]0;pwned\u2407[bold]Loud[/bold]  ") and "\x1b" not in line
        await pilot.press("enter")
        await drained(pilot)
        main = pilot.app.screen
        assert isinstance(main, MainScreen) and main.model.view.query == "graph \x1b[31m"
        assert "\x1b" not in status_text(main)


async def test_empty_inbox_says_how(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        inbox = await _inbox(pilot)
        assert inbox.lines == []
        assert "w saves" in str(inbox.query_one("#inbox-list").get_option_at_index(0).prompt)
        await pilot.press("enter")  # nothing to open
        await pilot.press("escape")
        await drained(pilot)
        assert isinstance(pilot.app.screen, MainScreen)


async def test_rename_and_remove_in_the_inbox(make_app: MakeApp, data_dir: Path) -> None:
    _saved(data_dir, ("one", "graph"), ("two", "diffusion"))
    store = data_dir / "saved-searches.json"
    async with make_app().run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await drained(pilot)
        inbox = await _inbox(pilot)
        await pilot.press("r")  # rename "one"
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, SaveSearchScreen)
        modal.query_one(Input).value = "TWO"  # taken by the other one: refused
        await pilot.press("enter")
        assert "already named 'two'" in str(modal.query_one("#save-problem").visual)
        modal.query_one(Input).value = "graphs"
        await pilot.press("enter")
        await drained(pilot)
        assert pilot.app.screen is inbox
        assert [s.name for s in SavedSearches(store).all()] == ["graphs", "two"]
        assert inbox.lines[0].startswith("graphs  ")
        await pilot.press("down", "x")  # once: asks again
        await drained(pilot)
        assert len(SavedSearches(store)) == 2
        assert "again to remove 'two'" in str(inbox.query_one("#inbox-help").visual)
        await pilot.press("x")
        await drained(pilot)
        assert [s.name for s in SavedSearches(store).all()] == ["graphs"]
        assert len(inbox.lines) == 1 and inbox.lines[0].startswith("graphs  ")


async def test_a_renamed_search_keeps_the_cursor(make_app: MakeApp, data_dir: Path) -> None:
    """Renaming the second search leaves the cursor on it, so the next x is about that one."""
    _saved(data_dir, ("one", "graph"), ("two", "diffusion"), ("three", "guidance"))
    store = data_dir / "saved-searches.json"
    async with make_app().run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await drained(pilot)
        inbox = await _inbox(pilot)
        await pilot.press("down", "r")
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, SaveSearchScreen)
        modal.query_one(Input).value = "second"
        await pilot.press("enter")
        await drained(pilot)
        assert pilot.app.screen is inbox
        assert [s.name for s in SavedSearches(store).all()] == ["one", "second", "three"]
        assert inbox.query_one("#inbox-list").highlighted == 1
        await pilot.press("x")
        assert "again to remove 'second'" in str(inbox.query_one("#inbox-help").visual)
        await pilot.press("x")
        await drained(pilot)
        assert [s.name for s in SavedSearches(store).all()] == ["one", "three"]
        assert inbox.query_one("#inbox-list").highlighted == 1  # on the next one, at its place


async def test_r_and_x_only_on_a_saved_search(make_app: MakeApp, data_dir: Path) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        inbox = await _inbox(pilot)
        assert inbox.check_action("rename", ()) is False and inbox.check_action("remove", ()) is False
        assert inbox.check_action("close", ()) is True
    _saved(data_dir, ("one", "graph"))
    async with make_app().run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await drained(pilot)
        inbox = await _inbox(pilot)
        assert inbox.check_action("rename", ()) is True and inbox.check_action("remove", ()) is True


async def test_the_list_says_it_is_reading_until_the_names_come(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        shown = InboxScreen([], {}, known=False)
        await pilot.app.push_screen(shown)
        await pilot.pause()
        prompt = str(shown.query_one("#inbox-list").get_option_at_index(0).prompt)
        assert "Reading the saved searches" in prompt
        shown.fill([], {})
        assert "w saves" in str(shown.query_one("#inbox-list").get_option_at_index(0).prompt)


async def test_w_only_with_a_search_to_save(make_app: MakeApp) -> None:
    """The inbox's gate for w (MainScreen.check_action is to chain it: see inbox.Inbox.can_run)."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        assert main.inbox.can_run("save_search", True) is None  # the collection, nothing typed
        assert main.inbox.can_run("inbox", True) is True
        main.search_for("graph")
        await settle(pilot)
        assert main.inbox.can_run("save_search", True) is True
        await pilot.press("s")  # similar papers: no query to save
        await drained(pilot)
        assert main.inbox.can_run("save_search", True) is None


async def test_a_count_begun_before_a_visit_is_asked_again(
    tmp_path: Path, make_app: MakeApp, data_dir: Path
) -> None:
    """A count still running when a search is opened read the search unvisited: its "new" would
    come back on the status line, so another count follows it."""
    papers = tmp_path / "papers.jsonl"
    _write(papers, FIRST)
    _saved(data_dir, ("diffusion", "diffusion"))
    async with make_app(papers).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await drained(pilot)
    _write(papers, LATER, "a")
    async with make_app(papers).run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await drained(pilot)
        assert "inbox: 2 new" in status_text(main)
        await _inbox(pilot)
        main.inbox._counting = True  # as if a count (of the store before the visit) were running
        await pilot.press("enter")
        await drained(pilot)
        assert main.inbox._again  # it is asked again when that one ends
        main.inbox._counting, main.inbox._again = False, False
        main.inbox.recount()
        await drained(pilot)
        assert "inbox:" not in status_text(main)


async def test_the_timeline_is_read_only_for_a_count_and_after_the_users_answer(
    tmp_path: Path, make_app: MakeApp, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading the collection's timeline is ~1.3 s of Python at 2.7M papers: begun as the index
    opened, it made the search typed meanwhile take 1.5 s. Nothing saved: it is not read; else
    it waits for the answer the view on show is waiting for."""
    seen: list[bool] = []  # whether the view on show was waiting, at each read
    real = inbox_module.open_timeline

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(pilot.app.screen.model.top.waiting)
        return real(*args, **kwargs)

    monkeypatch.setattr(inbox_module, "open_timeline", spy)
    monkeypatch.setattr(inbox_module, "WAIT", 60.0)  # waits for the answer, however slow the machine
    papers = tmp_path / "papers.jsonl"
    _write(papers, FIRST)
    async with make_app(papers).run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await drained(pilot)
        assert seen == []  # no saved search: nothing to count
        _saved(data_dir, ("diffusion", "diffusion"))
        main.model.top.request = 10**6  # a view waiting for an answer that has not come
        main.inbox.recount()
        await pilot.pause(0.3)
        assert seen == [] and main.inbox._counting
        main.model.top.request = 0  # answered
        await drained(pilot)
        while main.inbox._counting:
            await pilot.pause(0.05)
        assert seen == [False]
        inbox = await _inbox(pilot)
        assert inbox.lines[0].startswith("diffusion  0 new · 2 unread · 2 total")
