"""Searching, paging, similar papers and snippets: requests go out to thread workers, answers
come back as messages, and the answer that is still wanted becomes the screen's ``result``.

Every request takes the next sequence number; a ResultsReady carrying an older one is dropped, so
a slow search never overwrites the answer to a newer keystroke.

Results come a page at a time, except when the list needs all of them: an order other than
relevance, a view that filters (bookmarks, unread), or an answer whose matches all score the same
(a query made only of fields, shown in collection order). Then the worker asks for every match
(Enter's count is exact, so it knows how many) and sorts them there, never on the UI thread.
Type-ahead stays in relevance order, a page at a time; Enter applies the order.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

from textual import on, work
from textual.content import Content

from tui_reader.app.messages import IndexDamagedFound, ResultsReady, Snippet, SnippetsReady
from tui_reader.app.screens.state import ReaderState
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged
from tui_reader.library.sorting import SortColumns, all_equal, arrange, by_relevance
from tui_reader.search.modes import PAGE, SearchMode

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search.searcher import Searcher, SearchResult
    from tui_reader.search.subsets import Sets

SEARCH_LIMIT = PAGE  # the first page; more pages come as the cursor nears the end
MAX_RESULTS = 20_000
ALL_TIME_LIMIT = 10.0  # seconds for every match of a query (87k papers: ~0.3 s at most)


class Arrangement(NamedTuple):
    """What the list asks of a result: its order and its view."""

    sort: str
    view: str

    def wants_all(self, result: SearchResult) -> bool:
        """Every match is needed (not one page): to sort, to filter, or to put equal scores in
        collection order."""
        return self.sort != "relevance" or self.view != "all" or all_equal([h.score for h in result.hits])


def complete(result: SearchResult) -> bool:
    return len(result.hits) >= result.total


class SearchFlow(ReaderState):
    _loading_more = False

    # -- requests -----------------------------------------------------------------------------
    @on(SearchBar.QueryChanged)
    def _typed(self, event: SearchBar.QueryChanged) -> None:
        self.start_search(event.text, SearchMode.TYPING)

    @on(SearchBar.QuerySubmitted)
    def _submitted(self, event: SearchBar.QuerySubmitted) -> None:
        """Enter runs the full search (every field, all words complete) and moves to the list."""
        self.start_search(event.text, SearchMode.ENTER)
        self.remember_search(event.text)
        self.papers.focus()

    def start_search(self, text: str, mode: SearchMode) -> None:
        self._seq += 1
        if not text.strip():
            self.workers.cancel_group(self, "search")
            self.search_bar.info("")
            self.result = None
            self.results_shown(None)
            return
        if self.searcher is None or self.corpus is None:
            self._pending = (text, mode)
            self.search_bar.info(f"Search starts when the index is ready ({self.index_state}).")
            return
        self.run_search(
            self.searcher,
            self.corpus,
            text,
            mode,
            self._seq,
            self._visible(),
            self._arrangement(),
            self.search_sets,
        )

    def _arrangement(self) -> Arrangement:
        return Arrangement(self.sort, self.view)

    def search_similar(self, row: int) -> None:
        if self.searcher is None or self.corpus is None:
            self.notify(f"Similar papers need the index ({self.index_state}).", severity="warning")
            return
        self._seq += 1
        self.run_similar(self.searcher, self.corpus, row, self._seq, self._visible(), self._arrangement())

    def _visible(self) -> int:
        """Result rows on screen (two lines each): their snippets come with the results."""
        return self.papers.scrollable_content_region.height // 2 + 1

    @on(PaperList.NearEnd)
    def _near_end(self) -> None:
        """Results come in pages: fetch more when the cursor nears the end of what is loaded."""
        result = self.base if self.result is not None else None
        if (
            result is None
            or result.kind == "similar"
            or self.searcher is None
            or len(result.hits) >= result.total
            or len(result.hits) >= MAX_RESULTS
            or self._loading_more
        ):
            return
        self._loading_more = True
        limit = min(MAX_RESULTS, len(result.hits) * 4)
        self.run_more(self.searcher, result, limit, self._seq, self.search_sets)

    @on(PaperList.SnippetsWanted)
    def _snippets_wanted(self, event: PaperList.SnippetsWanted) -> None:
        if self.result is not None and self.result.terms and self.corpus is not None:
            self.cut_snippets(self.corpus, event.rows, self.result)

    # -- workers (threads: they only read their arguments and post messages) -------------------
    @work(thread=True, exclusive=True, group="search")
    def run_search(
        self,
        searcher: Searcher,
        corpus: Corpus,
        text: str,
        mode: SearchMode,
        seq: int,
        visible: int,
        arrangement: Arrangement,
        sets: Sets | None = None,
    ) -> None:
        try:  # Enter: Whoosh's whole answer and its exact count; typing: the words so far
            result = searcher.search(text, mode, SEARCH_LIMIT, sets=sets)
            if (
                mode is SearchMode.ENTER
                and seq == self._seq
                and not complete(result)
                and not result.stopped
                and arrangement.wants_all(result)
            ):
                result = searcher.search(
                    text, mode, max(len(corpus), 1), time_limit=ALL_TIME_LIMIT, sets=sets
                )
        except IndexDamaged as exc:
            self.post_message(IndexDamagedFound(exc, text, mode))
            return
        if seq != self._seq:
            return  # a newer keystroke owns the screen now: skip the sorting and the snippets
        self._answer(corpus, result, arrangement, seq, visible, keep=False)

    @work(thread=True, exclusive=True, group="search")
    def run_arrange(
        self, corpus: Corpus, base: SearchResult, arrangement: Arrangement, seq: int, visible: int
    ) -> None:
        """A result the list already holds whole, in another order."""
        self._answer(corpus, base, arrangement, seq, visible)

    def _answer(
        self,
        corpus: Corpus,
        result: SearchResult,
        arrangement: Arrangement,
        seq: int,
        visible: int,
        keep: bool = True,
    ) -> None:
        """Put a result in the order asked for and post it with its first snippets (in a worker).
        A new search's answer starts at the top (``keep`` False); another order of the same
        answer keeps the cursor on its paper."""
        shown, order = self.arranged(corpus, result, arrangement.sort)
        snippets = _snippets(corpus, [h.row for h in shown.hits[:visible]], shown)
        self.post_message(ResultsReady(shown, snippets, seq, base=result, order=order, keep=keep))

    def arranged(self, corpus: Corpus, result: SearchResult, sort: str) -> tuple[SearchResult, str]:
        """The result in ``sort`` order, and the order it is in. Only a whole Enter (or similar)
        result is reordered: a page, or type-ahead's answer, stays in relevance order."""
        if result.typing or not complete(result):
            return result, "relevance"
        rows, scores = [h.row for h in result.hits], [h.score for h in result.hits]
        if sort == "relevance":
            if result.kind == "similar" or not all_equal(scores):
                return result, "relevance"
            order, rows = "collection", by_relevance(rows, scores)
        elif len(rows) < 2:
            return result, sort
        else:
            order, rows = sort, arrange(rows, sort, self.sort_columns(corpus))
        by_row = {h.row: h for h in result.hits}
        return dataclasses.replace(result, hits=[by_row[r] for r in rows]), order

    def sort_columns(self, corpus: Corpus) -> SortColumns:
        """The per-paper sort keys, built once per collection (in whichever worker first needs
        them; ~1 s at 87k papers, shared with the facets)."""
        with self._columns_lock:
            if self.columns is None or self._columns_corpus is not corpus:
                self.columns = SortColumns.build(corpus, self.visit_of)
                self._columns_corpus = corpus
            return self.columns

    @work(thread=True, exclusive=True, group="search")
    def run_more(
        self, searcher: Searcher, shown: SearchResult, limit: int, seq: int, sets: Sets | None = None
    ) -> None:
        mode = SearchMode.MORE if shown.typing else SearchMode.ENTER
        try:
            result = searcher.search(shown.query, mode, limit, sets=sets)
        except IndexDamaged as exc:
            self.post_message(IndexDamagedFound(exc, shown.query, mode))
            return
        finally:
            self._loading_more = False
        self.post_message(ResultsReady(result, {}, seq))

    @work(thread=True, exclusive=True, group="search")
    def run_similar(
        self, searcher: Searcher, corpus: Corpus, row: int, seq: int, visible: int, arrangement: Arrangement
    ) -> None:
        result = searcher.similar(row)
        if seq != self._seq:
            return
        self._answer(corpus, result, arrangement, seq, visible, keep=False)

    @work(thread=True, exclusive=True, group="snippets")
    def cut_snippets(self, corpus: Corpus, rows: list[int], result: SearchResult) -> None:
        self.post_message(SnippetsReady(_snippets(corpus, rows, result), result))

    # -- answers ------------------------------------------------------------------------------
    @on(ResultsReady)
    def _results_ready(self, event: ResultsReady) -> None:
        if event.seq != self._seq:
            return  # an answer to a request that a newer one replaced
        result = event.result
        if result.incomplete:  # one letter so far: keep the list, wait for the next key
            self.search_bar.info("Keep typing…")
            return
        if result.kind == "similar":
            self.search_bar.set_value("")
            self.search_bar.info(
                Content(f"{len(result.hits)} papers similar to the highlighted one · Esc to go back")
            )
            self.papers.focus()
        else:
            self.search_bar.info(*_result_info(result))
        self.base = event.base or result
        self.order = event.order
        self.keep_cursor = event.keep
        self.result = result
        self.keep_cursor = True
        self.papers.set_snippets(event.snippets)
        self.results_shown(result)

    @on(SnippetsReady)
    def _snippets_ready(self, event: SnippetsReady) -> None:
        if event.result is self.result:
            self.papers.set_snippets(event.snippets)


def _result_info(result: SearchResult) -> tuple[Content, bool]:
    """The line under the search bar: a notice, a suggestion, or the count and time."""
    info: list[Content] = []
    if result.notice:
        info.append(Content(clean_label(result.notice)))
    if result.suggestion:
        info.append(Content("Did you mean: ") + Content(clean_label(result.suggestion)).stylize("bold"))
        info.append(Content("ctrl+y searches it"))
    if info:
        return Content(" · ").join(info), True
    partial = " (best so far: Enter for all)" if result.partial else ""
    noun = "match" if result.total == 1 and result.exact else "matches"
    took = f"{result.count_text} {noun} in {result.took_ms:.0f} ms"
    return Content(took + (partial or (" · Enter to read" if result.typing else ""))), False


def _snippets(corpus: Corpus, rows: list[int], result: SearchResult) -> dict[int, Snippet]:
    from tui_reader.search.highlight import snippet

    return {r: snippet(corpus.abstract(r), result.terms) for r in rows}
