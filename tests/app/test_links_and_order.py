"""Opening and copying a paper's link (o, L), and the list's orders (S), with Pilot on real files.
`o` is checked with $BROWSER set to a script that records what it is given."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import (
    detail_text,
    drained,
    enter_query,
    notices,
    ready,
    settle,
    shown_titles,
    status_text,
    write_jsonl,
)
from textual.content import Content
from textual.widgets import Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen
from tui_reader.library.sorting import title_key
from tui_reader.search.query.modes import PAGE as SEARCH_LIMIT
from tui_reader.search.query.modes import SearchMode

MakeApp = Callable[..., ReaderApp]

LINKS = [
    "https://example.org/alpha",
    "https://doi.org/10.1145/3292500.3330701",
    "https://arxiv.org/abs/2101.00001",
    None,
    "https://openreview.net/forum?id=eps",
]


async def test_o_opens_each_kind_of_link_in_the_browser(
    make_app: MakeApp, varied: Path, browser: Path
) -> None:
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        for row, link in enumerate(LINKS):
            screen.papers.cursor = row
            await pilot.press("o")
            await drained(pilot)
            if link is None:
                assert notices(app)[-1] == "This paper has no link: its record has no URL, DOI or arXiv id."
            else:
                assert notices(app)[-1] == f"Opened in the browser: {link}"
        assert browser.read_text().splitlines() == [link for link in LINKS if link]


async def test_with_no_browser_the_link_is_copied(
    make_app: MakeApp, varied: Path, no_clipboard: None
) -> None:
    app = make_app(varied)  # conftest: no $BROWSER, no DISPLAY (as over SSH)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("j", "o")
        await drained(pilot)
        link = LINKS[1]
        assert app.clipboard == link
        assert notices(app)[-1] == f"No browser here. Copied the link (terminal only): {link}"


async def test_l_copies_the_link_and_the_detail_pane_links_it(
    make_app: MakeApp, varied: Path, fake_xclip: Path
) -> None:
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("j", "j", "L")
        await drained(pilot)
        assert app.clipboard == LINKS[2] and fake_xclip.read_text() == LINKS[2]
        assert notices(app)[-1] == f"Copied the link: {LINKS[2]}"
        body = app.screen.query_one("#detail-body", Static).visual
        assert isinstance(body, Content) and "arXiv:2101.00001" in body.plain  # url "arXiv:…"
        linked = [s for s in body.spans if getattr(s.style, "link", None) == LINKS[2]]
        assert len(linked) == 1 and body.plain[linked[0].start : linked[0].end] == "arXiv:2101.00001"
        await pilot.press("j", "L")  # no link: nothing copied, and it says so
        assert notices(app)[-1].startswith("This paper has no link")


def direct_sort(screen: MainScreen, rows: list[int], sort: str) -> list[int]:
    """The papers sorted the plain way, to check the list against."""
    assert screen.corpus is not None
    papers = {r: screen.corpus.paper(r) for r in rows}

    def year(r: int) -> tuple[bool, int]:
        return papers[r].year is None, -(papers[r].year or 0)

    keys: dict[str, Callable[[int], object]] = {
        "year": year,
        "venue": lambda r: (not papers[r].venue, papers[r].venue.casefold(), *year(r)),
        "title": lambda r: title_key(papers[r].title),
        "added": lambda r: 0,  # one visit: collection order
    }
    return sorted(rows, key=keys[sort]) if sort in keys else rows


async def test_s_cycles_the_orders_of_the_collection_and_of_a_result(make_app: MakeApp, varied: Path) -> None:
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        everything = list(range(8))
        assert "in collection order" in status_text(screen)
        for sort, label in [
            ("year", "by year, newest first"),
            ("venue", "by venue, A to Z"),
            ("title", "by title, A to Z"),
            ("added", "by date added, newest first"),
            ("relevance", "in collection order"),
        ]:
            await pilot.press("S")
            await drained(pilot)
            assert screen.sort == sort
            assert list(screen.papers.rows) == direct_sort(screen, everything, sort), sort
            assert label in status_text(screen)
        assert shown_titles(screen)[:2] == ["Alpha graphs", "Beta diffusion"]
        await enter_query(pilot, "graph OR diffusion")
        assert screen.result is not None
        relevance = [h.row for h in screen.result.hits]
        assert len(relevance) == 5 and "by relevance" in status_text(screen)
        for sort in ("year", "venue", "title"):
            await pilot.press("S")
            await drained(pilot)
            assert list(screen.papers.rows) == direct_sort(screen, relevance, sort), sort
        await pilot.press("S", "S")  # added, relevance
        await drained(pilot)
        assert list(screen.papers.rows) == relevance


async def test_a_query_of_fields_only_lists_in_collection_order(make_app: MakeApp, varied: Path) -> None:
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "year:2019 OR year:2023")
        assert list(screen.papers.rows) == [0, 1, 3, 7]
        assert "in collection order" in status_text(screen)


async def test_sorting_a_result_sorts_every_match_not_the_page(make_app: MakeApp, tmp_path: Path) -> None:
    count = SEARCH_LIMIT + 50
    records = [
        {
            "title": f"Paper {n:03d}",
            "year": 2000 + n % 25,
            "abstract": f"An alpha{' alpha' * (n % 7)} study {n}.",
        }
        for n in range(count)
    ]
    app = make_app(write_jsonl(tmp_path / "many.jsonl", records))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        await enter_query(pilot, "alpha")
        assert screen.result is not None and screen.result.total == count
        assert len(screen.papers.rows) == SEARCH_LIMIT  # relevance: a page at a time
        await pilot.press("S")  # year
        await drained(pilot)
        rows = list(screen.papers.rows)
        assert screen.base is not None and screen.base.total == count  # the exact count, sorted
        assert screen.searcher is not None
        whole = screen.searcher.search("alpha", SearchMode.ENTER, count, time_limit=None)
        relevance = [h.row for h in whole.hits]
        assert len(rows) >= SEARCH_LIMIT  # a page of the sorted answer (more as the cursor goes on)
        assert rows == direct_sort(screen, relevance, "year")[: len(rows)]  # ties: relevance
        assert "by year, newest first" in status_text(screen)


@pytest.mark.parametrize("view", ["bookmarks", "unread"])
async def test_a_filtered_view_of_a_result_holds_every_match(
    make_app: MakeApp, tmp_path: Path, view: str
) -> None:
    records = [
        {"title": f"Paper {n}", "abstract": f"Alpha{' alpha' * (n % 5)} number {n}."} for n in range(150)
    ]
    app = make_app(write_jsonl(tmp_path / "many.jsonl", records))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        await enter_query(pilot, "alpha")
        await pilot.press("G")  # the last of the first page
        await settle(pilot)
        last = screen.papers.highlighted_row
        await pilot.press("b" if view == "bookmarks" else "u")
        await drained(pilot)
        await pilot.press("B" if view == "bookmarks" else "U")
        await drained(pilot)
        expected = 1 if view == "bookmarks" else 149  # the restricted answer, counted exactly
        assert screen.result is not None and screen.result.total == expected
        assert len(screen.papers.rows) == min(expected, SEARCH_LIMIT)
        assert (last in screen.papers.rows) == (view == "bookmarks")
        noun = "match" if expected == 1 else "matches"
        assert f"shown of {expected} {noun}" in status_text(screen)
        assert "Paper" in detail_text(app)
