"""Similar papers: Whoosh's ``more_like`` answer, among a view's papers.

``more_like(docnum, field, text=...)`` ORs the text's key terms, each boosted by its (not
normalised) weight, and searches that with the paper itself masked. The same query is run here
with the view's filter and mask too, and scored by score.py when it can (the same papers,
scores and order: tests/search/test_issue19_sorted.py; ~0.4 s -> ~0.08 s at 87k papers).
"""

from __future__ import annotations

from typing import Any

from whoosh import query

from tui_reader.search import subsets
from tui_reader.search.fast import bm25
from tui_reader.search.fast.score import every_score
from tui_reader.search.index.schema import DEFAULT_FIELD


def more_like(
    s: Any, docnum: int, keys: list[tuple[str, float]], limit: int, view: subsets.Restriction | None
) -> list[tuple[float, int]]:
    """The ``limit`` best (score, docnum) pairs like ``docnum``, by its key terms ``keys`` (as
    ``key_terms_from_text(..., normalize=False)`` gives them), within ``view``."""
    like = query.Or([query.Term(DEFAULT_FIELD, word, boost=weight) for word, weight in keys])
    scores = every_score(s, like)
    if scores is not None:
        itself = subsets.Restriction(None, frozenset({docnum}))
        return bm25.top(itself.kept(scores if view is None else view.kept(scores)), limit)
    allow = None if view is None or view.allow is None else set(view.allow)  # Whoosh's type
    masked = {docnum} | (view.deny if view is not None else frozenset())
    return [(hit.score, hit.docnum) for hit in s.search(like, limit=limit, filter=allow, mask=masked)]
