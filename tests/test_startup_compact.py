"""The reader on a collection read from the compact parse cache (issue 21): the list, the detail
pane, a search's hits and the place it reopens at come from the columns and the hashed id lookup,
the same papers a plain load gives. The app is real (Pilot), the file, cache and index too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen
from tui_reader.corpus import outcomes
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.strcol import StrColumn
from tui_reader.corpus.views import BULK

N = BULK + 300


def _write(path: Path) -> Path:
    lines = []
    for k in range(N):
        if k % 97 == 11:  # one work in many records: folded, so rows and papers differ after it
            lines.append({"title": "Repeated work", "abstract": "One work listed many times over here."})
        else:
            lines.append({"title": f"Paper {k:05d} on topic {k % 7}", "abstract": f"Abstract {k} on zyx{k}."})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    return path


async def _ready(pilot) -> MainScreen:  # type: ignore[no-untyped-def]
    for _ in range(1500):
        await pilot.pause(0.02)
        screen = pilot.app.screen
        if isinstance(screen, MainScreen) and screen.index_state in ("ready", "unavailable"):
            break
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen) and screen.index_state == "ready"
    return screen


def _detail(app: ReaderApp) -> str:
    return str(app.screen.query_one("#detail-body", Static).visual)


@pytest.mark.asyncio
async def test_the_reader_lists_searches_and_reopens_from_the_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    path = _write(tmp_path / "big.jsonl")
    expected = load_corpus([path])  # fills the parse cache: the reader reads the columns
    assert isinstance(expected.files[0].ids, StrColumn)
    far = len(expected) - 5
    app = ReaderApp([str(path)], bookmarks_path=tmp_path / "bookmarks.json")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _ready(pilot)
        assert isinstance(screen.corpus.files[0].ids, StrColumn)  # type: ignore[union-attr]
        assert len(screen.papers.rows) == len(expected)
        assert expected.titles[0] in _detail(app)
        screen.papers.cursor = far
        await pilot.pause()
        assert expected.titles[far] in _detail(app)
        k = int(expected.titles[far].split()[1])
        await pilot.press("slash", *f"zyx{k}", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.3)
        assert list(screen.papers.rows)[:1] == [far] and expected.titles[far] in _detail(app)
    again = ReaderApp([str(path)], bookmarks_path=tmp_path / "bookmarks.json")
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await _ready(pilot)
        await pilot.pause(0.3)
        assert expected.titles[far] in _detail(again)  # the session's paper, found by its id
