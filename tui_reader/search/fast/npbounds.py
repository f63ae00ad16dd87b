"""Type-ahead's page on an array segment for a query too costly to score whole while typing.

At 2.7M papers a keystroke such as "Paper" (a word in 1.1M abstracts, OR'ed with its
completions) or "Paper-base" (two such words ANDed) costs 50-140 ms scored exactly, past a
keystroke's budget. Such a query (its cost by ``cost``: a term's postings, an AND's cheapest
part, an OR's parts summed) is scored here on some papers only: those in the best posting
blocks of its ``driver`` word (an AND's rarest part, an OR's commonest), ranked by each
block's BM25F bound from the list's directory (the highest weight at the shortest length, as
Whoosh's ``block_quality``), up to TYPING_POSTINGS of that word's postings. The papers'
scores are the query's own (npleaf.py, the same floats as Enter's): the page is the best of
the papers read, a best-so-far (``bounds.Page.partial``); its count the matches among them or
what the words' document frequencies say it has at least (a lone word: exactly), a lower bound
shown "N+". Enter never comes here: it reads every posting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from whoosh import query

from tui_reader.search.fast import blocks_np, bounds, columns, npleaf
from tui_reader.search.fast.arrays import top_arrays

COSTLY = 600_000  # a keystroke reading more postings than this reads its driver's best blocks
TYPING_POSTINGS = 150_000  # the driver's postings read, in its best blocks

Term = tuple[str, bytes]


def search(
    searcher: Any, q: query.Query, leaves: list[tuple[Any, int]], limit: int, typing: bool
) -> bounds.Page | None:
    """A best-so-far page and a lower-bound count, or None: not ``typing`` (Enter, every match
    wanted), the query cheap enough to score whole or of a shape ``cost`` does not weigh, or
    the index not one array segment without deletions."""
    if not typing or len(leaves) != 1 or leaves[0][1] or not npleaf.is_array_segment(leaves[0][0]):
        return None
    reader = leaves[0][0]
    if reader.has_deletions():
        return None
    weighed = cost(q, reader)
    if weighed is None or weighed[0] <= max(COSTLY, 4 * limit):
        return None
    wanted = best_papers(searcher, reader, weighed[1], TYPING_POSTINGS)
    if wanted is None:
        return None
    found = npleaf.NpLeaf(searcher, reader).run(q, wanted)
    least, exact = at_least(q, reader)
    page = bounds.Page((top_arrays(found, limit), max(int(found[0].size), least), exact))
    page.partial = True
    return page


def at_least(q: query.Query, reader: Any) -> tuple[int, bool]:
    """Matches the query has at least, and whether that is its count: a term's papers (its
    document frequency: the segment has no deletions), an OR's largest part's; 0 for others."""
    if npleaf.lone(q):
        return at_least(q.subqueries[0], reader)
    if type(q) is query.Term:
        btext = _btext(reader, q)
        return (0 if btext is None else int(reader.doc_frequency(q.fieldname, btext))), True
    if type(q) is query.Or and q.subqueries and not q.minmatch and not q.scale:
        return max(at_least(sub, reader)[0] for sub in q.subqueries), False
    return 0, False


def cost(q: query.Query, reader: Any) -> tuple[int, Term] | None:
    """(postings a whole scoring reads, roughly; the word whose best blocks to read), None for
    a shape not weighed here (phrases, expansions, negations: scored whole)."""
    if npleaf.lone(q):
        return cost(q.subqueries[0], reader)
    if type(q) is query.Term:
        btext = _btext(reader, q)
        if btext is None:
            return 0, (q.fieldname, b"")
        return int(reader.doc_frequency(q.fieldname, btext)), (q.fieldname, btext)
    if type(q) in (query.And, query.Or) and q.subqueries:
        if type(q) is query.Or and (q.minmatch or q.scale):
            return None
        parts = [cost(sub, reader) for sub in q.subqueries]
        if any(p is None for p in parts):
            return None
        weighed = [p for p in parts if p is not None]
        if type(q) is query.And:  # its cheapest part read whole, the others where it matched
            cheapest = min(weighed, key=lambda p: p[0])
            return cheapest[0] * len(weighed), cheapest[1]
        return sum(p[0] for p in weighed), max(weighed, key=lambda p: p[0])[1]
    return None


def _btext(reader: Any, q: query.Term) -> bytes | None:
    try:
        btext = reader.schema[q.fieldname].to_bytes(q.text) if isinstance(q.text, str) else q.text
    except (KeyError, ValueError):
        return None
    return btext if (q.fieldname, btext) in reader else None


def best_papers(searcher: Any, reader: Any, term: Term, budget: int) -> np.ndarray | None:
    """The docnums (sorted) of the ranges of the word's best-bounded blocks holding ``budget``
    of its postings; None if it has no array list."""
    fieldname, btext = term
    if not btext:
        return None
    m = reader.postings(fieldname, btext)
    raw = getattr(m, "child", m)
    if not hasattr(raw, "list_bytes"):
        return None
    d = columns.directory(raw.list_bytes())
    params = blocks_np.bm25f(searcher, fieldname, btext)
    weight = d["maxweight"].astype(np.float64)
    if params is None:
        bound = weight
    else:
        idf, avgfl, b, k1 = params
        norm = k1 * ((1 - b) + b * blocks_np.LENGTHS[d["minlen"]] / avgfl)
        bound = idf * ((weight * (k1 + 1)) / (weight + norm))
    order = np.argsort(-bound, kind="stable")
    counts = d["count"].astype(np.int64)[order]
    chosen = np.sort(order[: int(np.searchsorted(np.cumsum(counts), budget)) + 1])
    first = d["first"].astype(np.int64)[chosen]
    sizes = d["maxid"].astype(np.int64)[chosen] - first + 1
    return columns.spans(first, sizes)
