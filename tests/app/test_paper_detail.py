"""The detail pane's text: the normalised venue and year, and data that stays data."""

from __future__ import annotations

from tui_reader.app.widgets.paper_detail import paper_content
from tui_reader.corpus.formats import make_paper


def test_detail_shows_the_normalised_venue_and_year() -> None:
    paper = make_paper("Kernel methods for tabular data.", "x.jsonl", "Kernels", "A. B", "icml2019")
    assert paper is not None
    assert "\nICML 2019\n" in paper_content(paper, None, [], []).plain


def test_detail_venue_text_is_not_markup() -> None:
    paper = make_paper("An abstract.", "x.jsonl", "T", "A. B", "[bold]Odd[/bold] Venue 2020")
    assert paper is not None
    content = paper_content(paper, None, [], [])
    assert "\n[bold]Odd[/bold] Venue 2020\n" in content.plain
    start = content.plain.index("[bold]Odd")
    assert all("bold" not in str(s.style) for s in content.spans if s.start <= start < s.end)
