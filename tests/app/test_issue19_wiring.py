"""Issue 19 on the main screen: finding 14 from the list (B says where the other bookmarks are, a
shows them all, Enter goes to one here), the selection drawn, and check_action hiding what
cannot run from the footer and the palette."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pilot_helpers import drained, enter_query, ready
from textual.widgets import Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.library import LibraryScreen
from tui_reader.app.widgets.footer import ReaderFooter
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]
ELSEWHERE = [
    Paper(
        id=f"e0000000000{i}", title=f"Paper of another shelf {i}", abstract="Kept in a snapshot.", year=2011
    )
    for i in (1, 2)
]


def info_text(app: ReaderApp) -> str:
    return str(app.screen.query_one("#search-info", Static).visual)


async def test_b_says_where_the_other_bookmarks_are_and_a_shows_every_one(
    make_app: MakeApp, bookmarks_path: Path
) -> None:
    store = BookmarkStore(bookmarks_path)
    for paper in ELSEWHERE:
        store.add(paper.id, paper.title, snapshot=paper)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        await pilot.press("j", "j", "b")  # one bookmark here
        await drained(pilot)
        here = screen.corpus.ids[2]
        await pilot.press("B")
        await drained(pilot)
        assert [screen.corpus.ids[r] for r in screen.papers.rows] == [here]
        assert info_text(app) == "2 more bookmarks are in other collections: a shows every bookmark"
        await pilot.press("a")
        await drained(pilot)
        library = app.screen
        assert isinstance(library, LibraryScreen)
        shown = " ".join(str(s.visual) for s in library.query(Static))
        assert "All bookmarks: 3" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.papers.highlighted_row == 2


async def test_selected_papers_are_drawn_and_esc_drops_the_selection(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        await pilot.press("v", "v")
        ids = screen.corpus.ids
        assert screen.papers.selected == {ids[0], ids[1]} and screen.papers.cursor == 2
        selected_bg = next(iter(screen.papers.render_line(0))).style
        plain_bg = next(iter(screen.papers.render_line(3))).style
        assert selected_bg is not None and plain_bg is not None and selected_bg.bgcolor != plain_bg.bgcolor
        await pilot.press("escape")
        assert screen.papers.selected == frozenset()


async def test_what_cannot_run_is_hidden_from_the_footer_and_the_palette(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.check_action("accept_suggestion", ()) is False
        assert screen.check_action("undo", ()) is False
        titles = {c.title for c in app.get_system_commands(screen)}
        assert "Search the suggestion" not in titles and "Undo marking the list read" not in titles
        await pilot.press("A")
        await drained(pilot)
        assert screen.check_action("undo", ()) is True
        assert "Undo marking the list read" in {c.title for c in app.get_system_commands(screen)}
        await enter_query(pilot, "lerning")
        assert screen.result is not None and screen.result.suggestion
        assert screen.check_action("accept_suggestion", ()) is True
        assert isinstance(screen.query_one(ReaderFooter), ReaderFooter)


async def test_a_key_right_after_enter_goes_to_the_list_not_into_the_bar(make_app: MakeApp) -> None:
    """`/robot` Enter S typed faster than the screen answers: S sorts, it is not typed."""
    from textual import events

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"diffusion")
        app.post_message(events.Key("enter", "\r"))  # both queued before either is handled
        app.post_message(events.Key("S", "S"))
        await drained(pilot)
        await pilot.pause(0.2)
        await drained(pilot)
        assert screen.search_bar.value == "diffusion"
        assert screen.result is not None and screen.result.query == "diffusion"
        assert screen.model.view.sort == "year" and screen.order == "year"


async def test_findings_11_12_13_in_the_reader(make_app: MakeApp, tmp_path: Path) -> None:
    """A title typed as words comes first, author: and "Last, First" work, and "did you mean"
    mends both misspelt words as titles spell them, finding papers when accepted."""
    from pilot_helpers import write_jsonl

    def paper(title: str, authors: list[str], abstract: str) -> dict[str, object]:
        return {"title": title, "authors": authors, "abstract": abstract}

    records = [
        paper(f"Attention for task {n}", ["Ada Lovelace"], "Attention is what you need, all of it, we show.")
        for n in range(6)
    ]
    records += [
        paper("Attention is All you Need", ["Ashish Vaswani"], "A transformer built on attention."),
        paper("Samy and Yoshua", ["Samy Bengio", "Yoshua Bengio"], "Learning deep models."),
        paper("Only Yoshua", ["Yoshua Bengio"], "Deep learning of representations."),
        paper("Transformer diffusion models", ["Grace Hopper"], "A transformer for diffusion models."),
    ]
    records += [
        paper(f"Transformer {n}", ["Alan Turing"], f"Transformer diffusion study {n}.") for n in range(6)
    ]
    app = make_app(write_jsonl(tmp_path / "titles.jsonl", records))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        corpus = screen.corpus
        assert corpus is not None
        await enter_query(pilot, "attention is all you need")
        assert corpus.titles[screen.papers.rows[0]] == "Attention is All you Need"
        await enter_query(pilot, "author:bengio")
        assert screen.result is not None and screen.result.total == 2
        await enter_query(pilot, 'authors:"Bengio, Yoshua"')
        assert screen.result is not None and screen.result.total == 2
        await enter_query(pilot, 'authors:"Bengio Yoshua"')  # across two names: no match
        assert screen.result is not None and screen.result.total == 0
        await enter_query(pilot, "tranformer difusion")
        assert screen.result is not None and screen.result.suggestion == "transformer diffusion"
        await pilot.press("ctrl+y")
        await drained(pilot)
        assert screen.result is not None and screen.result.query == "transformer diffusion"
        assert screen.result.total >= 7 and screen.result.suggestion is None


async def test_b_on_a_selection_never_removes_a_bookmark_another_instance_made(
    make_app: MakeApp, bookmarks_path: Path
) -> None:
    """The selection is bookmarked in one write against the file as it is now: a paper another
    reader bookmarked meanwhile stays bookmarked (a toggle would have removed it)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        first, second = screen.corpus.paper(0), screen.corpus.paper(1)
        BookmarkStore(bookmarks_path).add(first.id, first.title, snapshot=first)  # another instance
        await pilot.press("v", "v", "b")
        await drained(pilot)
        assert BookmarkStore(bookmarks_path).ids() == {first.id, second.id}
        await pilot.press("t")  # the selection stays: t adds the tag to both
        await pilot.pause()
        await pilot.press(*"toread", "enter")
        await drained(pilot)
        marks = {m.id: m.tags for m in BookmarkStore(bookmarks_path).all()}
        assert marks == {first.id: ["toread"], second.id: ["toread"]}
