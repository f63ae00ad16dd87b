"""The view (all papers, bookmarked ones, unread ones) and the order (S) of the list.

Changing either only sets state; what the list then needs is worked out here: the collection's
rows sorted in a worker (OrderReady), a whole result reordered in a worker, or a paged result
searched again for every match (search_flow.py). The list keeps the cursor on the same paper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work

from tui_reader.app.messages import OrderReady
from tui_reader.app.screens.search_flow import SearchFlow, complete
from tui_reader.library.sorting import arrange, next_sort, sort_label
from tui_reader.search.modes import SearchMode

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus


class Arranging(SearchFlow):
    _collection_sort = "relevance"  # the order ``collection_order`` is in

    # -- commands -----------------------------------------------------------------------------
    def action_cycle_sort(self) -> None:
        self.sort = next_sort(self.sort)
        typing = self.result is not None and self.result.typing
        label = sort_label(self.sort, self.result is not None)
        later = " (the list follows on Enter)" if typing and self.sort != "relevance" else ""
        self.notify(f"Order: {label}{later}.", timeout=3)

    def action_toggle_bookmarks_view(self) -> None:
        self.view = "all" if self.view == "bookmarks" else "bookmarks"

    def action_toggle_unread_view(self) -> None:
        self.view = "all" if self.view == "unread" else "unread"

    # -- watchers -----------------------------------------------------------------------------
    def watch_sort(self) -> None:
        self.order_collection()
        self.rearrange()

    def watch_view(self) -> None:
        self.rearrange()

    def watch_collection_order(self) -> None:
        if self.result is None:
            self.order = self._collection_sort if self.collection_order is not None else "relevance"
            self.show_view()

    # -- what the list needs --------------------------------------------------------------------
    def rearrange(self) -> None:
        """Give the list what the view and the order now ask for."""
        corpus, result, base = self.corpus, self.result, self.base
        if corpus is None:
            return
        if result is None or base is None or base.typing:
            self.show_view()  # the collection (its order comes by OrderReady), or type-ahead's page
            return
        arrangement = self._arrangement()
        if complete(base):
            self._seq += 1
            self.run_arrange(corpus, base, arrangement, self._seq, self._visible())
        elif base.kind == SearchMode.ENTER.value and arrangement.wants_all(base):
            self.start_search(base.query, SearchMode.ENTER)  # every match this time
        else:
            self.show_view()

    def order_collection(self) -> None:
        """Sort the whole collection for when no query is on show (in a worker)."""
        corpus = self.corpus
        self._order_seq += 1
        if corpus is None:
            return
        if self.sort == "relevance":
            self._collection_sort = "relevance"
            self.collection_order = None
            if self.result is None:
                self.order = "relevance"
            return
        self.sort_collection(corpus, self.sort, self._order_seq)

    @work(thread=True, exclusive=True, group="order")
    def sort_collection(self, corpus: Corpus, sort: str, seq: int) -> None:
        rows = arrange(range(len(corpus)), sort, self.sort_columns(corpus))
        self.post_message(OrderReady(rows, sort, seq))

    @on(OrderReady)
    def _order_ready(self, event: OrderReady) -> None:
        if event.seq != self._order_seq:
            return
        self._collection_sort = event.sort
        if self.collection_order == event.rows and self.result is None:
            self.order = event.sort  # the same rows (papers that tie on both): only the name changes
        self.collection_order = event.rows
