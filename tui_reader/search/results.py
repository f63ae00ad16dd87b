"""What a search answers: its hits (corpus rows, paper ids, scores), what it says about them, and
the words to highlight in them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from whoosh import query
from whoosh.reading import IndexReader

from tui_reader.search.fast import w3
from tui_reader.search.query.modes import SearchMode

HIGHLIGHT_FIELDS = {"content", "title"}


@dataclass(slots=True)
class Hit:
    row: int
    id: str
    score: float


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    exact: bool = True  # False: total is a lower bound (type-ahead stopped early)
    took_ms: float = 0.0
    suggestion: str | None = None
    notice: str | None = None
    terms: frozenset[str] = frozenset()
    kind: str = "enter"  # a SearchMode's value, or "similar" (more like this)
    incomplete: bool = False  # typed so far is too little to search: keep showing what was there
    partial: bool = False  # type-ahead stopped early (time budget, bounded prefix): best so far
    stopped: str | None = None  # "time" (TIME_LIMIT) or "replaced" (a newer search): total is a lower bound
    order: str = "relevance"  # the hits' order: relevance, "collection" or the Order's name (ordering.py)
    remembered: bool = False  # the searcher's answer to the same search before (took_ms: this look-up's)

    @property
    def typing(self) -> bool:
        """Type-ahead's reading (typed words plus completions), as opposed to Enter's."""
        return self.kind in (SearchMode.TYPING, SearchMode.MORE)

    @property
    def count_text(self) -> str:
        """The count as the reader shows it: exact, or a lower bound ("300+")."""
        return f"{self.total:,}" + ("" if self.exact else "+")

    def again(self, took_ms: float) -> SearchResult:
        """This answer given once more from memory: its time is the look-up's, not the first
        run's (a remembered answer read "157 ms" again)."""
        return replace(self, took_ms=took_ms, remembered=True)


def hits(index_of: Mapping[str, int], found: Iterable[tuple[str, float | None]]) -> list[Hit]:
    """(paper id, score) pairs as hits; an index entry whose paper vanished is skipped (the
    index's update drops it)."""
    out = []
    for pid, score in found:
        row = index_of.get(pid)
        if row is not None:
            out.append(Hit(row, pid, float(score or 0.0)))
    return out


def highlight_terms(q: query.Query, reader: IndexReader) -> frozenset[str]:
    """Indexed forms of the query's words in title/abstract, multi-terms expanded (bounded)."""
    out: set[str] = set()
    for leaf in [q, *q.leaves()] if not q.is_leaf() else [q]:
        fieldname = getattr(leaf, "fieldname", None)
        if fieldname not in HIGHLIGHT_FIELDS:
            continue
        if isinstance(leaf, query.Phrase):
            out.update(leaf.words)
        elif isinstance(leaf, query.MultiTerm):
            for k, btext in enumerate(w3.expansions(leaf, reader)):
                if k >= 64:
                    break
                out.add(btext.decode("utf-8") if isinstance(btext, bytes) else btext)
        elif isinstance(leaf, query.Term):
            out.add(leaf.text.decode("utf-8") if isinstance(leaf.text, bytes) else str(leaf.text))
    return frozenset(out)
