"""A small modal to edit a paper's tags: one line of comma-separated tags, the tag being typed
completed from those already in use (most used first).

Tags are the user's words for a set of papers; ``tag:name`` (``tag:"two words"``) finds them, so
a tag must be writable in a query: a double quote in one is refused, with a message.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from tui_reader.library.bookmarks import normalise_tags

SHOWN_TAGS = 12  # tags in use listed under the line (all of them complete)


def tag_query(tag: str) -> str:
    """The query that finds a tag's papers: ``tag:toread`` or ``tag:"two words"``."""
    return f'tag:"{tag}"' if any(c.isspace() or c in "()" for c in tag) else f"tag:{tag}"


def complete(value: str, tags: Sequence[str]) -> str | None:
    """The line with its last tag (the text after the last comma) completed from ``tags``,
    compared case-blind and skipping tags already on the line; None when none fits."""
    head, _, word = value.rpartition(",")
    typed = word.lstrip()
    if not typed:
        return None
    have = {" ".join(t.split()).casefold() for t in head.split(",")}
    want = typed.casefold()
    for tag in tags:
        folded = tag.casefold()
        if folded.startswith(want) and len(tag) > len(typed) and folded not in have:
            return value[: len(value) - len(typed)] + tag
    return None


class TagSuggester(Suggester):
    """Completion of the tag after the last comma (Input shows it greyed; → or Tab takes it)."""

    def __init__(self, tags: Sequence[str]) -> None:
        super().__init__(use_cache=True, case_sensitive=True)  # compared case-blind in complete()
        self.tags = list(tags)

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.tags)


class TagScreen(ModalScreen[list[str] | None]):
    """Dismisses with the tags (Enter; an empty line: no tags) or None (Esc)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "complete", "Complete", show=False),
    ]
    DEFAULT_CSS = """
    TagScreen { align: center middle; }
    TagScreen > Vertical {
        width: 80; max-width: 95%; height: auto; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    TagScreen #tags-title { margin-bottom: 1; }
    TagScreen #tags-in-use { margin-top: 1; color: $text-muted; }
    TagScreen #tags-problem { color: $text-error; display: none; }
    TagScreen #tags-problem.-shown { display: block; }
    """

    def __init__(self, title: str, tags: Sequence[str], counts: dict[str, int]) -> None:
        super().__init__()
        self._title = title
        self._tags = list(tags)
        self._counts = counts  # every tag in use and how many papers carry it
        self._by_use = sorted(counts, key=lambda t: (-counts[t], t.casefold()))  # completion order

    def compose(self) -> ComposeResult:
        start = ", ".join(self._tags) + (", " if self._tags else "")
        with Vertical():
            yield Static(Content("Tags on: ").stylize("bold") + Content(self._title), id="tags-title")
            yield Input(
                start,
                placeholder="Tags, separated by commas (toread, survey, ...)",
                suggester=TagSuggester(self._by_use),
                id="tags",
            )
            yield Static(Content(""), id="tags-problem")
            yield Static(Content(_in_use(self._by_use, self._counts)), id="tags-in-use")
            yield Static(
                Content(
                    "Enter saves (an empty line removes the tags) · → or Tab completes · Esc cancels"
                ).stylize("$text-muted")
            )

    def on_mount(self) -> None:
        line = self.query_one(Input)
        line.cursor_position = len(line.value)

    def action_complete(self) -> None:
        line = self.query_one(Input)
        done = complete(line.value, self._by_use)
        if done is not None:
            line.value = done + ", "
            line.cursor_position = len(line.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if '"' in event.value:
            problem = self.query_one("#tags-problem", Static)
            problem.update(Content('A tag cannot hold a double quote ("): tag:"…" could not find it.'))
            problem.add_class("-shown")
            return
        self.dismiss(normalise_tags([event.value]))

    def action_cancel(self) -> None:
        self.dismiss(None)


def _in_use(tags: list[str], counts: dict[str, int]) -> str:
    if not tags:
        return "No tags yet: the first you type starts the list."
    shown = ", ".join(f"{t} ({counts[t]})" for t in tags[:SHOWN_TAGS])
    more = f", and {len(tags) - SHOWN_TAGS} more" if len(tags) > SHOWN_TAGS else ""
    return f"In use: {shown}{more}"
