"""is: filters with the reader's own sets, the facet panel, and a searcher that will not open."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import drained, enter_query, ready, write_jsonl

from tui_reader.app.app import ReaderApp
from tui_reader.app.widgets.facets import FacetPanel, venue_clause
from tui_reader.errors import IndexDamaged
from tui_reader.search.query.modes import SearchMode
from tui_reader.search.searcher import Searcher

MakeApp = Callable[..., ReaderApp]
VENUES = [
    "ICML 2019",
    "NeurIPS 2023",
    "Transactions on Machine Learning Research",
    "Workshop on Graph Things",
]


@pytest.fixture
def authored(tmp_path: Path) -> Path:
    records: list[dict[str, object]] = [
        {
            "title": f"Paper {i} {'graph' if i % 2 else 'vision'}",
            "year": 2018 + i % 5,
            "venue": VENUES[i % 4],
            "authors": ["Ada Lovelace", "Alan Turing"] if i % 3 else ["Grace Hopper"],
            "abstract": f"We study {'graph' if i % 2 else 'image'} things, number {i}.",
        }
        for i in range(24)
    ]
    folder = tmp_path / "authored"
    folder.mkdir()
    return write_jsonl(folder / "papers.jsonl", records)


def notices(app: ReaderApp) -> list[str]:
    return [n.message for n in app._notifications]


def shown_ids(screen: object) -> set[str]:
    assert screen.corpus is not None  # type: ignore[attr-defined]
    return {screen.corpus.ids[r] for r in screen.papers.rows}  # type: ignore[attr-defined]


async def test_is_filters_use_the_readers_sets(make_app: MakeApp, authored: Path) -> None:
    app = make_app(authored)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None and screen.searcher is not None
        ids = screen.corpus.ids
        graph = {ids[h.row] for h in screen.searcher.search("graph", SearchMode.ENTER, 1000).hits}
        assert len(graph) == 12
        for row in (1, 3, 5, 6):
            screen.reading.set_read({ids[row]: True})
        await drained(pilot)
        sets = screen.search_sets
        assert sets is screen.search_sets  # built once per change, not per search
        assert sets["read"] == {ids[r] for r in (1, 3, 5, 6)}
        await enter_query(pilot, "graph is:unread")
        assert screen.result is not None and screen.result.notice is None
        assert shown_ids(screen) == graph - screen.read and len(shown_ids(screen)) == 9
        # bookmark two papers from the whole collection, then ask for them
        await pilot.press("escape", "escape")
        await drained(pilot)
        assert screen.result is None
        await pilot.press("home", "b", "j", "b")
        await drained(pilot)
        marked = {b.id for b in screen.bookmarks}
        assert len(marked) == 2 and screen.search_sets is not sets
        await enter_query(pilot, "is:bookmarked")
        assert shown_ids(screen) == marked
        await enter_query(pilot, "graph is:read")
        assert shown_ids(screen) == graph & screen.read


async def test_facet_panel_counts_every_match_and_narrows(make_app: MakeApp, authored: Path) -> None:
    app = make_app(authored)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None and screen.searcher is not None
        panel = screen.query_one(FacetPanel)
        assert not panel.display
        await enter_query(pilot, "graph")
        await pilot.press("f")
        await drained(pilot)
        assert panel.display and panel.facets is not None and panel.facets.query == "graph"
        hits = screen.searcher.search("graph", SearchMode.ENTER, 10_000).hits
        years = Counter(screen.corpus.paper(h.row).year for h in hits)
        assert dict(panel.facets.years) == dict(years) and panel.facets.total == len(hits)
        assert panel.get_option("year:2019") is not None
        # the shown lines carry the counts
        option = panel.get_option(f"year:{panel.facets.years[0][0]}")
        assert str(panel.facets.years[0][1]) in str(option.prompt)
        # choosing a year narrows the query and the result
        year, count = panel.facets.years[0]
        index = panel.get_option_index(f"year:{year}")
        panel.focus()
        panel.highlighted = index
        await pilot.press("enter")
        await drained(pilot)
        await drained(pilot)
        assert screen.search_bar.value == f"graph year:{year}"
        assert screen.result is not None and screen.result.query == f"graph year:{year}"
        assert len(screen.papers.rows) == count < len(hits)
        assert {screen.corpus.paper(r).year for r in screen.papers.rows} == {year}
        assert panel.facets is not None and panel.facets.total == count  # counted again
        # typing alone does not recount
        before = panel.facets
        await pilot.press("slash", "x")
        await pilot.pause(0.3)
        await drained(pilot)
        assert panel.facets is before
        await pilot.press("escape")
        await pilot.press("f")
        assert not panel.display


async def test_facet_values_search_what_they_count(make_app: MakeApp, authored: Path) -> None:
    app = make_app(authored)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("f")
        await drained(pilot)
        panel = screen.query_one(FacetPanel)
        assert panel.facets is not None and panel.facets.total == 24  # no query: every paper
        searcher = screen.searcher
        assert searcher is not None
        for name, count in panel.facets.venues:
            assert searcher.search(venue_clause(name), SearchMode.ENTER, 1000).total == count, name
        for name, count in panel.facets.authors:
            assert panel.get_option(f'authors:"{name}"') is not None
            assert searcher.search(f'authors:"{name}"', SearchMode.ENTER, 1000).total == count


async def test_searcher_that_will_not_open_is_rebuilt_once(
    make_app: MakeApp, authored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Searcher.__init__
    calls: list[bool] = []

    def failing_once(self: Searcher, *args: object, **kwargs: object) -> None:
        calls.append(True)
        if len(calls) == 1:
            raise IndexDamaged("the search index is damaged (test)")
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Searcher, "__init__", failing_once)
    app = make_app(authored)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "ready" and len(calls) == 2
        assert any("damaged" in n and "rebuilt" in n for n in notices(app))
        await enter_query(pilot, "graph")
        assert screen.result is not None and screen.result.total == 12


async def test_searcher_that_never_opens_is_unavailable(
    make_app: MakeApp, authored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(self: Searcher, *args: object, **kwargs: object) -> None:
        raise IndexDamaged("the search index is damaged (test)")

    monkeypatch.setattr(Searcher, "__init__", failing)
    app = make_app(authored)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "unavailable"
        assert any(n.startswith("Search is unavailable") for n in notices(app))


async def test_damage_found_on_every_search_rebuilds_once(
    make_app: MakeApp, authored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(authored)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        builds: list[bool] = []
        prepare = screen.loader.prepare_index

        def counted(*args: object, **kwargs: object) -> object:
            builds.append(True)
            return prepare(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(screen.loader, "prepare_index", counted)

        def broken(self: Searcher, *args: object, **kwargs: object) -> object:
            raise IndexDamaged("the search index is damaged (test)")

        monkeypatch.setattr(Searcher, "search", broken)
        await enter_query(pilot, "graph")
        for _ in range(20):
            await drained(pilot)
            if any(n.startswith("Search is unavailable") for n in notices(app)):
                break
        assert len(builds) == 1
        assert any(n.startswith("Search is unavailable") for n in notices(app))
        assert screen.searcher is not None and screen.index_state == "ready"
