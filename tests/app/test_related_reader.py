"""``M``, what am I missing, in the real reader (Pilot): a draft's path or pasted text becomes a
view of the papers most like it, those it cites marked on their snippet line, read in a worker;
Esc comes back exactly; a hostile draft is one notice and no view."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_helpers import drained, notices, ready, shown_titles, status_text
from textual.widgets import Button, Input, TextArea

import tui_reader.app.screens.related as related_screen
from tui_reader.app.app import ReaderApp
from tui_reader.app.model import Kind
from tui_reader.app.screens.related import CITED, DraftScreen, cited_snippet

FIXTURES = Path(__file__).parent.parent / "fixtures" / "related"
CITED_TITLES = {
    "Denoising Diffusion Probabilistic Models",
    "Score-Based Generative Modeling through Stochastic Differential Equations",
}
DIFFUSION = CITED_TITLES | {
    "Classifier-Free Diffusion Guidance",
    "High-Resolution Image Synthesis with Latent Diffusion Models",
    "Diffusion Models Beat GANs on Image Synthesis",
}
MakeApp = Callable[..., ReaderApp]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "papers"
    shutil.copytree(FIXTURES, out)
    return out


def marked(screen) -> set[str]:  # type: ignore[no-untyped-def]
    """Titles whose snippet line starts with the cited mark."""
    corpus, papers = screen.corpus, screen.papers
    return {corpus.titles[r] for r in papers.rows if papers.snippets.get(r, ("",))[0].startswith(CITED)}


async def ask(pilot, path: str = "", text: str = "") -> None:  # type: ignore[no-untyped-def]
    await pilot.press("M")
    await pilot.pause()
    modal = pilot.app.screen
    assert isinstance(modal, DraftScreen)
    if text:
        modal.query_one(TextArea).text = text
        await pilot.press("ctrl+s")
    else:
        modal.query_one(Input).value = path
        modal.query_one(Input).focus()
        await pilot.press("enter")
    await drained(pilot)


async def test_a_draft_lists_its_papers_cited_ones_marked_and_esc_returns(
    make_app: MakeApp, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    real = related_screen.read_draft

    def reading(path: Path):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real(path)

    monkeypatch.setattr(related_screen, "read_draft", reading)
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        before = list(screen.papers.rows)
        await pilot.press("j", "j")
        cursor = screen.papers.highlighted_row
        await ask(pilot, str(folder / "draft.tex"))
        assert screen.model.view.kind is Kind.RELATED and screen.model.depth == 2
        titles = shown_titles(screen)
        assert set(titles[:5]) == DIFFUSION
        assert marked(screen) == CITED_TITLES
        assert "like draft.tex · 2 cited" in status_text(screen)
        assert threads and threads[0] != threading.main_thread().name  # read in a worker
        assert screen.check_action("cycle_sort", ()) is None  # its answer is asked once
        assert screen.check_action("similar", ()) is True
        await pilot.press("escape")
        await drained(pilot)
        assert screen.model.view.kind is Kind.COLLECTION and screen.model.depth == 1
        assert list(screen.papers.rows) == before and screen.papers.highlighted_row == cursor


async def test_the_marks_survive_a_similar_view_and_back(make_app: MakeApp, folder: Path) -> None:
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await ask(pilot, str(folder / "draft.tex"))
        assert marked(screen) == CITED_TITLES
        await pilot.press("s")
        await drained(pilot)
        assert screen.model.view.kind is Kind.SIMILAR and not marked(screen)
        await pilot.press("escape")
        await drained(pilot)
        await pilot.pause(0.05)
        await drained(pilot)
        assert screen.model.view.kind is Kind.RELATED
        assert marked(screen) == CITED_TITLES  # the snippets asked again come with their marks


async def test_pasted_text_is_a_draft_too(make_app: MakeApp, folder: Path) -> None:
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await ask(pilot, str(folder / "draft.tex"))
        await pilot.press("escape")
        await drained(pilot)
        await ask(
            pilot, text="Policy gradient methods and deep Q-networks for reinforcement learning agents."
        )
        assert screen.model.view.related == "pasted text"
        assert set(shown_titles(screen)[:2]) == {
            "Proximal Policy Optimization Algorithms",
            "Human-Level Control through Deep Reinforcement Learning",
        }
        assert not marked(screen)
        assert screen.model.depth == 2  # the pasted text won over the path the modal kept


async def test_a_hostile_draft_is_one_notice_and_no_view(make_app: MakeApp, folder: Path) -> None:
    (folder / "core.tex").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64)
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await ask(pilot, str(folder / "core.tex"))
        assert screen.model.view.kind is Kind.COLLECTION and screen.model.depth == 1
        said = [n for n in notices(app) if "What am I missing" in n]
        assert said and "not a text file" in said[-1] and "\n" not in said[-1]
        await ask(pilot, str(folder / "missing.tex"))
        assert "no such file" in notices(app)[-1] and screen.model.depth == 1


def drawn_cited(screen) -> set[str]:  # type: ignore[no-untyped-def]
    """Titles whose snippet line, as the list draws it, shows the cited mark."""
    papers, corpus = screen.papers, screen.corpus
    lines = [papers.render_line(y).text for y in range(papers.scrollable_content_region.height)]
    top = int(papers.scroll_y) // 2
    return {
        corpus.titles[papers.rows[top + n // 2]]
        for n, line in enumerate(lines)
        if n % 2 and top + n // 2 < len(papers.rows) and CITED.split(" ·")[0] in line
    }


async def test_the_cited_mark_is_drawn_even_when_the_match_is_far_in(make_app: MakeApp, folder: Path) -> None:
    """The list starts a snippet line near its first match: the mark must not be cut off."""
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await ask(pilot, str(folder / "draft.tex"))
        await pilot.pause()
        assert drawn_cited(screen) == CITED_TITLES


def test_cited_snippet_keeps_the_mark_first_and_the_match_near() -> None:
    text = "word " * 20 + "diffusion models"
    spans = [(100, 109)]
    shown, marks = cited_snippet(text, spans)
    assert shown.startswith(CITED + "…") and marks[0] == (0, len("✓ cited"))
    a, b = marks[1]
    assert shown[a:b] == "diffusion" and a < 30
    assert cited_snippet("diffusion", [(0, 9)]) == (CITED + "diffusion", [(0, 7), (10, 19)])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_draft_modal_fits_the_terminal(
    make_app: MakeApp, folder: Path, size: tuple[int, int]
) -> None:
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("M")
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, DraftScreen)
        for button in modal.query(Button):
            assert button.region.bottom <= size[1] and button.region.height > 0


async def test_m_needs_the_index(make_app: MakeApp, folder: Path) -> None:
    app = make_app(folder / "collection.bib")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        assert screen.check_action("related_draft", ()) is True
        searcher, screen.searcher = screen.searcher, None  # as before the index is ready
        try:
            assert screen.check_action("related_draft", ()) is None
        finally:
            screen.searcher = searcher
