"""SVG snapshots of the main screen, a search, the facet panel and the help, at 60x20, 80x24 and
120x40, in the default theme and in the terminal's own 16 colours (``ansi-dark``, what a
TERM=xterm user should pick). Update with: pytest --snapshot-update tests/app/test_snapshots.py
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import ready, settle
from textual.pilot import Pilot

from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import ResultsReady

MakeApp = Callable[..., ReaderApp]
SIZES = [(60, 20), (80, 24), (120, 40)]
THEMES = ["default", "ansi-dark"]


async def _searched(pilot: Pilot) -> None:
    screen = await ready(pilot)
    await pilot.press("slash", *"diffusion models", "enter")
    await settle(pilot)
    result = screen.result
    assert result is not None
    result.took_ms = 0.0  # the one figure that differs run to run
    rows = list(screen.papers.rows)
    screen.post_message(ResultsReady(screen.model.request(), result, rows))  # shown again, as if new
    await settle(pilot)


async def _facets(pilot: Pilot) -> None:
    await ready(pilot)
    await pilot.press("f")
    await settle(pilot)


async def _help(pilot: Pilot) -> None:
    await ready(pilot)
    await pilot.press("question_mark")
    await settle(pilot)


async def _start(pilot: Pilot) -> None:
    await ready(pilot)


SCENES: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "start": _start,
    "search": _searched,
    "facets": _facets,
    "help": _help,
}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", list(SCENES))
def test_snapshot(
    snap_compare: Any,
    make_app: MakeApp,
    scene: str,
    size: tuple[int, int],
    theme: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The help screen shows the config file's path: a tmp_path's (pytest-of-root/pytest-740/...)
    # changed length with pytest's run counter and wrapped the text differently.
    config = Path(tempfile.gettempdir()) / "tui-reader-snapshots" / f"{scene}-{size[0]}x{size[1]}-{theme}"
    shutil.rmtree(config, ignore_errors=True)
    config.mkdir(parents=True)
    (config / "config.toml").write_text("read_delay = 0\n", encoding="utf-8")
    monkeypatch.setenv("TUI_READER_CONFIG", str(config / "config.toml"))

    async def before(pilot: Pilot) -> None:
        if theme != "default":
            pilot.app.theme = theme
        await SCENES[scene](pilot)
        pilot.app.clear_notifications()  # "theme saved", timings: not what the snapshot checks
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)
