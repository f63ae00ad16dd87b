"""Tags, multi-line notes (in the modal and in $EDITOR), copying citations, bookmark snapshots:
the real reader over real files, driven with Pilot; the stores are the real files in temp dirs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import bibtexparser
import pytest
from pilot_helpers import detail_text, drained, enter_query, fake_tool, notices, ready, shown_titles
from textual.command import CommandList
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tui_reader.app.app import ReaderApp
from tui_reader.app.editor import EditorFailed, editor_command
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.screens.note import NoteScreen
from tui_reader.app.screens.tags import TagScreen, complete, tag_query
from tui_reader.app.widgets.paper_list import tag_label
from tui_reader.corpus.corpus import Corpus
from tui_reader.library.bookmarks import BookmarkStore

MakeApp = Callable[..., ReaderApp]
ZOTERO = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "zotero.bib"


def saved(path: Path) -> dict[str, dict[str, object]]:
    return {m.id: m.to_dict() for m in BookmarkStore(path).all()}  # snapshots inline, from their packs


def prompts(app: ReaderApp) -> list[str]:
    """What the command palette lists now."""
    return [str(o.prompt) for o in app.screen.query_one(CommandList).options]


async def tag(pilot: Pilot, *keys: str) -> None:
    """``t``, the keys typed into the tag line, Enter; then the write lands."""
    await pilot.press("t")
    assert isinstance(pilot.app.screen, TagScreen)
    await pilot.press(*keys)
    await pilot.pause()
    await pilot.press("enter")
    await drained(pilot)


# -- tags -------------------------------------------------------------------------------------
def test_completion_takes_the_word_after_the_last_comma() -> None:
    tags = ["toread", "Survey", "two words"]
    assert complete("to", tags) == "toread"
    assert complete("toread, su", tags) == "toread, Survey"  # case-blind, the tag's spelling wins
    assert complete("toread,  tw", tags) == "toread,  two words"
    assert complete("toread, to", tags) is None  # already on the line
    assert complete("toread, ", tags) is None and complete("x", tags) is None
    assert tag_query("toread") == "tag:toread" and tag_query("two words") == 'tag:"two words"'
    assert tag_label(["ml", "two words"]) == '#ml #"two words"'


async def test_t_tags_with_completion_and_tag_queries_narrow(make_app: MakeApp, bookmarks_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        corpus = screen.corpus
        await tag(pilot, *"toread")
        first = corpus.ids[0]
        assert saved(bookmarks_path)[first]["tags"] == ["toread"]  # tagging bookmarked it
        assert saved(bookmarks_path)[first]["paper"]["title"] == corpus.titles[0]  # with a snapshot
        assert "Tags: #toread" in detail_text(app) and first in screen.papers.marked
        assert screen.papers.tags == {first: "#toread"}  # the list's label for the row

        await pilot.press("j", "t")
        line = app.screen.query_one(Input)
        assert line.value == ""
        await pilot.press("t", "o")
        await pilot.pause(0.1)
        await pilot.press("right")  # takes Input's completion
        assert line.value == "toread"
        await pilot.press("comma", "space", *"sur", "enter")
        await drained(pilot)
        second = corpus.ids[1]
        assert saved(bookmarks_path)[second]["tags"] == ["sur", "toread"]

        await pilot.press("t")  # pre-filled with the paper's tags; Tab completes too
        line = app.screen.query_one(Input)
        assert line.value == "sur, toread, "
        line.value = "t"
        await pilot.press("tab")
        assert line.value == "toread, "  # the most used first
        assert "In use: toread (2), sur (1)" in str(app.screen.query_one("#tags-in-use").visual)
        line.value = ""  # an empty line: no tags, the bookmark stays
        await pilot.press("enter")
        await drained(pilot)
        assert saved(bookmarks_path)[second].get("tags") is None and second in screen.papers.marked

        await enter_query(pilot, "tag:TOREAD")
        assert {corpus.ids[r] for r in screen.papers.rows} == {first}
        await enter_query(pilot, "is:tagged")
        assert {corpus.ids[r] for r in screen.papers.rows} == {first}
        await enter_query(pilot, "tag:nothing")
        assert not screen.papers.rows and screen.result is not None
        assert "no paper is tagged 'nothing'" in (screen.result.notice or "")


async def test_a_tag_with_a_quote_is_refused_and_esc_cancels(make_app: MakeApp, bookmarks_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("t")
        app.screen.query_one(Input).value = 'say "hi"'
        await pilot.press("enter")
        assert isinstance(app.screen, TagScreen)
        assert "double quote" in str(app.screen.query_one("#tags-problem").visual)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await drained(pilot)
        assert not bookmarks_path.exists()


async def test_the_palette_lists_tags_with_counts(
    make_app: MakeApp, bookmarks_path: Path, seed_corpus: Corpus
) -> None:
    ids = seed_corpus.ids
    store = BookmarkStore(bookmarks_path)
    for pid in ids[3:5]:
        store.set_tags(pid, ["deep learning", "toread"])
    store.set_tags(ids[7], ["toread"])
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert screen.corpus.ids[:8] == ids[:8]
        assert screen.papers.tags[ids[7]] == "#toread"  # the list shows tags from the start
        await pilot.press("ctrl+p")
        await pilot.pause(0.4)
        assert "Tag: toread (3)\nsearch tag:toread" in prompts(app)  # listed when it opens
        app.screen.query_one(Input).value = "tag"
        await pilot.pause(0.4)
        found = prompts(app)
        assert 'Tag: deep learning (2)\nsearch tag:"deep learning"' in found
        app.screen.query_one(CommandList).highlighted = next(
            i for i, p in enumerate(found) if p.startswith("Tag: toread (3)")
        )
        await pilot.press("enter")
        await drained(pilot)
        assert screen.search_bar.value == "tag:toread"
        assert {ids[r] for r in screen.papers.rows} == {ids[3], ids[4], ids[7]}
        await pilot.press("ctrl+p")
        await pilot.pause(0.1)
        app.screen.query_one(Input).value = "deep learn"
        await pilot.pause(0.4)
        chosen = next(i for i, p in enumerate(prompts(app)) if p.startswith("Tag: deep learning"))
        app.screen.query_one(CommandList).highlighted = chosen
        await pilot.press("enter")
        await drained(pilot)
        assert screen.search_bar.value == 'tag:"deep learning"'
        assert {ids[r] for r in screen.papers.rows} == {ids[3], ids[4]}


# -- notes ------------------------------------------------------------------------------------
async def test_a_three_line_note_is_saved_and_shown(make_app: MakeApp, bookmarks_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"first", "enter", *"second", "enter", *"third")
        assert app.screen.query_one(TextArea).text == "first\nsecond\nthird"  # Enter: a new line
        await pilot.press("ctrl+s")
        await drained(pilot)
        pid = screen.corpus.ids[0]
        assert saved(bookmarks_path)[pid]["note"] == "first\nsecond\nthird"
        assert "Note:\nfirst\nsecond\nthird\n" in detail_text(app)
        await pilot.press("n")
        assert app.screen.query_one(TextArea).text == "first\nsecond\nthird"
        await pilot.press(*"x", "escape")  # Esc: nothing changes
        await drained(pilot)
        assert saved(bookmarks_path)[pid]["note"] == "first\nsecond\nthird"


@pytest.fixture
def can_suspend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test driver has no terminal to give up; let App.suspend run its real path anyway."""
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))


