"""For you in the reader (F, x, R, Enter, Esc), by Pilot on the real app, on the topics fixture
(tests/recommend_fixture.py): a real index, real stores in temp folders."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import recommend_fixture as fx
from pilot_helpers import drained, notices, ready
from textual.pilot import Pilot
from textual.widgets import OptionList, Static
from textual.widgets._toast import Toast

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.foryou import ForYouScreen, TagChoice
from tui_reader.app.screens.main import MainScreen
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]


def by_topic(path: Path) -> dict[str, list[str]]:
    corpus = load_corpus([path], use_cache=False)
    out: dict[str, list[str]] = {}
    for pid, title in zip(corpus.ids, corpus.titles, strict=True):
        out.setdefault(fx.topic_of(title), []).append(pid)
    corpus.close()
    return out


def tag(bookmarks: Path, ids: list[str], name: str) -> None:
    store = BookmarkStore(bookmarks)
    for pid in ids:
        store.add_tags(pid, [name], title=pid)


async def for_you(pilot: Pilot, choice: int) -> ForYouScreen:
    """F, then the ``choice``-th option (0: all bookmarks, then the tags), then the ranking."""
    await pilot.press("F")
    await pilot.pause()
    assert isinstance(pilot.app.screen, TagChoice)
    options = pilot.app.screen.query_one(OptionList)
    options.highlighted = choice
    await pilot.press("enter")
    await drained(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ForYouScreen)
    return screen


def summary(screen: ForYouScreen) -> str:
    return str(screen.query_one("#foryou-summary", Static).visual)


def topics_of(screen: ForYouScreen) -> list[str]:
    return [fx.topic_of(screen.corpus.titles[p.row]) for p in screen.picks]


async def test_f_ranks_the_tags_topic_first_with_because(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path
) -> None:
    path = fx.write(tmp_path / "files")
    ids = by_topic(path)
    tag(bookmarks_path, ids["diffusion"][:3], "gen")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        depth, view = main.model.depth, main.model.view
        screen = await for_you(pilot, 1)
        assert topics_of(screen)[:12] == ["diffusion"] * 12
        assert 'For you, from the tag "gen": 3 papers, 0 not interested' in summary(screen)
        first = screen.picks[0]
        text, spans = screen.papers.snippets[first.row]
        assert text == "because: " + ", ".join(first.because) and len(spans) == len(first.because)
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is main and main.model.depth == depth and main.model.view == view


async def test_x_removes_the_paper_for_good_and_r_forgets(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path, data_dir: Path
) -> None:
    path = fx.write(tmp_path / "files")
    ids = by_topic(path)
    tag(bookmarks_path, ids["graph"][:3], "graphs")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)
        unwanted = screen.picks[0].id
        await pilot.press("x")
        assert unwanted not in {p.id for p in screen.picks}  # at once, before the retraining
        await drained(pilot)
        assert unwanted not in {p.id for p in screen.picks} and screen.picks
        assert "1 not interested" in summary(screen)
        saved = json.loads((data_dir / "not-interested.json").read_text())
        assert saved["tags"]["graphs"] == [unwanted]
        await pilot.press("escape")
        screen = await for_you(pilot, 1)  # opened again: still gone
        assert unwanted not in {p.id for p in screen.picks}
        await pilot.press("R")
        await drained(pilot)
        assert json.loads((data_dir / "not-interested.json").read_text())["tags"]["graphs"] == []
        assert unwanted in {p.id for p in screen.picks}


async def test_enter_goes_to_the_paper_in_the_list(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path
) -> None:
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["privacy"][:3], "priv")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        screen = await for_you(pilot, 0)  # all bookmarks: the same three
        await pilot.press("down")
        chosen = screen.picks[1]
        await pilot.press("enter")
        await drained(pilot)
        assert isinstance(pilot.app.screen, MainScreen)
        assert main.papers.highlighted_row == chosen.row


async def test_fewer_than_three_papers_says_what_it_needs(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path
) -> None:
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["robot"][:2], "robots")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)
        assert screen.picks == []
        assert 'at least 3 papers in the tag "robots"' in summary(screen)
        assert "bookmark or tag 1 more" in screen.papers.empty_text


async def test_x_twice_quickly_keeps_both_marks(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path, data_dir: Path
) -> None:
    """The second x replaces the first one's retraining before it may have run: both are written."""
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["causal"][:3], "why")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)
        first = screen.picks[0].id
        await pilot.press("x")
        assert screen.current is not None
        second = screen.current.id  # the paper x is on now (the first retraining may be back)
        await pilot.press("x")
        await drained(pilot)
        saved = json.loads((data_dir / "not-interested.json").read_text())
        assert sorted(saved["tags"]["why"]) == sorted([first, second])
        assert not {first, second} & {p.id for p in screen.picks}
        assert "2 not interested" in summary(screen)


async def test_a_corrupt_not_interested_file_is_set_aside_and_said(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path, data_dir: Path
) -> None:
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["speech"][:3], "asr")
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "not-interested.json").write_text("{not json")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)
        assert screen.picks
        said = [n for n in notices(pilot.app) if "not-interested.json was corrupt" in n]
        assert len(said) == 1 and "kept as not-interested.json.corrupt-" in said[0]
    assert [p.name for p in data_dir.glob("not-interested.json.corrupt-*")]


async def test_a_tag_with_markup_is_text_in_every_notice(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path
) -> None:
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["protein"][:3], "[/bold]x[red]")
    async with make_app(path).run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)
        await pilot.press("x")  # something to reset
        await drained(pilot)
        await pilot.press("R")
        await drained(pilot)
        await pilot.pause(0.2)
        toasts = [str(t.render()) for t in pilot.app.screen.query(Toast)]
        assert any('the tag "[/bold]x[red]": retraining' in t for t in toasts), toasts
        assert screen.picks


async def test_x_and_r_only_where_they_can_run(
    make_app: MakeApp, tmp_path: Path, bookmarks_path: Path
) -> None:
    path = fx.write(tmp_path / "files")
    tag(bookmarks_path, by_topic(path)["bandit"][:2], "few")
    tag(bookmarks_path, by_topic(path)["robot"][:3], "robots")
    async with make_app(path).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await for_you(pilot, 1)  # "few": nothing ranked, nothing to mark
        assert screen.check_action("not_interested", ()) is False
        assert screen.check_action("reset", ()) is False
        await pilot.press("escape")
        screen = await for_you(pilot, 2)  # "robots"
        assert screen.check_action("not_interested", ()) is True
        assert screen.check_action("reset", ()) is False  # no not-interested paper yet
        await pilot.press("x")
        assert screen.check_action("reset", ()) is True
        await drained(pilot)
        assert screen.check_action("reset", ()) is True


async def test_f_needs_the_collection_and_its_index(make_app: MakeApp) -> None:
    from tui_reader.app.screens.foryou import can_run

    async with make_app().run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        assert can_run(main, "for_you", True) is True
        searcher, main.searcher = main.searcher, None  # as before the index is ready
        try:
            assert can_run(main, "for_you", True) is None
            assert can_run(main, "inbox", True) is True
        finally:
            main.searcher = searcher
