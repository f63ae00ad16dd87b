"""The search flow: the keys that change what the list shows become a new or changed View on the
model (model.py) and one request to a worker; the worker's answer comes back as ResultsReady and
the model applies it to the entry that asked.

The worker gets everything it reads as arguments (``Ask``), never the screen's live state, and
answers with the rows to list: a search's hits in the view's order and restriction, or the
collection's rows. Type-ahead answers the words so far, a page, in relevance order; Enter answers
in the view's order (the searcher sorts, see ``ordered``).
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Input

from tui_reader.app.messages import IndexDamagedFound, SnippetsReady
from tui_reader.app.model import Entry, Kind, Restriction, Sort, View
from tui_reader.app.screens.answers import MAX_RESULTS, TITLES, Ask, answer, scanned, snippets
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged
from tui_reader.library.sorting import SortColumns, next_sort, sort_label
from tui_reader.search import PAGE, SearchMode

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Order, SearchResult


class SearchFlow:
    """Turns the keys that change the list into views and requests (the screen calls these)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.model = screen.model
        self._columns: SortColumns | None = None
        self._columns_of: Corpus | None = None
        self._columns_lock = threading.Lock()
        self._loading_more = False
        self._orders: dict[Sort, tuple[SortColumns, Order | None]] = {}

    # -- what the user asked for ----------------------------------------------------------------
    def typed(self, text: str) -> None:
        """Type-ahead: the top view follows the text (one view however many keys)."""
        top = self.model.view
        if not text.strip():
            if top.typing:
                self.show_popped(self.model.pop())
            return
        view = View(text, top.sort, top.restriction, typing=True)
        self._show(self.model.replace(view) if top.typing else self.model.push(view))

    def submitted(self, text: str) -> None:
        """Enter: the search (every field, every word whole) as a view Esc returns from."""
        top = self.model.view
        if not text.strip():
            if top.typing:
                self.model.pop()
            if self.model.view.kind is not Kind.COLLECTION:
                self._show(self.model.push(View(sort=top.sort, restriction=top.restriction)))
            else:
                self.show_popped(self.model.top)
            return
        view = View(text.strip(), top.sort, top.restriction)
        if top.typing or top.same_list(view):
            self._show(self.model.replace(view))
        else:
            self._show(self.model.push(view))

    def similar(self, paper_id: str) -> None:
        top = self.model.view
        self._show(self.model.push(View(sort=top.sort, restriction=top.restriction, similar_to=paper_id)))

    def cycle_sort(self) -> Sort:
        """The next order for the view on show; its cursor stays on its paper."""
        top = self.model.view
        sort = Sort(next_sort(top.sort))
        self._show(self.model.replace(top.replace(sort=sort), keep_answer=True))
        return sort

    def restrict(self, restriction: Restriction) -> None:
        """``B``/``U``: push the view restricted; pressed again, back to the view it came from."""
        model, top = self.model, self.model.view
        below = model.stack[-2].view if model.depth > 1 else None
        if (
            top.restriction is restriction
            and below is not None
            and below.same_list(top.replace(restriction=below.restriction))
        ):
            self.show_popped(model.pop(), cursor=top.cursor)
            return
        wanted = Restriction.ALL if top.restriction is restriction else restriction
        self._show(model.push(top.replace(restriction=wanted, typing=False, scroll=0)))

    def collection(self, cursor: str = "") -> None:
        """The whole collection (the palette's 'go to paper', Esc at the bottom)."""
        top = self.model.view
        self._show(self.model.push(View(sort=top.sort, cursor=cursor)))

    def refresh(self) -> None:
        """The same view asked again (bookmarks or read state it depends on changed)."""
        self._show(self.model.top)

    def back(self) -> None:
        """Escape ladder: leave the bar or the detail pane, drop the selection, go back a view,
        clear the query, then the restriction."""
        screen, model = self.screen, self.model
        if isinstance(screen.focused, Input) or screen.focused is screen.detail:
            screen.papers.focus()
        elif screen.selected:
            screen.annotating.clear_selection()
        elif model.depth > 1:
            self.show_popped(model.pop())
        elif model.view.kind is not Kind.COLLECTION or screen.search_bar.value:
            screen.search_bar.set_value("")
            self.submitted("")
        elif model.view.restriction is not Restriction.ALL:
            self.restrict(model.view.restriction)

    def show_popped(self, entry: Entry | None, cursor: str = "") -> None:
        """Back to ``entry`` as it was left (asked again only if its answer never came whole)."""
        if entry is None:
            return
        screen = self.screen
        if cursor:
            entry.view = entry.view.replace(cursor=cursor)
        stale = entry.result is not None and (entry.result.stopped or scanned(entry.result, screen.searcher))
        if entry.rows is None or entry.waiting or stale:
            self.ask(entry)
        screen.search_bar.set_value("" if entry.view.kind is Kind.SIMILAR else entry.view.query)
        screen.search_bar.info(*result_info(entry))
        screen.search_shown(entry)

    def similar_key(self) -> None:
        screen = self.screen
        paper = screen.current_paper()
        if paper is None:
            return
        if screen.searcher is None:
            screen.notify(f"Similar papers need the index ({screen.index_state}).", severity="warning")
            return
        screen.remember_place()
        self.similar(paper.id)
        screen.papers.focus()

    def go_to_row(self, row: int) -> None:
        """Palette 'go to paper': show it even if the view on show hides it."""
        screen = self.screen
        if not screen.papers.move_to_row(row) and screen.corpus is not None:
            screen.remember_place()
            screen.search_bar.set_value("")
            screen.search_bar.info("")
            self.collection(screen.corpus.ids[row])
        screen.papers.focus()

    def search_for(self, text: str) -> None:
        screen = self.screen
        screen.search_bar.set_value(text)
        screen.remember_place()
        self.submitted(text)
        screen.session.remember_search(text)
        screen.papers.focus()

    def _show(self, entry: Entry) -> None:
        self.screen.search_shown(entry)
        self.ask(entry)

    # -- requests -------------------------------------------------------------------------------
    def ask(self, entry: Entry) -> None:
        """Send ``entry``'s request to a worker (or keep it for when the index is ready)."""
        screen, corpus = self.screen, self.screen.corpus
        number = self.model.request(entry)
        if corpus is None:
            return  # asked again once the collection is in
        if entry.view.kind is Kind.SIMILAR and screen.searcher is None:
            screen.search_bar.info(f"Similar papers come when the index is ready ({screen.index_state}).")
            return
        if entry.view.similar_to and entry.view.similar_to not in corpus.index_of:
            return
        ask = self._ask(entry, number, corpus)
        view = entry.view
        if (
            view.kind is Kind.COLLECTION
            and view.sort is Sort.RELEVANCE
            and view.restriction is Restriction.ALL
        ):
            screen.projection.answered(answer(ask))  # the collection as it is: nothing to work out
            return
        screen.run_worker(partial(self._work, ask), thread=True, group="search", exit_on_error=False)

    def _ask(self, entry: Entry, number: int, corpus: Corpus, limit: int = PAGE) -> Ask:
        screen = self.screen
        marks = screen.search_sets["bookmarked"]  # made once per change of the bookmarks
        return Ask(
            number, entry.view, corpus, screen.searcher, screen.search_sets, screen.visible_results(),
            marks, screen.read, partial(self.columns, corpus),
            partial(self.order, corpus, entry.view.sort), limit, partial(self._wanted, number),
            entry.patient,
        )  # fmt: skip

    def _wanted(self, number: int) -> bool:
        """Read from the worker: whether an entry still waits for answer ``number``."""
        return self.model.waiting_for(number) is not None

    def _work(self, ask: Ask, more: bool = False) -> None:
        try:
            answered = answer(ask)
            answered.more = more
            self.screen.post_message(answered)
        except IndexDamaged as exc:
            mode = SearchMode.TYPING if ask.view.typing else SearchMode.ENTER
            self.screen.post_message(IndexDamagedFound(exc, ask.view.query, mode))
        finally:
            if more:
                self._loading_more = False

    def columns(self, corpus: Corpus) -> SortColumns:
        """The per-paper sort keys, built once per collection (in whichever worker needs them
        first; ~1 s at 87k papers)."""
        with self._columns_lock:
            if self._columns is None or self._columns_of is not corpus:
                self._columns = SortColumns.build(corpus, self.screen.visit_of)
                self._columns_of = corpus
            return self._columns

    def order(self, corpus: Corpus, sort: Sort) -> Order | None:
        """The searcher's Order for ``sort``, one per collection and sort (the same object each
        time: the searcher caches answers by it)."""
        if sort is Sort.RELEVANCE:
            return None
        from tui_reader.search import Order

        columns = self.columns(corpus)
        with self._columns_lock:
            made = self._orders.get(sort)
            if made is None or made[0] is not columns:
                ranks = columns.ranks(sort)
                made = (columns, Order(str(sort), ranks) if ranks is not None else None)
                self._orders[sort] = made
            return made[1]

    def near_end(self) -> None:
        """Paged answers grow as the cursor nears the end of what is loaded."""
        screen, top = self.screen, self.model.top
        result = top.result
        if (
            result is None
            or top.waiting
            or result.kind == "similar"
            or screen.searcher is None
            or len(result.hits) >= min(result.total, MAX_RESULTS)
            or self._loading_more
        ):
            return
        self._loading_more = True
        number = self.model.request(top)
        limit = min(MAX_RESULTS, len(result.hits) * 4)
        ask = self._ask(top, number, screen.corpus, limit) if screen.corpus is not None else None
        if ask is not None:
            work = partial(self._work, ask, more=True)
            screen.run_worker(work, thread=True, group="more", exit_on_error=False)

    def snippets_wanted(self, rows: list[int]) -> None:
        result, corpus = self.model.top.result, self.screen.corpus
        if result is not None and result.terms and corpus is not None:
            work = partial(self._cut, corpus, rows, result)
            self.screen.run_worker(work, thread=True, group="snippets", exclusive=True, exit_on_error=False)

    def _cut(self, corpus: Corpus, rows: list[int], result: SearchResult) -> None:
        self.screen.post_message(SnippetsReady(snippets(corpus, rows, result), result))


