"""Every key the reader documents, declared once: its key, footer label, palette title and help.

The screen's BINDINGS, the command palette, the help screen, the README's key table and the
action names of config.toml's ``[keys]`` are all generated from COMMANDS, so they cannot drift
apart. Importing this module does not load Textual (the command line reads the table). Entries
without an action document keys that a widget or Textual itself handles (the list's movement
keys, Tab, ctrl+p): they bind nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui_reader.library.config import normalise_key

if TYPE_CHECKING:  # the table itself needs no Textual: `tui-reader config` reads it without
    from textual.binding import BindingType

KEY_NAMES = {"slash": "/", "question_mark": "?", "escape": "Esc", "enter": "Enter"}


@dataclass(frozen=True, slots=True)
class Command:
    action: str | None  # screen action name, without "action_"; None: documentation only
    key: str  # Textual key spec; commas for alternatives
    label: str  # short label for the footer
    title: str  # palette title
    help: str  # one line for the palette, the help screen and the README
    footer: bool = True
    priority: bool = False
    palette: bool = True  # listed in the command palette
    keys: str = ""  # the keys as Markdown, where the key spec says too little (e.g. "`j` `k` / arrows")

    @property
    def keys_markdown(self) -> str:
        """The keys as the README's table writes them."""
        return self.keys or " ".join(f"`{KEY_NAMES.get(k, k)}`" for k in self.key.split(","))

    @property
    def keys_text(self) -> str:
        """The keys in plain text, as the help screen shows them."""
        return self.keys_markdown.replace("`", "")


def _doc(keys: str, text: str) -> Command:
    """A key handled by a widget or by Textual: documented here, bound there."""
    return Command(None, "", "", "", text, footer=False, palette=False, keys=keys)


COMMANDS: tuple[Command, ...] = (
    Command(
        "focus_search",
        "slash",
        "Search",
        "Search",
        "Focus the search bar (type to search as you type, Enter for the results)",
        # priority: the focus moves while the App takes "/", so the letters that came in the
        # same read go to the bar, not to the list as keys; in the bar, "/" is typed
        priority=True,
    ),
    _doc(
        "`Enter`",
        "In the search bar: run the full search and move to the results; in the list: read the paper"
        " (marks it read)",
    ),
    _doc(
        "`Up` `Down` (search bar)",
        "Earlier / later searches from the history (those starting with what is typed)",
    ),
    Command(
        "accept_suggestion",
        "ctrl+y",
        "Accept",
        "Search the suggestion",
        'Search for the "Did you mean" suggestion instead',
        footer=False,
    ),
    Command(
        "back",
        "escape",
        "Back",
        "Back",
        "Leave the search bar or the detail pane, or drop the selection; again: back to the view"
        " before (the search, its results, cursor and scroll as you left them)",
        footer=False,
        palette=False,
    ),
    _doc("`j` `k` / arrows", "Move down / up the list; in the detail pane: scroll"),
    _doc("`g` `G` / Home End", "First / last paper; in the detail pane: top / bottom"),
    _doc("PageUp PageDown, Space", "Page up / down, in the list or the detail pane"),
    _doc("`Tab` / `Shift+Tab`", "Between the search bar, the list and the detail pane"),
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
        "all_bookmarks",
        "a",
        "All bookmarks",
        "All bookmarks (every collection)",
        "Every bookmark, those of other collections from their snapshots (Enter goes to one here)",
        footer=False,
    ),
    Command(
        "for_you",
        "F",
        "For you",
        "For you: recommendations",
        "Papers ranked for one tag (or every bookmark) by a model of them, unread first, each with"
        " the words that weigh most for it; 3 papers to learn from at least",
        footer=False,
    ),
    _doc(
        "`x` `R` (For you)",
        "Not interested: never recommend the paper for that tag, and retrain; R forgets the tag's"
        " not-interested papers",
    ),
    _doc("`r` `x` (inbox)", "Rename the highlighted saved search; x twice removes it"),
    Command(
        "save_search",
        "w",
        "Save search",
        "Save the search (watch it in the inbox)",
        "Save the search on show under a name: the inbox (I) counts its new and unread matches",
        footer=False,
    ),
    Command(
        "inbox",
        "I",
        "Inbox",
        "Inbox: saved searches",
        "Every saved search with its new, unread and total matches; Enter opens one, new matches"
        " first (Esc comes back)",
        footer=False,
    ),
    Command(
        "toggle_read",
        "u",
        "Read",
        "Mark read / unread",
        "Mark the highlighted paper read, or unread again (one you stay on for a moment is read)",
        footer=False,
    ),
    Command(
        "toggle_unread_view",
        "U",
        "Unread",
        "Show unread papers only / all papers",
        "Show only unread papers; again to show all",
    ),
    Command(
        "next_unread",
        "N",
        "Next unread",
        "Next unread paper",
        "Move to the next unread paper in the list (from the top again after the last)",
        footer=False,
    ),
    Command(
        "mark_all_read",
        "A",
        "All read",
        "Mark the list read",
        "Mark every paper in the list read (ctrl+z undoes it)",
        footer=False,
    ),
    Command(
        "undo",
        "ctrl+z",
        "Undo",
        "Undo marking the list read",
        "Put back the papers the last A marked read",
        footer=False,
    ),
    Command(
        "toggle_select",
        "v",
        "Select",
        "Select the paper",
        "Select or unselect the highlighted paper and move down; b, t and E act on the selection",
        footer=False,
    ),
    Command(
        "cycle_sort",
        "S",
        "Sort",
        "Change the order",
        "Sort by relevance (collection order without a query), year, venue, title, date added",
    ),
    Command(
        "edit_note",
        "n",
        "Note",
        "Edit bookmark note",
        "Write a note on the highlighted paper's bookmark, on several lines (bookmarks it if needed;"
        " ctrl+s saves, ctrl+e opens $VISUAL / $EDITOR)",
        footer=False,
    ),
    Command(
        "edit_tags",
        "t",
        "Tags",
        "Edit tags",
        "Tag the highlighted paper: comma-separated, completed from the tags in use (bookmarks it;"
        " tag:name finds them)",
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
        "copy_bibtex",
        "y",
        "Copy BibTeX",
        "Copy BibTeX entry",
        "Copy the paper's BibTeX entry (its bookmark's note included)",
        footer=False,
    ),
    Command(
        "copy_cite",
        "Y",
        "Copy cite",
        "Copy \\cite{key}",
        "Copy the LaTeX citation of the paper, \\cite{key}",
        footer=False,
    ),
    Command(
        "export_results",
        "E",
        "Export",
        "Export the list as BibTeX",
        "Write the papers in the list (a search's whole answer, in its order) to a new BibTeX file in"
        " the current folder; the notice names it",
        footer=False,
    ),
    Command(
        "open_link",
        "o",
        "Open",
        "Open paper in the browser",
        "Open the paper's attachment (a local PDF the record names) when it exists, else its link "
        "(its URL, DOI or arXiv id) in the browser; with no browser, copy it",
    ),
    Command(
        "copy_link",
        "L",
        "Copy link",
        "Copy the paper's link",
        "Copy the paper's link (terminal and system clipboard)",
        footer=False,
    ),
    Command(
        "similar", "s", "Similar", "Similar papers", "Papers similar to the highlighted one (more-like-this)"
    ),
    Command(
        "related_draft",
        "M",
        "Missing",
        "What am I missing (a draft)",
        "The papers most like a draft (a .tex, .md or text file, or pasted text), those it cites marked"
        " ✓ (by its .bib, or your bookmarks' keys); Esc goes back",
        footer=False,
    ),
    Command(
        "toggle_facets",
        "f",
        "Facets",
        "Show / hide facets",
        "Counts by year, venue and author over every match (Enter on one narrows the query to it)",
        footer=False,
    ),
    Command(
        "toggle_detail",
        "d",
        "Detail",
        "Show / hide detail pane",
        "Hide or show the detail pane (below 100 columns the panes stack)",
        footer=False,
    ),
    Command(
        "help", "question_mark", "Help", "Help", "Show the reader's keys (generated from its live bindings)"
    ),
    _doc("`ctrl+p`", 'Command palette: every action, and "go to paper" by title'),
    Command("quit", "q", "Quit", "Quit", "Quit tui-reader"),
)


