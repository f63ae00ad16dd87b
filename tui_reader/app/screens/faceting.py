"""The facet panel's half of the screen: counts for every match of the query on show, worked out
in a worker once its results are on screen (an Enter answer, not type-ahead's), and a chosen value
added to the query."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work

from tui_reader.app.messages import FacetsFailed, FacetsReady
from tui_reader.app.screens.session import SessionKeeping
from tui_reader.app.widgets.facets import FacetPanel
from tui_reader.corpus.text import clean_label

if TYPE_CHECKING:
    from tui_reader.search.searcher import Searcher, SearchResult
    from tui_reader.search.subsets import Sets


class Faceting(SessionKeeping):
    _facets_seq = 0  # the latest request: an older answer is dropped
    _facets_for: tuple[str, object] | None = None  # (query, sets) the panel counts (or is counting)

    @property
    def facet_panel(self) -> FacetPanel:
        return self.query_one(FacetPanel)

    def action_toggle_facets(self) -> None:
        """Show or hide the facet panel; shown, it counts the query on show."""
        panel = self.facet_panel
        if panel.display:
            if self.focused is panel:
                self.papers.focus()
            panel.display = False
            self._facets_for = None
            return
        panel.display = True
        panel.focus()
        self.refresh_facets()

    def results_shown(self, result: SearchResult | None) -> None:
        """A final answer is on screen (None: the whole collection): count it if the panel is open."""
        if result is not None and (result.typing or result.kind == "similar"):
            return
        self.refresh_facets()

    def facets_query(self) -> str:
        """The text whose matches the panel counts: Enter's query on show, or '' (every paper)."""
        base = self.base if self.result is not None else None
        if base is None or base.typing or base.kind == "similar":
            return ""
        return base.query

    def refresh_facets(self) -> None:
        panel = self.facet_panel
        if not panel.display:
            return
        if self.searcher is None:
            panel.show_message(f"Facets need the index ({self.index_state}).")
            self._facets_for = None
            return
        text, sets = self.facets_query(), self.search_sets
        if self._facets_for is not None and self._facets_for[0] == text and self._facets_for[1] is sets:
            return  # counted already (another page of the same answer)
        self._facets_for = (text, sets)
        self._facets_seq += 1
        panel.show_message("Counting…")
        self.count_facets(self.searcher, text, sets, self._facets_seq)

    @work(thread=True, exclusive=True, group="facets")
    def count_facets(self, searcher: Searcher, text: str, sets: Sets, seq: int) -> None:
        from tui_reader.search.facets import facets

        try:
            found = facets(searcher, text, sets)
        except Exception as exc:  # a damaged index shows up in the search too; say so here
            self.post_message(FacetsFailed(exc, seq))
            return
        if found is None:  # a search began (typing): counting gave way; the next answer recounts
            self.post_message(FacetsFailed(RuntimeError("paused while you type; Enter counts again"), seq))
            return
        self.post_message(FacetsReady(found, seq))

    @on(FacetsReady)
    def _facets_ready(self, event: FacetsReady) -> None:
        if event.seq == self._facets_seq and self.facet_panel.display:
            self.facet_panel.show_facets(event.facets)

    @on(FacetsFailed)
    def _facets_failed(self, event: FacetsFailed) -> None:
        if event.seq == self._facets_seq:
            self._facets_for = None
            self.facet_panel.show_message(f"No counts: {clean_label(str(event.error))}")

    @on(FacetPanel.Chosen)
    def _facet_chosen(self, event: FacetPanel.Chosen) -> None:
        """Narrow the query on show to the value chosen, and search it."""
        text = f"{self.facets_query().strip()} {event.clause}".strip()
        self.search_for(text)
