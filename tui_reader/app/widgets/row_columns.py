"""What a list row shows besides its title: the right-hand column (each row's year and venue,
or the order's key first), the tags, and text cut to a width in cells.

The column is read from the corpus for the rows drawn only (``Corpus.row``: the stored fields, no Paper built)
and kept for a few screens' worth, so an 87k-paper list costs what a screenful does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size

from tui_reader.corpus.text import clean_label

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

CACHE_ROWS = 2_000  # rows whose fields are kept (a few screens' worth)
KEYED_ORDERS = ("year", "venue", "author")  # orders whose key the column shows even when narrow


class RowColumns:
    """Year, venue (without its year) and first author's family name per corpus row."""

    def __init__(self, corpus: Corpus | None = None) -> None:
        self.corpus = corpus
        self._rows: dict[int, tuple[str, str, str]] = {}

    def fields(self, row: int) -> tuple[str, str, str]:
        found = self._rows.get(row)
        if found is not None:
            return found
        corpus = self.corpus
        if corpus is None or not 0 <= row < len(corpus):
            return ("", "", "")
        values = corpus.row(row)
        authors, venue, year = values[3], str(values[4] or ""), values[5]
        year_text = str(year) if isinstance(year, int) and year > 0 else ""
        if year_text:
            venue = " ".join(w for w in venue.split() if w != year_text)
        first = str(authors[0]) if isinstance(authors, list) and authors else ""
        family = first.split(",")[0] if "," in first else (first.split() or [""])[-1]
        if len(self._rows) >= CACHE_ROWS:
            self._rows.clear()
        found = (year_text, clean_label(" ".join(venue.split())), clean_label(family))
        self._rows[row] = found
        return found

    def text(self, row: int, order: str) -> str:
        """'2019 ICML'; in venue order 'ICML 2019'; in author order 'Curie 2019'."""
        year, venue, author = self.fields(row)
        if order == "venue":
            return f"{venue} {year}".strip()
        if order == "author":
            return f"{author} {year}".strip()
        return f"{year or '    '} {venue}".rstrip()


def column_cap(room: int, order: str) -> int:
    """The column's widest, for a title line of ``room`` cells: none below 37, the order's key
    alone below 44 (nothing in other orders), 12 cells below 70, else 22."""
    if room < 37:
        return 0
    if room < 44:
        return 6 if order in KEYED_ORDERS else 0
    return 12 if room < 70 else 22


def tag_label(tags: Sequence[str]) -> str:
    """Tags as a line shows them: ``#toread #"two words"`` (as ``tag:`` would find each)."""
    return " ".join(f'#"{t}"' if any(c.isspace() or c in '()"' for c in t) else f"#{t}" for t in tags)


def fit_cells(text: str, width: int) -> str:
    """Truncate by terminal cells (wide characters count double), with an ellipsis. Only the
    first few cells' worth is measured: a megabyte-long title costs what a short one does."""
    if width <= 0:
        return ""
    if len(text) > 4 * width:
        return set_cell_size(text[: 4 * width], width - 1) + "…"
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"
