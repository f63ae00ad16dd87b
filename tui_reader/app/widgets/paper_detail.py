"""The detail pane: one paper in full, built as Content (never markup) with query words marked."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.venues import venue_label
from tui_reader.library.bookmarks import Bookmark

Spans = list[tuple[int, int]]


def paper_content(
    paper: Paper, bookmark: Bookmark | None, title_spans: Spans, abstract_spans: Spans
) -> Content:
    """Title, metadata, sources, bookmark and the abstract; text stays literal whatever it holds."""
    title = Content(paper.title).stylize("bold")
    for a, b in title_spans:
        title = title.stylize("bold underline $text-accent", a, b)
    parts: list[Content] = [title, Content("\n")]
    meta = []
    if paper.authors:
        shown = ", ".join(paper.authors[:12]) + (" et al." if len(paper.authors) > 12 else "")
        meta.append(shown)
    if paper.venue or paper.year:
        meta.append(venue_label(paper.venue, paper.year))  # "ICML 2019", whatever the file wrote
    for line in meta:
        parts += [Content(line).stylize("$text-muted"), Content("\n")]
    parts.append(Content(f"id {paper.id} · {', '.join(paper.sources)}").stylize("$text-muted"))
    if paper.url:
        parts += [Content("\n"), Content(paper.url).stylize("$text-muted underline")]
    if paper.title_generated:
        parts += [Content("\n"), Content("(title generated from the abstract)").stylize("italic $text-muted")]
    parts.append(Content("\n"))
    if bookmark is not None:
        parts += [
            Content("\n"),
            Content("★ Bookmarked").stylize("bold $warning"),
            Content(f" {bookmark.added[:10]}").stylize("$text-muted"),
        ]
        if bookmark.note:
            parts += [Content("\nNote: ").stylize("bold"), Content(bookmark.note)]
        parts.append(Content("\n"))
    abstract = Content(paper.abstract)
    for a, b in abstract_spans:
        abstract = abstract.stylize("bold reverse", a, b)
    parts += [Content("\n"), abstract]
    return Content.assemble(*parts)


class PaperDetail(VerticalScroll, can_focus=True):
    """Scrollable; Tab reaches it so long abstracts can be read with the keyboard."""

    DEFAULT_CSS = """
    PaperDetail { padding: 0 1; }
    PaperDetail > Static { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Content("Loading…"), id="detail-body")

    def show(self, content: Content) -> None:
        self.query_one("#detail-body", Static).update(content)
        self.scroll_home(animate=False)

    def show_message(self, text: str) -> None:
        self.show(Content(text).stylize("italic $text-muted"))
