"""config.toml: every setting optional, each mistake one message naming its line, that entry's
default kept and the rest applied; the theme written back without touching anything else."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.app.commands import reader_keys, reserved_keys
from tui_reader.library.config import (
    DEFAULT_READ_DELAY,
    Config,
    ConfigNotSaved,
    as_toml,
    line_of,
    load_config,
    normalise_key,
    save_theme,
    with_theme,
)

THEMES = {"textual-dark", "nord", "gruvbox"}


def load(path: Path) -> Config:
    return load_config(path, reader_keys(), THEMES, reserved_keys())


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    return tmp_path / "conf" / "config.toml"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_location_and_override(isolated_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert paths.config_file() == isolated_env / "config" / "tui-reader" / "config.toml"
    monkeypatch.setenv("TUI_READER_CONFIG", str(tmp_path / "mine.toml"))
    assert paths.config_file() == tmp_path / "mine.toml"


def test_no_file_is_the_defaults(config_path: Path) -> None:
    config = load(config_path)
    assert config == Config(config_path)
    assert config.read_delay == DEFAULT_READ_DELAY and config.sort == "relevance" and not config.found


def test_every_setting(config_path: Path) -> None:
    write(
        config_path,
        '# mine\ntheme = "nord"\nsort = "year"\nread_delay = 0.5\n\n[keys]\nopen_link = "O"\n'
        'focus_search = "/"\ncycle_sort = "ctrl+o"\n',
    )
    config = load(config_path)
    assert config.problems == []
    assert (config.theme, config.sort, config.read_delay) == ("nord", "year", 0.5)
    assert config.keys == {"open_link": "O", "focus_search": "slash", "cycle_sort": "ctrl+o"}


def test_each_bad_entry_is_named_by_its_line_and_the_rest_applies(config_path: Path) -> None:
    write(
        config_path,
        'theme = "nrod"\n'  # 1
        'sort = "date"\n'  # 2
        'read_delay = "soon"\n'  # 3
        'colour = "blue"\n'  # 4
        "\n"
        "[keys]\n"  # 6
        'open_lnk = "O"\n'  # 7
        'copy_link = "ctrl+"\n'  # 8
        'open_link = "j"\n'  # 9
        'similar = "b"\n'  # 10
        'next_unread = "]"\n',  # 11: fine
    )
    config = load(config_path)
    shown = str(config_path)
    assert config.problems == [
        f'{shown}, line 1: theme "nrod" is not one of Textual\'s themes (gruvbox, nord, textual-dark)',
        f"{shown}, line 2: sort must be one of relevance, year, venue, title, added, "
        'not "date"; using relevance',
        f"{shown}, line 3: read_delay must be a number of seconds from 0 (never) to 3600, "
        'not "soon"; using 1.5',
        f'{shown}, line 4: unknown setting "colour" (settings: theme, sort, read_delay, keys); ignored',
        f'{shown}, line 7: no action "open_lnk" (tui-reader config lists them); ignored',
        f'{shown}, line 8: "ctrl+" is not a key; keeping "L"',
        f'{shown}, line 9: "j" is the key for moving in the list; keeping "o"',
        f'{shown}, line 10: "b" is already the key of toggle_bookmark; keeping "s"',
    ]
    assert config.theme is None and config.sort == "relevance" and config.read_delay == 1.5
    assert config.keys == {"next_unread": "right_square_bracket"}


def test_two_keys_swapped_is_fine(config_path: Path) -> None:
    write(config_path, '[keys]\nopen_link = "b"\ntoggle_bookmark = "o"\n')
    config = load(config_path)
    assert config.problems == [] and config.keys == {"open_link": "b", "toggle_bookmark": "o"}


def test_a_line_that_is_not_toml_is_left_out(config_path: Path) -> None:
    write(config_path, 'sort = "year"\nread_delay = = 2\ntheme = "nord"\n')
    config = load(config_path)
    assert len(config.problems) == 1
    assert config.problems[0].startswith(f"{config_path}, line 2, column 14: not valid TOML (")
    assert config.problems[0].endswith("); line ignored")
    assert (config.sort, config.theme, config.read_delay) == ("year", "nord", 1.5)


def test_unreadable_files_use_the_defaults(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_bytes(b'theme = "\xff"\n')
    assert "is not UTF-8 text" in load(config_path).problems[0]
    config_path.unlink()
    config_path.mkdir()
    assert "cannot read" in load(config_path).problems[0]


def test_line_of_finds_keys_in_tables_and_dotted() -> None:
    text = 'theme = "x"\n[keys]\n"open_link" = "O"\n[other]\nopen_link = 1\n'
    assert line_of(text, "", "theme") == 1
    assert line_of(text, "keys", "open_link") == 3
    assert line_of('keys.similar = "z"\n', "keys", "similar") == 1
    assert line_of(text, "keys", "nothing") is None


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("O", "O"),
        ("/", "slash"),
        ("?", "question_mark"),
        ("ctrl+o", "ctrl+o"),
        ("Ctrl+O", "ctrl+O"),
        ("F5", "f5"),
        ("x, y", "x,y"),
        ("+", "plus"),
        ("ctrl++", "ctrl+plus"),
        ("ctrl+", None),
        ("", None),
        ("hyperdrive+x", None),
        (" ", None),
        ("two words", None),
    ],
)
def test_normalise_key(spec: str, expected: str | None) -> None:
    assert normalise_key(spec) == expected


def test_normalise_key_names_characters_as_textual_does() -> None:
    from textual.keys import _normalize_key_list

    for char in "/?[]+-.;:!@#$%^&*()<>=_~`|\\\"'":  # not ",": it separates keys ("comma" names it)
        assert normalise_key(char) == _normalize_key_list(char), char


# -- writing the theme ---------------------------------------------------------------------------
def test_the_theme_line_is_replaced_and_nothing_else_changes(config_path: Path) -> None:
    text = '# my settings\ntheme = "nord"   # the dark one\nsort = "year"\n\n[keys]\nopen_link = "O"  # O\n'
    write(config_path, text)
    save_theme(config_path, "gruvbox")
    assert config_path.read_text() == text.replace('"nord"', '"gruvbox"')


def test_a_theme_line_is_added_before_the_first_table() -> None:
    text = "# mine\nsort = 'year'\n\n[keys]\ntheme = 'not this one'\n"
    new = with_theme(text, "nord")
    assert new == "# mine\nsort = 'year'\n\ntheme = \"nord\"\n\n[keys]\ntheme = 'not this one'\n"
    assert tomllib.loads(new)["theme"] == "nord" and tomllib.loads(new)["keys"]["theme"] == "not this one"
    assert with_theme("sort = 'year'", "nord") == "sort = 'year'\ntheme = \"nord\"\n"


def test_saving_creates_the_file_and_a_later_load_reads_it(config_path: Path) -> None:
    save_theme(config_path, "nord")
    assert config_path.read_text().startswith("# tui-reader settings")
    assert load(config_path).theme == "nord"
    assert sorted(p.name for p in config_path.parent.iterdir()) == ["config.toml", "config.toml.lock"]


def test_a_file_with_an_error_is_not_rewritten(config_path: Path) -> None:
    write(config_path, "theme = = 1\n")
    with pytest.raises(ConfigNotSaved, match="has an error to fix first"):
        save_theme(config_path, "nord")
    assert config_path.read_text() == "theme = = 1\n"


def test_as_toml_is_a_config_file(config_path: Path) -> None:
    write(config_path, '[keys]\nopen_link = "O"\n')
    config = load(config_path)
    text = as_toml(config, reader_keys(), {"open_link": "Open it"}, "textual-dark")
    data = tomllib.loads(text)
    assert data["theme"] == "textual-dark" and data["read_delay"] == 1.5
    assert data["keys"]["open_link"] == "O" and data["keys"]["toggle_read"] == "u"
    assert '# Open it (default "o")' in text
