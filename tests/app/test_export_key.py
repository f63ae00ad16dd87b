"""``E`` writes the list as it stands to a new BibTeX file in the current folder: exactly the
search's answer in the list's order (all of it, also when the list has loaded only a page), never
over a file already there, named in the notice."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date
from pathlib import Path

import bibtexparser
import pytest
from pilot_helpers import drained, ready, settle

from tui_reader.app.app import ReaderApp
from tui_reader.app.messages import ResultsReady
from tui_reader.library.citekeys import cite_keys

MakeApp = Callable[..., ReaderApp]


def keys_in(path: Path) -> list[str]:
    library = bibtexparser.parse_string(path.read_text("utf-8"))
    assert library.failed_blocks == []
    return [e.key for e in library.entries]


async def search(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("slash", *text)
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def test_e_exports_exactly_the_shown_results(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    app = make_app()
    notices: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        monkeypatch.setattr(screen, "notify", lambda message, **kw: notices.append(message))
        await search(pilot, "learning")
        corpus, rows = screen.corpus, list(screen.papers.rows)
        assert corpus is not None and 1 < len(rows) < len(corpus)
        await pilot.press("E")
        await drained(pilot)
        name = f"tui-reader-export-learning-{date.today().isoformat()}.bib"
        shown = [corpus.paper(r) for r in rows]
        keys = cite_keys(shown)
        assert keys_in(folder / name) == [keys[p.id] for p in shown]
        assert any(name in n and f"Exported {len(rows)} papers" in n for n in notices), notices

        await pilot.press("E")  # again: a new file beside it, the first one kept
        await drained(pilot)
        second = folder / name.replace(".bib", "-1.bib")
        assert second.read_text("utf-8") == (folder / name).read_text("utf-8")
        assert any(second.name in n for n in notices), notices


async def test_e_exports_the_whole_answer_when_the_list_holds_a_page(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await search(pilot, "learning")
        await drained(pilot)  # no answer still on its way to replace the page set below
        result, corpus = screen.result, screen.corpus
        assert result is not None and corpus is not None and result.total > 3
        page = dataclasses.replace(result, hits=result.hits[:3])  # the list's first page only
        screen.searching._loading_more = True  # the list must keep the page: no more pages now
        screen.post_message(ResultsReady(screen.model.request(), page, [h.row for h in page.hits]))
        await drained(pilot)
        assert len(screen.papers.rows) == 3
        searcher = screen.searcher
        assert searcher is not None
        whole = searcher.search("learning", limit=len(corpus), time_limit=None)
        await pilot.press("E")
        await drained(pilot)
        [path] = tmp_path.glob("tui-reader-export-learning-*.bib")
        papers = [corpus.paper(h.row) for h in whole.hits]
        keys = cite_keys(papers)
        assert keys_in(path) == [keys[p.id] for p in papers]
        assert len(papers) == result.total
