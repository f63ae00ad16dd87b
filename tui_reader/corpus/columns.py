"""Year, venue and authors of every paper as compact columns: what facet counts read.

A Paper is built on demand from its file's rows (the abstract included), too slow to do for
every match of every search at 87k papers. One pass over the rows (in a worker) builds these
instead: small integer arrays into tables of names, ~10 MB at 87k papers.
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

_lock = threading.Lock()


@dataclass(slots=True)
class Columns:
    years: array[int] = field(default_factory=lambda: array("H"))  # 0: no year
    venue_of: array[int] = field(default_factory=lambda: array("I"))  # index into venues
    venues: list[str] = field(default_factory=lambda: [""])  # 0: no venue
    author_start: array[int] = field(default_factory=lambda: array("I", [0]))  # row -> its authors
    author_ids: array[int] = field(default_factory=lambda: array("I"))  # index into authors
    authors: list[str] = field(default_factory=list)

    def authors_of(self, row: int) -> list[str]:
        start, end = self.author_start[row], self.author_start[row + 1]
        return [self.authors[a] for a in self.author_ids[start:end]]


def columns(corpus: Corpus) -> Columns:
    """The corpus's columns, built on first use (one pass over its rows) and kept with it."""
    built = corpus.derived.get("columns")
    if isinstance(built, Columns):
        return built
    with _lock:
        built = corpus.derived.get("columns")
        if not isinstance(built, Columns):
            built = _build(corpus)
            corpus.derived["columns"] = built
    return built


def _build(corpus: Corpus) -> Columns:
    cols = Columns()
    venue_index: dict[str, int] = {"": 0}
    author_index: dict[str, int] = {}
    for row in range(len(corpus)):
        _, _, _, authors, venue, year, *_ = corpus.row(row)
        cols.years.append(year if isinstance(year, int) and 0 < year < 65536 else 0)
        v = str(venue or "")
        cols.venue_of.append(venue_index.setdefault(v, len(venue_index)))
        for name in authors if isinstance(authors, list) else ():
            cols.author_ids.append(author_index.setdefault(str(name), len(author_index)))
        cols.author_start.append(len(cols.author_ids))
    cols.venues = list(venue_index)
    cols.authors = list(author_index)
    return cols


# Formats that list an entry with a title and no abstract (a CSL-JSON file may be a plain .json).
_TITLE_ONLY_FORMATS = {".bib", ".bibtex", ".ris", ".csl.json", ".csljson", ".json"}


def title_only(corpus: Corpus) -> frozenset[str]:
    """Ids of the papers listed without an abstract, for the list to mark them. Only files of a
    format that lists such entries are read (one row at a time, in a worker): an 87k-paper JSON
    Lines file costs nothing here."""
    found = corpus.derived.get("title_only")
    if isinstance(found, frozenset):
        return found
    from tui_reader.corpus.formats.common import fmt

    listing = [fmt(data.path) in _TITLE_ONLY_FORMATS for data in corpus.files]
    ids: set[str] = set()
    for i in range(len(corpus)):
        if not any(listing[f] for f in corpus.files_of(i)):
            continue
        # a paper of several records has an abstract when any of them has (the merge takes it)
        if not corpus.abstract(i):
            ids.add(corpus.ids[i])
    result = frozenset(ids)
    corpus.derived["title_only"] = result
    return result