# Keys the panes own: the list's and the detail pane's movement, Tab, the palette, Textual's quit.
# A [keys] entry may not take them (the pane would get the key first, and the action never).
RESERVED_KEYS = {
    **dict.fromkeys(("j", "k", "up", "down"), "moving in the list"),
    **dict.fromkeys(("g", "G", "home", "end", "pageup", "pagedown", "space"), "moving in the list"),
    "enter": "reading the paper",
    "tab": "moving between panes",
    "shift+tab": "moving between panes",
    "ctrl+p": "the command palette",
    "ctrl+c": "copying selected text",
    "ctrl+q": "quitting",
}


def bound() -> list[Command]:
    """The commands the screen binds (the rest are documentation)."""
    return [c for c in COMMANDS if c.action is not None]


def palette_commands() -> list[Command]:
    return [c for c in bound() if c.palette]


def reader_keys() -> dict[str, str]:
    """Action -> its default key in Textual's form: config.toml's [keys] may change them."""
    return {c.action: normalise_key(c.key) or c.key for c in bound() if c.action is not None}


def reserved_keys() -> dict[str, str]:
    """Keys config.toml may not take, in Textual's form, and what they do."""
    return {normalise_key(key) or key: what for key, what in RESERVED_KEYS.items()}


def helps() -> dict[str, str]:
    return {c.action: c.help for c in bound() if c.action is not None}


def screen_bindings() -> list[BindingType]:
    """The screen's BINDINGS. Each has its action as id, so config.toml's [keys] can rebind it
    (``App.set_keymap``)."""
    from textual.binding import Binding

    return [
        Binding(c.key, c.action, c.label, show=c.footer, priority=c.priority, tooltip=c.help, id=c.action)
        for c in COMMANDS
        if c.action is not None
    ]


def markdown_table() -> str:
    """The README's key table, from the header to the last row (no trailing newline)."""
    lines = ["| key | action |", "| --- | --- |"]
    lines += [f"| {c.keys_markdown} | {_cell(c.help)} |" for c in COMMANDS]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", r"\|")
