"""Issue 13, the app's side: a huge abstract does not freeze the reader, and nothing from a file
(a name, an exception, a reason) reaches the terminal raw or is read as markup."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from pilot_helpers import detail_text, ready, settle, status_text, write_jsonl

from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import BookmarksNotSaved, IndexFailed, IndexProgress, IndexReady, LoadFailed
from tui_reader.app.widgets.paper_detail import DISPLAY_LIMIT
from tui_reader.library.bookmarks import ReadOnlyStore

MakeApp = Callable[..., ReaderApp]

HOSTILE = "\x1b]0;pwned\x07[red]x[/red]"
NAME = "\x1b]0;pwned\x07[red]x"  # no "/" in a file name; "[red]x" alone is markup too
SEEN = "\u241b]0;pwned\u2407[red]x"  # as shown: ESC and BEL made visible, the brackets kept
WORDS = ["graph", "learning", "neural", "model", "data", "robust", "sparse", "attention", "policy"]


def notices(app: ReaderApp) -> list[str]:
    return [n.message for n in app._notifications]


def _huge_corpus(path: Path) -> Path:
    rng = random.Random(3)
    huge = " ".join(rng.choice(WORDS) for _ in range(150_000)) + " zebra."  # ~1 MB
    records = [
        {"title": f"Normal paper {i}", "abstract": f"A short abstract {i} on graph data."} for i in range(5)
    ]
    records.insert(1, {"title": "The huge one", "abstract": huge})
    return write_jsonl(path, records)


async def test_a_huge_abstract_is_shown_truncated_and_copied_whole(
    make_app: MakeApp, tmp_path: Path, fake_xclip: Path
) -> None:
    corpus = _huge_corpus(tmp_path / "huge.jsonl")
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None and len(screen.corpus.abstract(1)) > 1_000_000
        await pilot.press("j")
        await pilot.pause()
        text = detail_text(app)
        full = screen.corpus.abstract(1)
        assert f"… (abstract truncated for display: {len(full):,} characters; c copies it whole)" in text
        assert len(text) < DISPLAY_LIMIT + 500 and "zebra" not in text
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.clipboard == full and fake_xclip.read_text() == full
        assert any(f"({len(full):,} chars)" in n for n in notices(app))
        # the detail pane reads the huge abstract with the keys too
        await pilot.press("tab")  # focus moves: the next key in a call of its own
        await pilot.press("G")
        await pilot.pause()
        assert screen.detail.scroll_y > 100
        # in a result, the row's snippet is bounded (cut around the match)
        await pilot.press("escape", "slash", *"zebra", "enter")
        await settle(pilot)
        assert list(screen.papers.rows) == [1]
        snippet, _ = screen.papers.snippets[1]  # Whoosh looks for it in the first 32k characters
        assert 0 < len(snippet) < 1_000
        assert len(screen.papers.render_line(1).text) == screen.papers.scrollable_content_region.width
        assert "truncated for display" in detail_text(app)


async def test_hostile_file_names_and_messages_are_shown_inert(make_app: MakeApp, tmp_path: Path) -> None:
    # "/" cannot be in a file name: the folder's name opens the markup, the files' names close it
    folder = tmp_path / "evil\x1b]0;pwned\x07[red]x["
    folder.mkdir()
    write_jsonl(folder / f"red]good{NAME}.jsonl", [{"title": "A paper", "abstract": "Plain words here."}])
    (folder / f"red]bad{NAME}.jsonl.gz").write_bytes(b"not gzip at all")
    app = make_app(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        sources = detail_text(app)
        assert f"red]good{SEEN}.jsonl" in sources
        warning = f"evil{SEEN}[/red]bad{SEEN}.jsonl.gz"
        assert any(warning in n for n in notices(app))  # the broken file's warning, markup and all
        assert screen.corpus is not None and screen.index is not None and screen.searcher is not None
        # what workers report, carrying data: each handler shows it inert
        screen.post_message(IndexProgress(f"indexing {HOSTILE}"))
        await pilot.pause()
        assert "[red]x[/red]" in status_text(screen)
        screen.post_message(IndexReady(screen.index, screen.searcher, f"the index was odd {HOSTILE}"))
        screen.post_message(IndexFailed(RuntimeError(f"kaput {HOSTILE}")))
        screen.post_message(BookmarksNotSaved("Note", ReadOnlyStore(f"could not save bookmarks: {HOSTILE}")))
        screen.post_message(LoadFailed(PermissionError(f"denied {HOSTILE}")))
        await pilot.pause()
        await pilot.pause()
        shown = notices(app)
        for fragment in ("The index was odd", "kaput", "Note not saved", "denied"):
            assert any(fragment in n and "[red]x[/red]" in n for n in shown), fragment
        assert "denied \u241b]0;pwned" in screen.papers.empty_text
        status = status_text(screen)
        for text in [
            sources,
            status,
            screen.papers.empty_text,
            *shown,
            *(n.title for n in app._notifications),
        ]:
            assert "\x1b" not in text and "\x07" not in text
        assert not any(n.markup for n in app._notifications)


async def test_a_failed_bookmark_save_says_so_once(make_app: MakeApp, bookmarks_path: Path) -> None:
    bookmarks_path.write_text(json.dumps({"version": 99, "bookmarks": []}))  # from a newer reader
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        failed = [n.message for n in app._notifications if n.severity == "error"]
        assert len(failed) == 1
        assert failed[0].startswith(f"Bookmarks not saved: {bookmarks_path} is from a newer tui-reader")
        assert "could not save" not in failed[0].lower() and failed[0].endswith(".")
