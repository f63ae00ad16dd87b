"""Notices are one line: a toast that wraps to five lines covers the detail pane it reports on.

``one_line`` is pure (no Textual): the screen calls it on every message it passes to ``notify``,
``one_line(text, notice_width(app.size.width))``.
The whole text goes to the log or the help; the toast says the gist, cut at a word.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from tui_reader.corpus.text import clean_label

NOTICE_WIDTH = 56  # cells of text in a toast: Textual's toasts are 60 wide, less padding and border
TOAST_FRAME = 3  # a toast's padding (1 each side) and its coloured left border


def notice_width(terminal_width: int) -> int:
    """Cells of text one toast line holds: a toast is 60 cells wide but at most half the
    terminal (so 37 at 80 columns, 27 at 60)."""
    return max(10, min(NOTICE_WIDTH, terminal_width // 2 - TOAST_FRAME))


def one_line(text: str, width: int = NOTICE_WIDTH) -> str:
    """``text`` as one line of at most ``width`` terminal cells: whitespace (newlines included)
    collapsed, control characters made visible, cut at a word boundary with "…" when too long."""
    flat = clean_label(" ".join(text.split()))
    return fit_words(flat, width)


def fit_words(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut after the last whole word that fits, with "…".
    A first word longer than half the room is cut inside (so a long URL still shows its start).
    Only the first few cells' worth is measured: a megabyte of text costs what a line does."""
    if width <= 0:
        return ""
    head = text[: 4 * width + 1] if len(text) > 4 * width else text
    if head is text and cell_len(text) <= width:
        return text
    room = set_cell_size(head, width - 1).rstrip()  # leaves a cell for the ellipsis
    cut = room.rfind(" ")
    splits_word = len(room) < len(head) and not head[len(room)].isspace()
    if splits_word and cut >= (width - 1) // 2:
        room = room[:cut]
    return room.rstrip(" ,;:·-–—") + "…"


def sentence(text: str) -> str:
    """A clause from a lower layer ("the index was damaged; rebuilt it") as a sentence to show."""
    text = clean_label(text.strip())
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
