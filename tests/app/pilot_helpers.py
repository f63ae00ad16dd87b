"""Helpers for Pilot tests (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static

from tui_reader.app.screens.main import MainScreen
from tui_reader.app.widgets.status_line import StatusLine


async def ready(pilot: Pilot) -> MainScreen:
    """Wait until the corpus is loaded and the index is ready (or failed)."""
    app = pilot.app
    for _ in range(400):
        await pilot.pause(0.02)
        screen = app.screen
        if isinstance(screen, MainScreen) and screen.index_state in ("ready", "unavailable"):
            break
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def settle(pilot: Pilot) -> None:
    """Let the debounce timer fire and the search workers finish."""
    await pilot.pause(0.25)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def drained(pilot: Pilot) -> None:
    """Let the workers finish and the screen handle what they posted (and what that set off)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def status_text(screen: MainScreen) -> str:
    return screen.query_one(StatusLine).content.plain


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def detail_text(app) -> str:  # type: ignore[no-untyped-def]
    """The detail pane's text as shown (it is always Content, never markup)."""
    visual = app.screen.query_one("#detail-body", Static).visual
    assert isinstance(visual, Content)
    return visual.plain


def fake_tool(folder: Path, name: str, script: str) -> Path:
    """An executable shell script called name in folder (a fake xclip, tmux, ...)."""
    tool = folder / name
    tool.write_text(f"#!/bin/sh\n{script}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return tool
