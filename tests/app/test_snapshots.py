"""SVG snapshots of the main screens (update with: pytest --snapshot-update tests/app)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pilot_helpers import ready, settle
from textual.pilot import Pilot

from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import ResultsReady

MakeApp = Callable[..., ReaderApp]


async def _ready(pilot: Pilot) -> None:
    await ready(pilot)


async def _searched(pilot: Pilot) -> None:
    screen = await ready(pilot)
    await pilot.press("slash", *"diffusion models", "enter")
    await settle(pilot)
    assert screen.result is not None
    screen.result.took_ms = 0.0  # the one figure that differs run to run
    screen.post_message(ResultsReady(screen.result, {}, screen._seq))  # shown again, as if new
    await settle(pilot)


async def _help(pilot: Pilot) -> None:
    await ready(pilot)
    await pilot.press("question_mark")
    await pilot.pause()


def test_snapshot_start(snap_compare: Any, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=_ready)


def test_snapshot_search_results(snap_compare: Any, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=_searched)


def test_snapshot_help(snap_compare: Any, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=_help)


def test_snapshot_narrow(snap_compare: Any, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=(72, 36), run_before=_ready)
