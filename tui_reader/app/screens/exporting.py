"""``E``: the list as it stands (the selection if there is one; else the view's whole answer, in
its order and restriction) written as BibTeX to a new file in the current folder,
``tui-reader-export-<query>-<date>.bib`` (``-1``, ``-2``... rather than over a file), in a worker;
the notice names the file.

The list holds a search's answer a page at a time: when more is left to load, the worker asks
the searcher for every match (no time limit), in the same relevance order the list is in, and
keeps the view's restriction.
"""

from __future__ import annotations

from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader.app.messages import ExportWritten
from tui_reader.app.model import Kind, Restriction
from tui_reader.corpus.text import clean_label
from tui_reader.library.export import export_name, export_papers, write_new_file
from tui_reader.search import SearchMode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Searcher, SearchResult, Sets


class Exporter:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    def export(self) -> None:
        screen = self.screen
        corpus = screen.corpus
        if corpus is None:
            screen.notify("Nothing to export yet: the collection is still loading.", severity="warning")
            return
        top = screen.model.top
        result = top.result
        rows: Sequence[int] = list(screen.papers.rows)
        more = None
        if screen.selected:
            rows = [r for r in rows if corpus.ids[r] in screen.selected]
        elif result is not None and len(result.hits) < result.total and top.view.kind is not Kind.SIMILAR:
            more = result
        hidden = self._hidden(corpus, top.view.restriction)
        notes = {mark.id: mark.note for mark in screen.bookmarks if mark.note}
        query = result.query if result is not None else ""
        work = partial(
            self._write, corpus, rows, more, screen.searcher, screen.search_sets, hidden, notes, query
        )
        screen.run_worker(work, thread=True, group="export", exit_on_error=False)

    def _hidden(self, corpus: Corpus, restriction: Restriction) -> frozenset[str] | None:
        """Ids the restriction would leave out of rows fetched anew; None: it shows every match."""
        screen = self.screen
        if restriction is Restriction.BOOKMARKS:
            return frozenset(corpus.ids) - {mark.id for mark in screen.bookmarks}
        if restriction is Restriction.UNREAD:
            return screen.read
        return None

    def _write(
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
        post = self.screen.post_message
        try:
            if more is not None and searcher is not None:
                mode = SearchMode.MORE if more.typing else SearchMode.ENTER
                whole = searcher.search(more.query, mode, max(len(corpus), 1), time_limit=None, sets=sets)
                rows = [h.row for h in whole.hits if hidden is None or corpus.ids[h.row] not in hidden]
            papers = [corpus.paper(row) for row in rows]
            text = export_papers(papers, "bibtex", notes)
            path = write_new_file(Path.cwd(), export_name(query, date.today()), text.encode("utf-8"))
        except Exception as exc:  # a full disk or a read-only folder: said, never a crash
            post(ExportWritten(None, 0, f"{exc.__class__.__name__}: {exc}"))
            return
        post(ExportWritten(path, len(papers)))

    def written(self, event: ExportWritten) -> None:
        if event.path is None:
            self.screen.notify(f"Could not export the list: {event.error}", severity="error")
            return
        noun = "paper" if event.count == 1 else "papers"
        self.screen.notify(f"Exported {event.count:,} {noun} as BibTeX to {clean_label(str(event.path))}")
