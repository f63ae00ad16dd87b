"""What am I missing: the collection's papers most like a draft, by Whoosh's more-like-this.

Whoosh's ``Searcher.more_like(docnum, field, text=...)`` takes the text's key terms
(``key_terms_from_text``: Bo1 weights against the collection, not normalised) and searches their
OR, each term boosted by its weight, with the document itself masked. A draft is no document of
the index, so the same query is built here and searched with nothing masked: the hits and scores
are exactly Whoosh's answer to that query (tests/search/test_related.py checks both ways).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from whoosh import query

from tui_reader.errors import IndexDamaged
from tui_reader.search.results import Hit, SearchResult

if TYPE_CHECKING:
    from tui_reader.search.searcher import Searcher

__all__ = ["KIND", "NUMTERMS", "key_terms", "related"]

KIND = "related"  # SearchResult.kind of the answer
NUMTERMS = 24  # key terms of a draft: twice a paper's (similar.py takes 12 of an abstract)
MAX_TEXT = 400_000  # characters of prose weighed (~60k words): beyond, the terms barely move


def key_terms(s: object, text: str, numterms: int = NUMTERMS) -> list[tuple[str, float]]:
    """The draft's key terms and their weights, exactly as ``more_like`` takes them."""
    from tui_reader.search.index.schema import DEFAULT_FIELD

    terms: list[tuple[str, float]] = s.key_terms_from_text(  # type: ignore[attr-defined]
        DEFAULT_FIELD, text[:MAX_TEXT], numterms=numterms, normalize=False
    )
    return terms


def like_query(terms: list[tuple[str, float]]) -> query.Query:
    """more_like's query: the key terms OR'ed, each boosted by its weight."""
    from tui_reader.search.index.schema import DEFAULT_FIELD

    return query.Or([query.Term(DEFAULT_FIELD, word, boost=weight) for word, weight in terms])


def related(searcher: Searcher, text: str, limit: int = 20, numterms: int = NUMTERMS) -> SearchResult:
    """The ``limit`` papers most like ``text`` (a draft's prose), best first, with Whoosh's
    scores; ``total`` is the number listed (the answer is its top, never paged)."""
    started = time.perf_counter()
    searcher.cancel()  # a search still running stops: this one waits for no keystroke's
    corpus = searcher.corpus
    try:
        with searcher.index.searcher() as s:
            terms = key_terms(s, text, numterms)
            found = s.search(like_query(terms), limit=limit) if terms else []
            ids = [(s.stored_fields(hit.docnum)["id"], hit.score) for hit in found]
    except IndexDamaged:
        raise
    except Exception as exc:  # Whoosh failing to read its own files: the caller rebuilds
        raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc
    hits = [
        Hit(corpus.index_of[pid], pid, float(score or 0.0)) for pid, score in ids if pid in corpus.index_of
    ]
    result = SearchResult(
        "related to the draft",
        hits,
        len(hits),
        True,
        (time.perf_counter() - started) * 1000,
        terms=frozenset(word for word, _ in terms),
        kind=KIND,
    )
    if not terms:
        result.notice = "none of the draft's words is in this collection"
    return result
