"""Every user action, declared once: its key, footer label, palette title and help text.

The screen's BINDINGS, the command palette entries and the help screen are all generated from
this list, so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Command:
    action: str  # screen action name, without "action_"
    key: str  # Textual key spec; commas for alternatives
    label: str  # short label for the footer
    title: str  # palette title
    help: str  # one line for the palette and the help screen
    footer: bool = True
    priority: bool = False


COMMANDS: tuple[Command, ...] = (
    Command(
        "focus_search",
        "slash",
        "Search",
        "Search",
        "Focus the search bar (type to search as you type, Enter for the results)",
    ),
    Command(
        "toggle_bookmark",
        "b",
        "Bookmark",
        "Bookmark / un-bookmark paper",
        "Bookmark the highlighted paper, or remove its bookmark",
    ),
    Command(
        "toggle_bookmarks_view",
        "B",
        "Bookmarks",
        "Show bookmarks only / all papers",
        "Show only bookmarked papers; again to show all",
    ),
    Command(
        "edit_note",
        "n",
        "Note",
        "Edit bookmark note",
        "Write a note on the highlighted paper's bookmark (bookmarks it if needed)",
        footer=False,
    ),
    Command(
        "copy_abstract",
        "c",
        "Copy",
        "Copy abstract",
        "Copy the abstract as plain text (terminal and system clipboard)",
    ),
    Command(
        "copy_markdown",
        "C",
        "Copy quote",
        "Copy abstract as Markdown quote",
        "Copy title, abstract and source as a Markdown quote",
        footer=False,
    ),
    Command(
        "similar", "s", "Similar", "Similar papers", "Papers similar to the highlighted one (more-like-this)"
    ),
    Command(
        "toggle_detail",
        "d",
        "Detail",
        "Show / hide detail pane",
        "Hide or show the detail pane (useful in narrow terminals)",
        footer=False,
    ),
    Command("help", "question_mark", "Help", "Help", "Show every key binding"),
    Command("quit", "q", "Quit", "Quit", "Quit tui-reader"),
)


def screen_bindings() -> list[Binding]:
    return [
        Binding(c.key, c.action, c.label, show=c.footer, priority=c.priority, tooltip=c.help)
        for c in COMMANDS
    ]
