"""The facet panel (``f``): how many of the current query's matches (every one, not a page) fall
in each year, venue and author, as an OptionList; Enter on a value narrows the query to it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_reader.corpus.text import clean_label
from tui_reader.corpus.venues import venue_terms

if TYPE_CHECKING:  # Whoosh loads in the index's worker, not with the app
    from tui_reader.search import Facets

_NOT_A_WORD = re.compile(r"[^\w\s.-]+")


def year_clause(year: int) -> str:
    return f"year:{year}"


def venue_clause(name: str) -> str:
    """The venue field holds the name and its aliases (corpus/venues.py): one word searches as
    itself ('venue:icml'), a longer name as all its words in that field."""
    words = _NOT_A_WORD.sub(" ", venue_terms(name)).split()
    if not words:
        return ""
    if len(_NOT_A_WORD.sub(" ", name).split()) <= 1:
        return f"venue:{words[-1].lower()}"  # the last alias ('NeurIPS nips' -> venue:nips)
    return "venue:(" + " ".join(_NOT_A_WORD.sub(" ", name).split()) + ")"


def author_clause(name: str) -> str:
    words = name.replace('"', " ").split()
    return f'authors:"{" ".join(words)}"' if words else ""


def count_text(n: int) -> str:
    return f"{n:,}"


class FacetPanel(OptionList):
    """Counts by year, venue and author; each value's option id is the clause it adds.

    It moves as the list does (j/k, g/G, Space) and Esc closes it: the screen's own
    ``toggle_facets`` action (``f``) hides it and gives the focus back to the list."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
        Binding("space", "page_down", "Page down", show=False),
        Binding("escape", "screen.toggle_facets", "Close", show=False),
    ]

    DEFAULT_CSS = """
    FacetPanel {
        width: 30;
        height: 1fr;
        border: none;
        border-right: vkey $border-blurred;
        display: none;
    }
    FacetPanel:focus {
        border-right: vkey $border;
    }
    """

    class Chosen(Message):
        """A value was chosen: ``clause`` narrows the query to it."""

        def __init__(self, clause: str) -> None:
            super().__init__()
            self.clause = clause

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.facets: Facets | None = None
        self.show_message("Counting…")

    def show_message(self, text: str) -> None:
        self.facets = None
        self.set_options([Option(Content(clean_label(text)), disabled=True)])

    def show_facets(self, facets: Facets) -> None:
        """One heading per facet, then its values, most papers (or newest year) first."""
        self.facets = facets
        label = clean_label(facets.query.strip()) or "every paper"
        options: list[Option] = [
            Option(Content(f"{count_text(facets.total)} matches: {label}"[:200]), disabled=True)
        ]
        groups: list[tuple[str, list[tuple[str, int, str]]]] = [
            ("Year", [(str(y), n, year_clause(y)) for y, n in facets.years]),
            ("Venue", [(v, n, venue_clause(v)) for v, n in facets.venues]),
            ("Authors", [(a, n, author_clause(a)) for a, n in facets.authors]),
        ]
        seen: set[str] = set()
        for heading, values in groups:
            options.append(Option(Content(heading).stylize("bold"), disabled=True))
            if not values:
                options.append(Option(Content("  (none)"), disabled=True))
            for value, n, clause in values:
                prompt = Content(f"{clean_label(value)[:15]:<15} {count_text(n):>7}")  # fits 30 columns
                if not clause or clause in seen:  # an id may be used once
                    options.append(Option(prompt, disabled=True))
                    continue
                seen.add(clause)
                options.append(Option(prompt, id=clause))
        self.set_options(options)
        self.highlighted = next((i for i, o in enumerate(options) if not o.disabled), None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Chosen(event.option.id))
