"""Fixtures for driving the real ReaderApp with Pilot, isolated from the user's files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pyperclip
import pytest
from pilot_helpers import fake_tool

from tui_reader.app.app import ReaderApp


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    monkeypatch.delenv("TUI_READER_CACHE_DIR", raising=False)
    monkeypatch.delenv("TUI_READER_BOOKMARKS", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("TMUX", raising=False)  # tests run inside tmux must not ask the real one


@pytest.fixture
def bookmarks_path(tmp_path: Path) -> Path:
    return tmp_path / "bookmarks.json"


@pytest.fixture
def make_app(bookmarks_path: Path) -> Callable[..., ReaderApp]:
    def make(*paths: str | Path) -> ReaderApp:
        return ReaderApp([str(p) for p in paths], bookmarks_path=bookmarks_path)

    return make


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder first on PATH, for fake tools (xclip, tmux)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


@pytest.fixture
def fake_xclip(tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clipboard tool on PATH that records what it is given; pyperclip re-detects tools."""
    target = tmp_path / "clipboard.txt"
    fake_tool(bin_dir, "xclip", f'cat > "{target}"')
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(pyperclip, "copy", pyperclip.lazy_load_stub_copy)
    return target


@pytest.fixture
def no_clipboard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setattr(pyperclip, "copy", pyperclip.lazy_load_stub_copy)
