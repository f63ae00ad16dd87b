"""Help, generated from the live bindings of the reader's screen and panes (the screen's come from
commands.COMMANDS) and, for the keys the search bar handles itself, from COMMANDS' own entries:
never a hand-kept list."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from tui_reader.app.commands import COMMANDS, palette_commands

SEARCH_BAR_KEYS = ("Enter", "Esc")  # what COMMANDS says about them, in the search bar's section


def binding_rows(node: DOMNode) -> list[tuple[str, str]]:
    """(keys, description) for each described binding of a node, alternatives merged."""
    rows: dict[str, list[str]] = {}
    app = node.app
    for bindings in node._bindings.key_to_bindings.values():
        for binding in bindings:
            if not binding.description:
                continue
            key = app.get_key_display(Binding(binding.key, binding.action))
            description = binding.tooltip or binding.description
            rows.setdefault(description, [])
            if key not in rows[description]:
                rows[description].append(key)
    return [(" / ".join(keys), description) for description, keys in rows.items()]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 84; max-width: 95%; height: 80%; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(self._content(), markup=False), id="help-body")

    def _content(self) -> Content:
        from tui_reader.app.widgets.paper_detail import PaperDetail
        from tui_reader.app.widgets.paper_list import PaperList
        from tui_reader.app.widgets.search_bar import SearchBar

        below = [s for s in self.app.screen_stack if s is not self]
        main = below[-1] if below else self.app.screen
        sections: list[tuple[str, list[tuple[str, str]]]] = [("Reader", binding_rows(main))]
        for title, widget_type in (
            ("Paper list", PaperList),
            ("Detail pane", PaperDetail),
            ("Search bar", SearchBar),
        ):
            found = main.query(widget_type)
            if found:
                rows = binding_rows(found.first())
                if widget_type is SearchBar:
                    rows = [(c.keys_text, c.help) for c in COMMANDS if c.keys_text in SEARCH_BAR_KEYS]
                if rows:
                    sections.append((title, rows))
        sections.append(("Everywhere", binding_rows(self.app)))
        parts: list[Content] = [Content("tui-reader keys").stylize("bold $text-accent"), Content("\n")]
        for title, rows in sections:
            parts += [Content("\n"), Content(title).stylize("bold underline"), Content("\n")]
            for keys, description in rows:
                parts += [
                    Content(f"{keys:>18}  ").stylize("bold $text-warning"),
                    Content(description),
                    Content("\n"),
                ]
        parts += [
            Content("\nSearch syntax: ").stylize("bold"),
            Content(
                'words (all must match) · "exact phrase" · OR · NOT · (grouping) · title:word '
                "authors:name venue:icml year:2024 · prefix* · fuzzy~ (fuzzy~2 for 2 edits)\n"
            ),
        ]
        parts += [
            Content("Command palette: ").stylize("bold"),
            Content(f"ctrl+p lists all {len(palette_commands())} actions and 'go to paper' by title."),
        ]
        return Content.assemble(*parts)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
