"""Titles holding the typed words: what the reader can search while the index is being built.

A plain scan over the titles in memory (the list's own column), in the search worker, checking
between slices whether a newer keystroke replaced it. It is not the search's answer and never
stands for one: the reader says "titles holding ..." and runs the real search when the index is
ready (``tests/app/test_title_scan.py``). Words are compared casefolded as substrings, so
"graph" finds "Graphs" and "hypergraph"; query syntax (fields, operators, quotes) is read as
plain words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

WORD = re.compile(r"\w+")
FIELD = re.compile(r"\b\w+:")
OPERATORS = frozenset({"and", "or", "not", "andnot", "andmaybe", "to"})
SLICE = 20_000  # titles between two looks at ``stopped``


def words(text: str) -> list[str]:
    """The plain words of a query, casefolded; fields and operators left out."""
    found = WORD.findall(FIELD.sub(" ", text).casefold())
    return [w for w in dict.fromkeys(found) if w not in OPERATORS]


def scan(
    titles: Sequence[str],
    text: str,
    limit: int,
    stopped: Callable[[], bool] = lambda: False,
    keep: Callable[[int], bool] | None = None,
) -> tuple[list[int], int] | None:
    """The first ``limit`` rows (in collection order) whose title holds every word, and how many
    there are in all; None if ``stopped`` said so part way (a newer search replaced this one).
    ``keep`` is the view's restriction (bookmarked, unread): rows it refuses are neither listed
    nor counted, so the count the reader shows is the count of what it would list."""
    wanted = words(text)
    if not wanted:
        return [], 0
    rows: list[int] = []
    total = 0
    for start in range(0, len(titles), SLICE):
        if stopped():
            return None
        for row, title in enumerate(titles[start : start + SLICE], start):
            folded = title.casefold()
            if all(w in folded for w in wanted) and (keep is None or keep(row)):
                total += 1
                if len(rows) < limit:
                    rows.append(row)
    return rows, total
