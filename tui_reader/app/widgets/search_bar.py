"""The search bar: an Input that debounces keystrokes, and a line under it for what happened.

Up and Down walk the search history (the screen keeps ``history`` current, most recent first):
only the searches that start with what was typed before the first Up, and Down past the newest
brings that text back. A recalled search is searched as you type, like typed text.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from tui_reader.library.history import folded

DEBOUNCE = 0.12  # seconds: fast typists (~8 keys/s) trigger one search per pause, not per key

PLACEHOLDER = 'Search ( / ): words  "a phrase"  title:word  prefix*  fuzzy~  OR  NOT  (…)'


class BarInput(Input):
    """An Input whose editing keys apply in the order they were typed.

    Textual runs a focused widget's bindings (backspace, arrows, C-a, C-k, the bar's Up/Down)
    only once the key has bubbled up to the App, behind the letters already queued for the
    Input (textual#6605): a burst of keys in one read (ssh lag, a script, tmux send-keys) applied
    "C-a C-k graph" as "graph", then wiped it. Here the bindings of the Input and of the widgets
    around it, up to the screen, run on the Input's own turn, as textual#6631 proposes; the
    screen's and the App's bindings still bubble. Priority bindings ran before the key got here.
    """

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable and await self._run_binding(event.key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_binding(self, key: str) -> bool:
        for node in self._own_namespaces():
            for binding in node._bindings.key_to_bindings.get(key, ()):
                if not binding.priority and await self.app.run_action(binding.action, node):
                    return True
        return False

    def _own_namespaces(self) -> list[DOMNode]:
        nodes: list[DOMNode] = []
        for node in self.ancestors_with_self:
            if isinstance(node, Screen):
                break
            nodes.append(node)
        return nodes


class SearchBar(Vertical):
    BINDINGS = [
        Binding("up", "history_back", "Earlier search", show=False),
        Binding("down", "history_forward", "Later search", show=False),
        # priority: handled while the App takes this key, so the keys typed right after Enter
        # (S, j) already go to the list, not into the bar
        Binding("enter", "submit", "Search", show=False, priority=True),
    ]
    DEFAULT_CSS = """
    SearchBar { height: auto; }
    SearchBar > Input { border: tall $border-blurred; }
    SearchBar > Input:focus { border: tall $border; }
    SearchBar > #search-info { height: 1; padding: 0 1; color: $text-muted; }
    SearchBar > #search-info.-warning { color: $text-warning; }
    """

    class QueryChanged(Message):
        """Debounced: the text as it stands after a pause in typing."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    class QuerySubmitted(Message):
        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None
        self.history: list[str] = []  # most recent first
        self._walk: list[str] | None = None  # the searches Up/Down walk through, None: not walking
        self._walk_at = -1  # where in them; -1: the text typed before the first Up
        self._draft = ""
        self._shown = ""  # the search the walk put in the bar: any other text means it was edited

    def compose(self) -> ComposeResult:
        yield BarInput(placeholder=PLACEHOLDER, id="search-input", select_on_focus=False)
        yield Static("", id="search-info", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#search-input", Input)

    @property
    def value(self) -> str:
        return self.input.value

    def set_value(self, text: str) -> None:
        """Change the text without triggering a search (e.g. Esc clearing the query); the caret
        goes to its end, where the next word is typed (after a facet's clause, say)."""
        with self.input.prevent(Input.Changed):
            self.input.value = text
            self.input.cursor_position = len(text)
        self._walk = None
        self._cancel()

    def info(self, text: str | Content, warning: bool = False) -> None:
        widget = self.query_one("#search-info", Static)
        widget.update(text if isinstance(text, Content) else Content(text))
        widget.set_class(warning, "-warning")

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- history ------------------------------------------------------------------------------
    def action_history_back(self) -> None:
        if self._walk is None or self.value != self._shown:  # (re)start from what is typed now
            self._draft = self.value
            draft = folded(self._draft)
            self._walk = [
                q
                for q in self.history
                if folded(q).casefold().startswith(draft.casefold()) and folded(q) != draft
            ]
            self._walk_at = -1
        if self._walk_at + 1 >= len(self._walk):
            self.info("No earlier search" + (" starting so." if self._draft.strip() else "."))
            return
        self._walk_at += 1
        self._recall(self._walk[self._walk_at])

    def action_history_forward(self) -> None:
        if self._walk is None or self._walk_at < 0 or self.value != self._shown:
            return
        self._walk_at -= 1
        self._recall(self._walk[self._walk_at] if self._walk_at >= 0 else self._draft)

    def _recall(self, text: str) -> None:
        self._shown = text
        self.input.value = text
        self.input.cursor_position = len(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._cancel()
        if self.screen.focused is not self.input:  # keys of a burst before its Enter: sent already
            return
        text = event.value
        self._timer = self.set_timer(DEBOUNCE, lambda: self.post_message(self.QueryChanged(text)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._cancel()
        self.post_message(self.QuerySubmitted(event.value))

    def action_submit(self) -> None:
        """Enter: the search goes out, and the focus leaves the bar at once (the list is the
        next focusable widget; the screen's handler keeps it there). The text is read once the
        Input has taken the keys before Enter: a burst ("graph⏎" in one read, over ssh or from
        a paste) reaches this priority binding before the Input's queue holds "graph"."""
        self._cancel()
        self.input.call_later(self._send)  # runs after the keys already queued for the Input
        screen = self.screen
        after = (
            screen.focus_chain[screen.focus_chain.index(self.input) + 1 :]
            if self.input in screen.focus_chain
            else []
        )
        if after:
            screen.set_focus(after[0])

    def _send(self) -> None:
        self._cancel()
        self.post_message(self.QuerySubmitted(self.input.value))
