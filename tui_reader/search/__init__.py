"""Search: the only package that imports Whoosh (README, "Architecture"), and its public front.

The app, the command line and the benchmarks import what they need from here. Names resolve on
first use (PEP 562), so ``from tui_reader.search import SearchMode`` does not load Whoosh: the
command line stays quick until it searches. Inside, ``index/`` is how a collection becomes an
index, ``query/`` how a text becomes a query, ``fast/`` the project's own posting code beside
Whoosh's (which stays the reference), and the searcher, stopping, filters, facets and
highlighting sit at the top.

Its log (``tui_reader.search``: fast-path errors, damaged files) goes wherever the application
sends logs; with none configured it is not printed on the terminal as a traceback.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

logging.getLogger("tui_reader.search").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from tui_reader.search.facets import Facets, facets
    from tui_reader.search.highlight import match_spans, snippet
    from tui_reader.search.index import SearchIndex, UpdateReport
    from tui_reader.search.modes import PAGE, SearchMode
    from tui_reader.search.ordering import Order
    from tui_reader.search.results import Hit, SearchResult
    from tui_reader.search.searcher import TIME_LIMIT, Searcher
    from tui_reader.search.subsets import Only, Sets

_WHERE = {
    "Facets": "facets",
    "facets": "facets",
    "match_spans": "highlight",
    "snippet": "highlight",
    "SearchIndex": "index",
    "UpdateReport": "index",
    "PAGE": "modes",
    "SearchMode": "modes",
    "Order": "ordering",
    "Hit": "results",
    "SearchResult": "results",
    "TIME_LIMIT": "searcher",
    "Searcher": "searcher",
    "Only": "subsets",
    "Sets": "subsets",
}

__all__ = [
    "PAGE",
    "TIME_LIMIT",
    "Facets",
    "Hit",
    "Only",
    "Order",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "Searcher",
    "Sets",
    "UpdateReport",
    "facets",
    "match_spans",
    "snippet",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value
