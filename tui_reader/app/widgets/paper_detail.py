"""The detail pane: one paper in full, built as Content (never markup) with query words marked.

Laying text out costs time in proportion to its length, on the UI thread: a 1 MB abstract took
2.6-3.1 s each time the cursor landed on it. The pane lays out at most DISPLAY_LIMIT characters of
an abstract (and TITLE_LIMIT of a title) and says what it left out; copying takes the whole text.
"""

from __future__ import annotations

from typing import NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.style import Style
from textual.widgets import Static

from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label
from tui_reader.corpus.venues import venue_label
from tui_reader.library.bookmarks import Bookmark
from tui_reader.library.links import arxiv_link, attachments, doi_link, extra_links, is_pdf, paper_link

Spans = list[tuple[int, int]]

DISPLAY_LIMIT = 20_000  # characters of an abstract laid out (~40 ms); real abstracts are < 5,000
TITLE_LIMIT = 1_000
HEAD_AUTHORS = 3  # authors named above the abstract; the whole list is below it


def shown_abstract(abstract: str, limit: int = DISPLAY_LIMIT) -> tuple[str, str]:
    """The part of an abstract the pane shows (cut at a space) and the line saying what it cut."""
    if len(abstract) <= limit:
        return abstract, ""
    cut = abstract.rfind(" ", limit // 2, limit)
    shown = abstract[: cut if cut > 0 else limit]
    return shown, f"… (abstract truncated for display: {len(abstract):,} characters; c copies it whole)"


def shown_title(title: str) -> str:
    return title if len(title) <= TITLE_LIMIT else title[: TITLE_LIMIT - 1] + "…"


class ReadingState(NamedTuple):
    new: bool = False  # entered the collection since the last visit
    read_at: str | None = None  # when it was first read (ISO time, or "now"); None: unread


class DetailView(NamedTuple):
    """What the pane shows of one paper: bind ``PaperDetail.paper_view`` to a value of these."""

    paper: Paper
    bookmark: Bookmark | None = None
    title_spans: Spans = []
    abstract_spans: Spans = []
    reading: ReadingState | None = None


def _reading_line(state: ReadingState) -> Content:
    parts = []
    if state.new:
        parts.append(Content("+ New since your last visit").stylize("bold $success"))
    if state.read_at is None:
        parts.append(Content("• Unread").stylize("$text-accent"))
    else:
        when = "just now" if state.read_at == "now" else state.read_at[:10]
        parts.append(Content(f"Read {when}").stylize("$text-muted"))
    return Content(" · ").join(parts)


def _linked(text: str, link: str | None) -> Content:
    """``text`` shown safe, as a terminal hyperlink (OSC 8) only to a validated link."""
    content = Content(clean_label(text))
    return content.stylize(Style(link=link)) if link else content


def link_content(raw: str) -> Content | None:
    """The paper's link as a terminal hyperlink (OSC 8), or its url field as text when it makes
    no http(s) link (a local path, say); None when there is nothing."""
    link = paper_link(raw)
    if link is not None:
        return _linked(link, link).stylize("$text-muted underline")
    if raw:
        return Content(clean_label(raw)).stylize("$text-muted")
    return None


FIELD_LIMIT = 300  # characters of one record field shown (a runaway field stays one line)


def field_text(value: object) -> str:
    """A record value as one short line: text and numbers as they are, a list joined."""
    if isinstance(value, bool):
        return ""
    if isinstance(value, str | int | float):
        text = " ".join(str(value).split())
    elif isinstance(value, list):
        text = ", ".join(t for t in (field_text(v) for v in value[:10]) if t)
    else:
        return ""
    return clean_label(text if len(text) <= FIELD_LIMIT else text[: FIELD_LIMIT - 1] + "…")


def person_name(value: object) -> str:
    """A CSL person ({"family", "given", ...} or {"literal"}) as it reads: "Marie Curie"."""
    if isinstance(value, str):
        return field_text(value)
    if not isinstance(value, dict):
        return ""
    if value.get("literal"):
        return field_text(value["literal"])
    keys = ("given", "dropping-particle", "non-dropping-particle", "family")
    name = " ".join(field_text(value.get(k)) for k in keys if value.get(k))
    suffix = field_text(value.get("suffix"))
    return f"{name}, {suffix}" if name and suffix else name


def _people(value: object, limit: int = 6) -> str:
    if not isinstance(value, list):
        return ""
    names = [n for n in (person_name(v) for v in value) if n]
    return ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")


def _ordinal(edition: str) -> str:
    if not edition.isdigit():
        return edition if "ed" in edition.lower() else f"{edition} ed."
    n = int(edition)
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail} ed."


