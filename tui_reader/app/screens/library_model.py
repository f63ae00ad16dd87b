"""The all-bookmarks screen's data (library.py): one entry per bookmark, its paper, how the
detail pane and the message line show it, and what the screen's workers report.

An entry is listed first from the bookmark alone; its paper (the open collection's, else the
snapshot the bookmark keeps, as ``tui-reader bookmarks export`` takes it) is read in a worker
when its row comes into sight. Every text comes from files: made safe with clean_label here,
shown as Content or Segments (never markup).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, replace

from rich.cells import cell_len
from textual.content import Content
from textual.message import Message

from tui_reader.app.widgets.paper_detail import paper_content, tags_content
from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label
from tui_reader.library.bookmarks import Bookmark
from tui_reader.library.clipboard import CopyOutcome

Lookup = Callable[[str], Paper | None]

SNAPSHOT_SOURCE = "from the bookmark's snapshot: not in the open collection"
NO_SNAPSHOT = (
    "No snapshot of this paper was kept (bookmarked before snapshots were); open its collection to see it."
)
NOT_HERE = "Not in the open collection: c, y and o work from its snapshot."
HERE_MARK = "● "
WIDEST = 40  # cells the tags column is measured to
YEAR, VENUE = 4, 16  # cells of the year and (at most) the venue columns
STILL_READING = "Still reading this bookmark's snapshot…"


@dataclass(frozen=True, slots=True)
class Entry:
    """One bookmark as listed: its paper (the open collection's, else the snapshot's, else None)
    and the list's columns, made safe in the worker. Listed first from the bookmark alone
    (``read`` False), then filled in once its paper is read."""

    mark: Bookmark
    here: bool
    title: str
    tags: str
    paper: Paper | None = None
    read: bool = False
    year: str = ""
    venue: str = ""

    @property
    def pid(self) -> str:
        return self.mark.id


TagMemo = dict[tuple[str, ...], str]


def listed(mark: Bookmark, here: Container[str], memo: TagMemo) -> Entry:
    """The bookmark as the list first shows it: no file read. ``memo``: tag lines made so far
    (most bookmarks share a few tag sets)."""
    key = tuple(mark.tags)
    tags = memo.get(key)
    if tags is None:
        tags = memo[key] = clean_label(tag_label(mark.tags))
    return Entry(mark, mark.id in here, clean_label(mark.title or mark.id), tags)


def filled(entry: Entry, lookup: Lookup | None) -> Entry:
    """The entry with its paper: the open collection's (``lookup``, asked only for its own ids),
    else the snapshot (read from its pack: call it in a worker), never changed here."""
    mark = entry.mark
    paper = lookup(mark.id) if lookup is not None and entry.here else None
    if paper is None:
        paper = mark.snapshot
    if paper is None:
        return replace(entry, read=True)
    title = clean_label(paper.title) if paper.title else entry.title
    year = "" if paper.year is None else str(paper.year)
    return replace(entry, paper=paper, read=True, title=title, year=year, venue=clean_label(paper.venue))


def widest_tags(entries: Sequence[Entry]) -> int:
    """Cells of the widest tags among the entries (up to WIDEST): the tags column's width. A
    pass over them all: done in the worker."""
    return max((min(WIDEST, cell_len(e.tags[:WIDEST])) for e in entries if e.tags), default=0)


def ordered(entries: Sequence[Entry]) -> list[Entry]:
    """The open collection's first, then the others; the newest bookmark first in each (of two
    added in the same second, the one later in the file)."""
    newest = sorted(reversed(entries), key=lambda e: e.mark.added, reverse=True)
    return sorted(newest, key=lambda e: not e.here)


def short(text: str, limit: int = 60) -> str:
    """A title for a one-line message: cut at a word, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit // 2, limit)
    return text[: cut if cut > 0 else limit - 1] + "…"


def shown_paper(entry: Entry) -> Paper | None:
    """The entry's paper as the pane shows and ``y`` cites it: the bookmark's title when the
    snapshot has none, and where it comes from in place of its source files when it is a
    snapshot (a copy: the snapshot is never changed)."""
    paper = entry.paper
    if paper is None:
        return None
    if entry.here and paper.sources and paper.title:
        return paper
    where = paper.sources if entry.here and paper.sources else [SNAPSHOT_SOURCE]
    return replace(paper, title=paper.title or entry.mark.title, sources=list(where))


def detail_content(entry: Entry) -> Content:
    """The detail pane's text: the paper in full (paper_content), or what the bookmark alone
    holds while its paper is read or when it has no snapshot."""
    paper = shown_paper(entry)
    if paper is not None:
        return paper_content(paper, entry.mark, [], [])
    mark = entry.mark
    told = NO_SNAPSHOT if entry.read else "Reading its snapshot…"
    parts = [Content(entry.title).stylize("bold"), Content("\n\n")]
    parts += [Content(told).stylize("italic $text-muted"), Content("\n\n")]
    parts += [
        Content("★ Bookmarked").stylize("bold $warning"),
        Content(f" {mark.added[:10]}").stylize("$text-muted"),
    ]
    if mark.tags:
        parts += [Content("\nTags: ").stylize("bold"), tags_content(mark.tags)]
    if mark.note:
        parts += [Content("\nNote: ").stylize("bold"), Content(mark.note)]
    return Content.assemble(*parts)


def copied_line(what: str, chars: int, outcome: CopyOutcome, terminal: str) -> str:
    """Where the copy went, in one line."""
    done = f"Copied {what} ({chars:,} chars)"
    if outcome.ok and not terminal:
        return f"{done}."
    if outcome.ok:
        return f"{done} to the system clipboard; the terminal copy may not arrive: {terminal}."
    if not terminal:
        return f"{done} through the terminal only ({outcome.detail})."
    return f"Copying {what} may have failed: {outcome.detail}; {terminal}."


# -- what the workers report ------------------------------------------------------------------
class Loaded(Message, bubble=False):
    """The list, from the bookmarks alone (their papers not read yet)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.tags_width = widest_tags(entries)  # measured in the worker
        super().__init__()


class Filled(Message, bubble=False):
    """Entries with their papers read (rows that came into sight)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        super().__init__()


class Removed(Message, bubble=False):
    def __init__(self, pid: str, title: str, was: bool, problem: str = "") -> None:
        self.pid = pid
        self.title = title
        self.was = was  # False: it was gone from the file already (another reader removed it)
        self.problem = problem  # why it could not be removed ('' when it was)
        super().__init__()


class Said(Message, bubble=False):
    """A worker's one-line outcome (a copy, an opened link, a failure)."""

    def __init__(self, text: str, problem: bool = False, redraw: bool = False) -> None:
        self.text = text
        self.problem = problem
        self.redraw = redraw  # a browser may have written to the terminal: draw over it
        super().__init__()


class ToCopy(Message, bubble=False):
    """Text a worker made (a BibTeX entry) or a link no browser can open: copy it here."""

    def __init__(self, text: str, what: str, lead: str = "") -> None:
        self.text = text
        self.what = what
        self.lead = lead
        super().__init__()
