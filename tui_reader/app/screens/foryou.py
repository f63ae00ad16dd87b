"""For you (issue 20): the collection ranked by a model of a tag's papers, or of every bookmark.

``F`` asks which tag (TagChoice) and opens ForYouScreen: the ranked papers (search/recommend.py),
unread first, each with the words that weigh most for it on its second line ("because: diffusion,
guidance, score"). ``x`` marks the highlighted paper not interested: it leaves the list at once,
is written to the tag's list (library/negatives.py) and the model is trained again; ``R`` clears
the tag's list. With fewer than three papers to learn from, the screen says what it needs.

Training and ranking run in a thread worker (~1 s at 87k papers), the summary line saying what it
does; each run has a request number and an answer for an older one is dropped, so ``x`` pressed
twice quickly never shows the first retraining's list. Enter closes the screen on the paper, for
the main screen to go to (its list, read state and Esc are as they were). All text comes from
files: drawn as Content or Segments, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui_reader import paths
from tui_reader.app.widgets.paper_detail import PaperDetail, ReadingState, paper_content, shown_abstract
from tui_reader.app.widgets.paper_list import PaperList, tag_label
from tui_reader.corpus.text import clean_label
from tui_reader.library.jsonstore import ReadOnlyStore
from tui_reader.library.negatives import NotInterested

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.search import Pick, Recommendations, Searcher

LIMIT = 200  # papers listed
ALL = "\x00all"  # TagChoice's answer for every bookmark (no tag is this)


def label(tag: str | None) -> str:
    return f'the tag "{tag}"' if tag else "your bookmarks"


def can_run(screen: MainScreen, action: str, otherwise: bool | None) -> bool | None:
    """check_action: ``F`` once the bookmarks, the collection and its index are there."""
    if action == "for_you" and (screen.store is None or screen.corpus is None or screen.searcher is None):
        return None
    return otherwise


def open_for_you(screen: MainScreen) -> None:
    """``F``: which tag, then the For-you screen; Enter there goes to the paper here."""
    store, corpus, searcher = screen.store, screen.corpus, screen.searcher
    if store is None or corpus is None or searcher is None:
        screen.notify("For you opens once the collection and its index are ready.", severity="warning")
        return

    def went(row: int | None) -> None:
        if row is not None:
            screen.go_to_row(row)

    def chosen(tag: str | None) -> None:
        if tag is not None:
            shown = ForYouScreen(searcher, corpus, store, None if tag == ALL else tag, screen.read)
            screen.app.push_screen(shown, went)

    screen.app.push_screen(TagChoice(len(store), store.tag_counts()), chosen)


class TagChoice(ModalScreen[str | None]):
    """Which papers to learn from: every bookmark, or one tag's. Dismisses with the tag, ALL,
    or None (Esc)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    TagChoice { align: center middle; }
    TagChoice > Vertical { width: 60; max-width: 90%; height: auto; max-height: 80%;
        border: thick $primary; background: $surface; padding: 0 1; }
    TagChoice OptionList { height: auto; max-height: 20; }
    """

    def __init__(self, bookmarks: int, tags: dict[str, int]) -> None:
        super().__init__()
        self.bookmarks = bookmarks
        self.tags = tags

    def compose(self) -> ComposeResult:
        options = [Option(Content(f"All bookmarks ({self.bookmarks:,})"), id=ALL)]
        options += [Option(Content(f"#{clean_label(t)} ({n:,})"), id=t) for t, n in self.tags.items()]
        with Vertical():
            yield Static(Content("For you: learn from which papers?").stylize("bold"))
            yield OptionList(*options, id="foryou-tags")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass
class Ranked(Message, bubble=False):
    request: int
    got: Recommendations | None
    problem: str = ""
    warnings: tuple[str, ...] = ()  # the not-interested file's (set aside when corrupt, ...)


@dataclass
class Step(Message, bubble=False):
    request: int
    text: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Step)


class ForYouScreen(Screen[int | None]):
    """The ranking for a tag (None: every bookmark). Dismisses with the row chosen, or None."""

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="Back to the list"),
        Binding("x", "not_interested", "Not interested", tooltip="Never recommend it for this tag; retrain"),
        Binding("R", "reset", "Reset", tooltip="Forget this tag's not-interested papers; retrain"),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    DEFAULT_CSS = """
    ForYouScreen { layout: vertical; }
    ForYouScreen #foryou-summary { height: 1; padding: 0 1; background: $panel; }
    ForYouScreen #foryou-panes { height: 1fr; }
    ForYouScreen #foryou-list { width: 3fr; border-right: vkey $border-blurred; }
    ForYouScreen #foryou-detail { width: 2fr; }
    ForYouScreen.-narrow #foryou-panes { layout: vertical; }
    ForYouScreen.-narrow #foryou-list { width: 1fr; height: 50%; border-right: none; }
    ForYouScreen.-narrow #foryou-detail { width: 1fr; height: 1fr; }
    """

    def __init__(
        self,
        searcher: Searcher,
        corpus: Corpus,
        store: BookmarkStore,
        tag: str | None,
        read: frozenset[str],
        negatives: NotInterested | None = None,
    ) -> None:
        super().__init__()
        self.searcher = searcher
        self.corpus = corpus
        self.store = store
        self.tag = tag
        self.read = read
        self.negatives = negatives or NotInterested(paths.not_interested_file())
        self.picks: list[Pick] = []
        self.got: Recommendations | None = None
        self.request = 0
        # marked not interested (or reset) since the last ranking shown: each new run writes them
        # all, so none is lost when a newer run replaces an older one before it wrote
        self.dropped: set[str] = set()
        self.resetting = False
        self.warned: set[str] = set()  # warnings shown once

    def compose(self) -> ComposeResult:
        yield Static(Content(""), id="foryou-summary")
        with Horizontal(id="foryou-panes"):
            yield PaperList(id="foryou-list")
            yield PaperDetail(id="foryou-detail")
        yield Footer()

    @property
    def papers(self) -> PaperList:
        return self.query_one("#foryou-list", PaperList)

    @property
    def detail(self) -> PaperDetail:
        return self.query_one("#foryou-detail", PaperDetail)

    def on_mount(self) -> None:
        papers = self.papers
        papers.corpus, papers.read = self.corpus, self.read
        papers.titles, papers.ids = self.corpus.titles, self.corpus.ids
        marks = self.store.all()
        papers.marked = frozenset(m.id for m in marks)
        papers.tags = {m.id: tag_label(m.tags) for m in marks if m.tags}
        papers.empty_text = "Ranking…"
        papers.focus()
        self.train()

    # -- the worker -----------------------------------------------------------------------------
    def train(self) -> None:
        """A new ranking, after writing what was marked (or reset) since the last one shown."""
        self.request += 1
        positives = self.store.ids_with_tag(self.tag) if self.tag else self.store.ids()
        self.say(f"Learning from {label(self.tag)} ({len(positives):,} papers)…")
        self._run(self.request, positives, frozenset(self.dropped), self.resetting)

    @work(thread=True, exclusive=True, group="foryou")
    def _run(self, request: int, positives: set[str], marks: frozenset[str], reset: bool) -> None:
        from tui_reader.search import RecommendCancelled as Cancelled
        from tui_reader.search import recommendations as recommend

        try:
            if reset:
                self.negatives.reset(self.tag)
            for pid in sorted(marks):
                self.negatives.add(self.tag, pid)
            negatives = self.negatives.ids(self.tag)
        except ReadOnlyStore as exc:
            self.post_message(Ranked(request, None, str(exc), tuple(self.negatives.warnings)))
            return
        warnings = tuple(self.negatives.warnings)

        def step(done: int, total: int, phase: str) -> None:
            self.post_message(Step(request, progress_text(done, total, phase)))

        try:
            got = recommend(
                self.searcher,
                positives,
                negatives,
                limit=LIMIT,
                progress=step,
                cancelled=lambda: request != self.request,
            )
        except Cancelled:
            return
        except Exception as exc:  # the index failing: said, never a crash of the reader
            self.post_message(Ranked(request, None, f"Could not rank: {exc}"))
            return
        self.post_message(Ranked(request, got, warnings=warnings))

    @on(Step)
    def _step(self, event: Step) -> None:
        if event.request == self.request:
            self.say(f"For you, from {label(self.tag)}: {event.text}")

    @on(Ranked)
    def _ranked(self, event: Ranked) -> None:
        for warning in event.warnings:
            if warning not in self.warned:
                self.warned.add(warning)
                self.notify(clean_label(warning), severity="warning", timeout=8, markup=False)
        if event.request != self.request:
            return  # an older ranking: a newer one is on its way
        if event.got is None:
            self.say(event.problem)
            self.papers.empty_text = event.problem
            self.papers.refresh()
            return
        from tui_reader.search import needs_text, unread_first

        got = self.got = event.got
        self.dropped.clear()
        self.resetting = False
        short = needs_text(label(self.tag), got.positives, got.missing) if got.short_by else ""
        self.papers.empty_text = short or "Nothing left to recommend."
        self.show(unread_first(got.picks, self.read), self.papers.cursor)
        if short:
            self.say(short)
        else:
            self._summary()

    def show(self, picks: list[Pick], at: int = 0) -> None:
        self.picks = picks
        rows = [p.row for p in picks]
        keep = rows[min(at, len(rows) - 1)] if rows else None
        self.papers.set_rows(rows, snippets=True, keep=keep)
        self.papers.set_snippets({p.row: because_line(p) for p in picks})
        self._show_detail()
        self.refresh_bindings()

    def _summary(self) -> None:
        got = self.got
        if got is None:
            return
        unread = sum(p.id not in self.read for p in self.picks)
        text = (
            f"For you, from {label(self.tag)}: {got.positives:,} papers, {got.negatives:,} not interested"
            f" · {len(self.picks):,} shown ({unread:,} unread first) of {got.total:,}"
            f" · {(got.train_ms + got.rank_ms) / 1000:.1f} s"
        )
        self.say(text)

    def say(self, text: str) -> None:
        self.query_one("#foryou-summary", Static).update(Content(clean_label(text)).stylize_before("bold"))

    # -- the panes ------------------------------------------------------------------------------
    @on(PaperList.PaperHighlighted)
    def _highlighted(self, event: PaperList.PaperHighlighted) -> None:
        self._show_detail()

    @on(PaperList.PaperSelected)
    def _selected(self, event: PaperList.PaperSelected) -> None:
        self.dismiss(event.row)

    @on(PaperList.SnippetsWanted)
    def _snippets_wanted(self, event: PaperList.SnippetsWanted) -> None:
        self.papers.set_snippets({p.row: because_line(p) for p in self.picks if p.row in event.rows})

    def _show_detail(self) -> None:
        pick = self.current
        if pick is None:
            self.detail.show_message(self.papers.empty_text)
            return
        from tui_reader.search import match_spans

        paper = self.corpus.paper(pick.row)
        terms = frozenset(pick.terms)
        abstract, _ = shown_abstract(paper.abstract)
        reading = ReadingState(False, "earlier" if pick.id in self.read else None)
        content = paper_content(
            paper,
            self.store.get(paper.id),
            match_spans(paper.title, terms),
            match_spans(abstract, terms),
            reading,
        )
        self.detail.show(content)

    @property
    def current(self) -> Pick | None:
        at = self.papers.cursor
        return self.picks[at] if 0 <= at < len(self.picks) else None

    # -- keys -----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """x on a paper only; R when the tag has not-interested papers to forget."""
        if action == "not_interested":
            return self.current is not None
        if action == "reset":
            return bool(self.dropped) or (self.got is not None and self.got.negatives > 0)
        return True

    def action_close(self) -> None:
        self.request += 1  # a ranking on its way is dropped
        self.dismiss(None)

    def action_not_interested(self) -> None:
        pick = self.current
        if pick is None:
            return
        at = self.papers.cursor
        self.dropped.add(pick.id)
        self.show([p for p in self.picks if p.id != pick.id], at)
        self.train()
        self.notify(f"Not interested for {label(self.tag)}: retraining.", timeout=3, markup=False)

    def action_reset(self) -> None:
        self.dropped.clear()
        self.resetting = True
        self.train()
        self.notify(
            f"Cleared the not-interested papers of {label(self.tag)}: retraining.", timeout=3, markup=False
        )


def progress_text(done: int, total: int, phase: str) -> str:
    """What the worker is doing, for the summary line ("Ranking the collection… 40%")."""
    if phase == "ranking":
        return f"Ranking the collection… {100 * done // max(total, 1)}%"
    return {"training": "Training…", "ranked": "Ranked."}.get(phase, phase)


def because_line(pick: Pick) -> tuple[str, list[tuple[int, int]]]:
    """The second line of a pick: "because: diffusion, guidance, score", the words marked."""
    head = "because: "
    spans, at = [], len(head)
    for word in pick.because:
        spans.append((at, at + len(word)))
        at += len(word) + 2
    return head + ", ".join(pick.because), spans
