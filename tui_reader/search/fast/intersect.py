"""An AND of words, scored on the papers they share only (score.py's most common query).

Each word's postings are read as flat lists, rarest word first, and met as sets in C; each word
is then scored for the shared papers only, in lists aligned on them, and the scores added in the
order score.py's dict path adds them (the rarest word's first, then by document frequency), so
the floats are the same. Scoring a common word for every paper it is in, then looking each up in
a dict, was half the cost of a two-word AND at 300k papers.
"""

from __future__ import annotations

from itertools import compress
from operator import add, mul
from typing import Any, Protocol

from whoosh import query

from tui_reader.search import stop

Scores = dict[int, float]


class Scorer(Protocol):
    """What of score.py's segment scorer this module uses."""

    def cost(self, q: query.Query) -> int | None: ...

    def lists(
        self, fieldname: str, text: Any, wanted: Any = None
    ) -> tuple[bytes, list[int], list[float]] | None: ...

    def weigh(self, fieldname: str, btext: bytes, ids: list[int], weights: list[float]) -> list[float]: ...


def scored(leaf: Scorer, terms: list[query.Term]) -> Scores:
    """The AND of ``terms``: each shared paper's summed BM25F, each word's times its boost."""
    terms = sorted(terms, key=lambda t: leaf.cost(t) or 0)  # stable: as score.py's _and orders them
    found: list[tuple[query.Term, bytes, list[int], list[float]]] = []
    shared: set[int] | None = None
    for t in terms:
        got = leaf.lists(t.fieldname, t.text, None if shared is None else shared)
        if got is None:
            return {}
        btext, ids, weights = got
        shared = set(ids) if shared is None else shared.intersection(ids)
        found.append((t, btext, ids, weights))
        stop.check()
        if not shared:
            return {}
    assert shared is not None
    docs: list[int] = []
    total: list[float] | None = None
    for t, btext, ids, weights in found:
        if len(ids) > len(shared):
            keep = list(map(shared.__contains__, ids))
            ids, weights = list(compress(ids, keep)), list(compress(weights, keep))
        scores = leaf.weigh(t.fieldname, btext, ids, weights)
        if t.boost != 1.0:
            scores = list(map(mul, scores, [t.boost] * len(scores)))
        docs, total = (ids, scores) if total is None else (docs, list(map(add, total, scores)))
    return dict(zip(docs, total or [], strict=True))
