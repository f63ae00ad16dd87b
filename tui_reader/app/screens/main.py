"""The reader screen: it owns the model of what is on screen (model.py) and the collaborators that
change it, one concern each (loading.py, searching.py, reading.py, session.py, faceting.py,
annotating.py, sharing.py, exporting.py); it hands each message and key to the one it concerns.

State flows one way: a key or a worker's message changes the model; ``Shown.show`` projects the
top entry onto the reactives below; the widgets are bound to those reactives (``data_bind``) or
redrawn by their watchers. No collaborator draws by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from tui_reader.app import messages as m
from tui_reader.app.commands import screen_bindings
from tui_reader.app.model import Entry, ReaderModel, Restriction, Sort
from tui_reader.app.screens.annotating import Annotator
from tui_reader.app.screens.exporting import Exporter
from tui_reader.app.screens.faceting import Facets
from tui_reader.app.screens.foryou import can_run as for_you_can_run
from tui_reader.app.screens.inbox import Inbox
from tui_reader.app.screens.loading import Loader
from tui_reader.app.screens.reading import ReadTracker
from tui_reader.app.screens.related import Related
from tui_reader.app.screens.searching import SearchFlow, sort_notice
from tui_reader.app.screens.session import SessionKeeper
from tui_reader.app.screens.sharing import Sharing
from tui_reader.app.screens.shown import Shown
from tui_reader.app.widgets.facets import FacetPanel
from tui_reader.app.widgets.footer import ReaderFooter
from tui_reader.app.widgets.notices import one_line
from tui_reader.app.widgets.paper_detail import PaperDetail
from tui_reader.app.widgets.paper_list import PaperList
from tui_reader.app.widgets.search_bar import SearchBar
from tui_reader.app.widgets.status_line import StatusLine
from tui_reader.corpus.text import clean_text
from tui_reader.library.config import Config

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.corpus.paper import Paper
    from tui_reader.library.bookmarks import Bookmark, BookmarkStore
    from tui_reader.search import Searcher, SearchIndex, SearchResult

NOTICE_LIMIT = 90  # characters of a notice: one line of a toast


class MainScreen(Screen[None]):
    BINDINGS = screen_bindings()
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    AUTO_FOCUS = "PaperList"

    # the top entry, projected for the widgets (the status line binds these)
    corpus: var[Corpus | None] = var["Corpus | None"](None, init=False)
    result: var[SearchResult | None] = var["SearchResult | None"](None, init=False, always_update=True)
    view: var[Restriction] = var(Restriction.ALL, init=False)
    sort: var[Sort] = var(Sort.RELEVANCE, init=False)
    order: var[str] = var("relevance", init=False)
    read: var[frozenset[str]] = var(frozenset(), init=False)
    new: var[frozenset[str]] = var(frozenset(), init=False)
    unread: var[int] = var(0, init=False)
    bookmarks: var[tuple[Bookmark, ...]] = var["tuple[Bookmark, ...]"]((), init=False)
    index_state: var[str] = var("loading", init=False)
    highlighted: var[int | None] = var["int | None"](None, init=False, always_update=True)
    shown: var[int] = var(0, init=False)
    loaded: var[int] = var(0, init=False)
    """Papers read so far while the files are parsed (0: not reading)."""

    def __init__(self, paths: Sequence[str], bookmarks_path: Path, config: Config | None = None) -> None:
        super().__init__()
        self.paths = list(paths)
        self.bookmarks_path = bookmarks_path
        self.config = config or Config(Path("config.toml"))
        self.model = ReaderModel()
        self.store: BookmarkStore | None = None
        self.index: SearchIndex | None = None
        self.searcher: Searcher | None = None
        self.visit_of: Sequence[int] = ()
        self.marks: dict[str, Bookmark] = {}
        self.selected: set[str] = set()
        self.shown_entry: Entry | None = None  # the entry whose rows the list holds
        self.loader = Loader(self)
        self.searching = SearchFlow(self)
        self.reading = ReadTracker(self)
        self.session = SessionKeeper(self)
        self.facets = Facets(self)
        self.annotating = Annotator(self)
        self.sharing = Sharing(self)
        self.exporter = Exporter(self)
        self.projection = Shown(self)
        self.related = Related(self)
        self.inbox = Inbox(self)

    def compose(self) -> ComposeResult:
        yield SearchBar(id="search")
        with Horizontal(id="panes"):
            yield FacetPanel(id="facets")
            yield PaperList(id="papers").data_bind(MainScreen.corpus, order=MainScreen.order)
            yield PaperDetail(id="detail")
        s = MainScreen
        yield StatusLine(id="status").data_bind(
            s.corpus, s.result, s.view, s.sort, s.order, s.bookmarks, s.unread, s.new, s.index_state,
            s.shown, s.loaded,
        )  # fmt: skip
        yield ReaderFooter()

    def on_mount(self) -> None:
        self.papers.empty_text = "Loading papers…"
        self.loader.load()

    def on_unmount(self) -> None:
        self.session.closing()

    # -- widgets and shared reads ---------------------------------------------------------------
    @property
    def papers(self) -> PaperList:
        return self.query_one(PaperList)

    @property
    def detail(self) -> PaperDetail:
        return self.query_one(PaperDetail)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    @property
    def facet_panel(self) -> FacetPanel:
        return self.query_one(FacetPanel)

    @property
    def bookmarks_only(self) -> bool:
        return self.model.view.restriction is Restriction.BOOKMARKS

    @property
    def base(self) -> SearchResult | None:
        return self.model.top.result

    @property
    def search_sets(self) -> dict[str, frozenset[str]]:
        """The reader's own sets of ids, for the searcher's ``is:`` and ``tag:`` filters."""
        return self.projection.sets()

    def visible_results(self) -> int:
        """Result rows on screen (two lines each): their snippets come with the answer."""
        return self.papers.scrollable_content_region.height // 2 + 1

    def current_paper(self, quiet: bool = False) -> Paper | None:
        """The highlighted paper; None (said so unless ``quiet``) while there is none."""
        row, corpus = self.papers.highlighted_row, self.corpus
        if row is None or corpus is None:
            if not quiet:
                self.notify("No paper highlighted.", severity="warning")
            return None
        return corpus.paper(row)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice: one line (the newest replaces the others), never markup, controls made
        visible. Whole sentences go to the log."""
        self.log.info(f"{severity}: {clean_text(message)}")
        limit = NOTICE_LIMIT if severity == "information" else 3 * NOTICE_LIMIT  # a path must show whole
        text = one_line(message, limit)
        app = self.app
        for older in [n for n in app._notifications if n.severity == "information"]:
            app._unnotify(older, refresh=False)  # one information line at a time; problems stay
        app.notify(text, severity=severity, timeout=timeout or 4, markup=False)

    # -- the model on screen --------------------------------------------------------------------
    def remember_place(self) -> None:
        """Before a view is left: where the cursor and the scroll are, for Esc."""
        if self.shown_entry is self.model.top:
            row = self.papers.highlighted_row
            paper = self.corpus.ids[row] if self.corpus is not None and row is not None else ""
            self.model.moved(paper, round(self.papers.scroll_y))

    def search_shown(self, entry: Entry) -> None:
        """A view was pushed or changed: the order and restriction show at once, the rows when
        the answer comes."""
        self.view, self.sort = entry.view.restriction, entry.view.sort
        if entry.rows is not None:
            self.projection.show(entry)

    def show_popped(self, entry: Entry | None, cursor: str = "") -> None:
        self.searching.show_popped(entry, cursor)

    # -- messages -------------------------------------------------------------------------------
    @on(m.CorpusGrowing)
    def _growing(self, event: m.CorpusGrowing) -> None:
        self.loader.growing(event)

    @on(m.CorpusLoaded)
    def _loaded(self, event: m.CorpusLoaded) -> None:
        self.loader.loaded(event)

    @on(m.LoadFailed)
    def _load_failed(self, event: m.LoadFailed) -> None:
        self.loader.failed(event)

    @on(m.IndexProgress)
    def _index_progress(self, event: m.IndexProgress) -> None:
        self.loader.progress(event)

    @on(m.IndexReady)
    def _index_ready(self, event: m.IndexReady) -> None:
        self.loader.ready(event)
        self.inbox.index_ready()

    @on(m.IndexFailed)
    def _index_failed(self, event: m.IndexFailed) -> None:
        self.index_state = "unavailable"
        self.notify(f"Search is unavailable: {event.error}", severity="error")

    @on(m.IndexDamagedFound)
    def _index_damaged(self, event: m.IndexDamagedFound) -> None:
        self.loader.damaged(event)

    @on(m.ResultsReady)
    def _results(self, event: m.ResultsReady) -> None:
        self.projection.answered(event)

    @on(m.SnippetsReady)
    def _snippets(self, event: m.SnippetsReady) -> None:
        if event.result is self.model.top.result:
            self.papers.set_snippets(event.snippets)

    @on(m.FacetsReady)
    def _facets_ready(self, event: m.FacetsReady) -> None:
        self.facets.ready(event)

    @on(m.FacetsFailed)
    def _facets_failed(self, event: m.FacetsFailed) -> None:
        self.facets.failed(event)

    @on(FacetPanel.Chosen)
    def _facet_chosen(self, event: FacetPanel.Chosen) -> None:
        self.facets.chosen(event.clause)

    @on(m.BookmarksChanged)
    def _bookmarks_changed(self, event: m.BookmarksChanged) -> None:
        self.annotating.changed(event)

    @on(m.NotSaved)
    def _not_saved(self, event: m.NotSaved) -> None:
        self.reading.not_saved(event)

    @on(m.ReadMarked)
    def _read_marked(self, event: m.ReadMarked) -> None:
        self.reading.marked(event)

    @on(m.Copied)
    def _copied(self, event: m.Copied) -> None:
        self.sharing.copied(event)

    @on(m.CitationMade)
    def _citation(self, event: m.CitationMade) -> None:
        self.sharing.citation_made(event)

    @on(m.NoTarget)
    def _no_target(self, event: m.NoTarget) -> None:
        self.notify(event.text, severity="warning")

    @on(m.LinkOpened)
    def _link_opened(self, event: m.LinkOpened) -> None:
        self.app.refresh(layout=True)  # a browser that wrote to the terminal: draw over it
        self.notify(f"Opened in the browser: {event.link}")

    @on(m.NoBrowser)
    def _no_browser(self, event: m.NoBrowser) -> None:
        self.log.info(f"no browser: {event.why}")
        self.sharing.copy_link(event.link, event.title, "No browser here.")

    @on(m.ExportWritten)
    def _exported(self, event: m.ExportWritten) -> None:
        self.exporter.written(event)

    @on(SearchBar.QueryChanged)
    def _typed(self, event: SearchBar.QueryChanged) -> None:
        self.remember_place()
        self.searching.typed(event.text)

    @on(SearchBar.QuerySubmitted)
    def _submitted(self, event: SearchBar.QuerySubmitted) -> None:
        """Enter runs the full search (every field, all words complete) and moves to the list."""
        self.remember_place()
        self.searching.submitted(event.text)
        self.session.remember_search(event.text)
        self.papers.focus()

    @on(PaperList.PaperHighlighted)
    def _highlighted(self, event: PaperList.PaperHighlighted) -> None:
        self.loader.browsed(event.row)
        self.highlighted = event.row
        if not self.projection.landed_on_a_stand_in(event.row):
            self.remember_place()
        self.reading.highlighted(event.row)
        self.session.changed()

    @on(PaperList.PaperSelected)
    def _selected(self, event: PaperList.PaperSelected) -> None:
        self.reading.opened(event.row)
        if self.detail.display:
            self.detail.focus()

    @on(PaperList.NearEnd)
    def _near_end(self) -> None:
        self.searching.near_end()

    @on(PaperList.SnippetsWanted)
    def _snippets_wanted(self, event: PaperList.SnippetsWanted) -> None:
        if not self.related.snippets_wanted(event.rows):  # a related view's marks its cited papers
            self.searching.snippets_wanted(event.rows)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.reading.focus_changed()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.projection.cursor_into_sight)

    # -- watchers: state -> panes ---------------------------------------------------------------
    def watch_bookmarks(self, bookmarks: tuple[Bookmark, ...]) -> None:
        self.marks = {b.id: b for b in bookmarks}
        self.projection.bookmarks_changed(bookmarks)

    def watch_read(self, read: frozenset[str]) -> None:
        self.papers.read = read
        self.projection.count_unread()
        self.projection.show_detail()

    def watch_new(self, new: frozenset[str]) -> None:
        self.papers.new = new

    def watch_highlighted(self) -> None:
        self.projection.show_detail()

    # -- actions (commands.py names them; each is one collaborator's) ---------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what cannot run now from the footer and the palette."""
        if action == "focus_search" and self.focused is self.search_bar.input:
            return False  # a priority key: in the bar it is typed
        allowed = self.inbox.can_run(action, self.projection.can_run(action))
        return self.related.can_run(action, for_you_can_run(self, action, allowed))

    def action_focus_search(self) -> None:
        self.set_focus(self.search_bar.input)  # now, not after the keys queued behind "/"

    def action_back(self) -> None:
        top = self.model.top
        self.searching.back()
        self.inbox.left(top)  # a saved search's view left: back to the inbox

    def action_cycle_sort(self) -> None:
        self.remember_place()
        sort = self.searching.cycle_sort()
        self.notify(sort_notice(sort, self.model.view), timeout=3)

    def action_toggle_bookmarks_view(self) -> None:
        self.remember_place()
        self.searching.restrict(Restriction.BOOKMARKS)

    def action_toggle_unread_view(self) -> None:
        self.remember_place()
        self.searching.restrict(Restriction.UNREAD)

    def action_similar(self) -> None:
        self.searching.similar_key()

    def action_related_draft(self) -> None:
        self.related.ask()

    def go_to_row(self, row: int) -> None:
        self.searching.go_to_row(row)

    def search_for(self, text: str) -> None:
        """Run a search as if typed and entered (the palette's recent searches, ctrl+y, facets)."""
        self.searching.search_for(text)

    def action_accept_suggestion(self) -> None:
        suggestion = self.result.suggestion if self.result is not None else None
        if suggestion:
            self.search_for(suggestion)

    def action_toggle_detail(self) -> None:
        """Hide or show the detail pane; hidden, the list takes the whole width (and height)."""
        detail = self.detail
        if detail.display and self.focused is detail:
            self.papers.focus()
        detail.display = not detail.display
        self.set_class(not detail.display, "-no-detail")

    def action_toggle_facets(self) -> None:
        self.facets.toggle()

    def action_help(self) -> None:
        from tui_reader.app.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_quit(self) -> None:
        self.app.exit()

    def action_toggle_read(self) -> None:
        self.reading.toggle()

    def action_next_unread(self) -> None:
        self.reading.next_unread()

    def action_mark_all_read(self) -> None:
        self.reading.mark_all()

    def action_undo(self) -> None:
        self.reading.undo()

    def action_toggle_select(self) -> None:
        self.annotating.toggle_selected()

    def action_save_search(self) -> None:
        self.inbox.save()

    def action_inbox(self) -> None:
        self.inbox.open()

    def action_all_bookmarks(self) -> None:
        self.annotating.all_bookmarks()

    def action_for_you(self) -> None:
        from tui_reader.app.screens.foryou import open_for_you

        open_for_you(self)

    def action_toggle_bookmark(self) -> None:
        self.annotating.toggle_bookmark()

    def action_edit_note(self) -> None:
        self.annotating.edit_note()

    def action_edit_tags(self) -> None:
        self.annotating.edit_tags()

    def action_copy_abstract(self) -> None:
        self.sharing.copy(markdown=False)

    def action_copy_markdown(self) -> None:
        self.sharing.copy(markdown=True)

    def action_copy_bibtex(self) -> None:
        self.sharing.cite(entry=True)

    def action_copy_cite(self) -> None:
        self.sharing.cite(entry=False)

    def action_open_link(self) -> None:
        self.sharing.open_link()

    def action_copy_link(self) -> None:
        self.sharing.copy_link_key()

    def action_export_results(self) -> None:
        self.exporter.export()
