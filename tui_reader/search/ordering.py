"""A search's answer in a wanted order: part of the request, not a second search sorted after.

An ``Order`` gives each corpus row its rank (smaller first; rows of equal rank tie). A sorted
answer lists every match by ``(rank, relevance, row)``: ties go best first, then in collection
order, so a page is the first ``limit`` of the whole answer and the next page continues it.
Relevance (no ``Order``) is Whoosh's own order, best first and the lower document number first
on a tie, except when every match scores the same (a query made only of fields: ``year:2024``,
``is:unread``): relevance then says nothing, and the answer is in collection order (row).

Two paths give the same answer (tests/search/test_issue19_sorted.py): score.py's scores of
every match ordered here (``first``), and Whoosh's own collectors with a ``whoosh.sorting``
facet over docnum -> row -> rank (``facet``), for queries score.py leaves to Whoosh.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import neg
from typing import Any

from whoosh import sorting
from whoosh.collectors import Collector, SortingCollector, TopCollector

from tui_reader.search import stop, subsets
from tui_reader.search.fast import bm25

RELEVANCE = "relevance"  # best first (Whoosh's order)
COLLECTION = "collection"  # every match scored the same: collection order
ORDERED = "ordered"  # by an Order (SearchResult.order is then the Order's name)
_tokens = itertools.count(1)
_lock = threading.Lock()
# reader -> (order's token -> rank of each docnum): an updated index is a new reader
_doc_ranks: weakref.WeakKeyDictionary[object, dict[int, list[int]]] = weakref.WeakKeyDictionary()
_numberings: weakref.WeakKeyDictionary[object, list[int]] = weakref.WeakKeyDictionary()  # row -> docnum


@dataclass(frozen=True, eq=False, slots=True)
class Order:
    """A wanted order of the collection: ``rank[row]`` is each corpus row's place, smaller
    first; rows of equal rank tie (same year). Built once per sort (a worker: library/sorting.py
    ``SortColumns.ranks``) and passed with every search that wants it; ``name`` says which
    order it is (``SearchResult.order``)."""

    name: str
    rank: Sequence[int]
    token: int = field(default_factory=lambda: next(_tokens))  # cache key: a new Order, new answers


def key(order: Order | None) -> tuple[str, int] | None:
    return None if order is None else (order.name, order.token)


def level(scores: Iterable[float]) -> bool:
    """More than one match and all of them scored the same: relevance orders nothing."""
    values = iter(scores)
    first = next(values, None)
    if first is None:
        return False
    seen_two = False
    for s in values:
        if s != first:
            return False
        seen_two = True
    return seen_two


def doc_ranks(reader: object, rows: Sequence[int], order: Order) -> list[int]:
    """Each document number's rank in ``order`` (a document whose paper left the corpus, row -1,
    after every paper), once per reader and order."""
    with _lock:
        known = _doc_ranks.setdefault(reader, {})
        found = known.get(order.token)
        if found is not None:
            return found
    rank, last = order.rank, len(order.rank)
    ranks = [rank[r] if 0 <= r < last else last for r in rows]
    with _lock:
        known.clear()  # one order at a time is the common case: keep the memory of one
        known[order.token] = ranks
    return ranks


def numbering(
    reader: object, rows: Sequence[int], index_of: Mapping[str, int]
) -> Callable[[str], int | None]:
    """Paper id -> document number, through the rows (the inverse of docnum -> row), once per
    reader: many ids at once cost dict lookups, not one index lookup each."""
    with _lock:
        found = _numberings.get(reader)
    if found is None:
        found = [-1] * len(index_of)
        for docnum, row in enumerate(rows):
            if 0 <= row < len(found):
                found[row] = docnum
        with _lock:
            _numberings[reader] = found
    docnums = found

    def number(pid: str) -> int | None:
        row = index_of.get(pid)
        docnum = -1 if row is None or row >= len(docnums) else docnums[row]
        return None if docnum < 0 else docnum

    return number


def _row_keys(rows: Sequence[int]) -> Callable[[int], int]:
    """Collection order of document numbers: its row, a paper not in the corpus after all."""
    n = len(rows)

    def row(docnum: int) -> int:
        r = rows[docnum]
        return r if r >= 0 else n + docnum

    return row


def first(
    scores: Mapping[int, float], rows: Sequence[int], ranks: Sequence[int] | None, limit: int | None
) -> tuple[list[tuple[float, int]], str]:
    """The first ``limit`` (score, docnum) pairs of the whole answer ``scores`` (every match,
    docnum -> score) and the order they are in: by ``ranks`` (doc_ranks) if given, else
    relevance, or collection order when every match scored the same."""
    wanted = len(scores) if limit is None else limit
    if ranks is None and not level(scores.values()):
        return bm25.top(scores, wanted), RELEVANCE
    row = _row_keys(rows)
    docs, values = scores.keys(), scores.values()
    if ranks is None:
        items: Iterable[tuple[Any, ...]] = zip(map(row, docs), docs, strict=True)
        picked = heapq.nsmallest(wanted, items) if wanted < len(scores) // 8 else sorted(items)[:wanted]
        return [(scores[d], d) for _, d in picked], COLLECTION
    items = zip(map(ranks.__getitem__, docs), map(neg, values), map(row, docs), docs, strict=True)
    picked = heapq.nsmallest(wanted, items) if wanted < len(scores) // 8 else sorted(items)[:wanted]
    return [(-s, d) for _, s, _, d in picked], ORDERED


# -- Whoosh's path: its own collectors and sort facets ----------------------------------------
def facet(rows: Sequence[int], ranks: Sequence[int] | None) -> sorting.FacetType:
    """Whoosh's sort facet for the same order as ``first``: rank, then score (best first), then
    row; without ranks, collection order (row)."""
    row = _row_keys(rows)
    by_row = sorting.FunctionFacet(lambda _s, docnum: row(docnum))
    if ranks is None:
        return by_row
    by_rank = sorting.FunctionFacet(lambda _s, docnum: ranks[docnum])
    return sorting.MultiFacet([by_rank, sorting.ScoreFacet(), by_row])


def sorted_pairs(items: Iterable[tuple[Any, int]]) -> list[tuple[float, int]]:
    """(score, docnum) pairs from a SortingCollector's (sort key, docnum) items of ``facet``
    with ranks: its key holds the score negated (ScoreFacet)."""
    return [(-k[1], d) for k, d in items]


class LevelCollector(TopCollector):
    """Whoosh's TopCollector that also sees whether every match scored the same, and keeps the
    matches while they do: such an answer is then listed in collection order (see ``first``),
    from the same run."""

    def prepare(self, top_searcher: Any, q: Any, context: Any) -> None:
        super().prepare(top_searcher, q, context)
        self.first_score: float | None = None
        self.level = True
        self.docs: list[int] = []

    def collect(self, sub_docnum: int) -> Any:
        """ScoredCollector.collect (the score, then TopCollector's heap), seeing the score."""
        global_docnum = self.offset + sub_docnum
        score = self.matcher.score()
        if self.final_fn:
            score = self.final_fn(self.top_searcher, global_docnum, score)
        if self.level:
            if self.first_score is None:
                self.first_score = score
            if score == self.first_score:
                self.docs.append(global_docnum)
            else:
                self.level, self.docs = False, []
        return self._collect(global_docnum, score)

    def levelled(self, rows: Sequence[int], limit: int) -> list[tuple[float, int]] | None:
        """The first ``limit`` matches in collection order if every match scored the same."""
        if not self.level or len(self.docs) < 2:
            return None
        row = _row_keys(rows)
        score = self.first_score or 0.0
        return [(score, d) for d in heapq.nsmallest(limit, self.docs, key=row)]


def collector(
    limit: int,
    budget: float,
    only: subsets.Restriction | None = None,
    rows: list[int] | None = None,
    ranks: list[int] | None = None,
) -> stop.CheckedCollector:
    """Whoosh's top-``limit`` collector, scoring and counting every match (no block skipping:
    the count is exact without running the query twice), checked as it goes (stop.py); with
    ``is:`` filters and a view applied as Whoosh's own ``search(filter=, mask=)`` applies them.
    With ``ranks``, Whoosh's sorting collector over ``facet``; with ``rows`` (a whole answer),
    one that also lists an answer of equal scores in collection order."""
    top: Collector
    if ranks is not None and rows:
        top = SortingCollector(facet(rows, ranks), limit=limit)
    elif rows:
        top = LevelCollector(limit=limit, usequality=False, replace=0)
    else:
        top = TopCollector(limit=limit, usequality=False, replace=0)
    if only is None:
        return stop.CheckedCollector(top, budget)
    return stop.CheckedCollector(top, budget, only.allow, only.deny)


def collected(
    child: Collector, rows: Sequence[int], order: str
) -> tuple[list[tuple[float, int]] | None, str]:
    """The (score, docnum) pairs of a ``collector`` that sorted or levelled its answer, and the
    order they are in; None (and ``order`` as it was) for Whoosh's plain top collector."""
    if isinstance(child, SortingCollector):
        return sorted_pairs(child.results().top_n), order
    if isinstance(child, LevelCollector):
        pairs = child.levelled(rows, child.limit)
        return pairs, RELEVANCE if pairs is None else COLLECTION
    return None, order
