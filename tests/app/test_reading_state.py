"""Read state and triage, driven with Pilot on real files: a paper shown for a moment or opened
with Enter is read; u toggles; unread rows are marked; U shows only unread papers; N moves to the
next unread one; papers new since the last visit are marked and counted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pilot_helpers import VARIED, detail_text, drained, notices, ready, shown_titles, status_text, write_jsonl
from textual.strip import Strip

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen

MakeApp = Callable[..., ReaderApp]


def read_ids(data_dir: Path) -> set[str]:
    path = data_dir / "read.json"
    return set(json.loads(path.read_text())["read"]) if path.exists() else set()


def marker(screen: MainScreen, index: int) -> str:
    """The marker column of the list's line ``index`` (the list shows one line per paper)."""
    strip: Strip = screen.papers.render_line(index)
    return strip.text[0]


async def test_shown_for_a_moment_is_read(
    make_app: MakeApp, varied: Path, config_file: Path, data_dir: Path
) -> None:
    config_file.write_text("read_delay = 0.05\n")
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        await pilot.pause(0.3)
        await drained(pilot)
        assert screen.read == frozenset()  # the paper it opened on: nobody has read it yet
        await pilot.press("j")
        await pilot.pause(0.3)
        await drained(pilot)
        second = screen.corpus.ids[1]
        assert second in screen.read and read_ids(data_dir) == {second}
        assert marker(screen, 1) == " " and marker(screen, 0) == "•"
        assert "7 unread" in status_text(screen)
        assert "Read " in detail_text(app) and "Unread" not in detail_text(app)
        await pilot.press("d")  # with the detail pane hidden, nothing is being read
        await pilot.press("j")
        await pilot.pause(0.3)
        assert screen.corpus.ids[2] not in screen.read


async def test_enter_and_u(make_app: MakeApp, varied: Path, data_dir: Path) -> None:
    app = make_app(varied)  # read_delay = 0 (conftest): only Enter and u mark papers read
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        ids = screen.corpus.ids
        assert "8 unread" in status_text(screen) and "• Unread" in detail_text(app)
        await pilot.press("j", "j", "enter")
        await drained(pilot)
        assert read_ids(data_dir) == {ids[2]} and marker(screen, 2) == " "
        await pilot.press("escape", "j", "u")
        await drained(pilot)
        assert read_ids(data_dir) == {ids[2], ids[3]}
        assert f"Marked read: {VARIED[3]['title']}" in notices(app)
        await pilot.press("u")  # again: unread
        await drained(pilot)
        assert read_ids(data_dir) == {ids[2]} and marker(screen, 3) == "•"
        assert f"Marked unread: {VARIED[3]['title']}" in notices(app)
        assert "7 unread" in status_text(screen)
    again = make_app(varied)
    async with again.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.read == {ids[2]} and marker(screen, 2) == " " and "7 unread" in status_text(screen)


async def test_unread_view_and_next_unread(make_app: MakeApp, varied: Path) -> None:
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        for _ in range(3):  # papers 0, 1 and 2 read
            await pilot.press("u", "j")
        await drained(pilot)
        await pilot.press("g", "N")
        assert screen.papers.cursor == 3
        await pilot.press("U")
        await drained(pilot)
        assert shown_titles(screen) == [r["title"] for r in VARIED[3:]]
        assert "5 unread papers of 8" in status_text(screen)
        assert screen.papers.highlighted_row == 3  # the same paper under the cursor
        await pilot.press("u")  # read while the view is on: it stays listed, no jump
        await drained(pilot)
        assert len(screen.papers.rows) == 5 and screen.papers.cursor == 0
        await pilot.press("G", "N")  # from the last one: back to the first unread
        assert screen.papers.highlighted_row == 4
        assert "Back at the top: the first unread paper in this list." in notices(app)
        await pilot.press("escape")  # leaves the unread view
        assert len(screen.papers.rows) == 8 and screen.view == "all"
        for row in range(8):  # the rest read (as u on each would)
            screen.reading.set_read({screen.corpus.ids[row]: True})
        await drained(pilot)
        await pilot.press("N")
        assert "No unread papers in this list." in notices(app)
        await pilot.press("U")
        await drained(pilot)  # the view is filled by a worker (a loaded machine lost this race)
        assert screen.papers.rows == [] and "Nothing unread" in screen.papers.empty_text


async def test_new_since_the_last_visit(make_app: MakeApp, tmp_path: Path, data_dir: Path) -> None:
    folder = tmp_path / "grows"
    folder.mkdir()
    papers = write_jsonl(folder / "papers.jsonl", VARIED[:5])
    app = make_app(folder)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.new == frozenset() and " new" not in status_text(screen)  # a first visit
        assert "New since" not in detail_text(app)
    write_jsonl(papers, VARIED)  # three papers arrive
    again = make_app(folder)
    async with again.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None
        arrived = {screen.corpus.ids[i] for i in (5, 6, 7)}
        assert screen.new == arrived and "3 new" in status_text(screen)
        assert [marker(screen, i) for i in range(8)] == ["•"] * 5 + ["+"] * 3
        await pilot.press("G")
        assert "+ New since your last visit" in detail_text(again)
        await pilot.press("u")
        await drained(pilot)
        assert marker(screen, 7) == " "  # read: no longer waiting for attention
    third = make_app(folder)
    async with third.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert screen.new == frozenset()  # new since the last launch only
    visits = json.loads(next((data_dir / "collections").glob("*.json")).read_text())["visits"]
    assert [len(v["ids"].split()) for v in visits] == [5, 3]


async def test_a_read_state_that_cannot_be_saved_says_so_once(
    make_app: MakeApp, varied: Path, data_dir: Path
) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "read.json").write_text(json.dumps({"version": 5, "read": {}}))
    app = make_app(varied)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert any("read.json is from a newer tui-reader (version 5)" in n for n in notices(app))
        await pilot.press("u", "j", "u")
        await drained(pilot)
        failed = [n for n in notices(app) if n.startswith("Read state not saved")]
        assert len(failed) == 1 and "newer tui-reader" in failed[0]
        assert len(screen.read) == 2  # what the user asked for still shows
