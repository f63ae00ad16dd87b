"""How a search is run, importable without Whoosh (the app names a mode before the index exists)."""

from __future__ import annotations

from enum import StrEnum

PAGE = 100  # results fetched per search; the reader fetches more as the cursor nears the end
PATIENT_LIMIT = 30.0  # seconds an Enter (or command line) search stopped at its time limit is asked again for


class SearchMode(StrEnum):
    """How a text is searched; the only switch between Enter's answer and type-ahead's devices."""

    ENTER = "enter"  # Whoosh's whole answer to parse(text): same papers, order and count
    TYPING = "typing"  # typed words plus completions, bounded prefixes, TYPEAHEAD_BUDGET of scoring
    MORE = "more"  # the next pages of a type-ahead list: typing's reading, Enter's time limit
