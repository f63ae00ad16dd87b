"""The reader with its cold build in a child process (search/index/isolated.py): the status line
shows the child's indexing progress, then Enter searches the index the child built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot

from bench import corpusgen
from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import IndexProgress
from tui_reader.app.screens import loading
from tui_reader.app.screens.main import MainScreen
from tui_reader.search import Searcher, SearchIndex, SearchMode
from tui_reader.search.index import isolated


async def ready(pilot: Pilot) -> MainScreen:
    for _ in range(1500):
        await pilot.pause(0.02)
        screen = pilot.app.screen
        if isinstance(screen, MainScreen) and screen.index_state in ("ready", "unavailable"):
            break
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(pilot.app.screen, MainScreen)
    return pilot.app.screen


async def test_the_reader_shows_the_childs_progress_then_searches_its_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(isolated.CHILD_ENV, "1")
    seen: list[str] = []
    children: set[int] = set()

    class Recorded(IndexProgress):
        def __init__(self, state: str) -> None:
            seen.append(state)
            children.update(int(p) for p in os.listdir("/proc") if p.isdigit() and _is_build_child(p))
            super().__init__(state)

    monkeypatch.setattr(loading, "IndexProgress", Recorded)
    papers = corpusgen.write(tmp_path / "papers.jsonl", 1200)
    app = ReaderApp([str(papers)], bookmarks_path=tmp_path / "bookmarks.json")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "ready" and screen.searcher is not None
        await pilot.press("slash", *"vision", "enter")
        await pilot.pause(0.3)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.corpus is not None
        index = SearchIndex(screen.corpus)
        whole = Searcher(index, warm=False).search("vision", SearchMode.ENTER, 10_000)
        index.close()
        assert whole.total > 0
        assert list(screen.papers.rows)[:20] == [h.row for h in whole.hits[:20]]
    figures = [int(s.rsplit(" ", 1)[1].rstrip("%")) for s in seen if s.startswith("indexing ")]
    assert len(figures) > 2 and figures == sorted(figures) and figures[-1] > 0
    assert children  # the progress came while a build child ran


def _is_build_child(pid: str) -> bool:
    """A process this one started as python -m tui_reader.search.index.buildchild."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return f"PPid:\t{os.getpid()}\n" in status and b"tui_reader.search.index.buildchild" in command
