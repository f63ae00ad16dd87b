"""What the reader's workers report. Thread workers post these to the screen (``post_message`` is
thread-safe); the screen's handlers turn them into state, and watchers turn state into panes.

They stop at the screen (``bubble=False``). No Whoosh here: the search types are named for the
type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from tui_reader.search.modes import SearchMode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tui_reader.corpus.corpus import Corpus
    from tui_reader.library.userdata import UserData
    from tui_reader.search.facets import Facets
    from tui_reader.search.index import SearchIndex
    from tui_reader.search.searcher import Searcher, SearchResult

Snippet = tuple[str, list[tuple[int, int]]]  # text and the spans of the matched words


class CorpusLoaded(Message, bubble=False):
    """The collection and the user's data for it (bookmarks, read state, history, session)."""

    def __init__(self, corpus: Corpus, data: UserData) -> None:
        self.corpus = corpus
        self.data = data
        super().__init__()


class CorpusGrowing(Message, bubble=False):
    """Papers read so far, while the files are parsed: the first ``count`` of ``corpus`` are
    complete (it grows on in the loading thread; CorpusLoaded brings the finished one)."""

    def __init__(self, corpus: Corpus, count: int) -> None:
        self.corpus = corpus
        self.count = count
        super().__init__()


class LoadFailed(Message, bubble=False):
    """A path vanished, a bookmarks folder is unreadable, ...: nothing to browse."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        super().__init__()


class IndexProgress(Message, bubble=False):
    """What the index is doing, as the status line shows it ("building 40%", "updating")."""

    def __init__(self, state: str) -> None:
        self.state = state
        super().__init__()


class IndexReady(Message, bubble=False):
    def __init__(self, index: SearchIndex, searcher: Searcher, notice: str = "") -> None:
        self.index = index
        self.searcher = searcher
        self.notice = notice  # why it was rebuilt, if it was
        super().__init__()


class IndexFailed(Message, bubble=False):
    """The index could not be opened or built: browsing goes on without search."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        super().__init__()


class IndexDamagedFound(Message, bubble=False):
    """A search found the index unreadable: rebuild it, then run that search again."""

    def __init__(self, error: Exception, text: str, mode: SearchMode) -> None:
        self.error = error
        self.text = text
        self.mode = mode
        super().__init__()


class ResultsReady(Message, bubble=False):
    """A search's answer. ``seq`` is the number of the request: an older one is dropped.
    ``result`` is in the order the list shows (``order``: 'relevance', 'collection' or a sort);
    ``base`` is the same answer as the searcher ordered it (None: ``result`` itself), kept so
    another order needs no second search."""

    def __init__(
        self,
        result: SearchResult,
        snippets: dict[int, Snippet],
        seq: int,
        base: SearchResult | None = None,
        order: str = "relevance",
        keep: bool = True,
    ) -> None:
        self.result = result
        self.snippets = snippets
        self.seq = seq
        self.base = base
        self.order = order
        self.keep = keep  # keep the cursor on its paper (more of a result, another order of it)
        super().__init__()


class OrderReady(Message, bubble=False):
    """The whole collection's rows in ``sort`` order (no query on show)."""

    def __init__(self, rows: Sequence[int], sort: str, seq: int) -> None:
        self.rows = rows
        self.sort = sort
        self.seq = seq
        super().__init__()


class SnippetsReady(Message, bubble=False):
    """Snippets the list asked for, for the result they were cut from."""

    def __init__(self, snippets: dict[int, Snippet], result: SearchResult) -> None:
        self.snippets = snippets
        self.result = result
        super().__init__()


class BookmarksChanged(Message, bubble=False):
    """The bookmarks file was written (a bookmark or a note): re-read the store's state."""

    def __init__(self, notice: str) -> None:
        self.notice = notice
        super().__init__()


class NotSaved(Message, bubble=False):
    """A store could not be written (read-only, full disk, a newer version's file)."""

    def __init__(self, what: str, error: Exception) -> None:
        self.what = what  # "Bookmarks", "Note", "Read state", "Search history", ...
        self.error = error
        super().__init__()


class BookmarksNotSaved(NotSaved, bubble=False):
    pass


class LinkOpened(Message, bubble=False):
    """The link went to the browser (``App.open_url``)."""

    def __init__(self, link: str, title: str) -> None:
        self.link = link
        self.title = title
        super().__init__()


class NoBrowser(Message, bubble=False):
    """There is no browser to open the link in: ``why`` says so in words; the link is copied."""

    def __init__(self, link: str, title: str, why: str) -> None:
        self.link = link
        self.title = title
        self.why = why
        super().__init__()


class Copied(Message, bubble=False):
    """The text went out through the terminal (OSC 52) and to pyperclip. ``system`` says whether
    pyperclip took it (``detail``: why not); ``terminal`` is '' or why the terminal copy may not
    arrive (tmux without set-clipboard on)."""

    def __init__(
        self,
        what: str,
        chars: int,
        title: str,
        system: bool,
        detail: str,
        terminal: str = "",
        lead: str = "",
        shown: str = "",
    ) -> None:
        self.lead = lead  # a sentence before the copy's ("No browser here (…).")
        self.shown = shown  # the text itself, when it is short enough to show (a link)
        self.what = what
        self.chars = chars
        self.title = title
        self.system = system
        self.detail = detail
        self.terminal = terminal
        super().__init__()


class FacetsReady(Message, bubble=False):
    """Counts for every match of a query (``seq``: the request; an older one is dropped)."""

    def __init__(self, facets: Facets, seq: int) -> None:
        super().__init__()
        self.facets = facets
        self.seq = seq


class FacetsFailed(Message, bubble=False):
    def __init__(self, error: Exception, seq: int) -> None:
        super().__init__()
        self.error = error
        self.seq = seq
