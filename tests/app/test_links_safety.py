"""Issue 22 (1, 11) and issue 18 (the reader's side of the record): every link target is a
validated, percent-encoded URL, nothing a file holds reaches the terminal as a control sequence,
o/L fall back to the DOI and arXiv id, and the detail pane shows the record and its attachment.
Hostile values come from real .bib, .ris and CSL-JSON files, shown by the real app (Pilot); what
the terminal would receive is rendered from the compositor, escape sequences and all."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pilot_helpers import detail_text, drained, notices, ready
from textual.pilot import Pilot

from tui_reader.app.app import ReaderApp
from tui_reader.app.screens.main import MainScreen
from tui_reader.app.widgets.paper_detail import paper_content
from tui_reader.corpus.paper import Paper
from tui_reader.library.links import best_link, doi_link, file_link, paper_link, safe_url

MakeApp = Callable[..., ReaderApp]

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x07"  # renames the terminal, clears it, C1 CSI, BEL
OSC8 = re.compile(r"\x1b\]8;([^;\x1b\x07]*);([^\x1b\x07]*)\x1b\\")
CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
URL_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


def write_hostile(folder: Path) -> Path:
    """A .bib, a .ris and a CSL-JSON file whose DOI, url and arXiv id carry terminal controls."""
    folder.mkdir(exist_ok=True)
    (folder / "a.bib").write_text(
        "@article{k1,\n title = {Bib paper},\n author = {Smith, John},\n year = {2020},\n"
        f" doi = {{10.1234/abc{HOSTILE}}},\n url = {{https://example.org/b{HOSTILE}x}},\n"
        f" eprint = {{2101.00001{HOSTILE}}}, archiveprefix = {{arXiv}},\n"
        " abstract = {A bib abstract.}\n}\n",
        encoding="utf-8",
    )
    (folder / "b.ris").write_text(
        f"TY  - JOUR\nTI  - Ris paper\nAU  - Doe, Jane\nDO  - 10.5555/ris{HOSTILE}\n"
        f"UR  - javascript:alert(1){HOSTILE}\nAB  - A ris abstract.\nER  - \n",
        encoding="utf-8",
    )
    item = {
        "id": "c1",
        "type": "article-journal",
        "title": "Csl paper",
        "DOI": f"10.7777/csl{HOSTILE}",
        "URL": f"https://example.org/c?q={HOSTILE}",
        "abstract": "A csl abstract.",
    }
    (folder / "c.csl.json").write_text(json.dumps([item]), encoding="utf-8")
    return folder


def terminal_output(app: ReaderApp) -> str:
    """What the app would write to the terminal for its whole screen now."""
    update = app.screen._compositor.render_update(full=True)
    assert update is not None
    return str(update.render_segments(app.console))  # type: ignore[attr-defined]


def assert_valid_link(link: str) -> None:
    """An http(s) URL in printable ASCII, every % starting an escape."""
    assert URL_CHARS.fullmatch(link), repr(link)
    assert re.fullmatch(r"https?://.+", link) and urlsplit(link).netloc, link
    assert not re.search(r"%(?![0-9A-Fa-f]{2})", link), link


def assert_safe_output(raw: str) -> list[str]:
    """Only the app's own sequences (SGR, cursor moves, OSC 8 to valid links): no controls or
    escapes from the data. Returns the link targets."""
    targets = [m.group(2) for m in OSC8.finditer(raw) if m.group(2)]
    for target in targets:
        assert_valid_link(target)
    rest = CSI.sub("", OSC8.sub("", raw)).replace("\r", "").replace("\n", "")
    assert not CONTROLS.search(rest), repr(CONTROLS.findall(rest)[:5])
    assert "pwned" not in raw
    return targets


async def each_row(pilot: Pilot) -> list[tuple[int, str]]:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    out = []
    for row in range(len(screen.papers.rows)):
        screen.papers.cursor = row
        await drained(pilot)
        out.append((row, terminal_output(pilot.app)))
    return out


async def test_hostile_dois_urls_and_arxiv_ids_never_reach_the_terminal(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app = make_app(write_hostile(tmp_path / "hostile"))
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        shown = await each_row(pilot)
        assert len(shown) == 3
        links = [t for _row, raw in shown for t in assert_safe_output(raw)]
        # the DOIs are linked at doi.org, cut where the controls began
        for doi in ("10.1234/abc", "10.5555/ris", "10.7777/csl"):
            assert f"https://doi.org/{doi}" in links
        assert "https://arxiv.org/abs/2101.00001" in links
        assert not any("javascript" in t for t in links)
        text = detail_text(app)
        assert "\x1b" not in text and "\x07" not in text


async def test_hostile_links_copied_and_opened_are_valid(
    make_app: MakeApp, tmp_path: Path, browser: Path, no_clipboard: None
) -> None:
    app = make_app(write_hostile(tmp_path / "hostile"))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await ready(pilot)
        copied = []
        for row in range(3):
            screen.papers.cursor = row
            for key in ("L", "y", "C"):  # link, BibTeX entry, Markdown quote
                await pilot.press(key)
                await drained(pilot)
                assert not CONTROLS.search(app.clipboard.replace("\n", "")), repr(app.clipboard)
            await pilot.press("L")
            await drained(pilot)
            copied.append(app.clipboard)
            await pilot.press("o")
            await drained(pilot)
        for link in copied:
            assert_valid_link(link)
        # the RIS record's only url is javascript: it opens its DOI instead
        assert copied[1] == "https://doi.org/10.5555/ris"
        opened = browser.read_text().splitlines()
        assert opened == copied
        for notice in notices(app):
            assert "\x1b" not in notice and "\x07" not in notice


async def test_a_record_with_only_a_doi_opens_and_copies_it(
    make_app: MakeApp, tmp_path: Path, browser: Path, no_clipboard: None
) -> None:
    """Issue 22 item 11: it said "has no link"."""
    bib = tmp_path / "doi.bib"
    bib.write_text(
        "@article{d, title = {Only a DOI}, year = {2020}, doi = {10.1145/3292500.3330701},"
        " abstract = {Text.}}\n",
        encoding="utf-8",
    )
    app = make_app(bib)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("L")
        await drained(pilot)
        assert app.clipboard == "https://doi.org/10.1145/3292500.3330701"
        await pilot.press("o")
        await drained(pilot)
        assert browser.read_text().splitlines() == ["https://doi.org/10.1145/3292500.3330701"]
        assert notices(app)[-1] == "Opened in the browser: https://doi.org/10.1145/3292500.3330701"


async def test_links_are_never_latex_decoded(make_app: MakeApp, tmp_path: Path, no_clipboard: None) -> None:
    """``\\url{...}`` in a BibTeX url and ``$`` in a JSON url (issue 22 item 11)."""
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "a.bib").write_text(
        "@misc{u, title = {Wrapped url}, url = {\\url{https://example.org/a_b_c}}, abstract = {Text one.}}\n",
        encoding="utf-8",
    )
    rows = [{"title": "Dollar url", "url": "https://example.org/$x$/p_q_", "abstract": "Text two."}]
    (folder / "b.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    app = make_app(folder)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        copied = []
        for row in range(2):
            screen.papers.cursor = row
            await pilot.press("L")
            await drained(pilot)
            copied.append(app.clipboard)
        assert copied == ["https://example.org/a_b_c", "https://example.org/$x$/p_q_"]


RECORD: dict[str, object] = {
    "type": "chapter",
    "container-title": "Handbook of Things",
    "volume": "12",
    "issue": "3",
    "page": "45–67",
    "publisher": "Springer",
    "publisher-place": "Berlin",
    "edition": "2",
    "collection-title": "Lecture Notes",
    "editor": [{"family": "Curie", "given": "Marie"}, {"literal": "The Editors Group"}],
    "ISBN": "978-3-16-148410-0",
    "ISSN": "1234-5678",
    "links": ["https://example.org/first", "https://example.org/second", f"https://e.org/{HOSTILE}"],
    "file": [{"path": "files/12/x.pdf", "mime": "application/pdf"}],
}


def record_paper(record: dict[str, object]) -> Paper:
    return Paper(
        id="r1",
        title="A chapter",
        abstract="Its abstract.",
        authors=["John Smith"],
        venue="Other Venue",
        year=2020,
        url="https://example.org/first",
        sources=["lib.bib"],
        record=record,
    )


async def test_the_detail_pane_shows_the_record_compactly(make_app: MakeApp, tmp_path: Path) -> None:
    bib = tmp_path / "one.bib"
    bib.write_text("@misc{x, title = {Placeholder}, abstract = {Text.}}\n", encoding="utf-8")
    app = make_app(bib)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        screen.detail.show(paper_content(record_paper(RECORD), None, [], []))
        await pilot.pause()
        text = detail_text(app)
        assert "In: Handbook of Things · vol. 12, no. 3, pp. 45–67" in text
        assert (
            "Springer, Berlin · 2nd ed. · Series: Lecture Notes · Editors: Marie Curie, The Editors Group"
            " · ISBN 978-3-16-148410-0 · ISSN 1234-5678"
        ) in text
        assert "Also: https://example.org/second\n" in text  # the hostile third link is no link
        assert "Attachment: files/12/x.pdf (PDF)" in text
        links = assert_safe_output(terminal_output(app))
        assert "https://example.org/second" in links


def test_the_record_lines_are_left_out_when_empty_and_stay_literal() -> None:
    bare = paper_content(record_paper({}), None, [], []).plain
    assert "In:" not in bare and "Attachment" not in bare and "Also:" not in bare
    odd = {"volume": ["1", {"x": 2}], "publisher": f"[b]Bold{HOSTILE}[/b]", "edition": True, "editor": "E"}
    text = paper_content(record_paper(odd), None, [], []).plain
    assert "vol. 1" in text and "[b]Bold" in text  # never markup
    assert not CONTROLS.search(text.replace("\n", ""))


def write_with_attachment(folder: Path, pdf: bool) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "lib.bib").write_text(
        "@article{a, title = {With a PDF}, year = {2020}, doi = {10.1234/pdf},\n"
        " file = {Full Text:files/12/my paper.pdf:application/pdf}, abstract = {Text.}}\n"
        "@article{b, title = {Only a PDF}, year = {2021},\n"
        " file = {:files/none.pdf:PDF}, abstract = {Other text.}}\n",
        encoding="utf-8",
    )
    if pdf:
        (folder / "files" / "12").mkdir(parents=True)
        (folder / "files" / "12" / "my paper.pdf").write_bytes(b"%PDF-1.4\n")
    return folder


async def test_o_opens_the_local_pdf_when_it_exists(make_app: MakeApp, tmp_path: Path, browser: Path) -> None:
    folder = write_with_attachment(tmp_path / "lib", pdf=True)
    app = make_app(folder / "lib.bib")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        assert "Attachment: files/12/my paper.pdf (PDF)" in detail_text(app)
        await pilot.press("o")
        await drained(pilot)
        expected = (folder / "files" / "12" / "my paper.pdf").absolute().as_uri()
        assert expected.endswith("my%20paper.pdf")
        assert browser.read_text().splitlines() == [expected]
        await pilot.press("L")  # L still copies the web link
        await drained(pilot)
        assert app.clipboard == "https://doi.org/10.1234/pdf"
        screen.papers.cursor = 1  # its PDF is not there, and it has no link: said so
        await drained(pilot)
        await pilot.press("o")
        await drained(pilot)
        assert notices(app)[-1].startswith("Attachment not found (")
        assert len(browser.read_text().splitlines()) == 1


async def test_o_opens_the_link_when_the_pdf_is_missing(
    make_app: MakeApp, tmp_path: Path, browser: Path
) -> None:
    folder = write_with_attachment(tmp_path / "lib", pdf=False)
    app = make_app(folder / "lib.bib")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await drained(pilot)
        assert browser.read_text().splitlines() == ["https://doi.org/10.1234/pdf"]


@pytest.mark.parametrize(
    ("raw", "link"),
    [
        ("https://exämple.org/pfad/ü?q=ä", "https://xn--exmple-cua.org/pfad/%C3%BC?q=%C3%A4"),
        ('https://example.org/a"b<c>', "https://example.org/a%22b%3Cc%3E"),
        ("https://example.org/a%2Fb%zz", "https://example.org/a%2Fb%25zz"),
        ("HTTPS://Example.ORG/A", "https://example.org/A"),
        ("\\url{https://example.org/a_b}", "https://example.org/a_b"),
        ("\\urlhttps://example.org/a_b", "https://example.org/a_b"),
        ("<https://example.org/x>", "https://example.org/x"),
        ("urlhttps://example.org/a", None),
        ("http://[oops", None),
        ("//[", None),
        ("https://doi.org@evil.example/", None),
        ("https://example.org:99999/", None),
        ("https://example.org/\u202eevil", None),
        ("https://example.org/\x9b2J", None),
        ("https://exa mple.org/", None),
        ("https://-bad-.org/", None),
    ],
)
def test_paper_link_validates_and_encodes(raw: str, link: str | None) -> None:
    assert paper_link(raw) == link
    if link:
        assert_valid_link(link)


def test_doi_and_file_links() -> None:
    assert doi_link("10.1234/abc" + HOSTILE) is None  # a DOI that is not clean is not linked
    assert doi_link("10/fqd6hj") == "https://doi.org/10/fqd6hj"
    assert doi_link("doi:10.1000/a#b?c") == "https://doi.org/10.1000/a%23b%3Fc"
    assert safe_url("javascript:alert(1)") is None
    assert file_link(Path("relative.pdf")) is None
    assert file_link(Path("/tmp/a b/\x1b]0;x\x07.pdf")) == "file:///tmp/a%20b/%1B%5D0%3Bx%07.pdf"
    paper = record_paper({})
    paper.url, paper.doi, paper.arxiv = "/home/me/x.pdf", "", "hep-th/9901001"
    assert best_link(paper) == "https://arxiv.org/abs/hep-th/9901001"


def test_a_markdown_export_links_only_validated_urls() -> None:
    from tui_reader.library.export import export_papers

    hostile = record_paper({})
    hostile.url, hostile.doi = "javascript:alert(1)", "10.1234/abc"
    local = record_paper({})
    local.url, local.doi = "/home/me/x.pdf", ""
    text = export_papers([hostile, local], "markdown")
    assert "<https://doi.org/10.1234/abc>" in text
    assert "javascript" not in text and "</home/me/x.pdf>" not in text


_PIECES = st.sampled_from(
    [
        "https://",
        "http://",
        "doi:",
        "10.1234/",
        "10/",
        "arXiv:",
        "2101.00001",
        "example.org",
        "/",
        "?",
        "#",
        "%",
        "%2F",
        "@",
        ":",
        "[",
        "]",
        "\\url{",
        "}",
        "<",
        ">",
        "\x1b]0;x\x07",
        "\x1b[2J",
        "\x9b",
        "\u202e",
        "ü",
        " ",
        "\x00",
        "javascript:",
        "www.",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=8).map("".join))
def test_any_value_makes_a_valid_link_or_none(raw: str) -> None:
    for make in (paper_link, safe_url, doi_link):
        link = make(raw)
        if link is not None:
            assert_valid_link(link)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=8).map("".join))
def test_the_detail_pane_links_only_valid_targets_whatever_the_record_holds(raw: str) -> None:
    record: dict[str, object] = {
        "links": [raw, "https://e.org/" + raw],
        "file": [{"path": raw}],
        "volume": raw,
    }
    paper = record_paper(record)
    paper.url, paper.doi, paper.arxiv = raw, raw, raw
    content = paper_content(paper, None, [], [])
    assert not CONTROLS.search(content.plain.replace("\n", ""))
    for span in content.spans:
        link = getattr(span.style, "link", None)
        if link:
            assert_valid_link(link)


async def test_a_url_urlsplit_refuses_is_shown_as_text(make_app: MakeApp, tmp_path: Path) -> None:
    """Found by the fuzz test above: "http://[oops" made urlsplit raise in the detail pane."""
    rows = [{"title": "Broken bracket", "url": "http://[oops", "abstract": "Text."}]
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert "http://[oops" not in detail_text(app)  # no link; kept verbatim in the record
        assert app.screen.corpus.paper(0).record["custom"] == {"url": "http://[oops"}
        await pilot.press("o")
        await drained(pilot)
        assert notices(app)[-1].startswith("This paper has no link")


async def test_an_attachment_that_is_a_fifo_is_not_opened(
    make_app: MakeApp, tmp_path: Path, browser: Path
) -> None:
    """A browser handed a FIFO would hang on it: only a regular file is opened."""
    folder = write_with_attachment(tmp_path / "lib", pdf=False)
    (folder / "files" / "12").mkdir(parents=True)
    os.mkfifo(folder / "files" / "12" / "my paper.pdf")
    app = make_app(folder / "lib.bib")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await drained(pilot)
        assert browser.read_text().splitlines() == ["https://doi.org/10.1234/pdf"]
