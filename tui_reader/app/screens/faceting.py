"""The facet panel's half of the screen: counts for every match of the view on show, worked out
in a worker once its answer is in (Enter's, not type-ahead's), and a chosen value added to the
query as a new view (Esc goes back to the one before)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from tui_reader.app.messages import FacetsFailed, FacetsReady
from tui_reader.app.model import Entry, Kind
from tui_reader.corpus.text import clean_label

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.search import Searcher, Sets


class Facets:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._request = 0  # the latest count asked for: an older answer is dropped
        self._counted: tuple[str, object] | None = None  # (query, sets) counted (or counting)

    def toggle(self) -> None:
        """Show or hide the panel; shown, it counts the view on show."""
        screen = self.screen
        panel = screen.facet_panel
        if panel.display:
            if screen.focused is panel:
                screen.papers.focus()
            panel.display = False
            screen.set_class(False, "-facets")
            self._counted = None
            return
        panel.display = True
        screen.set_class(True, "-facets")
        panel.focus()
        self.refresh()

    def index_ready(self) -> None:
        self._counted = None
        self.refresh()

    def shown(self, entry: Entry) -> None:
        """An answer is on screen: count it if the panel is open (not type-ahead's or similar's)."""
        if entry.view.kind in (Kind.COLLECTION, Kind.SEARCH):
            self.refresh()

    def query(self) -> str:
        """The text whose matches the panel counts: Enter's query on show, or '' (every paper)."""
        view = self.screen.model.view
        return view.query if view.kind is Kind.SEARCH else ""

    def refresh(self) -> None:
        screen = self.screen
        panel = screen.facet_panel
        if not panel.display:
            return
        if screen.searcher is None:
            panel.show_message(f"Facets need the index ({screen.index_state}).")
            self._counted = None
            return
        text, sets = self.query(), screen.search_sets
        if self._counted is not None and self._counted[0] == text and self._counted[1] is sets:
            return  # counted already (another page of the same answer)
        self._counted = (text, sets)
        self._request += 1
        panel.show_message("Counting…")
        work = partial(self._count, screen.searcher, text, sets, self._request)
        screen.run_worker(work, thread=True, exclusive=True, group="facets", exit_on_error=False)

    def _count(self, searcher: Searcher, text: str, sets: Sets, request: int) -> None:
        from tui_reader.search import count_facets as facets

        post = self.screen.post_message
        try:
            found = facets(searcher, text, sets)
        except Exception as exc:  # a damaged index shows up in the search too; say so here
            post(FacetsFailed(exc, request))
            return
        if found is None:  # a search began (typing): counting gave way; the next answer recounts
            post(FacetsFailed(RuntimeError("paused while you type; Enter counts again"), request))
            return
        post(FacetsReady(found, request))

    def ready(self, event: FacetsReady) -> None:
        panel = self.screen.facet_panel
        if event.request == self._request and panel.display:
            panel.show_facets(event.facets)

    def failed(self, event: FacetsFailed) -> None:
        if event.request == self._request:
            self._counted = None
            self.screen.facet_panel.show_message(f"No counts: {clean_label(str(event.error))}")

    def chosen(self, clause: str) -> None:
        """Narrow the query on show to the value chosen, as a new view."""
        self.screen.search_for(f"{self.query().strip()} {clause}".strip())
