"""A modal to edit a bookmark's note: several lines in a TextArea (Enter is a new line), or the
whole note in the user's own editor (ctrl+e: ``$VISUAL``, ``$EDITOR`` or ``vi``).

The editor gets the terminal through ``App.suspend``; when it cannot be had or the editor fails,
a notice says why and the text in the modal stays as it was: nothing typed is lost.
"""

from __future__ import annotations

from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from tui_reader.app.editor import EditorFailed, edit_text, editor_command
from tui_reader.corpus.text import clean_label


class NoteScreen(ModalScreen[str | None]):
    """Dismisses with the note (ctrl+s, Save, or the editor's text) or None (Esc)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save", priority=True),
        # above the TextArea's own ctrl+e (end of line: End does that too)
        Binding("ctrl+e", "external", "Editor", priority=True),
    ]
    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical {
        width: 84; max-width: 95%; height: auto; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    NoteScreen #note-title { margin-bottom: 1; }
    NoteScreen TextArea { height: 10; }
    NoteScreen Horizontal { height: auto; margin-top: 1; }
    NoteScreen Button { margin-right: 2; min-width: 12; }
    """

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self._title = title
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Note on: ").stylize("bold") + Content(self._title), id="note-title")
            yield TextArea(self._note, soft_wrap=True, id="note")
            yield Static(
                Content("ctrl+s saves · Enter: a new line · ctrl+e: your $EDITOR · Esc cancels").stylize(
                    "$text-muted"
                )
            )
            with Horizontal():
                yield Button("Save", variant="primary", id="note-save")
                yield Button("Editor", id="note-editor")
                yield Button("Cancel", id="note-cancel")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {"note-save": self.action_save, "note-editor": self.action_external}
        action.get(event.button.id or "", self.action_cancel)()

    def action_save(self) -> None:
        self.dismiss(self.text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_external(self) -> None:
        """The note in the user's editor; what it saves is the note (a failure changes nothing).
        The editor runs on the UI thread on purpose: the reader is suspended meanwhile."""
        text = self.text
        try:
            command = editor_command()
            with self.app.suspend():
                edited = edit_text(text, command)
        except SuspendNotSupported:
            self._problem("this terminal cannot be handed to an editor")
            return
        except EditorFailed as exc:
            self._problem(str(exc))
            return
        self.dismiss(edited)

    def _problem(self, why: str) -> None:
        self.app.notify(
            clean_label(f"Note not edited in an editor: {why}. Your text is still here."),
            title="Editor",
            severity="warning",
            timeout=8,
            markup=False,
        )
