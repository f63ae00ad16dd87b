"""Reading a draft (corpus/draft.py) and resolving its citation keys (library/cited.py): prose
without markup, keys from natbib, biblatex and pandoc, hostile files refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_reader.corpus.draft import MAX_DRAFT_BYTES, DraftError, parse_draft, read_draft
from tui_reader.corpus.formats import build, read_text, records
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.cited import resolve
from tui_reader.library.citekeys import cite_keys

FIXTURES = Path(__file__).parent.parent / "fixtures" / "related"


def test_latex_prose_without_comments_cites_or_refs_and_with_math_as_text() -> None:
    draft = read_draft(FIXTURES / "draft.tex")
    text = draft.text
    assert text.startswith("Fewer Steps for Denoising Diffusion")  # the preamble's \title
    for gone in (
        "TODO",
        "<cit.>",
        "<ref>",
        "usepackage",
        "natbib",
        "plainnat",
        "NO \\title",
        "sec:intro",
        "%",
    ):
        assert gone not in text, gone
    assert "α_t" in text and "∇_x" in text  # math kept as text ("alpha" to the index)
    assert "stochastic differential equation" in text
    assert draft.cites == ("ddpm", "sohl2015deep", "songSDE", "kingma2014auto")  # oldvae2013: a comment
    assert draft.bibliographies == (FIXTURES / "refs.bib",)
    assert "coarse discretisation of the reverse diffusion" in text  # from \input{sections/method}
    assert draft.warnings == ()  # the commented \input{sections/rejected} is not looked for


def test_inputs_are_read_and_one_that_is_missing_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "one.tex").write_text(r"Graph attention \cite{gat} \include{ch/two}", encoding="utf-8")
    (tmp_path / "ch" / "two.tex").write_text(r"message passing \input{ch/one}", encoding="utf-8")  # a loop
    (tmp_path / "main.tex").write_text(
        "\\begin{document}Neural networks on graphs. \\input{ch/one} \\input{gone} \\end{document}",
        encoding="utf-8",
    )
    draft = read_draft(tmp_path / "main.tex")
    assert draft.text.startswith("Neural networks on graphs. Graph attention message passing Graph attention")
    assert draft.cites == ("gat",)
    assert any("gone.tex: no such file; left out of the draft" in w for w in draft.warnings)
    assert any("more than 5 deep" in w for w in draft.warnings)


def test_every_cite_command_gives_its_keys_once_in_order() -> None:
    source = r"""\documentclass{article}\begin{document}
    Diffusion models~\cite{a, b} and \citep[see][p.~3]{c} as \citet{a}; biblatex: \parencite[12]{d},
    \autocite{e,f}, \textcite{g}, \Textcite*{h}.\footnote{As \citeauthor{i} shows.} \nocite{j}
    \addbibresource[location=local]{lib/more.bib}
    \end{document}"""
    draft = parse_draft(source, "latex", "t.tex", Path("/papers"))
    assert draft.cites == tuple("abcdefghij")
    assert draft.bibliographies == (Path("/papers/lib/more.bib"),)
    assert "Diffusion models" in draft.text and "shows" in draft.text


def test_markdown_loses_its_markup_and_gives_pandoc_keys() -> None:
    draft = read_draft(FIXTURES / "draft.md")
    text = draft.text
    assert text.startswith("Notes: message passing on graphs")  # front matter's title
    assert draft.cites == ("kipf2017semi", "velickovic2018graph", "xu2019powerful", "morris2019weisfeiler")
    assert draft.bibliographies == (FIXTURES / "graphs.bib",)
    for gone in ("propagate", "https://", "figure.png", "**", "*node", "#", "@", "bibliography:"):
        assert gone not in text, gone
    assert "node representations by message passing" in text and "See the survey" in text


def test_plain_text_is_read_as_it_is() -> None:
    draft = read_draft(FIXTURES / "draft.txt")
    assert draft.cites == () and draft.bibliographies == ()
    assert draft.text.startswith("Working notes, reinforcement learning reading group Policy gradient")


def test_pasted_text_is_sniffed() -> None:
    assert parse_draft(r"We extend \cite{x} to graphs with attention.").cites == ("x",)
    assert parse_draft("As [@x; @y] show, graph attention works.").cites == ("x", "y")
    assert parse_draft("Mail me at someone@example.org about graphs.").cites == ()


def test_control_characters_are_stripped_and_the_draft_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "evil.md"
    path.write_text("Graph \x1b]52;c;ZXZpbA==\x07neural \x1b[31mnetworks\x1b[0m and\x00x message passing.\n")
    with pytest.raises(DraftError, match="binary"):  # a NUL: binary, whatever else
        read_draft(path)
    path.write_text("Graph \x1b]52;c;ZXZpbA==\x07neural \x1b[31mnetworks\x1b[0m and \x07message passing.\n")
    draft = read_draft(path)
    assert draft.text == "Graph neural networks and message passing."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "not a text file"),
        (b"%PDF-1.7\n" + b"\x00\x01\x02\x03stream" * 500, "not a text file"),
        (b"x " * (MAX_DRAFT_BYTES // 2 + 1), "too large for a draft"),
        (b"\n\n  \n", "no prose"),
        (b"% only a comment\n\\documentclass{article}\\begin{document}\\end{document}", "no prose"),
    ],
    ids=["png", "pdf", "huge", "blank", "empty-latex"],
)
def test_a_hostile_draft_is_one_clear_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "draft.tex"
    path.write_bytes(content)
    with pytest.raises(DraftError, match=message) as caught:
        read_draft(path)
    assert "\n" not in str(caught.value) and "draft.tex" in str(caught.value)


def test_not_a_file_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(DraftError, match="no such file"):
        read_draft(tmp_path / "missing.tex")
    with pytest.raises(DraftError, match="a folder"):
        read_draft(tmp_path)


def test_a_latin1_draft_is_decoded_and_said_so(tmp_path: Path) -> None:
    path = tmp_path / "brouillon.txt"
    path.write_bytes("Les réseaux de neurones sur graphes, l'état de l'art en été.".encode("latin-1"))
    draft = read_draft(path)
    assert "réseaux" in draft.text and "été" in draft.text
    assert draft.warnings and "not UTF-8" in draft.warnings[0]


def test_keys_the_bib_lacks_are_resolved_against_the_bookmarks(tmp_path: Path) -> None:
    """\\cite{mcmahan2017communication}: not in refs.bib, but a bookmark exports under that key
    (the source's own citation key); it is cited by its id."""
    path = FIXTURES / "collection.bib"
    papers = [p for _k, e in records(path, read_text(path, []) or "", []) if (p := build(path, e))]
    fed = next(p for p in papers if p.title.startswith("Communication-Efficient"))
    gat = next(p for p in papers if p.title == "Graph Attention Networks")
    store = BookmarkStore(tmp_path / "bookmarks.json")
    store.add(fed.id, fed.title, snapshot=fed)
    store.add(gat.id, gat.title, snapshot=gat)
    keys = cite_keys([fed, gat])
    assert keys[fed.id] == "mcmahan2017communication"
    cited = resolve(
        ["ddpm", "mcmahan2017communication", "nobody2020"],
        [FIXTURES / "refs.bib"],
        store.all(),
        lambda _: None,
    )
    assert cited.cites(fed) and not cited.cites(gat)
    assert cited.unknown == ("nobody2020",) and cited.found == 2
    assert cited.sources == ["refs.bib", "bookmarks"]
    assert cited.summary == "2 of 3 cited keys known (refs.bib, bookmarks)"


def test_a_named_bibliography_that_is_missing_is_a_warning(tmp_path: Path) -> None:
    cited = resolve(["a"], [tmp_path / "gone.bib"])
    assert cited.unknown == ("a",) and "gone.bib: no such bibliography" in cited.warnings[0]


def test_latex_pylatexenc_gives_up_on_is_read_roughly_and_said_so() -> None:
    """A one-argument \\href (code link, text forgotten) stops pylatexenc's conversion: the words
    still count, the keys are still found, and a warning says the draft was read roughly."""
    source = r"""\begin{document}
    Graph attention networks~\citep[see][]{gat,gcn} for \textbf{node classification}; code at
    \href{https://example.org/code}. % a comment \cite{ghost}
    \bibliography{refs,more}
    \end{document}"""
    draft = parse_draft(source, "latex", "rough.tex", Path("/d"))
    assert draft.cites == ("gat", "gcn")
    assert draft.bibliographies == (Path("/d/refs.bib"), Path("/d/more.bib"))
    assert "Graph attention networks" in draft.text and "node classification" in draft.text
    assert "ghost" not in draft.text and "\\" not in draft.text and "{" not in draft.text
    assert draft.warnings == (
        "rough.tex: cannot read the LaTeX (IndexError); read with its commands dropped",
    )
