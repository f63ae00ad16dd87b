"""What the reader's workers report, as dataclasses. Thread workers post these to the screen
(``post_message`` is thread-safe); the screen hands each to the collaborator it concerns.

They stop at the screen (``bubble=False``). Answers carry the request number the model gave
(model.py): the model applies an answer only to the entry still waiting for it. No Whoosh here:
the search types are named for the type checker only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tui_reader.search import SearchMode

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.userdata import UserData
    from tui_reader.search import Facets, Searcher, SearchIndex, SearchResult

Snippet = tuple[str, list[tuple[int, int]]]  # text and the spans of the matched words


@dataclass
class CorpusLoaded(Message, bubble=False):
    """The collection and the user's data for it (bookmarks, read state, history, session)."""

    corpus: Corpus
    data: UserData


@dataclass
class CorpusGrowing(Message, bubble=False):
    """Papers read so far: the first ``count`` of ``corpus`` are complete (it grows on in the
    loading thread; CorpusLoaded brings the finished one). Only the latest count matters."""

    corpus: Corpus
    count: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, CorpusGrowing)


@dataclass
class LoadFailed(Message, bubble=False):
    """A path vanished, a bookmarks folder is unreadable, ...: nothing to browse."""

    error: Exception


@dataclass
class IndexProgress(Message, bubble=False):
    """What the index is doing, as the status line shows it ("building 40%", "updating"). A
    newer figure replaces one not yet shown."""

    state: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


@dataclass
class IndexReady(Message, bubble=False):
    index: SearchIndex
    searcher: Searcher
    notice: str = ""


@dataclass
class IndexFailed(Message, bubble=False):
    """No index could be opened or built: browsing goes on without search."""

    error: Exception


@dataclass
class IndexDamagedFound(Message, bubble=False):
    """A search found the index damaged: rebuild it, then run ``text`` again."""

    error: Exception
    text: str
    mode: SearchMode


@dataclass
class ResultsReady(Message, bubble=False):
    """The answer to request ``request``: the rows to list (in the view's order), the search's
    result (None for the collection), the order the rows are in and the first snippets."""

    request: int
    result: SearchResult | None
    rows: Any  # Sequence[int]
    order: str = "relevance"
    snippets: dict[int, Snippet] = field(default_factory=dict)
    more: bool = False  # another page of the answer on show, not a new answer


@dataclass
class SnippetsReady(Message, bubble=False):
    snippets: dict[int, Snippet]
    result: SearchResult


@dataclass
class BookmarksChanged(Message, bubble=False):
    notice: str


@dataclass
class NotSaved(Message, bubble=False):
    """A store could not be written (``what``: "Bookmarks", "Read state", ...)."""

    what: str
    error: Exception


@dataclass
class BookmarksNotSaved(NotSaved, bubble=False):
    """A bookmark, tag or note change was refused: the list shows the store as it is."""


@dataclass
class LinkOpened(Message, bubble=False):
    link: str
    title: str


@dataclass
class NoBrowser(Message, bubble=False):
    """No browser here: the link is copied instead."""

    link: str
    title: str
    why: str


@dataclass
class NoTarget(Message, bubble=False):
    """``o`` found neither the attachment on disk nor a link (said in ``text``)."""

    text: str
    title: str


@dataclass
class Copied(Message, bubble=False):
    """Where a copy arrived: ``system`` the clipboard took it; ``terminal`` why the terminal's
    copy (OSC 52) may not arrive ('' when it should)."""

    what: str
    chars: int
    title: str
    system: bool
    detail: str = ""
    terminal: str = ""
    lead: str = ""
    shown: str = ""


@dataclass
class CitationMade(Message, bubble=False):
    """The highlighted paper's citation, written in a worker (bibtexparser loads on first use)."""

    text: str
    what: str  # "BibTeX entry", "citation"
    title: str
    shown: str = ""  # short enough to show in the notice (\\cite{key})
    error: str = ""  # why it could not be written ('' when it was)


@dataclass
class ExportWritten(Message, bubble=False):
    path: Path | None
    count: int
    error: str = ""


@dataclass
class ReadMarked(Message, bubble=False):
    """Papers marked read or unread in the store (for the undo of ``A``)."""

    changes: dict[str, bool]


@dataclass
class FacetsReady(Message, bubble=False):
    facets: Facets
    request: int


@dataclass
class FacetsFailed(Message, bubble=False):
    error: Exception
    request: int
