"""How state flows: workers post messages, handlers set the screen's reactives, and the list, the
detail pane and the status line follow. The messages here are the real ones, carrying real
results from a real index; they are posted the way the workers post them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import detail_text, drained, ready, settle, status_text, write_jsonl
from textual.widgets import Static

from tui_reader import paths
from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import BookmarksChanged, ResultsReady
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.search.query.modes import PAGE as SEARCH_LIMIT

MakeApp = Callable[..., ReaderApp]


def on_screen(papers: PaperList) -> list[int]:
    """Rows whose snippet line is inside the list's viewport."""
    return papers.visible_rows()[: papers.scrollable_content_region.height // 2]


def info_text(app: ReaderApp) -> str:
    return str(app.screen.query_one("#search-info", Static).visual)


async def test_an_answer_that_comes_back_late_does_not_overwrite_a_newer_one(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"diffusion", "enter")
        await settle(pilot)
        older, older_request = screen.result, screen.model.last_request
        assert older is not None and older.query == "diffusion"
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"graph neural", "enter")
        await settle(pilot)
        newer = screen.result
        assert newer is not None and newer.query == "graph neural"
        rows, status, info = list(screen.papers.rows), status_text(screen), info_text(app)
        older_rows = [h.row for h in older.hits]
        screen.post_message(ResultsReady(older_request, older, older_rows))  # the slow worker at last
        await drained(pilot)
        assert screen.result is newer
        assert list(screen.papers.rows) == rows
        assert status_text(screen) == status and "query: graph neural" in status
        assert info_text(app) == info
        latest = screen.model.request()  # the view on show asks again...
        screen.post_message(ResultsReady(latest, older, older_rows))  # ... and this is the answer
        await drained(pilot)
        assert screen.result is older and "query: diffusion" in status_text(screen)


