"""Search: the only package that imports Whoosh (README, "Architecture"), and its public front.

The app, the command line and the benchmarks import what they need from here. Names resolve on
first use (PEP 562), so ``from tui_reader.search import SearchMode`` does not load Whoosh: the
command line stays quick until it searches. Inside, ``index/`` is how a collection becomes an
index, ``query/`` how a text becomes a query, ``fast/`` the project's own posting code beside
Whoosh's (which stays the reference), and the searcher, stopping, filters, facets and
highlighting sit at the top.

A name here is never also a submodule's name (``facets`` the function would hide ``facets`` the
module): ``tests/test_imports.py`` holds the front to that and to resolving every name.

Its log (``tui_reader.search``: fast-path errors, damaged files) goes wherever the application
sends logs; with none configured it is not printed on the terminal as a traceback.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

logging.getLogger("tui_reader.search").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from tui_reader.search.facets import Facets
    from tui_reader.search.facets import facets as count_facets
    from tui_reader.search.fast.selfcheck import remember as remember_self_check
    from tui_reader.search.highlight import match_spans, snippet
    from tui_reader.search.index.heap import one_arena
    from tui_reader.search.index.persistent import SearchIndex, UpdateReport
    from tui_reader.search.opening import Opened, answered, open_searcher
    from tui_reader.search.ordering import Order
    from tui_reader.search.query import querytext
    from tui_reader.search.query.modes import PAGE, PATIENT_LIMIT, SearchMode
    from tui_reader.search.recommend import MIN_POSITIVES, Pick, Recommendations, needs_text, unread_first
    from tui_reader.search.recommend import Cancelled as RecommendCancelled
    from tui_reader.search.recommend import recommend as recommendations
    from tui_reader.search.related import related as rank_related
    from tui_reader.search.results import Hit, SearchResult
    from tui_reader.search.searcher import TIME_LIMIT, Searcher
    from tui_reader.search.subsets import Only, Sets

_WHERE = {
    "Facets": "facets",
    "count_facets": "facets:facets",
    "match_spans": "highlight",
    "snippet": "highlight",
    "one_arena": "index.heap",
    "SearchIndex": "index.persistent",
    "UpdateReport": "index.persistent",
    "PAGE": "query.modes",
    "SearchMode": "query.modes",
    "Opened": "opening",
    "answered": "opening",
    "open_searcher": "opening",
    "Order": "ordering",
    "querytext": "query.querytext:",  # a module: what was typed, pure (no Whoosh)
    "remember_self_check": "fast.selfcheck:remember",
    "MIN_POSITIVES": "recommend",
    "Pick": "recommend",
    "Recommendations": "recommend",
    "needs_text": "recommend",
    "unread_first": "recommend",
    "RecommendCancelled": "recommend:Cancelled",
    "recommendations": "recommend:recommend",
    "rank_related": "related:related",
    "Hit": "results",
    "SearchResult": "results",
    "TIME_LIMIT": "searcher",
    "PATIENT_LIMIT": "query.modes",
    "Searcher": "searcher",
    "Only": "subsets",
    "Sets": "subsets",
}

__all__ = [
    "MIN_POSITIVES",
    "PAGE",
    "PATIENT_LIMIT",
    "TIME_LIMIT",
    "Facets",
    "Hit",
    "Only",
    "Opened",
    "Order",
    "Pick",
    "RecommendCancelled",
    "Recommendations",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "Searcher",
    "Sets",
    "UpdateReport",
    "answered",
    "count_facets",
    "match_spans",
    "needs_text",
    "one_arena",
    "open_searcher",
    "querytext",
    "rank_related",
    "recommendations",
    "remember_self_check",
    "snippet",
    "unread_first",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, colon, attribute = where.partition(":")  # "module:name" renames; "module:" is the module
    found = importlib.import_module(f"{__name__}.{module}")
    value = found if colon and not attribute else getattr(found, attribute or name)
    globals()[name] = value
    return value
