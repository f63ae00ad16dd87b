"""Read state that means read.

A paper becomes read when its detail has been on screen for ``read_delay`` seconds (config.toml;
0: never by itself) while the focus is in the list or the detail pane, or when it is opened with
Enter. The paper the cursor landed on by itself (at launch, on a new answer, a view restored) is
not read until the user moves or presses Enter: the reader records what the user read, not what
happened to be on screen. ``u`` toggles one paper, ``A`` marks the whole list read (ctrl+z undoes
it), ``N`` moves to the next unread paper.

The screen's ``read`` set changes at once; the file is written in a worker. Changes wait in
``_changes`` and one writer at a time drains them in order, so a quick u-u never lands on disk as
the wrong one.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING

from textual.timer import Timer

from tui_reader.app.messages import NotSaved, ReadMarked
from tui_reader.app.widgets.notices import sentence
from tui_reader.library.bookmarks import ReadOnlyStore

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.library.reading import ReadStore


class ReadTracker:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.store: ReadStore | None = None
        self.landing: str | None = None  # the paper the cursor landed on by itself
        self._timer: Timer | None = None
        self._changes: dict[str, bool] = {}
        self._changes_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._undo: dict[str, bool] = {}  # what ctrl+z puts back (the last ``A``)
        self._told: set[str] = set()  # stores whose failure to save was already reported

    def start(self, store: ReadStore) -> None:
        self.store = store
        self.screen.read = store.ids()

    def read_at(self, paper_id: str) -> str | None:
        if paper_id not in self.screen.read:
            return None
        return (self.store.when(paper_id) if self.store else None) or "now"

    # -- where the cursor is --------------------------------------------------------------------
    def landed(self, paper_id: str) -> None:
        """The list was filled and the cursor put on ``paper_id`` without the user moving it."""
        self.landing = paper_id
        self._cancel()

    def highlighted(self, row: int | None) -> None:
        screen = self.screen
        corpus = screen.corpus
        if row != screen.papers.highlighted_row:
            return  # a message from before the list was filled again: not a move
        if corpus is not None and row is not None and corpus.ids[row] != self.landing:
            self.landing = None  # the user moved: from now on, what is on screen is read
        self.schedule()

    def focus_changed(self) -> None:
        self.schedule()

    def schedule(self) -> None:
        """The highlighted paper counts as read after ``read_delay`` seconds on screen."""
        self._cancel()
        screen = self.screen
        row, corpus, delay = screen.papers.highlighted_row, screen.corpus, screen.config.read_delay
        if row is None or corpus is None or delay <= 0 or not self._eligible(corpus.ids[row]):
            return
        self._timer = screen.set_timer(delay, partial(self._after_delay, corpus.ids[row]))

    def _eligible(self, paper_id: str) -> bool:
        screen = self.screen
        focused = screen.focused
        return (
            paper_id not in screen.read
            and paper_id != self.landing
            and screen.detail.display
            and (focused is screen.papers or focused is screen.detail)
            and screen.app.screen is screen
        )

    def _after_delay(self, paper_id: str) -> None:
        self._timer = None
        screen = self.screen
        row = screen.papers.highlighted_row
        here = screen.corpus is not None and row is not None and screen.corpus.ids[row] == paper_id
        if here and self._eligible(paper_id):
            self.set_read({paper_id: True})

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def opened(self, row: int) -> None:
        """Enter on a paper: read now."""
        self._cancel()
        corpus = self.screen.corpus
        if corpus is not None:
            self.landing = None
            self.set_read({corpus.ids[row]: True})

    # -- commands -------------------------------------------------------------------------------
    def toggle(self) -> None:
        screen = self.screen
        paper = screen.current_paper()
        if paper is None:
            return
        self._cancel()
        read = paper.id not in screen.read
        self.landing = None
        self.set_read({paper.id: read})
        screen.notify(("Marked read: " if read else "Marked unread: ") + paper.title, timeout=3)

    def mark_all(self) -> None:
        """``A``: every paper in the list read; ctrl+z puts them back."""
        screen = self.screen
        corpus = screen.corpus
        if corpus is None or not screen.papers.rows:
            screen.notify("No papers in this list.", severity="warning")
            return
        ids = corpus.ids
        changes = {ids[r]: True for r in screen.papers.rows if ids[r] not in screen.read}
        if not changes:
            screen.notify("Every paper in this list is read already.", timeout=3)
            return
        self._undo = {pid: False for pid in changes}
        self.set_read(changes)
        screen.refresh_bindings()
        noun = "paper" if len(changes) == 1 else "papers"
        screen.notify(f"Marked {len(changes):,} {noun} read · ctrl+z undoes it", timeout=6)

    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo(self) -> None:
        undo, self._undo = self._undo, {}
        if not undo:
            self.screen.notify("Nothing to undo.", timeout=3)
            return
        self.set_read(undo)
        self.screen.refresh_bindings()
        noun = "paper" if len(undo) == 1 else "papers"
        self.screen.notify(f"Marked {len(undo):,} {noun} unread again.", timeout=3)

    def next_unread(self) -> None:
        screen = self.screen
        corpus, rows = screen.corpus, screen.papers.rows
        if corpus is None or not rows:
            screen.notify("No papers in this list.", severity="warning")
            return
        ids, read, here = corpus.ids, screen.read, screen.papers.cursor
        for step in range(1, len(rows) + 1):
            at = (here + step) % len(rows)
            if ids[rows[at]] in read:
                continue
            if at == here:
                screen.notify("No other unread paper in this list.", timeout=3)
                return
            screen.papers.cursor = at
            if at < here:
                screen.notify("Back at the top: the first unread paper in this list.", timeout=3)
            return
        screen.notify("No unread papers in this list.", timeout=3)

    # -- the store ------------------------------------------------------------------------------
    def set_read(self, changes: dict[str, bool]) -> None:
        screen, store = self.screen, self.store
        changes = {pid: read for pid, read in changes.items() if (pid in screen.read) != read}
        if store is None or not changes:
            return
        added = {pid for pid, read in changes.items() if read}
        screen.read = (screen.read | added) - {pid for pid, read in changes.items() if not read}
        with self._changes_lock:
            self._changes.update(changes)
        screen.run_worker(partial(self._write, store), thread=True, group="read", exit_on_error=False)

    def _write(self, store: ReadStore) -> None:
        with self._write_lock:  # one writer at a time, each taking every change so far
            with self._changes_lock:
                changes, self._changes = self._changes, {}
            if not changes:
                return
            try:
                store.apply(changes)
            except (ReadOnlyStore, OSError) as exc:
                self.screen.post_message(NotSaved("Read state", exc))
                return
        self.screen.post_message(ReadMarked(changes))

    def marked(self, event: ReadMarked) -> None:
        """Written: the detail pane's 'read at' comes from the store now."""
        self.screen.projection.show_detail()

    def not_saved(self, event: NotSaved) -> None:
        """One sentence: "Note not saved: no space left on device (…); the file is unchanged."
        Bookmarks and notes are reported each time (a key was pressed for them); read state,
        history and the session once per session (they are saved all the time)."""
        if event.what not in ("Bookmarks", "Note", "Tags"):
            if event.what in self._told:
                return
            self._told.add(event.what)
        reason = str(event.error).strip() or event.error.__class__.__name__
        if reason.lower().startswith("could not save") and ":" in reason:
            reason = reason.split(":", 1)[1].strip()
        self.screen.notify(sentence(f"{event.what} not saved: {reason}"), severity="error")