def _where_published(paper: Paper) -> list[str]:
    """ "In: Journal · vol. 12, no. 3, pp. 45–67": the container (unless the venue shown already
    is it), volume, issue, pages, report number."""
    get = paper.record.get
    parts = []
    container = field_text(get("container-title"))
    if container and container.casefold() != paper.venue.casefold():
        parts.append(f"In: {container}")
    numbers = []
    for key, label in (("volume", "vol. "), ("issue", "no. "), ("number", "no. ")):
        if text := field_text(get(key)):
            numbers.append(label + text)
    if pages := field_text(get("page")):
        numbers.append(("pp. " if any(c in pages for c in "-–,") else "p. ") + pages)
    if numbers:
        parts.append(", ".join(numbers))
    return parts


def _publication(paper: Paper) -> list[str]:
    """Publisher and place, edition, series, editors, ISBN / ISSN: one short item each."""
    get = paper.record.get
    parts = []
    publisher = ", ".join(t for t in (field_text(get("publisher")), field_text(get("publisher-place"))) if t)
    if publisher and publisher.casefold() != paper.venue.casefold():
        parts.append(publisher)
    if edition := field_text(get("edition")):
        parts.append(_ordinal(edition))
    if series := field_text(get("collection-title")):
        parts.append(f"Series: {series}")
    editors = get("editor")
    if names := _people(editors):
        many = isinstance(editors, list) and len(editors) > 1
        parts.append(("Editors: " if many else "Editor: ") + names)
    for key in ("ISBN", "ISSN"):
        if number := field_text(get(key)):
            parts.append(f"{key} {number}")
    return parts


def _attachment_lines(paper: Paper) -> list[Content]:
    """The attachments the source names, as written (``o`` opens the first PDF that exists)."""
    files = attachments(paper)
    if not files:
        return []
    shown = []
    for entry in files[:3]:
        kind = "PDF" if is_pdf(entry) else field_text(entry.get("mime"))
        text = field_text(entry.get("path"))
        shown.append(f"{text} ({kind})" if kind else text)
    more = f" (+{len(files) - 3} more)" if len(files) > 3 else ""
    lead = "Attachment: " if len(files) == 1 else "Attachments: "
    return [
        Content("\n"),
        Content(lead).stylize("$text-muted bold"),
        Content(clean_label("; ".join(shown) + more)).stylize("$text-muted"),
    ]


def record_lines(paper: Paper) -> list[Content]:
    """The bibliographic record's useful fields, two lines at most, then the attachments and
    any further links the source gave."""
    out: list[Content] = []
    for items in (_where_published(paper), _publication(paper)):
        if items:
            out += [Content("\n"), Content(" · ").join(Content(i) for i in items).stylize("$text-muted")]
    more = extra_links(paper)
    if more:
        links = Content(" · ").join(_linked(link, link).stylize("underline") for link in more)
        out += [Content("\n"), Content("Also: ").stylize("$text-muted bold"), links.stylize("$text-muted")]
    return out + _attachment_lines(paper)


def _citation_lines(paper: Paper) -> list[Content]:
    """DOI and arXiv id as links (their resolvers, validated: a DOI that makes no URL is shown as
    text, never linked), keywords and entry type: what a citation file gave. Nothing for papers
    that came without them."""
    out: list[Content] = []
    ids: list[Content] = []
    if paper.doi:
        ids.append(_linked("doi:" + paper.doi, doi_link(paper.doi)))
    if paper.arxiv:
        ids.append(_linked("arXiv:" + paper.arxiv, arxiv_link(paper.arxiv)))
    if paper.kind:
        ids.append(Content(clean_label(paper.kind)))
    if ids:
        out += [Content("\n"), Content(" · ").join(ids).stylize("$text-muted")]
    if paper.keywords:
        words = clean_label("; ".join(paper.keywords[:20]) + (" …" if len(paper.keywords) > 20 else ""))
        out += [
            Content("\n"),
            Content("Keywords: ").stylize("$text-muted bold"),
            Content(words).stylize("$text-muted"),
        ]
    return out


def tags_content(tags: list[str]) -> Content:
    """The tags, each as ``tag:`` would find it (``#"two words"``)."""
    return Content(tag_label(tags)).stylize("$text-accent")


def _marked(text: str, spans: Spans, style: str) -> Content:
    content = Content(text)
    for a, b in spans:
        if a < len(text):  # spans of a longer text than the one shown
            content = content.stylize(style, a, min(b, len(text)))
    return content


