"""ReaderApp: wiring only. State and behaviour live in MainScreen; data in corpus/search/library.

The configuration (library/config.py) is read here, before the first paint: its theme and its
[keys] (Textual's keymap: every screen binding has its action as id) apply from the start, and
its problems are shown once the reader is up. A theme picked in the palette is saved back to it.

SIGTERM, SIGHUP and SIGINT end the reader as ``q`` does: Textual handles none of them (its driver
only takes SIGTSTP, SIGCONT and SIGWINCH), so a ``kill`` would end the process with the terminal
still in the alternate screen, tracking the mouse, echo off, and the session unsaved.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.theme import Theme

from tui_reader import paths as app_paths
from tui_reader.app.commands import palette_commands, reader_keys, reserved_keys
from tui_reader.app.providers import HistoryProvider, PaperProvider, TagProvider
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.terminal import hung_up, watched_fd
from tui_reader.corpus.text import clean_label
from tui_reader.library.config import Config, ConfigNotSaved, load_config, save_theme

# the signals that end the reader as `q` does (the exit code says which one: 128 + its number)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class ReaderApp(App[None]):
    TITLE = "tui-reader"
    CSS_PATH = "reader.tcss"
    COMMANDS = App.COMMANDS | {PaperProvider, HistoryProvider, TagProvider}

    def __init__(
        self,
        paths: Sequence[str] = (),
        bookmarks_path: Path | None = None,
        config_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.paths = list(paths)
        self.bookmarks_path = bookmarks_path or app_paths.bookmarks_file()
        self.config_path = config_path or app_paths.config_file()
        self.config: Config = load_config(
            self.config_path, reader_keys(), set(self.available_themes), reserved_keys()
        )
        self.reader_keymap = dict(self.config.keys)  # action -> key, as the help screen shows them
        self._saved_theme = ""

    def on_mount(self) -> None:
        if not self.is_headless:  # a test's app (run_test) must leave the test runner's signals be
            self._catch_stop_signals()
        if self.config.theme:
            self.theme = self.config.theme
        self._saved_theme = self.theme
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.config.keys:
            self.set_keymap(self.config.keys)
        self.push_screen(MainScreen(self.paths, self.bookmarks_path, self.config))
        fd = None if self.is_headless else watched_fd()
        if fd is not None:  # a terminal that closes without SIGHUP must not leave us spinning
            self.set_interval(2.0, partial(self._quit_if_hung_up, fd))
        for problem in self.config.problems:
            self.notify(
                clean_label(problem), title="Problem in the configuration", severity="warning", timeout=15
            )

    def _quit_if_hung_up(self, fd: int) -> None:
        if hung_up(fd):
            self.exit()

    def _catch_stop_signals(self) -> None:
        """Route the stop signals through the event loop (a plain signal handler would run in
        the middle of whatever the loop was doing), to the same exit as `q`: the screens
        unmount, the session is saved, the driver restores the terminal."""
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError, OSError):
                loop.add_signal_handler(signum, self._stop_on_signal, signum)

    def _stop_on_signal(self, signum: int) -> None:
        """A second signal while closing does nothing more: the first exit is still running."""
        self.exit(return_code=128 + signum)

    # -- theme ------------------------------------------------------------------------------------
    def _theme_changed(self, theme: Theme) -> None:
        if theme.name == self._saved_theme:
            return
        self._saved_theme = theme.name
        self.run_worker(partial(self._save_theme, theme.name), thread=True, group="config")

    def _save_theme(self, name: str) -> None:
        try:
            save_theme(self.config_path, name)
        except ConfigNotSaved as exc:
            self.call_from_thread(self._notify_plain, f"Theme not saved: {exc}.", "error")
            return
        self.call_from_thread(
            self._notify_plain, f'Theme "{name}" saved in {self.config_path}.', "information"
        )

    def _notify_plain(self, text: str, severity: Any) -> None:
        self.notify(clean_label(text), severity=severity, timeout=5, markup=False)

    # -- palette ----------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette lists every reader action (from commands.py), then those of Textual's own
        whose title the reader does not already use (Textual's "Quit" would be a second one)."""
        titles = set()
        if isinstance(screen, MainScreen):
            for command in palette_commands():
                titles.add(command.title.casefold())
                action = command.action or ""
                if screen.check_action(action, ()) is False:
                    continue  # cannot run now: not offered (check_action)
                yield SystemCommand(command.title, command.help, partial(screen.run_action, action))
        for system in super().get_system_commands(screen):
            if system.title.casefold() not in titles:
                yield system
