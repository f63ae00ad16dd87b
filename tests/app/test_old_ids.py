"""A bookmark and a tag saved under a paper's id before issue 18 still show in the reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pilot_helpers import drained, enter_query, ready, shown_titles

from tui_reader.app.app import ReaderApp
from tui_reader.corpus.paper import paper_id
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]


async def test_a_bookmark_under_the_old_id_shows_as_bookmarked(
    make_app: MakeApp, bookmarks_path: Path, tmp_path: Path
) -> None:
    refs = tmp_path / "refs.bib"
    refs.write_text(
        "@article{smith2020,\n  title = {Sparse matchings},\n  author = {Smith, John},\n  year = {2020},\n}\n"
        "@article{lee2019,\n  title = {Dense flows},\n  author = {Lee, Ann},\n  year = {2019},\n}\n",
        "utf-8",
    )
    old = paper_id("", "Dense flows")  # its id before issue 18
    store = BookmarkStore(bookmarks_path)
    store.add(old, "Dense flows", "my note")
    store.set_tags(old, ["toread"])
    app = make_app(refs)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        new = screen.corpus.ids[screen.corpus.titles.index("Dense flows")]
        assert new != old and new in screen.papers.marked
        assert screen.papers.tags == {new: "#toread"}
        await enter_query(pilot, "is:bookmarked")
        await drained(pilot)
        assert shown_titles(screen) == ["Dense flows"]
        await enter_query(pilot, "tag:toread")
        await drained(pilot)
        assert shown_titles(screen) == ["Dense flows"]
