"""Tags: ``t`` edits the highlighted paper's (tagging bookmarks it), the list shows them at the end
of each tagged paper's line, and ``tag:name`` finds them (the sets are ReaderState.search_sets).

The store writes in a thread worker, as every bookmark change does; BookmarksChanged brings the
new state back (actions.py handles it), and the watcher below turns it into the list's labels.
"""

from __future__ import annotations

from textual import events, on, work

from tui_reader.app.messages import BookmarksChanged, BookmarksNotSaved
from tui_reader.app.screens.faceting import Faceting
from tui_reader.app.screens.tags import TagScreen
from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import Bookmark, BookmarkStore, ReadOnlyStore


class Annotating(Faceting):
    @on(events.Mount)
    def _watch_tags(self) -> None:
        # MainScreen has the bookmarks' own watcher; this one adds the list's tag labels
        self.watch(self, "bookmarks", self._show_tags, init=False)

    def _show_tags(self, bookmarks: tuple[Bookmark, ...]) -> None:
        self.papers.tags = {b.id: tag_label(b.tags) for b in bookmarks if b.tags}

    def action_edit_tags(self) -> None:
        paper, store = self._current_paper(), self.store
        if paper is None or store is None:
            return
        mark = store.get(paper.id)

        def save(tags: list[str] | None) -> None:
            if tags is None:
                return
            if not tags and (mark is None or not mark.tags):
                self.notify("No tags given: nothing changed.", timeout=3)
                return
            self.save_tags(store, paper, tags)

        self.app.push_screen(TagScreen(paper.title, mark.tags if mark else [], store.tag_counts()), save)

    @work(thread=True, group="bookmarks")
    def save_tags(self, store: BookmarkStore, paper: Paper, tags: list[str]) -> None:
        try:
            mark = store.set_tags(paper.id, tags, paper.title, snapshot=paper)
        except (ReadOnlyStore, OSError) as exc:
            self.post_message(BookmarksNotSaved("Tags", exc))
            return
        if mark.tags:
            told = f"Tagged {', '.join(mark.tags)}: {paper.title}"
        else:
            told = f"Tags removed (still bookmarked): {paper.title}"
        self.post_message(BookmarksChanged(told))
