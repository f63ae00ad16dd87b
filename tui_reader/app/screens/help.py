"""Help, generated from the live bindings of the reader's screen and panes (the screen's come from
commands.COMMANDS) and, for the keys handled outside them (the search bar's Enter and Esc, Tab,
ctrl+p), from COMMANDS' own entries: never a hand-kept list.

Only the reader's own bindings are listed: those its classes declare, not the ones Textual's base
classes add (Scroll Left, Page Right, Copy selected text, ...). Keys and descriptions sit in two
columns; a long description wraps within its own column.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from tui_reader.app.commands import COMMANDS, palette_commands

# what COMMANDS says about these keys, in the search bar's section
SEARCH_BAR_KEYS = ("Enter", "Up Down (search bar)", "Esc")
EVERYWHERE_KEYS = ("Tab / Shift+Tab", "ctrl+p")

Rows = list[tuple[str, str]]


def _own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings the reader's own classes declare on this node, most derived class first."""
    own: list[Binding] = []
    for cls in type(node).__mro__:
        if cls.__module__.startswith("tui_reader.") and "BINDINGS" in cls.__dict__:
            own += Binding.make_bindings(cls.__dict__["BINDINGS"])
    return own


def binding_rows(node: DOMNode) -> Rows:
    """(keys, description) for each described binding of the reader's own on a node, in the order
    they are declared, one row per action (its keys merged: "j / ↓")."""
    live = node._bindings.key_to_bindings
    keymap: dict[str, str] = getattr(node.app, "reader_keymap", {})  # config.toml's [keys]
    rows: dict[str, tuple[list[str], str]] = {}
    for binding in _own_bindings(node):
        if not binding.description or binding.action not in {b.action for b in live.get(binding.key, [])}:
            continue  # undescribed, or its key taken by a more derived class
        keys, _ = rows.setdefault(binding.action, ([], binding.tooltip or binding.description))
        for bound_key in keymap.get(binding.id or "", binding.key).split(","):
            key = node.app.get_key_display(Binding(bound_key, binding.action))
            if key not in keys:
                keys.append(key)
    return [(" / ".join(keys), description) for keys, description in rows.values()]


def _documented(keys: tuple[str, ...]) -> Rows:
    return [(c.keys_text, c.help) for c in COMMANDS if c.keys_text in keys]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 95%; height: 85%; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    HelpScreen .help-heading { margin-top: 1; text-style: bold underline; }
    HelpScreen .help-row { height: auto; }
    HelpScreen .help-keys {
        width: 18; padding-right: 2; text-align: right; color: $text-warning; text-style: bold;
    }
    HelpScreen .help-text { width: 1fr; }
    HelpScreen .help-note { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(Content("tui-reader keys").stylize("bold $text-accent"))
            for title, rows in self.sections():
                yield Static(Content(title), classes="help-heading")
                for keys, description in rows:
                    with Horizontal(classes="help-row"):
                        yield Static(Content(keys), classes="help-keys")
                        yield Static(Content(description), classes="help-text")
            yield Static(self._notes(), classes="help-note")

    def sections(self) -> list[tuple[str, Rows]]:
        from tui_reader.app.widgets.paper_detail import PaperDetail
        from tui_reader.app.widgets.paper_list import PaperList

        below = [s for s in self.app.screen_stack if s is not self]
        main = below[-1] if below else self.app.screen
        sections: list[tuple[str, Rows]] = [("Reader", binding_rows(main))]
        for title, widget_type in (("Paper list", PaperList), ("Detail pane", PaperDetail)):
            found = main.query(widget_type)
            if found:
                sections.append((title, binding_rows(found.first())))
        sections.append(("Search bar", _documented(SEARCH_BAR_KEYS)))
        sections.append(("Everywhere", _documented(EVERYWHERE_KEYS)))
        return [(title, rows) for title, rows in sections if rows]

    def text(self) -> str:
        """Everything the screen says, as plain text (for tests)."""
        return "\n".join(str(s.visual) for s in self.query(Static))

    @staticmethod
    def _notes() -> Content:
        return Content.assemble(
            Content("Search syntax: ").stylize("bold"),
            Content(
                'words (all must match) · "exact phrase" · OR · NOT · (grouping) · title:word '
                "authors:name venue:icml year:2024 · prefix* · fuzzy~ (fuzzy~2 for 2 edits)\n"
            ),
            Content("Command palette: ").stylize("bold"),
            Content(f"ctrl+p lists all {len(palette_commands())} actions and 'go to paper' by title."),
        )

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
