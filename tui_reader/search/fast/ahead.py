"""What a search reads on first use, read ahead by the reader's index worker or put off by a
one-shot command line search.

Whoosh and score.py read some things once, on first use: the completion vocabulary (title
words, ~0.1 s at 87k papers), the fast paths' self-check (w3, ~40 ms), and per field the
document lengths and BM25 norms (~10 ms a field). The reader reads them in its index worker,
right after opening, so that its first search costs what the next ones do; ``tui-reader search``
reads only what its one search needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from whoosh import query

from tui_reader.corpus.parse_cache import meta_path
from tui_reader.search.fast import selfcheck
from tui_reader.search.fast.score import search as fast_search
from tui_reader.search.index import heap
from tui_reader.search.index.schema import DEFAULT_FIELD
from tui_reader.search.index.warmup import index_files, warm_up
from tui_reader.search.query.completion import Completer

if TYPE_CHECKING:
    from tui_reader.search.index.persistent import SearchIndex

# the fields searches score: plain words, titles (typing), and the field queries people write
# most; the others (sources, keywords, tw) on their first use. ~3.5 MB of norms a field at 87k.
FIELDS = (DEFAULT_FIELD, "title", "authors", "venue")


class LazyCompleter(Completer):
    """The Completer, its vocabulary read from the index when first used. Built under the
    index's lock, which every use already holds (a search, a suggestion) or takes first."""

    def __init__(self, index: SearchIndex, small_corpus: int | None) -> None:  # reads nothing yet
        self._index = index
        self._small_corpus = small_corpus

    def __getattr__(self, name: str) -> Any:
        if name not in ("small", "vocabulary"):
            raise AttributeError(name)
        with self._index.searcher() as s:
            if "vocabulary" not in self.__dict__:
                Completer.__init__(self, s.reader(), self._small_corpus)
        return self.__dict__[name]


def read_ahead(index: SearchIndex, completer: Completer) -> None:
    """The vocabulary (word lists cut by bad bytes raise here), the self-check, and the norms of
    FIELDS, computed by scoring any one word of each as a search would; then the segments'
    pages in the background (warmup.py), and the malloc arena readied for the first
    keystroke's arrays (heap.py: the reader's threads share one arena)."""
    with index.searcher() as s:
        _ = completer.vocabulary
        selfcheck.status()
        reader = s.reader()
        for fieldname in FIELDS:
            words = reader.lexicon(fieldname) if fieldname in reader.schema else ()
            first = next(iter(words), None)  # any word: the norms are the field's
            if first is not None:
                fast_search(s, query.Term(fieldname, first.decode("utf-8")), 1)
    metas = [meta_path(data.path) for data in index.corpus.files]
    warm_up(index_files(index.dir, metas))  # then their pages, read by the kernel meanwhile
    heap.settle()
