"""Where tui-reader keeps its files. Functions, not constants, so tests can point XDG_* elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "tui-reader"


def cache_dir() -> Path:
    """Search indexes and the parse cache: safe to delete, rebuilt on demand."""
    return Path(os.environ.get("TUI_READER_CACHE_DIR") or platformdirs.user_cache_dir(APP))


def data_dir() -> Path:
    """User data that must never be lost: bookmarks, read state, search history, the session and
    when papers entered each collection."""
    return Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    """The user's settings (config.toml)."""
    return Path(platformdirs.user_config_dir(APP))


def config_file() -> Path:
    override = os.environ.get("TUI_READER_CONFIG")
    return Path(override) if override else config_dir() / "config.toml"


def bookmarks_file() -> Path:
    override = os.environ.get("TUI_READER_BOOKMARKS")
    return Path(override) if override else data_dir() / "bookmarks.json"


def seeds_dir() -> Path:
    """The bundled seeds: the installed copy inside the package first, the source tree's second."""
    package = Path(__file__).resolve().parent  # tui_reader/
    for candidate in (package / "seeds", package.parent / "seeds"):
        if candidate.is_dir() and any(candidate.glob("*.txt")):
            return candidate
    return package / "seeds"


def saved_searches_file() -> Path:
    """The saved searches (library/saved.py): one file for every collection."""
    return data_dir() / "saved-searches.json"


def not_interested_file() -> Path:
    """The papers marked "not interested" per tag, for recommendations (library/negatives.py)."""
    return data_dir() / "not-interested.json"
