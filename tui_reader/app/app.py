"""ReaderApp: wiring only. State and behaviour live in MainScreen; data in corpus/search/library."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from tui_reader import paths as app_paths
from tui_reader.app.commands import palette_commands
from tui_reader.app.providers import PaperProvider
from tui_reader.app.screens.main import MainScreen


class ReaderApp(App[None]):
    TITLE = "tui-reader"
    CSS_PATH = "reader.tcss"
    COMMANDS = App.COMMANDS | {PaperProvider}

    def __init__(self, paths: Sequence[str] = (), bookmarks_path: Path | None = None) -> None:
        super().__init__()
        self.paths = list(paths)
        self.bookmarks_path = bookmarks_path or app_paths.bookmarks_file()

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.paths, self.bookmarks_path))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette lists every reader action (from commands.py), then those of Textual's own
        whose title the reader does not already use (Textual's "Quit" would be a second one)."""
        titles = set()
        if isinstance(screen, MainScreen):
            for command in palette_commands():
                titles.add(command.title.casefold())
                action = command.action or ""
                yield SystemCommand(command.title, command.help, partial(screen.run_action, action))
        for system in super().get_system_commands(screen):
            if system.title.casefold() not in titles:
                yield system
