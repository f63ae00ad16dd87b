"""A small modal to edit a bookmark's note."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NoteScreen(ModalScreen[str | None]):
    """Dismisses with the note (Enter) or None (Esc)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical {
        width: 80; max-width: 95%; height: auto; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    NoteScreen Static { margin-bottom: 1; }
    """

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self._title = title
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Note on: ").stylize("bold") + Content(self._title), markup=False)
            yield Input(self._note, placeholder="Your note (Enter saves, Esc cancels)", id="note")
            yield Static(Content("Enter saves · Esc cancels").stylize("$text-muted"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
