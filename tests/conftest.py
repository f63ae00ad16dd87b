"""Shared by every test: no test may read or write the user's real data, cache or config."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the XDG folders into tmp_path and drop the overrides and display variables."""
    home = tmp_path / "xdg"
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        folder = home / name.split("_")[1].lower()
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(folder))
    for name in ("TUI_READER_CACHE_DIR", "TUI_READER_BOOKMARKS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    return home
