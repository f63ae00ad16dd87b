"""Bookmarks, notes, tags and the selection: ``b``, ``n``, ``t`` act on the highlighted paper, or
on every selected paper when there is a selection (``v`` selects; Esc drops the selection).

The store writes in a thread worker; BookmarksChanged brings the new state back, and the screen's
``bookmarks`` reactive redraws the marks, the tags, the detail pane and (when the list shows only
bookmarks) the list.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from tui_reader.app.messages import BookmarksChanged, BookmarksNotSaved
from tui_reader.app.model import Restriction
from tui_reader.app.screens.note import NoteScreen
from tui_reader.app.screens.tags import TagScreen
from tui_reader.library.bookmarks import BookmarkStore, ReadOnlyStore

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.paper import Paper


class Annotator:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    def _run(self, work: partial[None]) -> None:
        self.screen.run_worker(work, thread=True, group="bookmarks", exit_on_error=False)

    # -- the selection --------------------------------------------------------------------------
    def targets(self) -> list[Paper]:
        """The selected papers (in list order), else the highlighted one."""
        screen, corpus = self.screen, self.screen.corpus
        if screen.selected and corpus is not None:
            rows = [r for r in screen.papers.rows if corpus.ids[r] in screen.selected]
            return [corpus.paper(r) for r in rows]
        paper = screen.current_paper()
        return [paper] if paper is not None else []

    def toggle_selected(self) -> None:
        screen = self.screen
        paper = screen.current_paper()
        if paper is None:
            return
        screen.selected ^= {paper.id}
        self._show_selection()
        screen.papers.action_cursor_down()

    def clear_selection(self) -> None:
        self.screen.selected = set()
        self._show_selection()
        self.screen.notify("Selection cleared.", timeout=2)

    def _show_selection(self) -> None:
        screen = self.screen
        papers = screen.papers
        papers.selected = frozenset(screen.selected)
        papers.refresh()

    # -- bookmarks ------------------------------------------------------------------------------
    def toggle_bookmark(self) -> None:
        store, papers = self.screen.store, self.targets()
        if store is None or not papers:
            return
        if len(papers) == 1:
            self._run(partial(self._toggle, store, papers[0]))
        else:
            self._run(partial(self._bookmark_all, store, papers))

    # Each change keeps a snapshot of the paper's citation fields with the bookmark (exports
    # without the collection open are complete).
    def _toggle(self, store: BookmarkStore, paper: Paper) -> None:
        try:
            on_now = store.toggle(paper.id, paper.title, snapshot=paper)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(BookmarksNotSaved("Bookmarks", exc))
            return
        told = ("Bookmarked: " if on_now else "Removed bookmark: ") + paper.title
        self.screen.post_message(BookmarksChanged(told))

    def _bookmark_all(self, store: BookmarkStore, papers: list[Paper]) -> None:
        """Every selected paper bookmarked (none is removed: ``b`` on one paper does that)."""
        try:
            added = store.add_many(papers)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(BookmarksNotSaved("Bookmarks", exc))
            return
        noun = "paper" if added == 1 else "papers"
        self.screen.post_message(BookmarksChanged(f"Bookmarked {added:,} selected {noun}."))

    def all_bookmarks(self) -> None:
        """``a``: every bookmark, from every collection; Enter on one here goes to it."""
        from tui_reader.app.screens.library import LibraryScreen

        screen, store, corpus = self.screen, self.screen.store, self.screen.corpus
        if store is None or corpus is None:
            screen.notify("The bookmarks open once the collection is loaded.", severity="warning")
            return

        def removed(_paper_id: str) -> None:
            screen.post_message(BookmarksChanged("Bookmark removed."))

        def went(paper_id: str | None) -> None:
            row = corpus.index_of.get(paper_id) if paper_id else None
            if row is not None:
                screen.go_to_row(row)

        screen.app.push_screen(LibraryScreen(store, corpus.index_of, corpus.get, on_removed=removed), went)

    def changed(self, event: BookmarksChanged) -> None:
        screen = self.screen
        if screen.store is not None:
            screen.bookmarks = tuple(screen.store.all())
        screen.notify(event.notice, timeout=3)
        if screen.model.view.restriction is Restriction.BOOKMARKS:
            screen.remember_place()
            screen.searching.refresh()

    # -- notes and tags -------------------------------------------------------------------------
    def edit_note(self) -> None:
        screen = self.screen
        paper, store = screen.current_paper(), screen.store
        if paper is None or store is None:
            return
        mark = store.get(paper.id)

        def save(note: str | None) -> None:
            if note is not None:
                self._run(partial(self._save_note, store, paper, note))

        screen.app.push_screen(NoteScreen(paper.title, mark.note if mark else ""), save)

    def _save_note(self, store: BookmarkStore, paper: Paper, note: str) -> None:
        try:
            store.set_note(paper.id, note, paper.title, snapshot=paper)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(BookmarksNotSaved("Note", exc))
            return
        self.screen.post_message(BookmarksChanged(f"Note saved: {paper.title}"))

    def edit_tags(self) -> None:
        """``t``: the highlighted paper's tags (with a selection: tags added to every one)."""
        screen, store, papers = self.screen, self.screen.store, self.targets()
        if store is None or not papers:
            return
        first = store.get(papers[0].id)
        now = first.tags if first is not None and len(papers) == 1 else []
        title = papers[0].title if len(papers) == 1 else f"{len(papers):,} selected papers"

        def save(tags: list[str] | None) -> None:
            if tags is None:
                return
            if not tags and (len(papers) > 1 or first is None or not first.tags):
                screen.notify("No tags given: nothing changed.", timeout=3)
                return
            self._run(partial(self._save_tags, store, papers, tags))

        screen.app.push_screen(TagScreen(title, now, store.tag_counts()), save)

    def _save_tags(self, store: BookmarkStore, papers: list[Paper], tags: list[str]) -> None:
        try:
            now: list[str] = []
            if len(papers) == 1:  # ``t`` on one paper edits its tags; on a selection it adds them
                now = store.set_tags(papers[0].id, tags, papers[0].title, snapshot=papers[0]).tags
            else:
                store.add_tags_many(papers, tags)
        except (ReadOnlyStore, OSError) as exc:
            self.screen.post_message(BookmarksNotSaved("Tags", exc))
            return
        if len(papers) > 1:
            told = f"Tagged {len(papers):,} papers {', '.join(tags)}."
        elif now:
            told = f"Tagged {', '.join(now)}: {papers[0].title}"
        else:
            told = f"Tags removed (still bookmarked): {papers[0].title}"
        self.screen.post_message(BookmarksChanged(told))
