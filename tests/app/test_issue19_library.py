"""Issue 19, finding 14: every bookmark is viewable, those of other collections from their
snapshots (LibraryScreen), on the real app with a real store in a temp folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pilot_helpers import detail_text, ready
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.library import BookmarkList, LibraryScreen
from tui_reader.app.screens.main import MainScreen
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]

HOSTILE_TITLE = "\x1b]0;pwned\x07[bold]Loud[/bold] title"
HOSTILE_SEEN = "\u241b]0;pwned\u2407[bold]Loud[/bold] title"  # ESC and BEL visible, brackets kept
FOREIGN = [
    Paper(
        id="f00000000001",
        title="Graph kernels from another shelf",
        abstract="Kernels on graphs, read in the other collection [red]not markup[/red].",
        authors=["Ada Lovelace", "Alan Turing"],
        venue="JMLR",
        year=2011,
        url="https://example.org/kernels",
        record={"volume": "12", "publisher": "Microtome"},
    ),
    Paper(
        id="f00000000002",
        title=HOSTILE_TITLE,
        abstract="An abstract with \x1b[31mred\x1b[0m and [bold]brackets[/bold].",
        year=2020,
        venue="[i]Venue[/i]",
    ),
]


def _store_with_foreign(path: Path) -> None:
    """Bookmarks of another collection, as a run with it open left them (snapshots only)."""
    store = BookmarkStore(path)
    for paper in FOREIGN:
        store.add(paper.id, paper.title, snapshot=paper)
    store.add_tags(FOREIGN[0].id, ["survey", "toread"])
    store.set_note(FOREIGN[0].id, "Read with [b]care[/b]\nsecond line")


async def _open_library(
    pilot: Pilot, local: int = 1, results: list[str | None] | None = None
) -> tuple[MainScreen, LibraryScreen]:
    """Bookmark the open collection's first ``local`` papers, then push the screen."""
    main = await ready(pilot)
    assert main.corpus is not None and main.store is not None
    for pid in main.corpus.ids[:local]:
        main.store.add(pid, main.corpus.titles[main.corpus.index_of[pid]], snapshot=main.corpus.get(pid))
    screen = LibraryScreen(main.store, main.corpus.index_of, main.corpus.get)
    await pilot.app.push_screen(screen, callback=None if results is None else results.append)
    await _drained(pilot)
    return main, screen


