"""The inbox's two screens: the modal that asks a saved search's name (``w``, and ``r`` in the
inbox), and the inbox itself (each saved search: ``NAME  12 new · 40 unread · 300 total``, its
query below). They take what they show and hand back what was chosen; inbox.py does the rest
(the store, the counts, the workers). Names and queries are drawn as Content, never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_reader.corpus.text import clean_label
from tui_reader.library.inbox import Count
from tui_reader.library.saved import BadInput, SavedSearch, checked_name, folded


class SaveSearchScreen(ModalScreen[str | None]):
    """Asks the name to save a query under. Dismisses with it (Enter) or None (Esc)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    SaveSearchScreen { align: center middle; }
    SaveSearchScreen > Vertical {
        width: 80; max-width: 95%; height: auto; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    SaveSearchScreen #save-problem { color: $text-error; display: none; }
    SaveSearchScreen #save-problem.-shown { display: block; }
    """

    def __init__(
        self, query: str, taken: Sequence[str], title: str = "Save the search: ", name: str = ""
    ) -> None:
        super().__init__()
        self.saved_query = query
        self.taken = {folded(n): n for n in taken}
        self.title_text = title
        self.start = name or suggested_name(query)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text).stylize("bold") + Content(clean_label(self.saved_query)))
            yield Input(self.start, placeholder="A name for it", id="save-name")
            yield Static(Content(""), id="save-problem")
            yield Static(Content("Enter saves · Esc cancels").stylize("$text-muted"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            name = checked_name(event.value)
        except BadInput as exc:
            self._problem(f"{str(exc).capitalize()}.")
            return
        if folded(name) in self.taken:
            self._problem(f"A saved search is already named {clean_label(self.taken[folded(name)])!r}.")
            return
        self.dismiss(name)

    def _problem(self, text: str) -> None:
        problem = self.query_one("#save-problem", Static)
        problem.update(Content(text))
        problem.add_class("-shown")

    def action_cancel(self) -> None:
        self.dismiss(None)


def suggested_name(query: str) -> str:
    """The query's words, cut to a name's length at a word."""
    words, out = clean_label(" ".join(query.split())).split(), ""
    for word in words:
        if len(out) + len(word) + 1 > 40:
            break
        out = f"{out} {word}".strip()
    return out or clean_label(query)[:40]


class InboxScreen(Screen[str | None]):
    """Every saved search and its counts. Dismisses with the name chosen (Enter) or None (Esc)."""

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="Close the inbox"),
        Binding("r", "rename", "Rename", tooltip="Rename the saved search"),
        Binding("x,delete", "remove", "Remove", tooltip="Remove the saved search (press twice)"),
    ]
    DEFAULT_CSS = """
    InboxScreen { layout: vertical; }
    InboxScreen #inbox-title { height: 1; padding: 0 1; background: $panel; }
    InboxScreen #inbox-list { height: 1fr; }
    InboxScreen #inbox-help { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(
        self,
        searches: Sequence[SavedSearch],
        counts: dict[str, Count],
        cursor: str = "",
        *,
        known: bool = True,
        change: Callable[[str, str], None] | None = None,
    ) -> None:
        """``known``: the saved searches were read (else they are on their way); ``change(name,
        new)``: rename a search (``new`` '': remove it), in the caller's worker."""
        super().__init__()
        self.searches = list(searches)
        self.counts = dict(counts)
        self.cursor = cursor
        self.known = known
        self.change = change
        self._armed = ""  # the search x must be pressed on again to remove
        self._renamed: tuple[str, str] = ("", "")  # the last rename asked: the cursor follows it

    def compose(self) -> ComposeResult:
        yield Static(Content("Inbox: saved searches").stylize("bold"), id="inbox-title")
        yield OptionList(id="inbox-list")
        yield Static(Content(HELP), id="inbox-help")
        yield Footer()

    def on_mount(self) -> None:
        self.fill(self.searches, self.counts, known=self.known)
        self.query_one(OptionList).focus()

    @property
    def lines(self) -> list[str]:
        """The list as shown, one line per saved search (tests read it)."""
        return [line_of(s, self.counts.get(folded(s.name))) for s in self.searches]

    def fill(self, searches: Sequence[SavedSearch], counts: dict[str, Count], *, known: bool = True) -> None:
        """New counts (or searches): the cursor stays on its search (renamed, under its new name;
        removed, at its place)."""
        listing = self.query_one(OptionList)
        place = listing.highlighted
        if place is not None and place < len(self.searches):
            self.cursor = self.searches[place].name
            old, new = self._renamed
            if old and folded(self.cursor) == folded(old) and _has(searches, new):
                self.cursor = new
        self.searches, self.counts, self.known = list(searches), dict(counts), known
        self.refresh_bindings()
        listing.clear_options()
        if not self.searches:
            empty = "No saved searches yet: w saves the search on show under a name."
            empty = empty if self.known else "Reading the saved searches…"
            listing.add_option(Option(Content(empty), disabled=True))
            return
        for s, line in zip(self.searches, self.lines, strict=True):
            listing.add_option(
                Option(Content(line) + Content("\n    ") + Content(s.shown_query).stylize("dim"))
            )
        at = next((i for i, s in enumerate(self.searches) if folded(s.name) == folded(self.cursor)), None)
        listing.highlighted = min(place or 0, len(self.searches) - 1) if at is None else at

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.searches):
            self.dismiss(self.searches[event.option_index].name)

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """r and x only on a saved search (not on the empty list's line)."""
        if action in ("rename", "remove"):
            return self.change is not None and bool(self.searches)
        return True

    def _current(self) -> SavedSearch | None:
        at = self.query_one(OptionList).highlighted
        return self.searches[at] if at is not None and 0 <= at < len(self.searches) else None

    def _say(self, text: str) -> None:
        self.query_one("#inbox-help", Static).update(Content(text))

    def action_remove(self) -> None:
        saved = self._current()
        if saved is None or self.change is None:
            return
        if folded(self._armed) != folded(saved.name):
            self._armed = saved.name
            self._say(f"Press x again to remove {saved.shown_name!r}.")
            return
        self._armed = ""
        self._say(f"Removing {saved.shown_name!r}…")
        self.change(saved.name, "")

    def action_rename(self) -> None:
        saved, change = self._current(), self.change
        if saved is None or change is None:
            return
        taken = [s.name for s in self.searches if s is not saved]

        def renamed(new: str | None) -> None:
            if new is not None and new != saved.name:
                self.cursor, self._renamed = new, (saved.name, new)
                change(saved.name, new)

        self.app.push_screen(SaveSearchScreen(saved.query, taken, "Rename the search: ", saved.name), renamed)


HELP = "Enter opens one (new matches first) · r renames · x removes · Esc goes back"


def _has(searches: Sequence[SavedSearch], name: str) -> bool:
    return any(folded(s.name) == folded(name) for s in searches)


def line_of(search: SavedSearch, counted: Count | None) -> str:
    return counted.line if counted is not None else f"{search.shown_name}  counting…"
