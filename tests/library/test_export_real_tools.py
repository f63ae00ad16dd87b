"""The exports in the real tools: BibTeX through pdflatex + bibtex (plain style, T1 + utf8) and
through biblatex + biber, CSL-JSON through ``pandoc --citeproc``, RIS through rispy. One export of
the fixture library (export_fixtures.py: article, book, chapter, thesis, report, dataset, webpage,
organisations, Řehůřek, α, a CJK title, ``%&$_#{}``) and one compile per tool. A missing tool
skips its check with the reason, except under CI (the CI variable set), where it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
import rispy
from export_fixtures import LIBRARY

from tui_reader.library.citation import bibtex
from tui_reader.library.citeformats import csl_json, ris

TEX_HEAD = "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
BIBTEX_DOC = (
    TEX_HEAD
    + "\\begin{document}\n\\nocite{*}\n\\bibliographystyle{plain}\n\\bibliography{lib}\n\\end{document}\n"
)
BIBLATEX_DOC = (
    TEX_HEAD
    + "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{lib.bib}\n"
    + "\\begin{document}\n\\nocite{*}\n\\printbibliography\n\\end{document}\n"
)


def need(*tools: str, sty: str = "") -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if sty and not missing and not run(["kpsewhich", sty], Path.cwd()).stdout.strip():
        missing.append(sty)
    if missing:
        debian = "texlive-latex-base texlive-bibtex-extra biber pandoc"
        reason = f"{', '.join(missing)} not installed (Debian: {debian})"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("export")
    items = [(p, "A bookmark note\nover two lines") for p in LIBRARY]
    (folder / "lib.bib").write_text(bibtex(items), "utf-8")
    (folder / "lib.ris").write_text(ris(items), "utf-8")
    (folder / "lib.json").write_text(csl_json(items), "utf-8")
    return folder


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "max_print_line": "1000"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120, env=env, check=False)


def latex(folder: Path, name: str) -> None:
    """One pdflatex pass that must not stop on an error (draft mode: no fonts to make)."""
    done = run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "-halt-on-error", name], folder)
    log = (folder / f"{name}.log").read_text("utf-8", "replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and not errors, (errors, log[-3000:])


def test_pdflatex_and_bibtex_compile_it(exported: Path) -> None:
    need("pdflatex", "bibtex")
    folder = exported / "plain"
    folder.mkdir()
    shutil.copy(exported / "lib.bib", folder)
    (folder / "doc.tex").write_text(BIBTEX_DOC, "utf-8")
    latex(folder, "doc")
    done = run(["bibtex", "doc"], folder)
    assert done.returncode < 2 and "error message" not in done.stdout, done.stdout  # 1: warnings only
    latex(folder, "doc")
    bbl = (folder / "doc.bbl").read_text("utf-8")
    assert "11(3):45--50" in bbl  # the article's volume, issue and pages
    assert "Addison-Wesley" in bbl and "427--448" in bbl and "Universit" in bbl
    assert "\\bibitem{rehurek_2010_gensim}" in bbl  # the source's own key
    assert "U.S. Bureau of the Census" in bbl and "Caritas Europa" in bbl


def test_biblatex_and_biber_compile_it(exported: Path) -> None:
    need("pdflatex", "biber", sty="biblatex.sty")
    folder = exported / "biblatex"
    folder.mkdir()
    shutil.copy(exported / "lib.bib", folder)
    (folder / "doc.tex").write_text(BIBLATEX_DOC, "utf-8")
    latex(folder, "doc")
    done = run(["biber", "doc"], folder)
    assert done.returncode == 0 and "ERROR" not in done.stdout, done.stdout
    assert "WARN" not in done.stdout, done.stdout
    latex(folder, "doc")
    bbl = (folder / "doc.bbl").read_text("utf-8")
    assert "\\field{volume}{11}" in bbl and "\\field{pages}{45\\bibrangedash 50}" in bbl
    assert "\\field{number}{3}" in bbl and "\\list{publisher}{1}{%\n        {Addison-Wesley}" in bbl
    assert "\\entry{knuth1997}{book}" in bbl and "\\entry{steyvers2007probabilistic}{incollection}" in bbl
    assert "\\field{isbn}{978-0-201-89683-1}" in bbl and "\\field{edition}{3}" in bbl


def test_pandoc_renders_the_csl_json(exported: Path) -> None:
    need("pandoc")
    (exported / "cite.md").write_text('---\nnocite: "@*"\n---\n', "utf-8")
    done = run(["pandoc", "--citeproc", "--bibliography", "lib.json", "-t", "plain", "cite.md"], exported)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    text = " ".join(done.stdout.split())
    assert "Journal of Machine Learning Research 11 (3): 45–50" in text
    assert "Reading, MA: Addison-Wesley" in text and "Edited by Vincent van Gogh" in text
    assert "U.S. Bureau of the Census" in text and "深度学习简介" in text and "Řehůřek, Radim" in text


def test_rispy_reads_the_ris_back(exported: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = rispy.loads((exported / "lib.ris").read_text("utf-8"))
    assert [r["type_of_reference"] for r in records] == [
        "JOUR",
        "BOOK",
        "CHAP",
        "THES",
        "RPRT",
        "DATA",
        "ELEC",
        "JOUR",
    ]
    article, book = records[0], records[1]
    assert (article["volume"], article["number"], article["start_page"], article["end_page"]) == (
        "11",
        "3",
        "45",
        "50",
    )
    assert article["urls"] == ["https://example.org/gensim", "https://example.org/mirror"]
    assert book["publisher"] == "Addison-Wesley" and "secondary_title" not in book
    chapter = records[2]  # the source's own RIS tags, back as they were
    assert chapter["notes_abstract"] == "A second abstract." and chapter["name_of_database"] == "Scopus"
    assert article["notes"][:4] == ["First line of the note.", "Second line.", "", "A new paragraph."]


def test_the_format_fixtures_as_the_tools_write_them_compile_both_ways(tmp_path: Path) -> None:
    """Every fixture file of tests/fixtures/formats (Zotero, Better BibTeX, JabRef, Mendeley,
    EndNote, Scopus, a thesis .bib, GBK, UTF-16...), opened and exported whole: pdflatex + bibtex
    and biblatex + biber set it without an error (its fields written back verbatim included)."""
    need("pdflatex", "bibtex", "biber", sty="biblatex.sty")
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.library.export import export_papers

    formats = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
    files = sorted(
        p for p in formats.iterdir() if p.suffix in (".bib", ".ris") or p.name.endswith(".csl.json")
    )
    corpus = load_corpus(files)
    assert len(corpus) > 20
    (tmp_path / "lib.bib").write_text(export_papers(list(corpus), "bibtex"), "utf-8")
    for name, doc, tool in (("plain", BIBTEX_DOC, "bibtex"), ("biblatex", BIBLATEX_DOC, "biber")):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(tmp_path / "lib.bib", folder)
        (folder / "doc.tex").write_text(doc, "utf-8")
        latex(folder, "doc")
        done = run([tool, "doc"], folder)
        assert done.returncode < (2 if tool == "bibtex" else 1), done.stdout
        assert "ERROR" not in done.stdout and "error message" not in done.stdout, done.stdout
        latex(folder, "doc")
