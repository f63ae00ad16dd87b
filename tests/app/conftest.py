"""Fixtures for driving the real ReaderApp with Pilot, isolated from the user's files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tui_reader.app.app import ReaderApp


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    monkeypatch.delenv("TUI_READER_CACHE_DIR", raising=False)
    monkeypatch.delenv("TUI_READER_BOOKMARKS", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture
def bookmarks_path(tmp_path: Path) -> Path:
    return tmp_path / "bookmarks.json"


@pytest.fixture
def make_app(bookmarks_path: Path) -> Callable[..., ReaderApp]:
    def make(*paths: str | Path) -> ReaderApp:
        return ReaderApp([str(p) for p in paths], bookmarks_path=bookmarks_path)

    return make
