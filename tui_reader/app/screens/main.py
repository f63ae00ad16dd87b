"""The reader screen. It owns the state (corpus, query result, view, bookmarks); panes only draw.

Everything slow runs in thread workers: loading, indexing, searching, snippets, bookmark writes
and the system clipboard. A search carries a sequence number; a result that comes back after a
newer keystroke is dropped, so stale results never land.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from tui_reader.app.commands import screen_bindings
from tui_reader.app.screens.actions import PaperActions
from tui_reader.app.screens.help import HelpScreen
from tui_reader.app.widgets.paper_detail import PaperDetail, paper_content
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.corpus.corpus import Corpus, load_corpus
from tui_reader.errors import IndexDamaged
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.search.modes import PAGE, SearchMode

if TYPE_CHECKING:  # Whoosh loads in the worker that opens the index, after the first paint
    from tui_reader.search.index import SearchIndex
    from tui_reader.search.searcher import Searcher, SearchResult


class IndexCancelled(Exception):
    pass


SEARCH_LIMIT = PAGE  # the first page; more pages come as the cursor nears the end
MAX_RESULTS = 20_000


class MainScreen(PaperActions, Screen[None]):
    BINDINGS = [*screen_bindings(), Binding("escape", "back", "Back", show=False)]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    AUTO_FOCUS = "PaperList"

    def __init__(self, paths: Sequence[str], bookmarks_path: Path) -> None:
        super().__init__()
        self.paths = list(paths)
        self.bookmarks_path = bookmarks_path
        self.corpus: Corpus | None = None
        self.index: SearchIndex | None = None
        self.searcher: Searcher | None = None
        self.store: BookmarkStore | None = None
        self.result: SearchResult | None = None
        self.bookmarks_only = False
        self.index_state = "loading"
        self._seq = 0
        self._pending: tuple[str, SearchMode] | None = None
        self._loading_more = False

    def compose(self) -> ComposeResult:
        yield SearchBar(id="search")
        with Horizontal(id="panes"):
            yield PaperList(id="papers")
            yield PaperDetail(id="detail")
        yield Static("", id="status", markup=False)
        yield Footer()

    # -- widgets --------------------------------------------------------------------------------
    @property
    def papers(self) -> PaperList:
        return self.query_one(PaperList)

    @property
    def detail(self) -> PaperDetail:
        return self.query_one(PaperDetail)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    # -- loading ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.papers.empty_text = "Loading papers…"
        self.papers.snippet_source = self.fill_snippets
        self.update_status()
        self.load()

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        try:
            store = BookmarkStore(self.bookmarks_path)
            corpus = load_corpus(self.paths)
        except Exception as exc:  # a vanished path, an unreadable bookmarks folder, ...
            self.app.call_from_thread(self._load_failed, exc)
            return
        self.app.call_from_thread(self._loaded, corpus, store)
        self.prepare_index(corpus)

    def _load_failed(self, exc: Exception) -> None:
        self.index_state = "unavailable"
        self.papers.empty_text = f"Could not open the corpus: {exc}"
        self.papers.refresh()
        self.update_status()
        self.app.notify(f"Could not open the corpus: {exc}", severity="error", markup=False)

    @work(thread=True, exclusive=True, group="index")
    def prepare_index(self, corpus: Corpus, rebuild: bool = False) -> None:
        """Open, update or build the index; the list is browsable all the while."""
        from tui_reader.search.index import SearchIndex
        from tui_reader.search.searcher import Searcher

        index = SearchIndex(corpus)
        status = "missing" if rebuild else index.status()
        last = [-1]

        worker = get_current_worker()

        def progress(done: int, total: int, phase: str) -> None:
            if worker.is_cancelled:
                raise IndexCancelled  # the app is closing: stop building, leave no half index
            if not total:  # e.g. another tui-reader is building this index
                self.app.call_from_thread(self._index_progress, phase)
                return
            pct = 100 * done // total
            if pct != last[0]:
                last[0] = pct
                self.app.call_from_thread(self._index_progress, f"{phase} {pct}%")

        if status != "fresh":
            self.app.call_from_thread(self._index_progress, "updating" if status == "stale" else "building")
        try:
            report = index.ensure(progress=progress, rebuild=rebuild)
            searcher = Searcher(index)
        except IndexCancelled:
            return
        except Exception as exc:  # keep browsing without search rather than die
            self.app.call_from_thread(self._index_failed, exc)
            return
        if report.reason:
            self.app.call_from_thread(self.app.notify, report.reason, severity="warning", markup=False)
        self.app.call_from_thread(self._search_ready, index, searcher)

    def _loaded(self, corpus: Corpus, store: BookmarkStore) -> None:
        self.corpus, self.store = corpus, store
        papers = self.papers
        papers.titles, papers.ids, papers.marked = corpus.titles, corpus.ids, store.ids()
        papers.empty_text = "No papers in this corpus." if not len(corpus) else "No papers."
        for warning in [*corpus.warnings, *store.warnings]:
            self.app.notify(
                warning, title="Problem with a file", severity="warning", timeout=12, markup=False
            )
        self.apply_view()

    def _index_progress(self, text: str) -> None:
        self.index_state = text
        self.update_status()
        if self.search_bar.value.strip() and self.searcher is None:
            self.search_bar.info(f"Search starts when the index is ready ({text}).")

    def _index_damaged(self, exc: Exception, text: str, mode: SearchMode) -> None:
        """Whoosh failed reading its own files: rebuild, then run the search that found out."""
        if self.searcher is None or self.corpus is None:
            return
        self.app.notify(f"{exc}; rebuilding it, search resumes when done.", severity="warning", markup=False)
        if self.index is not None:
            self.index.close()
        self.searcher, self.index = None, None
        self._pending = (text, mode)
        self.prepare_index(self.corpus, rebuild=True)

    def _index_failed(self, exc: Exception) -> None:
        self.index_state = "unavailable"
        self.update_status()
        self.app.notify(f"Search is unavailable: {exc}", severity="error", markup=False)

    def _search_ready(self, index: SearchIndex, searcher: Searcher) -> None:
        self.index, self.searcher, self.index_state = index, searcher, "ready"
        self.update_status()
        pending, self._pending = self._pending, None
        if pending:
            self.start_search(*pending)

    # -- view ---------------------------------------------------------------------------------
    def apply_view(self) -> None:
        """Rows to show, from (result or whole corpus) x (all or bookmarks only)."""
        corpus = self.corpus
        if corpus is None:
            return
        keep = self.papers.highlighted_row
        marked = self.papers.marked
        if self.result is not None:
            rows: Sequence[int] = [h.row for h in self.result.hits]
            if self.bookmarks_only:
                rows = [r for r in rows if corpus.ids[r] in marked]
        elif self.bookmarks_only and self.store is not None:
            rows = [corpus.index_of[b.id] for b in self.store.all() if b.id in corpus.index_of]
        else:
            rows = range(len(corpus))
        self.papers.empty_text = self._empty_text()
        self.papers.set_rows(rows, snippets=bool(self.result and self.result.terms), keep=keep)
        self.update_status()

    def _empty_text(self) -> str:
        if self.result is not None:
            if self.result.suggestion:
                return f"No matches. Did you mean: {self.result.suggestion}"
            return "No matches." + (" (none bookmarked)" if self.bookmarks_only else "")
        if self.bookmarks_only:
            return "No bookmarks yet: press b on a paper to bookmark it."
        return "No papers in this corpus."

    def update_status(self) -> None:
        parts: list[Content] = []
        corpus = self.corpus
        if corpus is None:
            parts.append(Content("Loading…"))
        else:
            shown = len(self.papers.rows)
            what = "bookmarked papers" if self.bookmarks_only else "papers"
            if self.result is not None:
                parts.append(Content(f"{shown:,} shown of {self.result.count_text} matches"))
                label = "" if self.result.kind == "similar" else "query: "
                parts.append(Content(f"{label}{self.result.query}").stylize("bold"))
                parts.append(Content(f"{self.result.took_ms:.0f} ms"))
            else:
                parts.append(Content(f"{shown:,} {what} of {len(corpus):,}"))
            if self.store is not None and len(self.store):
                missing = sum(1 for pid in self.store.ids() if pid not in corpus.index_of)
                mark = f"★ {len(self.store)}" + (f" ({missing} not in this corpus)" if missing else "")
                parts.append(Content(mark))
        parts.append(Content(f"index: {self.index_state}"))
        self.query_one("#status", Static).update(Content(" · ").join(parts))

    # -- search -------------------------------------------------------------------------------
    @on(SearchBar.QueryChanged)
    def _typed(self, event: SearchBar.QueryChanged) -> None:
        self.start_search(event.text, SearchMode.TYPING)

    @on(SearchBar.QuerySubmitted)
    def _submitted(self, event: SearchBar.QuerySubmitted) -> None:
        """Enter runs the full search (every field, all words complete) and moves to the list."""
        self.start_search(event.text, SearchMode.ENTER)
        self.papers.focus()

    def start_search(self, text: str, mode: SearchMode) -> None:
        self._seq += 1
        if not text.strip():
            self.workers.cancel_group(self, "search")
            self.search_bar.info("")
            self.result = None
            self.apply_view()
            return
        if self.searcher is None:
            self._pending = (text, mode)
            self.search_bar.info(f"Search starts when the index is ready ({self.index_state}).")
            return
        self.run_search(text, mode, self._seq)

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, text: str, mode: SearchMode, seq: int) -> None:
        assert self.searcher is not None and self.corpus is not None
        try:  # Enter: Whoosh's whole answer and its exact count; typing: the words so far
            result = self.searcher.search(text, mode, SEARCH_LIMIT)
        except IndexDamaged as exc:
            self.app.call_from_thread(self._index_damaged, exc, text, mode)
            return
        if seq != self._seq:
            return  # a newer keystroke owns the screen now
        snippets = self._snippets([h.row for h in result.hits[: self._visible]], result)
        self.app.call_from_thread(self._show_result, result, snippets, seq)

    @property
    def _visible(self) -> int:
        """Result rows on screen (two lines each): their snippets come with the results."""
        return self.papers.scrollable_content_region.height // 2 + 1

    def _snippets(self, rows: list[int], result: SearchResult) -> dict[int, tuple[str, list]]:
        from tui_reader.search.highlight import snippet

        assert self.corpus is not None
        return {r: snippet(self.corpus.abstract(r), result.terms) for r in rows}

    def fill_snippets(self, rows: list[int]) -> None:
        if self.result is not None and self.result.terms:
            self._fill_snippets(rows, self.result)

    @work(thread=True, exclusive=True, group="snippets")
    def _fill_snippets(self, rows: list[int], result: SearchResult) -> None:
        snippets = self._snippets(rows, result)
        self.app.call_from_thread(self._got_snippets, snippets, result)

    def _got_snippets(self, snippets: dict, result: SearchResult) -> None:
        if result is self.result:
            self.papers.set_snippets(snippets)

    def _show_result(self, result: SearchResult, snippets: dict, seq: int) -> None:
        if seq != self._seq:
            return
        if result.incomplete:  # one letter so far: keep the list, wait for the next key
            self.search_bar.info("Keep typing…")
            return
        self.result = result
        info: list[Content] = []
        warn = False
        if result.notice:
            info.append(Content(result.notice))
            warn = True
        if result.suggestion:
            info.append(Content("Did you mean: ") + Content(result.suggestion).stylize("bold"))
            warn = True
        if not info:
            partial = " (best so far: Enter for all)" if result.partial else ""
            noun = "match" if result.total == 1 and result.exact else "matches"
            info.append(
                Content(
                    f"{result.count_text} {noun} in {result.took_ms:.0f} ms"
                    + (partial or (" · Enter to read" if result.typing else ""))
                )
            )
        self.search_bar.info(Content(" · ").join(info), warning=warn)
        self.apply_view()
        self.papers.set_snippets(snippets)

    @on(PaperList.NearEnd)
    def _near_end(self) -> None:
        """Results come in pages: fetch more when the cursor nears the end of what is loaded."""
        result = self.result
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
        self.run_more(result, min(MAX_RESULTS, len(result.hits) * 4), self._seq)

    @work(thread=True, exclusive=True, group="search")
    def run_more(self, shown: SearchResult, limit: int, seq: int) -> None:
        assert self.searcher is not None
        try:
            result = self.searcher.search(
                shown.query, SearchMode.MORE if shown.typing else SearchMode.ENTER, limit
            )
        finally:
            self._loading_more = False
        if seq == self._seq:
            self.app.call_from_thread(self._show_result, result, {}, seq)

    # -- detail -------------------------------------------------------------------------------
    @on(PaperList.PaperHighlighted)
    def _highlighted(self, event: PaperList.PaperHighlighted) -> None:
        self.show_detail(event.row)

    @on(PaperList.PaperSelected)
    def _selected(self, event: PaperList.PaperSelected) -> None:
        if self.detail.display:
            self.detail.focus()

    def show_detail(self, row: int | None) -> None:
        if self.corpus is None or row is None:
            self.detail.show_message(self.papers.empty_text if self.corpus else "Loading…")
            return
        paper = self.corpus.paper(row)
        terms = self.result.terms if self.result else frozenset()
        bookmark = self.store.get(paper.id) if self.store else None
        self.detail.show(
            paper_content(paper, bookmark, _spans(paper.title, terms), _spans(paper.abstract, terms))
        )

    # -- actions ------------------------------------------------------------------------------
    def _current(self) -> int | None:
        row = self.papers.highlighted_row
        if row is None:
            self.app.notify("No paper highlighted.", severity="warning")
        return row

    def go_to_row(self, row: int) -> None:
        """Palette 'go to paper': show it even if the current query or filter hides it."""
        if not self.papers.move_to_row(row):
            self.result, self.bookmarks_only = None, False
            self.search_bar.set_value("")
            self.search_bar.info("")
            self.apply_view()
            self.papers.move_to_row(row)
        self.papers.focus()

    def action_focus_search(self) -> None:
        self.search_bar.input.focus()

    def action_back(self) -> None:
        """Escape ladder: leave the bar or detail pane, then clear the query, then the filter."""
        focused = self.focused
        if isinstance(focused, Input) or focused is self.detail:
            self.papers.focus()
        elif self.result is not None or self.search_bar.value:
            self.search_bar.set_value("")
            self.start_search("", SearchMode.ENTER)
        elif self.bookmarks_only:
            self.action_toggle_bookmarks_view()

    def action_toggle_bookmarks_view(self) -> None:
        self.bookmarks_only = not self.bookmarks_only
        self.apply_view()

    def action_toggle_detail(self) -> None:
        self.detail.display = not self.detail.display

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit(self) -> None:
        self.app.exit()

    def action_similar(self) -> None:
        row = self._current()
        if row is None:
            return
        if self.searcher is None:
            self.app.notify(f"Similar papers need the index ({self.index_state}).", severity="warning")
            return
        self._seq += 1
        self.run_similar(row, self._seq)

    @work(thread=True, exclusive=True, group="search")
    def run_similar(self, row: int, seq: int) -> None:
        assert self.searcher is not None
        result = self.searcher.similar(row)
        if seq != self._seq:
            return
        snippets = self._snippets([h.row for h in result.hits[: self._visible]], result)
        self.app.call_from_thread(self._show_similar, result, snippets, seq)

    def _show_similar(self, result: SearchResult, snippets: dict, seq: int) -> None:
        self._show_result(result, snippets, seq)
        self.search_bar.set_value("")
        self.search_bar.info(
            Content(f"{len(result.hits)} papers similar to the highlighted one · Esc to go back")
        )
        self.papers.focus()


def _spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """Matched words to mark; imports the analyzer (and Whoosh) only once there is a query."""
    if not terms:
        return []
    from tui_reader.search.highlight import match_spans

    return match_spans(text, terms)
