"""The one table of keys: the screen's bindings, the palette, the help screen and the README."""

from __future__ import annotations

from pathlib import Path

from tui_reader.app import commands
from tui_reader.app.commands import COMMANDS, markdown_table
from tui_reader.app.screens.main import MainScreen

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_key_table() -> str:
    """README's key table: from the `| key | action |` header under "## Using it" to the next blank line."""
    text = README.read_text(encoding="utf-8")
    section = text.index("\n## Using it")
    start = text.index("| key | action |", section)
    end = text.index("\n\n", start)
    return text[start:end]


def test_readme_key_table_is_the_command_table() -> None:
    """Regenerate it with: python -c 'from tui_reader.app.commands import markdown_table as t; print(t())'"""
    assert readme_key_table() == markdown_table()


def test_every_bound_command_is_a_screen_action_and_a_binding() -> None:
    keys = {b.key: b.action for b in MainScreen.BINDINGS if not isinstance(b, tuple)}
    for command in commands.bound():
        assert callable(getattr(MainScreen, f"action_{command.action}", None)), command
        assert keys[command.key] == command.action
    assert keys["escape"] == "back"  # Escape is in the table like every other key
    assert len(keys) == len(commands.bound())


def test_documentation_entries_bind_nothing_and_stay_out_of_the_palette() -> None:
    docs = [c for c in COMMANDS if c.action is None]
    assert docs and all(not c.key and c.keys for c in docs)
    assert not any(c.action is None for c in commands.palette_commands())
    assert "back" not in {c.action for c in commands.palette_commands()}


def test_markdown_cells_stay_cells() -> None:
    for line in markdown_table().splitlines():
        assert line.startswith("| ") and line.endswith(" |")
        assert line.replace(r"\|", "").count("|") == 3


def test_the_table_loads_without_textual() -> None:
    """`tui-reader config` reads the action names without loading Textual."""
    import subprocess
    import sys

    code = (
        "import sys, tui_reader.app.commands as c; c.reader_keys(); c.markdown_table(); "
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_action_can_be_rebound_by_its_name() -> None:
    from tui_reader.app.commands import reader_keys

    assert set(reader_keys()) == {c.action for c in commands.bound()}
    assert all(b.id == b.action for b in MainScreen.BINDINGS if not isinstance(b, tuple))
