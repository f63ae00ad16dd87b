"""Before the index is ready the list searches its titles (issue 21: browsable and searchable by
title while a 2.7M build runs), says so, and gives way to the real search once the index is in."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pilot_helpers import detail_text, drained, ready, settle, status_text
from textual.widgets import Static

from tui_reader import paths
from tui_reader.app.app import ReaderApp
from tui_reader.corpus.titlescan import scan, words
from tui_reader.search import Searcher, SearchIndex, SearchMode

MakeApp = Callable[..., ReaderApp]


def test_words_leave_out_fields_and_operators() -> None:
    assert words('title:Graph AND "neural  networks" OR NOT x-ray') == [
        "graph",
        "neural",
        "networks",
        "x",
        "ray",
    ]


def test_scan_counts_every_title_and_stops_when_replaced() -> None:
    titles = ["Graph nets", "Hypergraphs", "Trees", "graph of graphs"] * 30_000
    rows, total = scan(titles, "graph", 5) or ([], 0)
    assert total == 90_000 and rows == [0, 1, 3, 4, 5]
    looks = iter([False, True])
    assert scan(titles, "graph", 5, lambda: next(looks)) is None  # replaced after one slice


def info_text(app: ReaderApp) -> str:
    return str(app.screen.query_one("#search-info", Static).visual)


@pytest.mark.cold_cache
async def test_titles_are_searched_until_the_index_is_ready_then_the_search_runs(make_app: MakeApp) -> None:
    blocker = paths.cache_dir() / "index"  # a file where the index folder goes: no index yet
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a folder")
    app: ReaderApp = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.searcher is None and screen.corpus is not None
        await pilot.press("slash", *"learning", "enter")
        await settle(pilot)
        holding = [i for i, t in enumerate(screen.corpus.titles) if "learning" in t.casefold()]
        assert holding and list(screen.papers.rows) == holding
        assert f"{len(holding)} titles hold these words" in info_text(app)
        assert f"of {len(holding)} titles" in status_text(screen)  # never called matches

        blocker.unlink()
        screen.loader.prepare_index(screen.corpus)  # the index arrives (as after a build)
        for _ in range(200):
            await pilot.pause(0.05)
            if screen.searcher is not None:
                break
        await drained(pilot)
        await settle(pilot)
        index = SearchIndex(screen.corpus)
        whole = Searcher(index, warm=False).search("learning", SearchMode.ENTER, 10_000)
        index.close()
        assert f"{whole.total} match" in info_text(app) and "titles" not in info_text(app)
        assert list(screen.papers.rows)[:20] == [h.row for h in whole.hits[:20]]
        first = screen.corpus.titles[whole.hits[0].row]
        assert screen.papers.cursor == 0 and first in detail_text(app)  # not the scan's paper
