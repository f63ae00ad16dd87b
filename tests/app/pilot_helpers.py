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


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.message for n in app._notifications]


def shown_titles(screen: MainScreen) -> list[str]:
    assert screen.corpus is not None
    return [screen.corpus.titles[r] for r in screen.papers.rows]


# Papers whose years, venues and links differ (the seeds share one venue and year, and no link).
VARIED: list[dict[str, object]] = [
    {
        "title": "Alpha graphs",
        "year": 2019,
        "venue": "ICML 2019",
        "url": "https://example.org/alpha",
        "abstract": "We study graph networks on many graphs and their smoothness.",
    },
    {
        "title": "Beta diffusion",
        "year": 2023,
        "venue": "NeurIPS 2023",
        "doi": "10.1145/3292500.3330701",
        "abstract": "A diffusion model for graph generation with guidance.",
    },
    {
        "title": "Gamma robots",
        "year": 2021,
        "venue": "CVPR 2021",
        "url": "arXiv:2101.00001",
        "abstract": "Robots learn to grasp objects from images.",
    },
    {
        "title": "Delta learning",
        "year": 2019,
        "venue": "NeurIPS 2019",
        "abstract": "Learning rates that change with the delta of the loss.",
    },
    {
        "title": "Epsilon attention",
        "venue": "",
        "url": "openreview.net/forum?id=eps",
        "abstract": "Attention heads that attend to epsilon-close tokens.",
    },
    {
        "title": "Zeta graphs",
        "year": 2022,
        "venue": "ICML 2022",
        "abstract": "Zeta functions of graphs and a graph kernel built from them.",
    },
    {
        "title": "Eta diffusion",
        "year": 2020,
        "venue": "AAAI 2020",
        "abstract": "Diffusion on manifolds and heat kernels for learning.",
    },
    {
        "title": "Theta sampling",
        "year": 2023,
        "venue": "ICML 2023",
        "abstract": "Sampling from diffusion models in fewer steps with theta schedules.",
    },
]


def browser_script(folder: Path) -> tuple[Path, Path]:
    """A $BROWSER that records each URL it is given (one a line) and prints nothing."""
    record = folder / "opened.txt"
    script = fake_tool(folder, "browser.sh", f'printf "%s\\n" "$1" >> "{record}"')
    return script, record


async def enter_query(pilot: Pilot, text: str) -> None:
    """Search ``text`` with Enter, as typing it would, without a keystroke per letter (~60 ms each
    under Pilot): the bar's Input gets the text (Input.Changed goes out as typed text's does)."""
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    await pilot.press("slash")
    screen.search_bar.input.value = text
    await pilot.press("enter")
    await drained(pilot)


async def type_into(pilot: Pilot, text: str) -> None:
    """Put ``text`` in the focused Input as if typed (its Changed message goes out as typing's
    last one does), without a keystroke per letter. For tests where typing is not the point."""
    from textual.widgets import Input

    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    focused.value = text
    focused.cursor_position = len(text)
    await pilot.pause()
