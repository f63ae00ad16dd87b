"""The reader screen: loading and indexing, the messages that report them, and the watchers that
turn the state (see state.py) into what the panes show.

State flows one way. Workers (threads) post messages (messages.py); handlers set reactives; the
watchers below redraw the list and the detail pane, and the status line is bound to the same
reactives. Nothing redraws by hand after changing state. Searching lives in search_flow.py, view
and order in arranging.py, read state in reading.py, history and session in session.py, the other
commands in actions.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual.widgets import Footer
from textual.worker import get_current_worker

from tui_reader import paths as app_paths
from tui_reader.app.commands import screen_bindings
from tui_reader.app.messages import (
    CorpusGrowing,
    CorpusLoaded,
    IndexDamagedFound,
    IndexFailed,
    IndexProgress,
    IndexReady,
    LoadFailed,
)
from tui_reader.app.progress import OverallProgress
from tui_reader.app.screens.actions import PaperActions
from tui_reader.app.screens.exporting import Exporting
from tui_reader.app.screens.state import ReaderState, sentence
from tui_reader.app.widgets.facets import FacetPanel
from tui_reader.app.widgets.paper_detail import (
    PaperDetail,
    ReadingState,
    paper_content,
    shown_abstract,
    shown_title,
)
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.app.widgets.status_line import StatusLine
from tui_reader.corpus.columns import title_only
from tui_reader.corpus.corpus import load_corpus
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged
from tui_reader.library.config import Config
from tui_reader.library.userdata import open_user_data

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import Bookmark


class IndexCancelled(Exception):
    pass


class LoadCancelled(Exception):
    """The screen is closing while the files are read: stop reading (no temp file is left)."""


class MainScreen(Exporting, PaperActions):
    BINDINGS = screen_bindings()
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    AUTO_FOCUS = "PaperList"

    loaded: var[int] = var(0, init=False)
    """Papers read so far while the files are parsed, for the status line (0: not reading)."""

    def __init__(self, paths: Sequence[str], bookmarks_path: Path, config: Config | None = None) -> None:
        super().__init__()
        self._growing: Corpus | None = None  # the collection as read so far, until CorpusLoaded
        self._browsed = False  # the cursor moved while the files were read: it stays where it is
        self.paths = list(paths)
        self.bookmarks_path = bookmarks_path
        self.config = config or self.config
        self._marks: dict[str, Bookmark] = {}  # self.bookmarks by id
        self._rebuilt_for: set[str] = set()  # query texts whose IndexDamaged rebuilt the index

    def compose(self) -> ComposeResult:
        yield SearchBar(id="search")
        with Horizontal(id="panes"):
            yield FacetPanel(id="facets")
            yield PaperList(id="papers")
            yield PaperDetail(id="detail")
        yield StatusLine(id="status").data_bind(
            ReaderState.corpus,
            ReaderState.result,
            ReaderState.view,
            ReaderState.sort,
            ReaderState.order,
            ReaderState.bookmarks,
            ReaderState.unread,
            ReaderState.new,
            ReaderState.index_state,
            ReaderState.shown,
            MainScreen.loaded,
        )
        yield Footer()

    # -- loading ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.papers.empty_text = "Loading papers…"
        self.load()

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Read the files; the papers read so far are listed (and readable) as they come."""
        worker = get_current_worker()

        def growing(corpus: Corpus, count: int) -> None:
            if worker.is_cancelled:
                raise LoadCancelled
            self.post_message(CorpusGrowing(corpus, count))

        try:
            corpus = load_corpus(self.paths, on_batch=growing)
            data = open_user_data(app_paths.data_dir(), self.bookmarks_path, corpus)
            title_only(corpus)  # read here, in the worker; the list marks them
        except LoadCancelled:
            return
        except Exception as exc:  # a vanished path, an unreadable bookmarks folder, ...
            self.post_message(LoadFailed(exc))
            return
        self.post_message(CorpusLoaded(corpus, data))

    @on(CorpusGrowing)
    def _corpus_growing(self, event: CorpusGrowing) -> None:
        """More papers read: the list grows under the cursor, which stays where it is."""
        if self.corpus is not None or event.count < self.loaded:
            return  # the whole collection is in, or this is an older count
        papers, corpus = self.papers, event.corpus
        self._growing = corpus
        self.loaded = event.count
        papers.titles, papers.ids = corpus.titles, corpus.ids
        if not papers.grow(event.count):
            papers.set_rows(range(event.count))  # the first papers: the cursor on the first

    @on(LoadFailed)
    def _load_failed(self, event: LoadFailed) -> None:
        message = f"Could not open the corpus: {clean_label(str(event.error))}"
        self.papers.empty_text = message
        self.papers.refresh()
        self.index_state = "unavailable"
        self.notify(message, severity="error")

    @on(CorpusLoaded)
    def _corpus_loaded(self, event: CorpusLoaded) -> None:
        corpus, data = event.corpus, event.data
        self.store = data.bookmarks
        for warning in [*corpus.warnings, *data.warnings]:
            self.notify(warning, title="Problem with a file", severity="warning", timeout=12)
        self.restore(data)  # view, order, stores (session.py)
        growing, row = self._growing, self.highlighted
        if self._browsed and growing is not None and row is not None:
            self._restore_paper = growing.ids[row]  # where the reader went, not the last session's paper
        if growing is not None and growing is not corpus:  # a file failed midway: its rows are gone
            self.papers.set_rows(())
        self.visit_of = data.arrivals.visit_of
        self.bookmarks = tuple(data.bookmarks.all())
        self.new = data.arrivals.new
        self.read = data.read.ids()
        self.corpus = corpus
        self.papers.no_abstract = title_only(corpus)
        self._growing, self.loaded = None, 0
        self.order_collection()
        if self._pending is None and not self.search_bar.value.strip():  # typed while loading: that wins
            self.resume_query(data.restored.query)
        self.prepare_index(corpus)

    @work(thread=True, exclusive=True, group="index")
    def prepare_index(self, corpus: Corpus, rebuild: bool = False) -> None:
        """Open, update or build the index; the list is browsable all the while."""
        from tui_reader.search.index import SearchIndex
        from tui_reader.search.searcher import Searcher

        worker = get_current_worker()
        overall = OverallProgress()  # one figure over the build's phases, never going back

        def progress(done: int, total: int, phase: str) -> None:
            if worker.is_cancelled:
                raise IndexCancelled  # the app is closing: stop building, leave no half index
            state = overall.update(done, total, phase)
            if state is not None:
                self.post_message(IndexProgress(state))

        try:
            index = SearchIndex(corpus)
            status = "missing" if rebuild else index.status()
            if status != "fresh":
                self.post_message(IndexProgress("updating" if status == "stale" else "building"))
            report = index.ensure(progress=progress, rebuild=rebuild)
            try:
                searcher = Searcher(index)
            except IndexDamaged as exc:  # damaged where the manifest cannot see: rebuild, once
                if rebuild:
                    raise
                self.post_message(IndexProgress("rebuilding"))
                index.close()
                index = SearchIndex(corpus)
                report = index.ensure(progress=progress, rebuild=True)
                report.reason = f"{exc}; rebuilt it"
                searcher = Searcher(index)
        except IndexCancelled:
            return
        except Exception as exc:  # keep browsing without search rather than die
            self.post_message(IndexFailed(exc))
            return
        self.post_message(IndexReady(index, searcher, report.reason or ""))

    @on(IndexProgress)
    def _index_progress(self, event: IndexProgress) -> None:
        self.index_state = clean_label(event.state)
        if self.search_bar.value.strip() and self.searcher is None:
            self.search_bar.info(f"Search starts when the index is ready ({self.index_state}).")

    @on(IndexReady)
    def _index_ready(self, event: IndexReady) -> None:
        if event.notice:
            self.notify(sentence(event.notice), severity="warning")
        self.index, self.searcher = event.index, event.searcher
        self.index_state = "ready"
        self._facets_for = None
        self.refresh_facets()
        pending, self._pending = self._pending, None
        if pending:
            self.start_search(*pending)

    @on(IndexFailed)
    def _index_failed(self, event: IndexFailed) -> None:
        self.index_state = "unavailable"
        self.notify(f"Search is unavailable: {event.error}", severity="error")

    @on(IndexDamagedFound)
    def _index_damaged(self, event: IndexDamagedFound) -> None:
        """Whoosh failed reading its own files: rebuild, then run the search that found out."""
        if self.searcher is None or self.corpus is None:
            return  # already rebuilding
        if event.text in self._rebuilt_for:  # rebuilt for this very search: rebuilding won't help
            message = f"Search is unavailable: {event.error}"
            self.search_bar.info(clean_label(message))
            self.notify(message, severity="error")
            return
        self._rebuilt_for.add(event.text)
        self.notify(f"{event.error}; rebuilding it, search resumes when done.", severity="warning")
        if self.index is not None:
            self.index.close()
        self.searcher, self.index = None, None
        self._pending = (event.text, event.mode)
        self.index_state = "rebuilding"
        self.prepare_index(self.corpus, rebuild=True)

    # -- watchers: state -> panes -------------------------------------------------------------
    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is not None:
            papers = self.papers
            papers.titles, papers.ids = corpus.titles, corpus.ids
            self._count_unread()
        self.show_view()
        self.highlighted = self.papers.highlighted_row  # the paper read while loading, if any

    def watch_result(self) -> None:
        if self.result is None:
            self.order = self._collection_sort if self.collection_order is not None else "relevance"
        self.show_view()
        self.session_changed()

    def watch_bookmarks(self, bookmarks: tuple[Bookmark, ...]) -> None:
        self._marks = {b.id: b for b in bookmarks}
        self.papers.marked = frozenset(self._marks)
        if self.view == "bookmarks":
            self.show_view()
        self.show_detail()  # the highlighted paper's bookmark and note

    def watch_read(self, read: frozenset[str]) -> None:
        self.papers.read = read
        self._count_unread()
        self.show_detail()  # read or unread, in the detail pane too

    def watch_new(self, new: frozenset[str]) -> None:
        self.papers.new = new

    def _count_unread(self) -> None:
        corpus = self.corpus
        if corpus is not None:
            self.unread = len(corpus) - sum(1 for pid in self.read if pid in corpus.index_of)

    def watch_highlighted(self, row: int | None) -> None:
        self.show_detail()
        self.schedule_read(row)
        self.session_changed()

    @on(PaperList.PaperHighlighted)
    def _highlighted(self, event: PaperList.PaperHighlighted) -> None:
        if self._growing is not None and event.row not in (None, 0):
            self._browsed = True
        self.highlighted = event.row

    @on(PaperList.PaperSelected)
    def _selected(self, event: PaperList.PaperSelected) -> None:
        self.opened(event.row)
        if self.detail.display:
            self.detail.focus()

    def show_view(self) -> None:
        """Rows to show: (result, or the collection in its order) x (all, bookmarked, unread)."""
        corpus = self.corpus
        if corpus is None:
            return
        papers, ids, view = self.papers, corpus.ids, self.view
        rows: Sequence[int]
        if self.result is not None:
            rows = [h.row for h in self.result.hits]
        elif view == "bookmarks" and self.collection_order is None:  # in the order bookmarked
            rows = [corpus.index_of[b.id] for b in self.bookmarks if b.id in corpus.index_of]
        else:
            rows = self.collection_order if self.collection_order is not None else range(len(corpus))
        if view == "bookmarks" and (self.result is not None or self.collection_order is not None):
            rows = [r for r in rows if ids[r] in self._marks]
        elif view == "unread":
            read = self.read
            rows = [r for r in rows if ids[r] not in read]
        papers.empty_text = self._empty_text()
        keep = self.restored_row()
        if keep is None and self.keep_cursor:
            keep = papers.highlighted_row
        snippets = bool(self.result and self.result.terms)
        if snippets or keep is None or not papers.grow(rows, keep):  # grown: the scroll stays
            papers.set_rows(rows, snippets=snippets, keep=keep)
        self.shown = len(rows)
        self.session_changed()

    def _empty_text(self) -> str:
        if self.result is not None:
            if self.result.suggestion:
                return f"No matches. Did you mean: {clean_label(self.result.suggestion)} (ctrl+y)"
            none = {"bookmarks": " (none bookmarked)", "unread": " (none unread)"}.get(self.view, "")
            return "No matches." + none
        if self.view == "bookmarks":
            return "No bookmarks yet: press b on a paper to bookmark it."
        if self.view == "unread":
            return "Nothing unread: every paper here is read (U shows them all)."
        return "No papers in this corpus."

    def show_detail(self) -> None:
        row, corpus = self.highlighted, self.corpus or self._growing
        if corpus is None or row is None:
            self.detail.show_message(self.papers.empty_text if corpus else "Loading…")
            return
        paper = corpus.paper(row)
        terms = self.result.terms if self.result else frozenset()
        bookmark = self._marks.get(paper.id)
        title, (abstract, _) = shown_title(paper.title), shown_abstract(paper.abstract)
        read_at = None
        if paper.id in self.read:  # read this session: not in the store's copy yet
            read_at = (self.read_store.when(paper.id) if self.read_store else None) or "now"
        state = ReadingState(paper.id in self.new, read_at)
        self.detail.show(paper_content(paper, bookmark, _spans(title, terms), _spans(abstract, terms), state))


def _spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """Matched words to mark; imports the analyzer (and Whoosh) only once there is a query."""
    if not terms:
        return []
    from tui_reader.search.highlight import match_spans

    return match_spans(text, terms)
