"""score.py's answers against Whoosh's searcher on w3's self-check sample (selfcheck.py).

Every fast path is run on the sample -- terms, ANDs, ORs, negations, phrases of words that occur
once and of words that occur many times in a paper, a prefix, a wildcard, Every -- and must give
Whoosh's papers, order, scores and count; selfcheck.py runs it on a W3 sample and on an array
codec one (npleaf.py's paths). Type-ahead's best-blocks-first page (bounds.py) is run with a budget of
one block, where it says whether its page is exact, and with a budget for every block, where it
must be.
"""

from __future__ import annotations

import math
from typing import Any

from whoosh import query

from tui_reader.search.fast import bounds, score, w3


def difference(ix: Any) -> str | None:
    """The first query whose answer differs from Whoosh's, and how, or None. The sample holds
    these words ("tensor of élan" many times in some papers: "of" is not indexed)."""
    t = query.Term
    words = ["neural", "network"]
    queries = [
        t("content", "graph"),
        query.And([t("content", "graph"), t("content", "neural")]),
        query.And([t("content", "graph"), t("content", "neural", boost=2.0), t("title", "model")]),
        query.Or([t("content", "graph"), t("content", "vision")]),
        query.AndNot(t("content", "network"), t("content", "graph")),
        query.Phrase("content", ["neural", "network"]),
        query.Phrase("content", ["graph", "neural", "network"]),
        query.Phrase("content", ["tensor", "elan"]),
        query.Phrase("content", ["elan", "tensor", "elan"]),
        query.Phrase("title", ["neural", "network"], slop=2),
        query.Prefix("content", "gra"),
        query.And([t("title", "model"), query.Not(t("content", "kernel"))]),
        # plain words OR'ed with their title phrase, as Enter reads them (titlefirst.py)
        query.Or([query.And([t("content", w) for w in words]), query.Phrase("title", words)]),
        query.Or([t("content", "graph"), t("content", "vision"), t("title", "model")], boost=2.0),
        query.Wildcard("content", "*ne*"),
        query.Every("title"),
    ]
    with ix.searcher() as s:
        for q in queries:
            theirs = s.search(q, limit=10)
            fast = score.answer(s, q, 10, True, False)
            if fast is None:
                return f"{q} is not scored"
            problem = _differs(q, fast, theirs, exact=True)
            if problem:
                return problem
        return _bounded(s)


def _differs(q: query.Query, fast: Any, theirs: Any, exact: bool) -> str | None:
    top, total, counted = fast
    if [d for _, d in top] != [hit.docnum for hit in theirs] or not all(
        math.isclose(ours, hit.score, rel_tol=1e-9) for (ours, _), hit in zip(top, theirs, strict=True)
    ):
        return f"{q} ranks differently"
    if exact and (total != len(theirs) or not counted or not total):
        return f"{q} counts {total}, not {len(theirs)}"
    return None


def _bounded(s: Any) -> str | None:
    """bounds.py on the sample: with every block read, Whoosh's page and count; with one, a
    page of real matches that is Whoosh's wherever it does not say it is a best-so-far."""
    t = query.Term
    params = w3.bm25f_params(s.weighting)
    reader = s.reader()
    if params is None or len(reader.leaf_readers()) != 1 or reader.has_deletions():
        return None  # bounds.py is never used on such an index
    for q in [
        t("content", "graph"),
        query.And([t("content", "graph"), t("content", "network")]),
        query.Or([t("content", "graph"), query.Or([t("content", "vision")], boost=0.5)]),
    ]:
        theirs = s.search(q, limit=3)
        every = {hit.docnum: hit.score for hit in s.search(q, limit=None)}
        for budget in (10**9, 1):
            page = bounds.search(score.Leaf(s, reader, params), q, 3, budget)
            if page is None:
                return f"{q} is not bounded"
            top, total, counted = page
            if any(d not in every or not math.isclose(sc, every[d], rel_tol=1e-9) for sc, d in top):
                return f"{q} bounded by blocks finds what Whoosh does not"
            if (budget > 1 or not page.partial) and _differs(q, page, theirs, exact=False):
                return f"{q} bounded by blocks ranks differently"
            if (counted and total != len(every)) or total > len(every):
                return f"{q} bounded by blocks counts {total}, not {len(every)}"
    return None