def paper_content(
    paper: Paper,
    bookmark: Bookmark | None,
    title_spans: Spans,
    abstract_spans: Spans,
    reading: ReadingState | None = None,
) -> Content:
    """Title, the first authors, one line of venue, read state and bookmark (with its tags), then the
    abstract; below it the note (its lines kept) and the record: id and sources, link, fields,
    identifiers. The abstract comes before the record so that a pane of 8 lines (60x20) shows
    it without scrolling. Text stays literal whatever it holds. Spans index the title and
    abstract as shown (see shown_title, shown_abstract)."""
    title = _marked(shown_title(paper.title), title_spans, "bold underline $text-accent").stylize_before(
        "bold"
    )
    parts: list[Content] = [title, Content("\n")]
    if paper.authors:  # the first few (all of them below the abstract)
        many = len(paper.authors) > HEAD_AUTHORS
        names = ", ".join(paper.authors[:HEAD_AUTHORS]) + (" et al." if many else "")
        parts += [Content(clean_label(names)).stylize("$text-muted"), Content("\n")]
    line = _summary_line(paper, bookmark, reading)
    if line.plain:
        parts += [line, Content("\n")]
    parts += _abstract_lines(paper, abstract_spans)
    if bookmark is not None and bookmark.note:
        lead = "\n\nNote:\n" if "\n" in bookmark.note else "\n\nNote: "  # its own lines, kept
        parts += [Content(lead).stylize("bold"), Content(bookmark.note), Content("\n")]
    parts += [Content("\n"), *_record_lines(paper)]
    return Content.assemble(*parts)


def _summary_line(paper: Paper, bookmark: Bookmark | None, reading: ReadingState | None) -> Content:
    """'ICML 2019 · • Unread · ★ Bookmarked 2024-01-02 · Tags: #toread': what is known at a glance
    (and that the title is the reader's, when it was made from the abstract)."""
    items: list[Content] = []
    if paper.venue or paper.year:
        items.append(Content(clean_label(venue_label(paper.venue, paper.year))).stylize("$text-muted"))
    if reading is not None:
        items.append(_reading_line(reading))
    if bookmark is not None:
        mark = Content("★ Bookmarked").stylize("bold $warning")
        mark += Content(f" {bookmark.added[:10]}").stylize("$text-muted")
        items.append(mark)
        if bookmark.tags:
            items.append(Content("Tags: ").stylize("bold") + tags_content(bookmark.tags))
    if paper.title_generated:
        items.append(Content("(title generated from the abstract)").stylize("italic $text-muted"))
    return Content(" · ").join(items)


def _abstract_lines(paper: Paper, spans: Spans) -> list[Content]:
    if not paper.has_abstract:
        return [Content("\n"), Content("No abstract in the source: listed by its title.").stylize("italic")]
    text, cut = shown_abstract(paper.abstract)
    parts = [Content("\n"), _marked(text, spans, "bold reverse")]
    if cut:
        parts += [Content("\n\n"), Content(cut).stylize("italic $text-warning")]
    return parts


def _record_lines(paper: Paper) -> list[Content]:
    """Where the paper comes from and what its record says, below the abstract."""
    where = clean_label(f"id {paper.id} · {', '.join(paper.sources)}")
    parts = [Content("\n"), Content(where).stylize("$text-muted")]
    if len(paper.authors) > HEAD_AUTHORS:
        shown = ", ".join(paper.authors[:50]) + (" et al." if len(paper.authors) > 50 else "")
        parts += [Content("\n"), Content("Authors: ").stylize("$text-muted bold")]
        parts.append(Content(clean_label(shown)).stylize("$text-muted"))
    link = link_content(paper.url)
    if link is not None:
        parts += [Content("\n"), link]
    parts += record_lines(paper)
    parts += _citation_lines(paper)
    return parts


class PaperDetail(VerticalScroll, can_focus=True):
    """Scrollable; Tab reaches it so long abstracts can be read with the keyboard.

    Either bound (``data_bind(paper_view=...)``: a DetailView, or a message as a str, None:
    nothing yet) or told (``show``, ``show_message``)."""

    paper_view: var[DetailView | str | None] = var["DetailView | str | None"](None, init=False)

    BINDINGS = [
        Binding("j,down", "scroll_down", "Scroll down", show=False),
        Binding("k,up", "scroll_up", "Scroll up", show=False),
        Binding("space,pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("g,home", "scroll_home", "Top", show=False),
        Binding("G,end", "scroll_end", "Bottom", show=False),
    ]
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
        self.show(Content(clean_label(text)).stylize("italic $text-muted"))

    def watch_paper_view(self, view: DetailView | str | None) -> None:
        if isinstance(view, DetailView):
            self.show(paper_content(*view))
        elif isinstance(view, str):
            self.show_message(view)
