"""What am I missing, in the reader (``M``): a modal takes a draft's path or its pasted text; a
worker reads the draft, ranks the collection by it (search/related.py) and tells which papers the
draft already cites (library/cited.py); the answer is a view on the model's stack
(``View.related``), so Esc returns to the list it came from exactly.

The list marks a cited paper on its snippet line (``✓ cited · ...``), on every drawing of it: the
rows' snippets for a related view come from here, not from the search flow. Its answer is worked
out once: a sort or a restriction would ask the searcher again, so S, B and U are off on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from tui_reader.app.messages import ResultsReady, Snippet
from tui_reader.app.model import Kind, View
from tui_reader.corpus.draft import DraftError, parse_draft, read_draft
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged
from tui_reader.library.cited import resolve

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmark import Bookmark
    from tui_reader.search import Searcher, SearchResult

LIMIT = 50  # papers a draft's list holds (the answer is its top, never paged)
CITED = "✓ cited · "  # the start of a cited paper's snippet line
OFF = frozenset({"cycle_sort", "toggle_bookmarks_view", "toggle_unread_view"})  # on a related view
KEPT = 8  # answers whose cited rows are remembered (the views Esc can return to)


@dataclass(frozen=True, slots=True)
class DraftAsked:
    """What the modal gave: a path to read, or the text itself."""

    path: str = ""
    text: str = ""


class DraftScreen(ModalScreen[DraftAsked | None]):
    """Dismisses with the draft asked for (Enter on the path, ctrl+s or Find) or None (Esc)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "find", "Find", priority=True),
    ]
    DEFAULT_CSS = """
    DraftScreen { align: center middle; }
    DraftScreen > Vertical {
        width: 90; max-width: 95%; height: auto; border: thick $primary; background: $surface;
        padding: 0 1;
    }
    DraftScreen #draft-title { margin-bottom: 1; }
    DraftScreen TextArea { height: 8; }
    DraftScreen .draft-label { margin-top: 1; }
    DraftScreen Horizontal { height: auto; margin-top: 1; }
    DraftScreen Button { margin-right: 2; min-width: 12; }
    DraftScreen.-short #draft-title { margin-bottom: 0; }
    DraftScreen.-short .draft-label { margin-top: 0; }
    DraftScreen.-short TextArea { height: 4; }
    DraftScreen.-short Horizontal { margin-top: 0; }
    """
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # 24 rows: the buttons stay on screen

    def __init__(self, path: str = "") -> None:
        super().__init__()
        self._path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("What am I missing?").stylize("bold"), id="draft-title")
            yield Static(
                Content(
                    "The papers most like your draft; those it cites (its .bib, or your bookmarks' keys) ✓."
                )
            )
            yield Static(Content("Draft file (.tex, .md or text):"), classes="draft-label")
            yield Input(self._path, placeholder="~/papers/draft.tex", id="draft-path")
            yield Static(Content("or paste its text:"), classes="draft-label")
            yield TextArea("", soft_wrap=True, id="draft-text")
            yield Static(
                Content("Enter reads the file · ctrl+s: the pasted text (or the file) · Esc cancels").stylize(
                    "$text-muted"
                )
            )
            with Horizontal():
                yield Button("Find", variant="primary", id="draft-find")
                yield Button("Cancel", id="draft-cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._find(prefer_text=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        (self.action_find if event.button.id == "draft-find" else self.action_cancel)()

    def action_find(self) -> None:
        self._find(prefer_text=True)

    def _find(self, prefer_text: bool) -> None:
        """Enter on the path reads the file; ctrl+s and Find take the pasted text when there is
        some (the path field keeps the last draft's path), else the file."""
        path = self.query_one(Input).value.strip()
        text = self.query_one(TextArea).text
        if text.strip() and (prefer_text or not path):
            self.dismiss(DraftAsked(text=text))
        elif path:
            self.dismiss(DraftAsked(path=path))
        else:
            self.app.notify("Give a draft's path, or paste its text.", severity="warning", markup=False)

    def action_cancel(self) -> None:
        self.dismiss(None)


class Related:
    """The screen's collaborator for ``M`` and the views it pushes."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._cited: list[tuple[SearchResult, frozenset[int]]] = []  # an answer and its cited rows
        self._last_path = ""

    # -- what the user asked for ----------------------------------------------------------------
    def ask(self) -> None:
        screen = self.screen
        if screen.searcher is None or screen.corpus is None:
            screen.notify(f"What am I missing needs the index ({screen.index_state}).", severity="warning")
            return
        screen.app.push_screen(DraftScreen(self._last_path), self.start)

    def start(self, asked: DraftAsked | None) -> None:
        """The draft's view on the stack, waiting for the worker's answer."""
        screen, corpus, searcher = self.screen, self.screen.corpus, self.screen.searcher
        if asked is None or corpus is None or searcher is None:
            return
        self._last_path = asked.path or self._last_path
        name = Path(asked.path).name if asked.path else "pasted text"
        screen.remember_place()
        entry = screen.model.push(View(related=clean_label(name) or "draft"))
        number = screen.model.request(entry)
        screen.search_bar.set_value("")
        screen.search_bar.info(f"Reading {clean_label(name)} and ranking the collection by it…")
        screen.search_shown(entry)
        marks = tuple(screen.bookmarks)
        work = partial(self._work, number, asked, corpus, searcher, marks, screen.visible_results())
        screen.run_worker(work, thread=True, group="related", exit_on_error=False)
        screen.papers.focus()

    # -- the worker -----------------------------------------------------------------------------
    def _work(
        self,
        number: int,
        asked: DraftAsked,
        corpus: Corpus,
        searcher: Searcher,
        marks: tuple[Bookmark, ...],
        visible: int,
    ) -> None:
        from tui_reader.search import rank_related as related

        try:
            draft = read_draft(Path(asked.path).expanduser()) if asked.path else parse_draft(asked.text)
            cited = resolve(draft.cites, draft.bibliographies, marks if draft.cites else (), corpus.get)
            result = related(searcher, draft.text, LIMIT)
        except (DraftError, IndexDamaged) as exc:
            self.screen.app.call_from_thread(self.failed, number, str(exc))
            return
        except Exception as exc:  # never a view left waiting: the notice says what failed
            self.screen.log.error(f"related: {exc!r}")
            self.screen.app.call_from_thread(self.failed, number, f"it failed ({type(exc).__name__})")
            return
        rows = [hit.row for hit in result.hits]
        marked = frozenset(r for r in rows if cited.cites(corpus.paper(r)))
        result.query = f"like {draft.name} · {len(marked)} cited"
        problems = [*draft.warnings, *cited.warnings]
        if cited.unknown:
            problems.append(f"{cited.summary}; not found: {', '.join(cited.unknown[:5])}")
        result.notice = "; ".join([result.notice or "", *problems]).strip("; ") or None
        self._cited = [*self._cited[-(KEPT - 1) :], (result, marked)]
        first = self._snippets(corpus, rows[: max(visible, 1)], result, marked)
        self.screen.post_message(ResultsReady(number, result, rows, "relevance", first))

    def failed(self, number: int, why: str) -> None:
        """The draft could not be read: its view goes (if still on show) and the notice says why."""
        screen, model = self.screen, self.screen.model
        entry = model.waiting_for(number)
        if entry is not None and entry is model.top:
            screen.show_popped(model.pop())
        elif entry is not None:
            entry.request = 0
        screen.notify(f"What am I missing: {why}", severity="error")

    # -- the list -------------------------------------------------------------------------------
    def snippets_wanted(self, rows: list[int]) -> bool:
        """Snippet lines for a related view (with their cited marks); False for any other view."""
        screen = self.screen
        top = screen.model.top
        if top.view.kind is not Kind.RELATED or top.result is None or screen.corpus is None:
            return False
        marked = next((m for r, m in self._cited if r is top.result), frozenset())
        screen.papers.set_snippets(self._snippets(screen.corpus, rows, top.result, marked))
        return True

    @staticmethod
    def _snippets(
        corpus: Corpus, rows: list[int], result: SearchResult, marked: frozenset[int]
    ) -> dict[int, Snippet]:
        from tui_reader.search import snippet

        out: dict[int, Snippet] = {}
        for row in rows:
            text, spans = snippet(corpus.abstract(row), result.terms)
            out[row] = cited_snippet(text, spans) if row in marked else (text, spans)
        return out

    def can_run(self, action: str, otherwise: bool | None) -> bool | None:
        """check_action: the orders and restrictions are off on a related view; M needs the index."""
        if action in OFF and self.screen.model.view.kind is Kind.RELATED:
            return None
        if action == "related_draft" and (self.screen.searcher is None or self.screen.corpus is None):
            return None  # as s: shown greyed, never run
        return otherwise


def cited_snippet(text: str, spans: list[tuple[int, int]]) -> Snippet:
    """A cited paper's snippet line: the mark first, marked as a match (the list starts a line
    at its first match, which would hide a mark before it), then the text from a little before
    its first match."""
    first = spans[0][0] if spans else 0
    cut = text.rfind(" ", 0, first - 10) + 1 if first > 12 else 0
    lead = CITED + ("…" if cut else "")
    shift = len(lead) - cut
    mark = (0, len(CITED.split(" ·")[0]))
    return lead + text[cut:], [mark, *((a + shift, b + shift) for a, b in spans if a >= cut)]
