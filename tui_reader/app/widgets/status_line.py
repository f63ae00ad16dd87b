"""The status line: what is shown, of how many, the query, the order, unread and new papers, the
bookmarks and the index's state.

It owns no state: the screen binds its reactives here (``data_bind``), and every change to them
repaints the line. Built as Content, so a query or a path is never read as markup.

The line is laid out for the width it has (60, 80, 120 columns...): every part has a priority and
a short form; the least important parts are shortened first, then dropped, then the query is cut
at a word. The index's state is never dropped: it says whether searching works at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from tui_reader.app.widgets.notices import fit_words
from tui_reader.corpus.text import clean_label
from tui_reader.library.sorting import sort_label

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.bookmarks import Bookmark
    from tui_reader.search import SearchResult

SEPARATOR = " · "


@dataclass(frozen=True, slots=True)
class Part:
    """One item of the line. When the line is too long, steps run from the highest number down:
    ``shorten`` swaps in the short form, ``drop`` leaves the part out; 0: never."""

    full: Content
    short: Content | None = None  # said in fewer cells
    shorten: int = 0
    drop: int = 0
    cuttable: bool = False  # cut at a word, last of all, to make the rest fit (the query)


def fit_parts(parts: list[Part], width: int) -> Content:
    """The parts joined, shortened and dropped (the least important first) until they fit."""
    shown: list[Content | None] = [p.full for p in parts]

    def length() -> int:
        kept = [c for c in shown if c is not None]
        return sum(c.cell_length for c in kept) + len(SEPARATOR) * max(0, len(kept) - 1)

    steps: list[tuple[int, int, Content | None]]
    steps = [(p.shorten, i, p.short) for i, p in enumerate(parts) if p.shorten and p.short is not None]
    steps += [(p.drop, i, None) for i, p in enumerate(parts) if p.drop]
    for _, i, replacement in sorted(steps, key=lambda step: -step[0]):
        if length() <= width:
            break
        if shown[i] is not None:
            shown[i] = replacement
    for i, part in enumerate(parts):  # last, cut the query at a word
        over, current = length() - width, shown[i]
        if over <= 0:
            break
        if part.cuttable and current is not None:
            room = current.cell_length - over
            shown[i] = _cut(current, room) if room >= 8 else None
    return Content(SEPARATOR).join(c for c in shown if c is not None)


def _cut(content: Content, width: int) -> Content:
    text = fit_words(content.plain, width)
    styled = Content(text)
    for span in content.spans:
        styled = styled.stylize(span.style, span.start, min(span.end, len(text)))
    return styled


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    corpus: reactive[Corpus | None] = reactive["Corpus | None"](None)
    result: reactive[SearchResult | None] = reactive["SearchResult | None"](None)
    view: reactive[str] = reactive("all")
    sort: reactive[str] = reactive("relevance")
    order: reactive[str] = reactive("relevance")
    bookmarks: reactive[tuple[Bookmark, ...]] = reactive["tuple[Bookmark, ...]"](())
    unread: reactive[int] = reactive(0)
    new: reactive[frozenset[str]] = reactive(frozenset())
    index_state: reactive[str] = reactive("loading")
    shown: reactive[int] = reactive(0)
    loaded: reactive[int] = reactive(0)
    """Papers read so far while the files are parsed (0: not reading)."""
    inbox_new: reactive[int] = reactive(0)
    """Papers new to at least one saved search (app/screens/inbox.py), each counted once."""

    def render(self) -> Content:
        return self.drawn

    @property
    def content(self) -> Content:
        """The whole line, every part in full (tests read it here; the screen draws ``drawn``)."""
        return Content(SEPARATOR).join(p.full for p in self.parts())

    @property
    def drawn(self) -> Content:
        """The line as drawn: fitted to the widget's width (in full before it has one)."""
        width = self.content_region.width if self.is_mounted else 0
        parts = self.parts()
        return fit_parts(parts, width) if width > 0 else Content(SEPARATOR).join(p.full for p in parts)

    def parts(self) -> list[Part]:
        corpus, result = self.corpus, self.result
        if corpus is None:
            if self.loaded:
                first = Part(Content(f"Reading papers… {self.loaded:,}"))
            else:
                first = Part(Content("Loading…" if self.index_state == "loading" else "No collection open"))
            return [first, self._index_part()]
        parts = [self._count_part(corpus, result)]
        if result is not None:
            label = "" if result.kind == "similar" else "query: "
            query = clean_label(f"{label}{result.query}")
            parts.append(Part(Content(query).stylize("bold"), cuttable=True))
            parts.append(Part(Content(f"{result.took_ms:.0f} ms"), drop=9))
        parts.append(self._order_part())
        if not (self.view == "unread" and result is None):  # it says so already
            parts.append(Part(Content(f"{self.unread:,} unread"), drop=4))
        if self.new:
            parts.append(Part(Content(f"{len(self.new):,} new").stylize("$success"), drop=3))
        if self.inbox_new:
            full, short = f"inbox: {self.inbox_new:,} new", f"inbox {self.inbox_new:,}"
            parts.append(Part(Content(full).stylize("$success"), Content(short), shorten=5, drop=4))
        if self.bookmarks:
            parts.append(self._bookmarks_part(corpus))
        parts.append(self._index_part())
        return parts

    def _index_part(self) -> Part:
        return Part(Content(clean_label(f"index: {self.index_state}")))

    def _count_part(self, corpus: Corpus, result: SearchResult | None) -> Part:
        """'3 shown of 10 matches' (short: '3 of 10 matches'); '30 papers of 30'."""
        if result is not None:
            which = {"bookmarks": " bookmarked", "unread": " unread"}.get(self.view, "")
            matches = "match" if result.count_text == "1" else "matches"
            matches = ("title" if result.total == 1 else "titles") if result.kind == "titles" else matches
            full = f"{self.shown:,}{which} shown of {result.count_text} {matches}"
            short = f"{self.shown:,}{which} of {result.count_text} {matches}"
            return Part(Content(full), Content(short), shorten=6)
        what = "paper" if self.shown == 1 else "papers"
        what = {"bookmarks": f"bookmarked {what}", "unread": f"unread {what}"}.get(self.view, what)
        which = {"bookmarks": " ★", "unread": " unread"}.get(self.view, "")
        full, short = f"{self.shown:,} {what} of {len(corpus):,}", f"{self.shown:,}{which} of {len(corpus):,}"
        return Part(Content(full), Content(short), shorten=6)

    def _bookmarks_part(self, corpus: Corpus) -> Part:
        """'★ 3 (2 elsewhere)': bookmarks of papers in other collections are counted, not lost."""
        total = len(self.bookmarks)
        missing = sum(1 for b in self.bookmarks if b.id not in corpus.index_of)
        full = f"★ {total:,}" + (f" ({missing:,} elsewhere)" if missing else "")
        return Part(Content(full), Content(f"★ {total:,}"), shorten=8, drop=5)

    def _order_part(self) -> Part:
        """'by year, newest first' (short: 'by year'); 'in collection order'; a typed query's
        order until Enter."""
        result = self.result
        if self.order == "collection" or (result is None and self.order == "relevance"):
            shown, short = "in collection order", "collection order"
        else:
            shown = f"by {sort_label(self.order, result is not None)}"
            short = shown.split(",")[0]
        note = ""
        if self.sort != self.order and not (self.sort == "relevance" and self.order == "collection"):
            if result is not None and result.typing:
                note = f" ({sort_label(self.sort, True)} on Enter)"
            elif result is not None and len(result.hits) < result.total:
                note = " (not every match could be loaded to sort)"
            else:
                note = " (sorting…)"
        short_note = " (sorting…)" if note == " (sorting…)" else (" (…)" if note else "")
        return Part(Content(shown + note), Content(short + short_note), shorten=7, drop=2)
