"""Fixtures for driving the real ReaderApp with Pilot, isolated from the user's files."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pyperclip
import pytest
from pilot_helpers import VARIED, browser_script, fake_tool, write_jsonl

from tui_reader.app.app import ReaderApp


@pytest.fixture(scope="session")
def _seeds_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled seeds' parse cache and index, built once per worker: most tests open the
    seeds, and each gets a copy of these in its own cache folder (its own files to change)."""
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.persistent import SearchIndex

    cache = tmp_path_factory.mktemp("seeds-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache))
        patch.delenv("TUI_READER_CACHE_DIR", raising=False)
        index = SearchIndex(load_corpus([]))
        index.ensure()
        index.close()
    return cache


@pytest.fixture(autouse=True)
def _isolated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, _seeds_cache: Path
) -> None:
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    if request.node.get_closest_marker("cold_cache") is None:  # a test of building starts empty
        shutil.copytree(_seeds_cache, tmp_path / "xdg_cache_home")
    monkeypatch.delenv("TUI_READER_CACHE_DIR", raising=False)
    monkeypatch.delenv("TUI_READER_BOOKMARKS", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("TMUX", raising=False)  # tests run inside tmux must not ask the real one
    monkeypatch.delenv("TUI_READER_CONFIG", raising=False)
    monkeypatch.delenv("BROWSER", raising=False)
    # Papers are not marked read by a timer unless a test asks for it (config_file below): a
    # test's own pace must not change what the list shows.
    config = tmp_path / "xdg_config_home" / "tui-reader" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("read_delay = 0\n", encoding="utf-8")


@pytest.fixture(autouse=True)
def _quick_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot waits for the app to go idle after each key in steps of 20 ms (two at least, so ~60 ms
    a key); steps of 10 ms keep that wait and make typing about twice as cheap. A test that
    asserts what a key set off in motion (a scroll) pauses first, as it should anyway."""
    import textual._wait

    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", 1 / 100)
    monkeypatch.setattr(textual._wait, "SLEEP_IDLE", 1 / 100 / 20)


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    """The reader's config.toml (in the isolated XDG config folder); tests write what they need."""
    return tmp_path / "xdg_config_home" / "tui-reader" / "config.toml"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """The reader's data folder: read.json, history.json, session.json, collections/."""
    return tmp_path / "xdg_data_home" / "tui-reader"


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


@pytest.fixture
def varied(tmp_path: Path) -> Path:
    """A collection whose papers differ in year, venue and link (pilot_helpers.VARIED)."""
    folder = tmp_path / "varied"
    folder.mkdir(exist_ok=True)
    return write_jsonl(folder / "papers.jsonl", VARIED)


@pytest.fixture
def browser(tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$BROWSER set to a script that records the URLs it is given; returns the record file.
    webbrowser reads $BROWSER once per process: its registry is reset so it reads this one."""
    import webbrowser

    script, record = browser_script(bin_dir)
    monkeypatch.setenv("BROWSER", str(script))
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    return record