async def test_bookmarks_changed_updates_marks_view_status_and_detail(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.store is not None and screen.corpus is not None
        await pilot.press("B")
        assert list(screen.papers.rows) == []
        assert "0 bookmarked papers of 30" in status_text(screen)
        assert "No bookmarks yet" in detail_text(app)
        pid, title = screen.corpus.ids[4], screen.corpus.titles[4]
        screen.store.add(pid, title)  # as the bookmark worker does, then it reports
        screen.post_message(BookmarksChanged(f"Bookmarked: {title}"))
        await drained(pilot)
        assert list(screen.papers.rows) == [4]
        assert pid in screen.papers.marked
        assert "1 bookmarked paper of 30" in status_text(screen) and "★ 1" in status_text(screen)
        assert "★ Bookmarked" in detail_text(app) and title in detail_text(app)
        screen.store.set_note(pid, "a note from elsewhere")
        screen.post_message(BookmarksChanged("Note saved"))
        await drained(pilot)
        assert "a note from elsewhere" in detail_text(app)
        screen.store.remove(pid)
        screen.post_message(BookmarksChanged(f"Removed bookmark: {title}"))
        await drained(pilot)
        assert list(screen.papers.rows) == [] and not screen.papers.marked
        assert "★" not in status_text(screen)


@pytest.mark.cold_cache
async def test_index_failure_leaves_browsing_working_and_says_so(make_app: MakeApp) -> None:
    blocker = paths.cache_dir() / "index"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the index folder should be")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "unavailable" and screen.searcher is None
        assert "30 papers of 30" in status_text(screen) and "index: unavailable" in status_text(screen)
        assert any("Search is unavailable" in n.message for n in app._notifications)
        await pilot.press("j", "j")
        assert screen.papers.cursor == 2
        assert screen.corpus is not None and screen.corpus.titles[2] in detail_text(app)
        await pilot.press("slash", *"graph")
        await settle(pilot)
        holding = [i for i, t in enumerate(screen.corpus.titles) if "graph" in t.casefold()]
        assert f"{len(holding)} titles hold these words: titles only until the index" in info_text(app)
        assert list(screen.papers.rows) == holding  # the titles' scan, labelled as such
        await pilot.press("escape", "escape", "b")  # back to the list, then back to the collection
        await drained(pilot)
        assert screen.corpus.ids[2] in screen.papers.marked


async def test_a_missing_corpus_path_is_reported(make_app: MakeApp, tmp_path: Path) -> None:
    app = make_app(tmp_path / "nowhere.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is None and screen.index_state == "unavailable"
        assert "No collection open · index: unavailable" in status_text(screen)
        assert any("Could not open the corpus" in n.message for n in app._notifications)
        await pilot.press("j", "b", "slash", *"x", "enter")
        await settle(pilot)
        assert app.is_running


async def test_the_list_asks_for_the_snippets_it_scrolls_to(make_app: MakeApp, tmp_path: Path) -> None:
    corpus = write_jsonl(
        tmp_path / "many.jsonl",
        [
            {"title": f"Alpha study {i}", "abstract": f"Words first, then an alpha abstract number {i}."}
            for i in range(SEARCH_LIMIT)
        ],
    )
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"alpha", "enter")
        await settle(pilot)
        papers = screen.papers
        first = on_screen(papers)
        assert all(r in papers.snippets for r in first)  # they came with the results
        await pilot.press("pagedown", "pagedown")
        await drained(pilot)
        await drained(pilot)
        later = on_screen(papers)
        assert set(later) - set(first)
        assert all(r in papers.snippets for r in later)  # asked for with SnippetsWanted
        text, spans = papers.snippets[later[-1]]
        assert "alpha" in text and spans


async def _burst(pilot: object, keys: list[tuple[str, str | None]]) -> None:
    """Keys that arrive in one read (over ssh, from a paste without bracketed paste, from tmux
    send-keys): all posted before the app handles any, unlike Pilot's press, which waits."""
    from textual import events

    app = pilot.app  # type: ignore[attr-defined]
    for key, character in keys:
        app.post_message(events.Key(key, character))


async def test_a_query_typed_in_one_burst_with_its_enter_is_searched(make_app: MakeApp) -> None:
    """Enter's binding (priority, so the keys after it go to the list) used to read the bar
    before the Input had taken the burst's letters: "graph⏎" searched "" and cleared the bar."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash")
        await _burst(pilot, [(c, c) for c in "graph"] + [("enter", "\r"), ("S", "S")])
        await drained(pilot)
        await settle(pilot)
        assert screen.search_bar.value == "graph"
        assert screen.result is not None and screen.result.query == "graph" and not screen.result.typing
        assert screen.result.total == 3  # the seeds' "graph" at Enter
        assert isinstance(app.focused, PaperList)  # the S after Enter went to the list: a sort
        assert screen.model.view.sort.value != "relevance"
        await pilot.pause(0.3)  # past the typing debounce: no type-ahead replaces Enter's answer
        await drained(pilot)
        assert screen.result is not None and not screen.result.typing and screen.model.depth == 2


async def test_the_bars_editing_keys_in_a_burst_apply_where_they_were_typed(make_app: MakeApp) -> None:
    """Input's editing keys are bindings, which Textual runs once the key has bubbled up to the
    App, after the letters queued behind them (textual#6605): "diffusion", then C-a C-k
    "graph" in one read left the bar empty, and "grapx⌫h" gave "graph" only by luck of order."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"diffusion")
        await _burst(pilot, [("ctrl+a", "\x01"), ("ctrl+k", "\x0b")] + [(c, c) for c in "grapx"])
        await _burst(pilot, [("backspace", "\x7f"), ("left", None), ("h", "h"), ("end", None), ("s", "s")])
        await drained(pilot)
        assert screen.search_bar.value == "grahps"
        wipe = [("ctrl+a", "\x01"), ("ctrl+k", "\x0b")]
        await _burst(pilot, wipe + [(c, c) for c in "graph"] + [("enter", "\r")])
        await drained(pilot)
        await settle(pilot)
        assert screen.search_bar.value == "graph"
        assert screen.result is not None and screen.result.query == "graph" and screen.result.total == 3


async def test_slash_and_a_query_in_one_burst_go_to_the_bar_not_to_the_list(make_app: MakeApp) -> None:
    """ "/" used to bubble up to its binding behind the burst's letters, which went to the list as
    keys: "/bayes" bookmarked the paper under the cursor (b) and typed "ayes" nowhere."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert isinstance(app.focused, PaperList)
        await _burst(pilot, [("slash", "/")] + [(c, c) for c in "bayes"] + [("enter", "\r")])
        await drained(pilot)
        await settle(pilot)
        assert screen.search_bar.value == "bayes"
        assert not screen.bookmarks
        assert screen.result is not None and screen.result.query == "bayes" and not screen.result.typing
        await _burst(pilot, [("slash", "/")] + [(c, c) for c in "a/b"])
        await drained(pilot)
        assert screen.search_bar.value == "bayesa/b"  # in the bar, "/" is a character