def result_info(entry: Entry) -> tuple[Content, bool]:
    """The line under the search bar: a notice, a suggestion, or the count and time."""
    result = entry.result
    if entry.view.kind is Kind.SIMILAR:
        count = len(result.hits) if result is not None else 0
        return Content(f"{count} papers similar to the highlighted one · Esc to go back"), False
    if result is None:
        return Content(""), False
    info: list[Content] = []
    if result.notice:
        info.append(Content(clean_label(result.notice)))
    if result.suggestion:
        info.append(Content("Did you mean: ") + Content(clean_label(result.suggestion)).stylize("bold"))
        info.append(Content("ctrl+y searches it"))
    if info:
        return Content(" · ").join(info), True
    if result.kind == TITLES:
        noun = "title holds" if result.total == 1 else "titles hold"
        return Content(f"{result.total:,} {noun} these words: titles only until the index is ready"), False
    partial_ = " (best so far: Enter for all)" if result.partial else ""
    noun = "match" if result.total == 1 and result.exact else "matches"
    took = f"{result.count_text} {noun} in {result.took_ms:.0f} ms"
    return Content(took + (partial_ or (" · Enter to read" if result.typing else ""))), False


def sort_notice(sort: Sort, view: View) -> str:
    later = " (the list follows on Enter)" if view.typing and sort is not Sort.RELEVANCE else ""
    return f"Order: {sort_label(sort, view.kind is not Kind.COLLECTION)}{later}."
