"""Every match of a query as arrays (docnums ascending, scores), the index's answer where it has
array segments (codec.NpCodec, scored by npleaf.py): its page found by a partition, not a sort
of every match, nor a dict of them built (Enter's answer reads only its page and count).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from whoosh import query

from tui_reader.search.fast import npleaf

Arrays = npleaf.Arrays  # (the index's docnums ascending, their scores)
Scores = dict[int, float]
OtherLeaf = Callable[[Any, query.Query], Scores | None]  # a W3 segment's scores, None: it declines


def as_scores(found: Arrays) -> Scores:
    return dict(zip(found[0].tolist(), found[1].tolist(), strict=True))


def answer(searcher: Any, q: query.Query, leaves: list[tuple[Any, int]], other: OtherLeaf) -> Arrays | None:
    """Every match of ``q`` and its score, docnums ascending: array segments by npleaf.py, any
    other (a mixed index) by ``other`` (score.py's Leaf), always exact; None when a segment's
    scorer cannot run it."""
    docs: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    try:
        for reader, base in leaves:
            ids, values = _segment(searcher, reader, q, other)
            docs.append(ids + base)
            scores.append(values)
    except npleaf.Unsupported:
        return None
    if len(docs) == 1:
        return docs[0], scores[0]
    return np.concatenate(docs), np.concatenate(scores)


def _segment(searcher: Any, reader: Any, q: query.Query, other: OtherLeaf) -> Arrays:
    """One segment's matches: numpy for an array segment; for a W3 one ``other`` (its blocks a
    block at a time), or where that declines, npleaf through Whoosh's matchers (slower)."""
    if not npleaf.is_array_segment(reader):
        found = other(reader, q)
        if found is not None:
            ids = np.fromiter(found.keys(), np.int64, len(found))
            values = np.fromiter(found.values(), np.float64, len(found))
            order = np.argsort(ids, kind="stable")
            return ids[order], values[order]
    return npleaf.NpLeaf(searcher, reader).run(q)


def top_arrays(found: Arrays, limit: int) -> list[tuple[float, int]]:
    """bm25.top for arrays: the ``limit`` best (score, docnum), best first, the lower docnum
    first on a tie. The ``limit``-th best score is found by a partition: only the matches at
    or above it are sorted."""
    docs, scores = found
    if limit <= 0 or not docs.size:
        return []
    if docs.size > limit:
        kth = np.partition(scores, docs.size - limit)[docs.size - limit]
        keep = np.flatnonzero(scores >= kth)
        docs, scores = docs[keep], scores[keep]
    order = np.lexsort((docs, -scores))[:limit]
    return list(zip(scores[order].tolist(), docs[order].tolist(), strict=True))


def page_of(every: Any, limit: int) -> tuple[list[tuple[float, int]], int] | None:
    """Enter's relevance page and count from every match as arrays; None for a dict (W3 alone)
    or matches that all score the same (listed in collection order: ordering.first)."""
    if not isinstance(every, tuple) or level(every):
        return None
    return top_arrays(every, limit), int(every[0].size)


def level(found: Arrays) -> bool:
    """ordering.level for arrays: more than one match, all scored the same."""
    scores = found[1]
    return scores.size > 1 and bool((scores == scores[0]).all())
