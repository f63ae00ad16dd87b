"""A first launch lists papers while the files are still being read: rows and a climbing count
come batch by batch, the list can be browsed and abstracts read meanwhile, and the collection
it ends with is the one a plain load gives, the cursor still on the paper it was on.

The loading thread is paced by the test (it waits after each batch until the test lets it go
on), so what is on screen between two batches is known; the files and the parse are real."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import detail_text, ready, status_text, write_jsonl
from textual.pilot import Pilot

from tui_reader import paths
from tui_reader.app.app import ReaderApp
from tui_reader.app.screens import loading as main_screen
from tui_reader.app.screens.main import MainScreen
from tui_reader.corpus import parse_cache
from tui_reader.corpus.loading import load_corpus

MakeApp = Callable[..., ReaderApp]
BATCH = 8  # rows per batch in these tests


def _records(first: int, n: int) -> list[dict[str, object]]:
    return [
        {"title": f"Paper {k:03d} on topic {k % 5}", "abstract": f"Abstract {k}: results on topic {k % 5}."}
        for k in range(first, first + n)
    ]


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", _records(0, 60) + _records(10, 3))  # three duplicates
    write_jsonl(folder / "b.jsonl", _records(60, 40))
    return folder


class Gate:
    """Holds the loading thread after each batch until the test lets it go on."""

    def __init__(self) -> None:
        self.permits = threading.Semaphore(0)
        self.batches = 0
        self.done = threading.Event()  # the loader returned or raised

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            self.permits.release()

    def open(self) -> None:
        self.step(10_000)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Gate:
    """Small batches, and the screen's loader paced: after it shows a batch it waits."""
    monkeypatch.setattr(parse_cache, "STREAM_ROWS", BATCH)
    monkeypatch.setattr(parse_cache, "STREAM_SECONDS", 0.0)
    gate = Gate()
    real = main_screen.load_corpus

    def paced(inputs: Any, on_batch: Any = None, **kwargs: Any) -> Any:
        def step(corpus: Any, count: int) -> None:
            on_batch(corpus, count)
            gate.batches += 1
            gate.permits.acquire(timeout=20)

        try:
            return real(inputs, on_batch=step, **kwargs)
        finally:
            gate.done.set()

    monkeypatch.setattr(main_screen, "load_corpus", paced)
    return gate


async def until(pilot: Pilot, test: Callable[[], bool], what: str) -> None:
    for _ in range(500):
        if test():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


async def test_rows_and_count_come_before_the_load_ends_and_browsing_works(
    make_app: MakeApp, collection: Path, gate: Gate
) -> None:
    app = make_app(collection)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await until(pilot, lambda: screen.loaded > 0, "a first batch")
        first = screen.loaded
        assert screen.corpus is None  # still loading
        assert len(screen.papers.rows) == first and first < 20
        assert status_text(screen).startswith(f"Reading papers… {first:,}")
        await until(pilot, lambda: "Abstract 0:" in detail_text(app), "the first abstract")
        assert "Paper 000 on topic 0" in detail_text(app) and screen.papers.highlighted_row == 0

        await pilot.press("j", "j", "j")  # browsing while the files are read
        assert screen.papers.highlighted_row == 3
        assert "Abstract 3:" in detail_text(app)

        seen = [screen.loaded]
        for _ in range(4):
            batches = gate.batches
            gate.step()
            await until(pilot, lambda b=batches: gate.batches > b, "the next batch")
            await until(pilot, lambda: screen.loaded != seen[-1], "a larger count")
            seen.append(screen.loaded)
            assert screen.papers.highlighted_row == 3 and "Abstract 3:" in detail_text(app)
            assert len(screen.papers.rows) == screen.loaded
            assert status_text(screen).startswith(f"Reading papers… {screen.loaded:,}")
        assert seen == sorted(seen) and len(set(seen)) == len(seen)

        await pilot.press("G")  # to the last paper read so far, and its abstract
        last = screen.loaded - 1
        assert screen.papers.highlighted_row == last
        assert screen.corpus is None and f"Abstract {last}:" in detail_text(app)
        await pilot.press("g", "j", "j", "j", "j")

        gate.open()
        screen = await ready(pilot)
        final = load_corpus([collection])
        assert screen.corpus is not None and screen.corpus.ids == final.ids
        assert screen.corpus.titles == final.titles and len(final) == 100
        assert list(screen.papers.rows) == list(range(100))
        assert screen.papers.highlighted_row == 4 and screen.highlighted == 4  # where the reader was
        assert "Abstract 4:" in detail_text(app)
        assert status_text(screen).startswith("100 papers of 100") and screen.loaded == 0


