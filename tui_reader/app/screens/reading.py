"""Read state on the screen: a paper is read once its detail has been shown for ``read_delay``
seconds (config.toml; 0: never by itself) or it was opened with Enter; ``u`` toggles it, ``N``
moves to the next unread paper, ``U`` (arranging.py) shows only unread papers.

The screen's ``read`` set changes at once (the list's marker goes); the file is written in a
worker. Changes wait in ``_read_changes`` and one writer at a time drains them in order, so a
quick u-u never lands on disk as the wrong one. A paper read while the unread view is on stays
listed until the list is next redrawn, so the cursor does not jump.
"""

from __future__ import annotations

import threading
from functools import partial

from textual import on, work
from textual.timer import Timer

from tui_reader.app.messages import NotSaved
from tui_reader.app.screens.arranging import Arranging
from tui_reader.app.screens.state import sentence
from tui_reader.library.bookmarks import ReadOnlyStore
from tui_reader.library.reading import ReadStore


class Reading(Arranging):
    _read_timer: Timer | None = None

    def __init__(self) -> None:
        super().__init__()
        self._read_changes: dict[str, bool] = {}
        self._read_changes_lock = threading.Lock()
        self._read_write_lock = threading.Lock()
        self._told: set[str] = set()  # stores whose failure to save was already reported

    # -- commands -----------------------------------------------------------------------------
    def action_toggle_read(self) -> None:
        row = self._current()
        if row is None or self.corpus is None:
            return
        self._cancel_read_timer()
        read = self.corpus.ids[row] not in self.read
        self.set_read(row, read)
        title = self.corpus.titles[row]
        self.notify(("Marked read: " if read else "Marked unread: ") + title, timeout=3)

    def action_next_unread(self) -> None:
        corpus, rows = self.corpus, self.papers.rows
        if corpus is None or not rows:
            self.notify("No papers in this list.", severity="warning")
            return
        ids, read, here = corpus.ids, self.read, self.papers.cursor
        for step in range(1, len(rows) + 1):
            at = (here + step) % len(rows)
            if ids[rows[at]] in read:
                continue
            if at == here:
                self.notify("No other unread paper in this list.", timeout=3)
                return
            self.papers.cursor = at
            if at < here:
                self.notify("Back at the top: the first unread paper in this list.", timeout=3)
            return
        self.notify("No unread papers in this list.", timeout=3)

    # -- marking ------------------------------------------------------------------------------
    def schedule_read(self, row: int | None) -> None:
        """The cursor moved to ``row``: it counts as read after ``read_delay`` seconds there."""
        self._cancel_read_timer()
        delay = self.config.read_delay
        if row is None or delay <= 0 or self.corpus is None or self.corpus.ids[row] in self.read:
            return
        self._read_timer = self.set_timer(delay, partial(self._read_after_delay, row))

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.stop()
            self._read_timer = None

    def _read_after_delay(self, row: int) -> None:
        self._read_timer = None
        shown = self.detail.display and self.app.screen is self
        if self.highlighted == row and shown:
            self.set_read(row, True)

    def opened(self, row: int) -> None:
        """Enter on a paper: read now."""
        self._cancel_read_timer()
        self.set_read(row, True)

    def set_read(self, row: int, read: bool) -> None:
        corpus, store = self.corpus, self.read_store
        if corpus is None or store is None:
            return
        pid = corpus.ids[row]
        if (pid in self.read) == read:
            return
        self.read = self.read | {pid} if read else self.read - {pid}
        with self._read_changes_lock:
            self._read_changes[pid] = read
        self.write_read(store)

    @work(thread=True, group="read")
    def write_read(self, store: ReadStore) -> None:
        with self._read_write_lock:  # one writer at a time, each taking every change so far
            with self._read_changes_lock:
                changes, self._read_changes = self._read_changes, {}
            if not changes:
                return
            try:
                store.apply(changes)
            except (ReadOnlyStore, OSError) as exc:
                self.post_message(NotSaved("Read state", exc))

    # -- reports ------------------------------------------------------------------------------
    @on(NotSaved)
    def _not_saved(self, event: NotSaved) -> None:
        """One sentence: "Note not saved: no space left on device (…); the file is unchanged."
        Bookmarks and notes are reported each time (a key was pressed for them); read state,
        history and the session once per session (they are saved all the time)."""
        if event.what not in ("Bookmarks", "Note"):
            if event.what in self._told:
                return
            self._told.add(event.what)
        reason = str(event.error).strip() or event.error.__class__.__name__
        lowered = reason.lower()
        if lowered.startswith("could not save") and ":" in reason:
            reason = reason.split(":", 1)[1].strip()
        self.notify(sentence(f"{event.what} not saved: {reason}"), severity="error")
