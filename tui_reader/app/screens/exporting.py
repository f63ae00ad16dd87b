"""``E``: the list as it stands (the search's whole answer, in its order and view; without a
query, the collection as listed) written as BibTeX to a new file in the current folder,
``tui-reader-export-<query>-<date>.bib`` (``-1``, ``-2``... rather than over a file), in a
worker; the notice names the file.

The list holds a search's answer a page at a time: when more is left to load, the worker asks
the searcher for every match (no time limit), in the same relevance order the list is in, and
keeps the view's filter (bookmarks, unread).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from tui_reader.app.screens.state import ReaderState
from tui_reader.corpus.text import clean_label
from tui_reader.library.export import export_name, export_papers, write_new_file
from tui_reader.search.modes import SearchMode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search.searcher import Searcher, SearchResult
    from tui_reader.search.subsets import Sets


class ExportWritten(Message, bubble=False):
    def __init__(self, path: Path | None, count: int, error: str = "") -> None:
        self.path = path
        self.count = count
        self.error = error
        super().__init__()


class Exporting(ReaderState):
    def action_export_results(self) -> None:
        corpus = self.corpus
        if corpus is None:
            self.notify("Nothing to export yet: the collection is still loading.", severity="warning")
            return
        base = self.base if self.result is not None else None
        more = base if base is not None and len(base.hits) < base.total and base.kind != "similar" else None
        hidden = self._hidden_ids(corpus)
        notes = {mark.id: mark.note for mark in self.bookmarks if mark.note}
        query = self.result.query if self.result is not None else ""
        self.write_export(
            corpus, list(self.papers.rows), more, self.searcher, self.search_sets, hidden, notes, query
        )

    def _hidden_ids(self, corpus: Corpus) -> frozenset[str] | None:
        """Ids the view would leave out of rows fetched anew; None: it shows every match."""
        if self.view == "bookmarks":
            return frozenset(corpus.ids) - {mark.id for mark in self.bookmarks}
        if self.view == "unread":
            return self.read
        return None

    @work(thread=True, group="export")
    def write_export(
        self,
        corpus: Corpus,
        rows: Sequence[int],
        more: SearchResult | None,
        searcher: Searcher | None,
        sets: Sets,
        hidden: frozenset[str] | None,
        notes: dict[str, str],
        query: str,
    ) -> None:
        try:
            if more is not None and searcher is not None:
                mode = SearchMode.MORE if more.typing else SearchMode.ENTER
                whole = searcher.search(more.query, mode, max(len(corpus), 1), time_limit=None, sets=sets)
                rows = [h.row for h in whole.hits if hidden is None or corpus.ids[h.row] not in hidden]
            papers = [corpus.paper(row) for row in rows]
            text = export_papers(papers, "bibtex", notes)
            path = write_new_file(Path.cwd(), export_name(query, date.today()), text.encode("utf-8"))
        except Exception as exc:  # a full disk or a read-only folder: said, never a crash
            self.post_message(ExportWritten(None, 0, f"{exc.__class__.__name__}: {exc}"))
            return
        self.post_message(ExportWritten(path, len(papers)))

    @on(ExportWritten)
    def _export_written(self, event: ExportWritten) -> None:
        if event.path is None:
            self.notify(f"Could not export the list: {event.error}", severity="error")
            return
        noun = "paper" if event.count == 1 else "papers"
        self.notify(f"Exported {event.count:,} {noun} as BibTeX to {clean_label(str(event.path))}")