async def test_a_cached_collection_opens_without_streaming(make_app: MakeApp, collection: Path) -> None:
    load_corpus([collection])  # the parse cache is written
    app = make_app(collection)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus is not None and len(screen.corpus) == 100
        assert "Paper 000 on topic 0" in detail_text(app)


@pytest.mark.cold_cache
async def test_closing_while_loading_stops_the_parse_and_leaves_no_temp_file(
    make_app: MakeApp, collection: Path, gate: Gate
) -> None:
    app = make_app(collection)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await until(pilot, lambda: screen.loaded > 0, "a first batch")
        workers = [w for w in app.workers if w.group == "load"]
        for worker in workers:
            worker.cancel()  # what closing the reader does to its workers
        gate.open()
        assert gate.done.wait(20)
        await pilot.pause()
        assert screen.corpus is None and gate.batches < 5  # it stopped at the next batch
    parsed = paths.cache_dir() / "parsed"
    assert not list(parsed.glob(".parse-*")) and not list(parsed.glob("*.meta"))


async def test_a_file_failing_midway_leaves_the_cursor_on_the_paper_it_was_on(
    make_app: MakeApp, collection: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure nobody foresaw in a.jsonl after its first papers were listed (injected into the
    reading of its lines): the collection ends without that file, b's rows move up, and the
    cursor stays on the b paper it was on, by its id."""
    real = parse_cache.stream_jsonl

    def failing(path: Path, warnings: list[str]):  # type: ignore[no-untyped-def]
        for n, record in enumerate(real(path, warnings)):
            if path.name == "a.jsonl" and n == 20:
                raise RuntimeError("the disk went away")
            yield record

    monkeypatch.setattr(parse_cache, "stream_jsonl", failing)
    app = make_app(collection)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        while screen.loaded < 30:  # a's first papers, then some of b's
            batches = gate.batches
            gate.step()
            await until(pilot, lambda b=batches: gate.batches > b or gate.done.is_set(), "a batch")
            await pilot.pause()
        await pilot.press("G")
        row, growing = screen.papers.highlighted_row, screen.loader.growing_corpus
        assert row is not None and growing is not None and row >= 20
        pid = growing.ids[row]
        paper = growing.paper(row)
        assert paper.sources == ["b.jsonl"] and paper.abstract in detail_text(app)
        gate.open()
        screen = await ready(pilot)
        assert screen.corpus is not None and screen.corpus is not growing and len(screen.corpus) == 40
        now = screen.papers.highlighted_row
        assert now is not None and now != row and screen.corpus.ids[now] == pid
        assert any("could not be read" in m.message for m in app._notifications)


async def test_a_query_typed_while_loading_wins_over_the_last_sessions(
    make_app: MakeApp, collection: Path, gate: Gate
) -> None:
    from tui_reader.library.session import Session, SessionStore

    key = load_corpus([collection], use_cache=False).key
    SessionStore(paths.data_dir() / "session.json").save(key, Session(query="topic 1"), [str(collection)])
    app = make_app(collection)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await until(pilot, lambda: screen.loaded > 0, "a first batch")
        await pilot.press("slash")
        screen.search_bar.input.value = "topic 2"  # typed before the collection is read
        await pilot.press("enter")
        gate.open()
        screen = await ready(pilot)
        await until(pilot, lambda: screen.result is not None, "an answer")
        assert screen.search_bar.value == "topic 2"
        assert screen.result is not None and screen.result.query == "topic 2"