async def test_the_note_in_editor(
    make_app: MakeApp, bookmarks_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch, can_suspend: None
) -> None:
    editor = fake_tool(bin_dir, "tiny-editor", 'printf "added by the editor\\n" >> "$1"')
    monkeypatch.setenv("EDITOR", "tiny-editor")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("n", *"kept", "enter")
        await pilot.press("ctrl+e")
        await drained(pilot)
        assert isinstance(app.screen, MainScreen)
        pid = screen.corpus.ids[0]
        assert saved(bookmarks_path)[pid]["note"] == "kept\nadded by the editor"
        assert "kept\nadded by the editor" in detail_text(app)

        fake_tool(bin_dir, "tiny-editor", 'echo lost >> "$1"; exit 3')  # :cq
        await pilot.press("n", "ctrl+e")
        assert isinstance(app.screen, NoteScreen)  # the modal stays, its text as it was
        assert app.screen.query_one(TextArea).text == "kept\nadded by the editor"
        assert any("exited with status 3" in n for n in notices(app))
        monkeypatch.setenv("VISUAL", str(editor.with_name("no-such-editor")))
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, NoteScreen)
        assert any("no editor" in n and "no-such-editor" in n for n in notices(app))
        await pilot.press("escape")
        await drained(pilot)
        assert saved(bookmarks_path)[pid]["note"] == "kept\nadded by the editor"


