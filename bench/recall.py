"""Our answers against Whoosh's own: the same index, the same parsed query, Whoosh's searcher.

Enter (``Searcher.search(text)``) must give Whoosh's answer to ``Searcher.parse(text)``: every
paper of Whoosh's first page (recall 100%) and Whoosh's count. Type-ahead may add papers
(completions of the word being typed) or stop early and say so (``partial``): its count must
never fall short of Whoosh's count for the text typed so far unless it said it stopped early.

Whoosh's reference scores every match (``limit=None``): up to seconds a query at 87k, so each
check stops at a time cap and says how many queries it ran.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from bench.measures import TYPEAHEAD_LIMIT
from tui_reader.search.query import querytext
from tui_reader.search.searcher import PAGE, Searcher, SearchMode


@dataclass(slots=True)
class EnterCheck:
    """Enter against Whoosh for one kind of query."""

    planned: int = 0
    recall: list[float] = field(default_factory=list)  # percent, one per query run
    low: list[tuple[str, float]] = field(default_factory=list)  # (query, recall %) under 100%
    counts: list[tuple[str, int, int]] = field(default_factory=list)  # (query, ours, Whoosh)
    inexact: list[str] = field(default_factory=list)  # Enter said its count was a lower bound
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "planned": self.planned,
            "ran": len(self.recall),
            "seconds": round(self.seconds, 2),
            "under_100": [{"query": q, "recall": round(r, 2)} for q, r in self.low],
            "count_differs": [{"query": q, "ours": a, "whoosh": b} for q, a, b in self.counts],
            "inexact": self.inexact,
        }


@dataclass(slots=True)
class TypeaheadCheck:
    """Type-ahead counts against Whoosh's count for the text typed so far."""

    planned: int = 0
    covered: list[float] = field(default_factory=list)  # 100: partial or total >= Whoosh's count
    partial: int = 0
    incomplete: int = 0  # too little typed: the reader keeps the list it had (not checked)
    problems: int = 0  # syntax Enter would refuse (unbalanced quote...): no Whoosh count
    short: list[tuple[str, int, int]] = field(default_factory=list)  # (text, ours, Whoosh)
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "planned": self.planned,
            "checked": len(self.covered),
            "partial": self.partial,
            "incomplete": self.incomplete,
            "problems": self.problems,
            "seconds": round(self.seconds, 2),
            "short": [{"text": t, "ours": a, "whoosh": b} for t, a, b in self.short],
        }


def whoosh_answer(searcher: Searcher, text: str) -> tuple[list[str], int]:
    """Whoosh's own first page (ids, best first) and count for Enter's reading of ``text``."""
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        results = s.search(q, limit=None)
        return [hit["id"] for hit in results[:PAGE]], len(results)


def enter(searcher: Searcher, texts: list[str], cap_s: float) -> EnterCheck:
    """Enter's first page and count against Whoosh's, query by query, for at most ``cap_s``."""
    out = EnterCheck(planned=len(texts))
    started = time.perf_counter()
    for text in texts:
        if time.perf_counter() - started > cap_s:
            break
        searcher.invalidate()
        result = searcher.search(text, limit=PAGE)
        ref_ids, ref_total = whoosh_answer(searcher, text)
        ours = {hit.id for hit in result.hits}
        # Whoosh finding nothing: 100% only when we find nothing too.
        recall = 100.0 * len(ours & set(ref_ids)) / len(ref_ids) if ref_ids else 0.0 if ours else 100.0
        out.recall.append(recall)
        if recall < 100.0:
            out.low.append((text, recall))
        if result.total != ref_total:
            out.counts.append((text, result.total, ref_total))
        if not result.exact:
            out.inexact.append(text)
    out.seconds = time.perf_counter() - started
    return out


def typeahead(searcher: Searcher, texts: list[str], cap_s: float) -> TypeaheadCheck:
    """Each keystroke's type-ahead count against Whoosh's count for the text typed so far."""
    out = TypeaheadCheck(planned=len(texts))
    fields = searcher.fields  # the field names the query language knows
    started = time.perf_counter()
    for text in texts:
        if time.perf_counter() - started > cap_s:
            break
        if querytext.problem(text.strip(), fields) is not None:
            out.problems += 1
            continue
        searcher.invalidate()
        result = searcher.search(text, SearchMode.TYPING, TYPEAHEAD_LIMIT)
        if result.incomplete:
            out.incomplete += 1
            continue
        _, ref_total = whoosh_answer(searcher, text)
        out.partial += result.partial
        ok = result.partial or result.total >= ref_total
        out.covered.append(100.0 if ok else 0.0)
        if not ok:
            out.short.append((text, result.total, ref_total))
    out.seconds = time.perf_counter() - started
    return out
