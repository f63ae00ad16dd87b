"""Keys a terminal cannot send as themselves (ctrl+i is tab, ctrl+m enter, ctrl+[ escape, ctrl+h
backspace) are refused with the config's one-line notice: bound, they would never fire."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_reader.app.commands import reader_keys, reserved_keys
from tui_reader.library.config import load_config, terminal_same


def _load(tmp_path: Path, text: str) -> tuple[list[str], dict[str, str]]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path, reader_keys(), None, reserved_keys())
    return config.problems, config.keys


@pytest.mark.parametrize(
    ("spec", "shown", "same"),
    [
        ("ctrl+i", "ctrl+i", "tab"),
        ("ctrl+m", "ctrl+m", "enter"),
        ("ctrl+[", "ctrl+left_square_bracket", "escape"),
        ("ctrl+h", "ctrl+h", "backspace"),
        ("Ctrl+I", "ctrl+I", "tab"),
        ("ctrl+shift+m", "ctrl+shift+m", "enter"),
        ("f5, ctrl+i", "ctrl+i", "tab"),
    ],
)
def test_a_key_the_terminal_sends_as_another_is_refused(
    tmp_path: Path, spec: str, shown: str, same: str
) -> None:
    problems, keys = _load(tmp_path, f'[keys]\nopen_link = "{spec}"\n')
    assert problems == [
        f'{tmp_path / "config.toml"}, line 2: "{shown}" reaches the reader as {same} (a terminal '
        f'sends one code for both); keeping "o"'
    ]
    assert keys == {}


def test_other_control_keys_still_bind(tmp_path: Path) -> None:
    problems, keys = _load(tmp_path, '[keys]\nopen_link = "ctrl+o"\ncopy_link = "ctrl+j"\n')
    assert problems == []
    assert keys == {"open_link": "ctrl+o", "copy_link": "ctrl+j"}


@pytest.mark.parametrize("key", ["tab", "i", "alt+i", "ctrl+alt+i", "ctrl+o", "+", "ctrl+plus"])
def test_only_the_shared_codes_are_flagged(key: str) -> None:
    assert terminal_same(key) is None
