"""The worker's half of a request: what a view lists, worked out from a copy of everything it
reads (``Ask``), never the screen's live state. The answer is the rows to list: a search's hits
in the view's order and restriction (the searcher sorts and filters: Enter's answer is Whoosh's),
or the collection's rows sorted here.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui_reader.app.messages import ResultsReady, Snippet
from tui_reader.app.model import Kind, Restriction, Sort, View
from tui_reader.corpus.titlescan import scan
from tui_reader.library.sorting import SortColumns, arrange
from tui_reader.search import PAGE, PATIENT_LIMIT, SearchMode  # asked again after Enter stops (shown.py)

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Only, Order, Searcher, SearchResult, Sets

TITLES = "titles"  # a SearchResult's kind for a scan of the titles (the index is not ready)
MAX_RESULTS = 20_000  # rows a paged answer grows to as the cursor nears its end


@dataclass(frozen=True, slots=True)
class Ask:
    """One request, with a copy of everything the worker needs."""

    number: int
    view: View
    corpus: Corpus
    searcher: Searcher | None
    sets: Sets
    visible: int  # result rows on screen: their snippets come with the answer
    marked: frozenset[str]  # bookmarked ids (the bookmarks restriction)
    read: frozenset[str]  # read ids (the unread restriction)
    columns: Callable[[], SortColumns]
    order: Callable[[], Order | None]  # the view's order for the searcher, built once per sort
    limit: int = PAGE  # hits wanted: a page, or more as the cursor nears the end
    wanted: Callable[[], bool] = lambda: True  # someone still waits for this answer (the model says)
    patient: bool = False  # the view's answer stopped at Enter's time limit once: PATIENT_LIMIT


def answer(ask: Ask) -> ResultsReady:
    """The rows ``ask.view`` lists, worked out in a worker thread."""
    view, corpus = ask.view, ask.corpus
    result: SearchResult | None = None
    if view.kind is Kind.COLLECTION:
        rows: Sequence[int] = range(len(corpus))
        if view.restriction is Restriction.BOOKMARKS and view.sort is Sort.RELEVANCE:
            rows = sorted(corpus.index_of[i] for i in ask.marked if i in corpus.index_of)
        order = "relevance"
        if view.sort is not Sort.RELEVANCE:
            rows, order = arrange(rows, view.sort, ask.columns()), str(view.sort)
        rows = _restricted(rows, ask)
    else:
        result = _searched(ask)
        if _cursor_beyond(ask, result):  # keep the cursor on its paper: load down to it
            result = _searched(dataclasses.replace(ask, limit=min(result.total, MAX_RESULTS)))
        rows = [h.row for h in result.hits]
        if view.kind is Kind.TYPING and result.kind != TITLES:
            rows = _restricted(rows, ask)  # type-ahead's page, as it is: Enter restricts exactly
        order = _order_name(result)
    first = snippets(corpus, list(rows[: ask.visible]), result) if result is not None else {}
    return ResultsReady(ask.number, result, rows, order, first)


def _searched(ask: Ask) -> SearchResult:
    """The searcher's answer to the view: its order and restriction are part of the request
    (Whoosh sorts and filters; the app never sorts a search's hits). Before the index is ready,
    the titles holding the words (``_scanned``), which the reader labels as such."""
    view, searcher = ask.view, ask.searcher
    if searcher is None:
        return _scanned(ask)
    if view.kind is Kind.TYPING:
        mode = SearchMode.TYPING if ask.limit <= PAGE else SearchMode.MORE
        return searcher.search(view.query, mode, ask.limit, sets=ask.sets)
    order, only = ask.order(), restriction(ask)
    if view.kind is Kind.SIMILAR:
        return searcher.similar(ask.corpus.index_of[view.similar_to], order=order, only=only)
    if ask.patient:  # a newer search still stops it at its next check
        return searcher.search(view.query, SearchMode.ENTER, ask.limit, PATIENT_LIMIT, ask.sets, order, only)
    return searcher.search(view.query, SearchMode.ENTER, ask.limit, sets=ask.sets, order=order, only=only)


def _scanned(ask: Ask) -> SearchResult:
    """Titles holding the typed words, in collection order: what the list can search while the
    index builds. Marked ``kind="titles"``: never shown as the search's answer."""
    from tui_reader.search import Hit, SearchResult

    started = time.perf_counter()
    ids, query = ask.corpus.ids, ask.view.query
    found = scan(ask.corpus.titles, query, ask.limit, lambda: not ask.wanted(), _keeper(ask))
    rows, total = found if found is not None else ([], 0)
    took = (time.perf_counter() - started) * 1000
    result = SearchResult(query, [Hit(r, ids[r], 0.0) for r in rows], total, took_ms=took, kind=TITLES)
    result.stopped = None if found is not None else "replaced"
    result.order = "collection"
    return result


def _keeper(ask: Ask) -> Callable[[int], bool] | None:
    """The view's restriction as a test of a row, for the titles' scan (its count is then the
    count of what the list shows)."""
    restriction, ids = ask.view.restriction, ask.corpus.ids
    if restriction is Restriction.BOOKMARKS:
        return lambda row: ids[row] in ask.marked
    if restriction is Restriction.UNREAD:
        return lambda row: ids[row] not in ask.read
    return None


def scanned(result: SearchResult | None, searcher: object | None) -> bool:
    """The answer is the titles' scan from before the index was ready, and now it is."""
    return result is not None and result.kind == TITLES and searcher is not None


def _cursor_beyond(ask: Ask, result: SearchResult) -> bool:
    """The view's cursor paper is a match not in this page (another order of the same answer)."""
    cursor = ask.view.cursor
    if not cursor or ask.view.kind is not Kind.SEARCH or len(result.hits) >= result.total:
        return False
    restriction = ask.view.restriction
    if (restriction is Restriction.UNREAD and cursor in ask.read) or (
        restriction is Restriction.BOOKMARKS and cursor not in ask.marked
    ):
        return False  # the view leaves it out
    return all(h.id != cursor for h in result.hits) and len(result.hits) < MAX_RESULTS


def restriction(ask: Ask) -> Only | None:
    """The view's restriction as the searcher applies it (inside the search: exact counts)."""
    from tui_reader.search import Only  # Whoosh: loaded by the worker, not at start

    if ask.view.restriction is Restriction.BOOKMARKS:
        return Only(among=ask.marked)
    if ask.view.restriction is Restriction.UNREAD:
        return Only(besides=ask.read)
    return None


def _order_name(result: SearchResult) -> str:
    """The order the hits are in, as the status line names it."""
    order = getattr(result, "order", "relevance")
    return "relevance" if order == "ordered" else order


def _restricted(rows: Sequence[int], ask: Ask) -> Sequence[int]:
    restriction, ids = ask.view.restriction, ask.corpus.ids
    if restriction is Restriction.BOOKMARKS:
        return [r for r in rows if ids[r] in ask.marked]
    if restriction is Restriction.UNREAD:
        return [r for r in rows if ids[r] not in ask.read]
    return rows


def snippets(corpus: Corpus, rows: list[int], result: SearchResult | None) -> dict[int, Snippet]:
    if result is None or not result.terms:
        return {}
    from tui_reader.search import snippet

    return {r: snippet(corpus.abstract(r), result.terms) for r in rows}
