"""Loading the collection and its index, in workers; the list is browsable all the while.

The files are read in one thread (the papers read so far are listed as they come); the user's
data is opened beside them; then the index is opened, updated or built in another thread, and
search starts when it is ready. Whatever was asked before that waits on the model and is asked
again then.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from tui_reader import paths as app_paths
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
from tui_reader.app.screens.answers import TITLES, scanned
from tui_reader.app.widgets.notices import sentence
from tui_reader.corpus.columns import title_only
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.text import clean_label
from tui_reader.library.userdata import open_user_data

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import SearchResult


SHOWN_WARNINGS = 3  # problems with files shown one a notice; the rest are counted


class IndexCancelled(Exception):
    """The app is closing while the index is built: stop, leave no half index."""


class LoadCancelled(Exception):
    """The screen is closing while the files are read: stop reading (no temp file is left)."""


class Loader:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.growing_corpus: Corpus | None = None  # the collection as read so far
        self.browsed_to: str = ""  # the paper the user moved to while the files were read
        self._rebuilt_for: set[str] = set()  # query texts whose IndexDamaged rebuilt the index

    # -- the files ------------------------------------------------------------------------------
    def load(self) -> None:
        self.screen.run_worker(self._load, thread=True, exclusive=True, group="load", exit_on_error=False)

    def _load(self) -> None:
        worker = get_current_worker()
        screen = self.screen

        def growing(corpus: Corpus, count: int) -> None:
            if worker.is_cancelled:
                raise LoadCancelled
            screen.post_message(CorpusGrowing(corpus, count))

        try:
            corpus = load_corpus(screen.paths, on_batch=growing)
            data = open_user_data(app_paths.data_dir(), screen.bookmarks_path, corpus)
            title_only(corpus)  # read here, in the worker; the list marks them
        except LoadCancelled:
            return
        except Exception as exc:  # a vanished path, an unreadable bookmarks folder, ...
            screen.post_message(LoadFailed(exc))
            return
        screen.post_message(CorpusLoaded(corpus, data))

    def growing(self, event: CorpusGrowing) -> None:
        """More papers read: the list grows under the cursor, which stays where it is."""
        screen = self.screen
        if screen.corpus is not None or event.count < screen.loaded:
            return  # the whole collection is in, or this is an older count
        papers, corpus = screen.papers, event.corpus
        self.growing_corpus = corpus
        screen.loaded = event.count
        papers.titles, papers.ids = corpus.titles, corpus.ids
        if not papers.grow(event.count):
            papers.set_rows(range(event.count))  # the first papers: the cursor on the first
            screen.reading.landed(corpus.ids[0] if event.count else "")

    def browsed(self, row: int | None) -> None:
        corpus = self.growing_corpus
        if corpus is not None and row not in (None, 0) and row < len(corpus.ids):
            self.browsed_to = corpus.ids[row]

    def failed(self, event: LoadFailed) -> None:
        screen = self.screen
        message = f"Could not open the corpus: {clean_label(str(event.error))}"
        screen.papers.empty_text = message
        screen.papers.refresh()
        screen.index_state = "unavailable"
        screen.notify(message, severity="error")

    def loaded(self, event: CorpusLoaded) -> None:
        screen, corpus, data = self.screen, event.corpus, event.data
        screen.store = data.bookmarks
        warnings = [*corpus.warnings, *data.warnings]
        for warning in warnings[:SHOWN_WARNINGS]:
            screen.notify(warning, severity="warning", timeout=12)
        if len(warnings) > SHOWN_WARNINGS:
            more = len(warnings) - SHOWN_WARNINGS
            screen.notify(
                f"{more:,} more problems with files: `tui-reader list` prints them all.", severity="warning"
            )
        growing = self.growing_corpus
        if growing is not None and growing is not corpus:  # a file failed midway: its rows are gone
            screen.papers.set_rows(())
        screen.visit_of = data.arrivals.visit_of
        screen.bookmarks = tuple(data.bookmarks.all())
        screen.new = data.arrivals.new
        screen.papers.titles, screen.papers.ids = corpus.titles, corpus.ids
        screen.papers.no_abstract = title_only(corpus)
        screen.corpus = corpus
        screen.reading.start(data.read)
        screen.projection.count_unread()
        self.growing_corpus, screen.loaded = None, 0
        screen.session.restore(data, self.browsed_to)
        self.prepare_index(corpus)

    # -- the index ------------------------------------------------------------------------------
    def prepare_index(self, corpus: Corpus, rebuild: bool = False) -> None:
        work = partial(self._prepare_index, corpus, rebuild)
        self.screen.run_worker(work, thread=True, exclusive=True, group="index", exit_on_error=False)

    def _prepare_index(self, corpus: Corpus, rebuild: bool) -> None:
        """Open, update or build the index (rebuilt once if Whoosh finds it damaged)."""
        from tui_reader.search import SearchIndex, open_searcher

        SearchIndex.isolate = True  # a cold build in a child: the reader keeps only its own memory
        worker, post = get_current_worker(), self.screen.post_message
        overall = OverallProgress()  # one figure over the build's phases, never going back

        def progress(done: int, total: int, phase: str) -> None:
            if worker.is_cancelled:
                raise IndexCancelled
            state = overall.update(done, total, phase)
            if state is not None:
                post(IndexProgress(state))

        def tell(state: str, why: str) -> None:
            post(IndexProgress(state))

        try:
            opened = open_searcher(corpus, rebuild=rebuild, progress=progress, tell=tell)
        except IndexCancelled:
            return
        except Exception as exc:  # keep browsing without search rather than die
            post(IndexFailed(exc))
            return
        post(IndexReady(opened.index, opened.searcher, opened.report.reason or ""))

    def progress(self, event: IndexProgress) -> None:
        screen = self.screen
        screen.index_state = clean_label(event.state)
        if screen.search_bar.value.strip() and screen.searcher is None:
            screen.search_bar.info(f"{_waiting(screen.model.top.result)} ({screen.index_state}).")

    def ready(self, event: IndexReady) -> None:
        screen = self.screen
        if event.notice:
            screen.notify(sentence(event.notice), severity="warning")
        screen.index, screen.searcher = event.index, event.searcher
        screen.index_state = "ready"
        screen.refresh_bindings()
        screen.facets.index_ready()
        top = screen.model.top
        scan = scanned(top.result, screen.searcher)
        if scan and screen.reading.landing is None:  # the user moved in the titles' scan: the
            # search from its top (unmoved, the view kept its own paper: a restored session's)
            top.view = top.view.replace(cursor="", scroll=0)
        if (top.waiting or scan) and top.view.query:
            screen.searching.ask(top)

    def damaged(self, event: IndexDamagedFound) -> None:
        """Whoosh failed reading its own files: rebuild, then run the search that found out."""
        screen = self.screen
        if screen.searcher is None or screen.corpus is None:
            return  # already rebuilding
        if event.text in self._rebuilt_for:  # rebuilt for this very search: rebuilding won't help
            message = f"Search is unavailable: {event.error}"
            screen.search_bar.info(clean_label(message))
            screen.notify(message, severity="error")
            return
        self._rebuilt_for.add(event.text)
        screen.notify(f"{event.error}; rebuilding it, search resumes when done.", severity="warning")
        if screen.index is not None:
            screen.index.close()
        screen.searcher, screen.index = None, None
        screen.index_state = "rebuilding"
        screen.model.request(screen.model.top)  # the top view waits for the rebuilt index
        self.prepare_index(screen.corpus, rebuild=True)


def _waiting(result: SearchResult | None) -> str:
    """What the search bar says while the index builds: the titles' scan on show, if it is."""
    if result is not None and result.kind == TITLES:
        return f"{result.total:,} titles hold these words: titles only until the index is ready"
    return "Searching titles: the full search starts when the index is ready"