async def test_no_terminal_to_hand_over_says_so(
    make_app: MakeApp, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_tool(bin_dir, "tiny-editor", 'echo never >> "$1"')
    monkeypatch.setenv("VISUAL", "tiny-editor")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("n", *"mine", "ctrl+e")
        assert isinstance(app.screen, NoteScreen) and app.screen.query_one(TextArea).text == "mine"
        assert any("cannot be handed to an editor" in n for n in notices(app))


def test_the_editor_setting() -> None:
    path = "/usr/bin:/bin"
    assert editor_command({"VISUAL": "sh -c", "EDITOR": "ed", "PATH": path}) == ["sh", "-c"]
    assert editor_command({"EDITOR": " sh ", "PATH": path}) == ["sh"]
    with pytest.raises(EditorFailed, match="cannot be read"):
        editor_command({"EDITOR": "'unclosed", "PATH": path})
    with pytest.raises(EditorFailed, match="no editor 'vi'"):
        editor_command({"PATH": "/nonexistent"})


# -- citations, title-only papers, snapshots ----------------------------------------------------
async def test_copy_bibtex_and_cite(make_app: MakeApp, fake_xclip: Path) -> None:
    app = make_app(ZOTERO)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        assert shown_titles(screen)[0] == "Attention Is All You Need"
        await pilot.press("n", *"read", "enter", *"twice", "ctrl+s")
        await drained(pilot)
        await pilot.press("y")
        await drained(pilot)
        entry = app.clipboard
        assert fake_xclip.read_text() == entry
        library = bibtexparser.parse_string(entry)
        assert len(library.entries) == 1 and not library.failed_blocks
        fields = library.entries[0].fields_dict
        assert library.entries[0].entry_type == "misc"
        assert "Attention" in fields["title"].value and fields["doi"].value == "10.48550/arXiv.1706.03762"
        # the source's own note stays the note; the bookmark's is the annotation beside it
        assert fields["note"].value == "arXiv:1706.03762 [cs]"
        assert fields["annote"].value.replace("\n", " ").split() == ["read", "twice"]
        assert any("BibTeX entry" in n for n in notices(app))
        await pilot.press("Y")
        await drained(pilot)
        key = library.entries[0].key
        assert app.clipboard == f"\\cite{{{key}}}" == fake_xclip.read_text()
        assert any(n.endswith(f"\\cite{{{key}}}") for n in notices(app))


async def test_a_title_only_paper(make_app: MakeApp, no_clipboard: None) -> None:
    app = make_app(ZOTERO)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        row = shown_titles(screen).index("Deep learning")
        screen.papers.cursor = row
        await pilot.pause()
        assert "No abstract in the source" in detail_text(app)
        lines = [screen.papers.render_line(y).text for y in range(len(screen.papers.rows))]
        assert "(title only)" in lines[row]  # the list marks it too, and only such papers
        marked = [screen.papers.rows[y] for y, line in enumerate(lines) if "(title only)" in line]
        assert marked and all(not screen.corpus.abstract(r) for r in marked)
        assert len(marked) < len(lines)
        await pilot.press("c")
        await pilot.press("C")
        await drained(pilot)
        assert app.clipboard == ""
        assert (
            notices(app).count("This paper has no abstract to copy: its source lists it by title only.") == 2
        )
        await pilot.press("y")  # its citation still has a title, authors, a journal
        await drained(pilot)
        fields = bibtexparser.parse_string(app.clipboard).entries[0].fields_dict
        assert fields["journal"].value == "Nature" and "abstract" not in fields


async def test_bookmarks_keep_a_snapshot(make_app: MakeApp, bookmarks_path: Path) -> None:
    app = make_app(ZOTERO)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("b")
        await drained(pilot)
        pid = screen.corpus.ids[0]
        snap = saved(bookmarks_path)[pid]["paper"]
        assert snap["doi"] == "10.48550/arXiv.1706.03762" and snap["year"] == 2017
        assert snap["authors"][0] == "Ashish Vaswani" or "Vaswani" in snap["authors"][0]
        other = screen.corpus.ids[1]
    # a bookmark made without one (an older reader) gets it when the collection opens
    data = json.loads(bookmarks_path.read_text())
    data["bookmarks"] = [{"id": other, "title": "", "added": "2024-01-01T00:00:00+00:00", "note": ""}]
    bookmarks_path.write_text(json.dumps(data))
    again = make_app(ZOTERO)
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        entry = saved(bookmarks_path)[other]
        assert entry["paper"]["year"] == 2021 and entry["title"].startswith("Naïve Bayes")
