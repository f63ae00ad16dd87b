"""Clipboard: reports, never raises, when there is no clipboard; Markdown quote format."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from tui_reader.library.clipboard import CopyOutcome, as_markdown_quote, copy_text


@pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or any(shutil.which(t) for t in ("xclip", "xsel", "wl-copy", "klipper", "qdbus")),
    reason="needs a Linux machine without clipboard tools",
)
def test_copy_without_a_display_reports_instead_of_raising() -> None:
    assert "DISPLAY" not in os.environ and "WAYLAND_DISPLAY" not in os.environ
    outcome = copy_text("some abstract")
    assert isinstance(outcome, CopyOutcome)
    assert outcome.ok is False and "clipboard" in outcome.detail


def test_markdown_quote_with_sources() -> None:
    text = as_markdown_quote("A title", "The abstract.", ["a.txt", "b.json"])
    assert text == "**A title**\n\n> The abstract.\n\n\u2014 a.txt, b.json\n"


def test_markdown_quote_prefers_the_url() -> None:
    text = as_markdown_quote("T", "Abs.", ["a.txt"], url="https://example.org/p")
    assert text.endswith("\u2014 https://example.org/p\n") and "a.txt" not in text


def test_markdown_quote_without_a_source() -> None:
    assert as_markdown_quote("T", "Abs.", []) == "**T**\n\n> Abs.\n"
