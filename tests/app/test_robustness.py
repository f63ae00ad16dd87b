"""Copying, hostile text, broken files and a large corpus, through the real app."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import random
from collections.abc import Callable
from pathlib import Path

from pilot_helpers import detail_text, ready, settle, status_text, write_jsonl
from textual.widgets import Static

from tui_reader.app.app import ReaderApp

MakeApp = Callable[..., ReaderApp]


def notices(app: ReaderApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_copy_reaches_terminal_and_system_clipboard(make_app: MakeApp, fake_xclip: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        abstract = screen.corpus.paper(0).abstract
        assert app.clipboard == abstract
        assert fake_xclip.read_text() == abstract
        assert notices(app)[-1] == f"Copied the abstract ({len(abstract):,} chars)."
        await pilot.press("C")
        await app.workers.wait_for_complete()
        quote = fake_xclip.read_text()
        assert quote.startswith(f"**{screen.corpus.titles[0]}**") and f"> {abstract}" in quote
        assert app.clipboard == quote


async def test_copy_without_clipboard_tool_says_terminal_only(make_app: MakeApp, no_clipboard: None) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.clipboard == screen.corpus.paper(0).abstract
        assert any("terminal only" in n for n in notices(app))


HOSTILE_TITLE = "[red]x[/red] [@click=app.quit]quit[/] [/] [link=https://e.vil]y[/link]"
HOSTILE_ABSTRACT = (
    "Markup is data: [bold]not bold[/bold], [/], [@click=app.quit]click me[/] and "
    "\x1b[31mred escape\x1b[0m and \x1b]8;;https://e.vil\x07link\x1b]8;;\x07 stay text."
)


async def test_markup_and_escapes_in_files_are_shown_literally(make_app: MakeApp, tmp_path: Path) -> None:
    corpus = write_jsonl(
        tmp_path / "evil.jsonl",
        [
            {"title": HOSTILE_TITLE, "abstract": HOSTILE_ABSTRACT, "authors": "[b]Eve[/b]"},
            {"title": "A calm paper", "abstract": "Nothing to see here, only [brackets] in prose."},
        ],
    )
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        text = detail_text(app)
        assert HOSTILE_TITLE in text
        assert "[@click=app.quit]click me[/]" in text and "[bold]not bold[/bold]" in text
        assert "\x1b" not in text and "red escape" in text
        assert "[b]Eve[/b]" in text
        row = "".join(segment.text for segment in screen.papers.render_line(0))
        assert HOSTILE_TITLE[:40] in row
        await pilot.click("#detail-body")
        await pilot.press("j", "k")
        assert app.is_running
        await pilot.press("slash", *"click", "enter")
        await settle(pilot)
        assert app.is_running and screen.papers.rows


async def test_corrupt_bookmarks_file_is_set_aside(make_app: MakeApp, bookmarks_path: Path) -> None:
    garbage = b'{"version": 1, "bookmarks": [ {"id": "abc"'  # truncated mid-write
    bookmarks_path.write_bytes(garbage)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert any("corrupt" in n for n in notices(app))
        backups = list(bookmarks_path.parent.glob("bookmarks.json.corrupt-*"))
        assert len(backups) == 1 and backups[0].read_bytes() == garbage
        await pilot.press("b")
        await app.workers.wait_for_complete()
        saved = json.loads(bookmarks_path.read_text())
        assert [b["id"] for b in saved["bookmarks"]] == [screen.corpus.ids[0]]
        assert backups[0].read_bytes() == garbage


async def test_bad_source_files_are_reported_and_the_rest_loads(make_app: MakeApp, tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    write_jsonl(folder / "good.jsonl", [{"title": "Good paper", "abstract": "It loads fine."}])
    (folder / "broken.jsonl.gz").write_bytes(b"this is not gzip")
    (folder / "empty.json").write_text("")
    app = make_app(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert [screen.corpus.titles[r] for r in screen.papers.rows] == ["Good paper"]
        messages = " ".join(notices(app))
        assert "broken.jsonl.gz" in messages and "empty.json" in messages


def _big_corpus(path: Path, n: int) -> Path:
    rng = random.Random(7)
    words = [
        "graph",
        "learning",
        "neural",
        "model",
        "data",
        "robust",
        "sparse",
        "attention",
        "policy",
        "kernel",
        "bayesian",
        "vision",
        "language",
        "retrieval",
        "causal",
        "diffusion",
        "optimal",
        "transport",
        "theory",
    ]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for i in range(n):
            title = f"Paper {i:05d}: " + " ".join(rng.choice(words) for _ in range(6))
            abstract = " ".join(rng.choice(words) for _ in range(40)) + f" marker{i}."
            fh.write(
                json.dumps(
                    {"title": title, "abstract": abstract, "authors": "A. B; C. D", "venue": "synth2024"}
                )
                + "\n"
            )
    return path


async def test_20k_papers_browse_while_indexing(make_app: MakeApp, tmp_path: Path) -> None:
    corpus = _big_corpus(tmp_path / "big.jsonl.gz", 20_000)
    app = make_app(corpus)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        for _ in range(500):
            await pilot.pause(0.02)
            if getattr(screen, "corpus", None) is not None:
                break
        papers = screen.papers
        assert len(papers.rows) == 20_000
        await pilot.press("G")
        assert papers.cursor == 19_999
        assert "Paper 19999" in detail_text(app)
        await pilot.press("pageup", "k", "g")
        assert papers.cursor == 0
        status = status_text(screen)
        assert "20,000 papers of 20,000" in status
        if screen.searcher is None:  # still indexing: browsing works, search says when it starts
            assert "index: " in status and "ready" not in status
            await pilot.press("slash", *"marker19999")
            info = ""
            for _ in range(100):  # the titles' scan answers in a worker (a loaded machine: later)
                await pilot.pause(0.1)
                info = str(screen.query_one("#search-info", Static).visual)
                if screen.searcher is not None or "until the index is ready" in info:
                    break
            if screen.searcher is None:  # the build (a few seconds) may have finished meanwhile
                assert "until the index is ready" in info  # the titles' scan, labelled as such
            else:
                await app.workers.wait_for_complete()
                await pilot.pause(0.3)
                assert "1 match in" in str(screen.query_one("#search-info", Static).visual)
    # Quitting mid-build cancels it and leaves no half-built index folder behind.
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "tui-reader" / "index"
    for _ in range(100):
        if not list(cache.glob("*.build-*")):
            break
        await asyncio.sleep(0.1)
    assert not list(cache.glob("*.build-*"))


async def test_damaged_index_is_rebuilt_with_a_notice(make_app: MakeApp) -> None:
    first = make_app()
    async with first.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        index_dir = screen.index.dir
    for segment in index_dir.glob("*.seg"):
        segment.write_bytes(b"x" * segment.stat().st_size)  # same size, garbage inside
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.index_state == "ready"
        assert any("damaged" in n for n in notices(app))
        await pilot.press("slash", *"graph neural", "enter")
        await settle(pilot)
        assert screen.result is not None and screen.result.total >= 1