async def _drained(pilot: Pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def _plain(screen: LibraryScreen, selector: str) -> str:
    visual = screen.query_one(selector, Static).visual
    assert isinstance(visual, Content)  # never markup
    return visual.plain


def _message(screen: LibraryScreen) -> str:
    return _plain(screen, "#library-message")


def _on_disk(path: Path) -> set[str]:
    return BookmarkStore(path).ids()


async def test_every_bookmark_is_listed_the_open_collections_first(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(200, 40)) as pilot:  # room for the tags column too
        main, screen = await _open_library(pilot, local=2)
        assert main.corpus is not None
        entries = screen.bookmark_list.entries
        titles = [e.title for e in entries]
        local = {main.corpus.titles[i] for i in range(2)}
        assert set(titles[:2]) == local and all(e.here for e in entries[:2])
        assert set(titles[2:]) == {FOREIGN[0].title, HOSTILE_SEEN}
        assert not any(e.here for e in entries[2:])
        summary = _plain(screen, "#library-summary")
        assert (
            "All bookmarks: 4" in summary and "2 in this collection" in summary and "2 in others" in summary
        )
        lines = [screen.bookmark_list.render_line(y).text for y in range(4)]
        kernels = next(line for line in lines if FOREIGN[0].title in line)
        assert "2011" in kernels and "JMLR" in kernels and "#survey #toread" in kernels
        assert lines[0].startswith("● ") and not kernels.startswith("●")
        assert len({line.index("2011") if "2011" in line else line.index("20") for line in lines[2:]}) == 1
        await pilot.resize_terminal(60, 20)  # the title keeps half the line: the tags go first
        await pilot.pause()
        narrow = [screen.bookmark_list.render_line(y).text for y in range(4)]
        kernels = next(line for line in narrow if FOREIGN[0].title in line)
        assert "2011  JMLR" in kernels and "#survey" not in kernels


async def test_a_foreign_bookmarks_detail_comes_from_its_snapshot(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, screen = await _open_library(pilot)
        index = next(i for i, e in enumerate(screen.bookmark_list.entries) if e.pid == FOREIGN[0].id)
        for _ in range(index):
            await pilot.press("j")
        await pilot.pause()
        text = detail_text(app)
        assert FOREIGN[0].abstract in text  # "[red]" shown as written
        assert "Ada Lovelace, Alan Turing" in text and "JMLR 2011" in text
        assert "#survey #toread" in text and "Read with [b]care[/b]\nsecond line" in text
        assert "Microtome" in text  # from the snapshot's full record
        assert "not in the open collection" in text
        await pilot.press("enter")  # not here: the screen stays and says why
        await pilot.pause()
        assert app.screen is screen and "Not in the open collection" in _message(screen)
        await pilot.press("k")
        await pilot.pause()
        assert FOREIGN[0].abstract not in detail_text(app)


async def test_hostile_text_is_shown_literally(make_app: MakeApp, varied: Path, bookmarks_path: Path) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(160, 40)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        assert screen.bookmark_list.entries[0].title == HOSTILE_SEEN  # newest first
        line = screen.bookmark_list.render_line(0).text
        assert HOSTILE_SEEN in line and "[i]Venue[/i]" in line and "\x1b" not in line
        text = detail_text(app)
        assert HOSTILE_SEEN in text and "[bold]brackets[/bold]" in text and "[i]Venue[/i] 2020" in text
        assert "\x1b" not in text and "\x07" not in text


async def test_b_removes_a_bookmark_from_the_file(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    removed: list[str] = []
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        main, _ = await _open_library(pilot, local=1)
        assert main.corpus is not None and main.store is not None
        await pilot.press("escape")
        await pilot.pause()
        screen = LibraryScreen(main.store, main.corpus.index_of, main.corpus.get, on_removed=removed.append)
        await app.push_screen(screen)
        await _drained(pilot)
        local = main.corpus.ids[0]
        assert _on_disk(bookmarks_path) == {local, *(p.id for p in FOREIGN)}
        await pilot.press("b")  # in the open collection: one press
        await _drained(pilot)
        assert _on_disk(bookmarks_path) == {p.id for p in FOREIGN} and removed == [local]
        assert [e.pid for e in screen.bookmark_list.entries] == [FOREIGN[1].id, FOREIGN[0].id]
        assert "Removed the bookmark" in _message(screen)
        await pilot.press("b")  # not here: it could not be bookmarked again, so b asks twice
        await _drained(pilot)
        assert len(_on_disk(bookmarks_path)) == 2 and "b again removes" in _message(screen)
        await pilot.press("b")
        await _drained(pilot)
        assert _on_disk(bookmarks_path) == {FOREIGN[0].id}
        assert [e.pid for e in screen.bookmark_list.entries] == [FOREIGN[0].id]
        assert FOREIGN[0].abstract in detail_text(app)  # the cursor's row shows the next one
        entry = json.loads(bookmarks_path.read_text(encoding="utf-8"))["bookmarks"][0]
        assert entry["note"] == "Read with [b]care[/b]\nsecond line"  # the one kept is untouched


async def test_moving_away_disarms_the_second_b(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, _screen = await _open_library(pilot, local=0)
        await pilot.press("b", "j", "k", "b")
        await _drained(pilot)
        assert len(_on_disk(bookmarks_path)) == 2


async def test_enter_on_a_local_bookmark_returns_its_id(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    results: list[str | None] = []
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        main, _screen = await _open_library(pilot, local=1, results=results)
        assert main.corpus is not None
        await pilot.press("enter")
        await pilot.pause()
        assert results == [main.corpus.ids[0]] and isinstance(app.screen, MainScreen)
        await app.push_screen(LibraryScreen(main.store, main.corpus.index_of), callback=results.append)  # type: ignore[arg-type]
        await _drained(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert results[-1] is None and isinstance(app.screen, MainScreen)


async def test_c_y_and_o_work_from_a_snapshot(
    make_app: MakeApp, varied: Path, bookmarks_path: Path, fake_xclip: Path, browser: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        await pilot.press("j")  # the kernels paper
        await pilot.press("c")
        await _drained(pilot)
        assert fake_xclip.read_text() == FOREIGN[0].abstract == app.clipboard
        assert _message(screen) == f"Copied abstract ({len(FOREIGN[0].abstract):,} chars)."
        await pilot.press("y")
        await _drained(pilot)
        entry = fake_xclip.read_text()
        assert entry.startswith("@article{") and "Graph kernels from another shelf" in entry
        assert "Microtome" in entry and "care" in entry  # the record and the note
        await pilot.press("o")
        await _drained(pilot)
        assert browser.read_text().split() == [FOREIGN[0].url]
        assert "Opened in the browser" in _message(screen)


async def test_a_narrow_terminal_stacks_the_panes(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    _store_with_foreign(bookmarks_path)
    app = make_app(varied)
    async with app.run_test(size=(60, 20)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        listed, detail = screen.bookmark_list, screen.detail
        assert screen.has_class("-narrow") and detail.region.y > listed.region.y
        assert detail.region.width >= 55 and isinstance(listed, BookmarkList)
        assert "brackets" in detail_text(app)


async def test_a_bookmark_without_a_snapshot_says_so_and_still_cites(
    make_app: MakeApp, varied: Path, bookmarks_path: Path, fake_xclip: Path
) -> None:
    old = {"id": "0123456789ab", "title": "Kept by title [b]only[/b]", "added": "2020-01-01", "note": "n"}
    bookmarks_path.write_text(json.dumps({"version": 1, "bookmarks": [old]}), encoding="utf-8")
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        text = detail_text(app)
        assert "Kept by title [b]only[/b]" in text and "No snapshot of this paper was kept" in text
        await pilot.press("c")
        await pilot.pause()
        assert "No abstract to copy" in _message(screen)
        await pilot.press("y")
        await _drained(pilot)
        assert "Kept by title" in fake_xclip.read_text()
        await pilot.press("o")
        await pilot.pause()
        assert "No link" in _message(screen)


async def test_a_snapshot_is_read_when_its_row_comes_into_sight(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    store = BookmarkStore(bookmarks_path)
    for n in range(250):
        pid = f"{n:012x}"
        paper = Paper(id=pid, title=f"Paper {n}", abstract=f"Text {n}.", year=2000 + n % 20)
        store.add(pid, f"Paper {n}", snapshot=paper)
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        entries = screen.bookmark_list.entries
        assert len(entries) == 250 and entries[0].title == "Paper 249"  # newest first
        assert (
            entries[0].read
            and entries[0].year == "2009"
            and "2009" in screen.bookmark_list.render_line(0).text
        )
        assert not entries[-1].read and entries[-1].paper is None  # out of sight: not read
        await pilot.press("G")
        await _drained(pilot)
        assert entries[-1].read and "Text 0." in detail_text(app)
        await pilot.press("b")
        await pilot.press("b")
        await _drained(pilot)
        assert len(BookmarkStore(bookmarks_path)) == 249 and "Text 1." in detail_text(app)


async def test_b_on_a_store_it_cannot_write_says_so_and_keeps_it(
    make_app: MakeApp, varied: Path, bookmarks_path: Path
) -> None:
    newer = {"id": "0123456789ab", "title": "From a newer reader", "added": "2020-01-01", "note": ""}
    bookmarks_path.write_text(json.dumps({"version": 99, "bookmarks": [newer]}), encoding="utf-8")
    before = bookmarks_path.read_bytes()
    app = make_app(varied)
    async with app.run_test(size=(120, 40)) as pilot:
        _main, screen = await _open_library(pilot, local=0)
        assert [e.title for e in screen.bookmark_list.entries] == ["From a newer reader"]
        await pilot.press("b", "b")
        await _drained(pilot)
        told = _message(screen)
        assert told.startswith("Bookmark not removed:") and "newer tui-reader" in told
        assert len(screen.bookmark_list.entries) == 1 and bookmarks_path.read_bytes() == before
