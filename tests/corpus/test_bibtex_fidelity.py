"""Issue 18: a BibTeX library kept whole, and LaTeX in names and titles read cleanly.

The fixtures under tests/fixtures/formats/ are written the way each tool writes them (Zotero /
Better BibTeX, JabRef, Mendeley, EndNote, a thesis .bib); each test names the case it pins.
Paper ids are not asserted here: the identity rule is another change's.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats.latex import to_text
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import normalise, normalise_inline

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats"


def bib_text(raw: str) -> str:
    """A BibTeX field as the reader shows it."""
    return str(normalise_inline(to_text(raw)))


def no_bare_marks(text: str) -> bool:
    """No combining mark at the start or after a space: what stopped biblatex compiling."""
    return not any(unicodedata.combining(c) and (i == 0 or text[i - 1].isspace()) for i, c in enumerate(text))


# -- LaTeX ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("{\\v R}eh{\\r u}{\\v r}ek", "Řehůřek"),  # accent, a space, its letter: 29 names in one file
        ("\\v{R}eh\\r{u}\\v{r}ek", "Řehůřek"),
        ("Fran\\c cois and Fran{\\c c}ois", "François and François"),
        ("\\v R", "Ř"),
        ("\\'{e}t\\'e and \\' e and {\\' e}", "été and é and é"),
        ("\\= a and \\={a}", "ā and ā"),
        ('na{\\"\\i}ve and na\\"{\\i}ve', "naïve and naïve"),
        ("Erd\\H os", "Erdős"),
        ("(11\\=22)", "(11=22)"),  # \= before a digit is the "=" it escapes
        ("AND\\slash OR", "AND/OR"),
        ("\\mkbibemph{The Concept} of x", "The Concept of x"),
        ("\\mkbibquote{Quoted} words", "\u201cQuoted\u201d words"),
        ("\\mkbibitalic{it} and \\mkbibbold{bold}", "it and bold"),
        ("\\bibcyr{Толстой}", "Толстой"),
        ("\\unknownmacro{Kept Text} here", "Kept Text here"),  # never "unknownmacro(Kept Text)"
        ("a \\v{} b", "a b"),  # an accent with no letter leaves nothing, not a bare mark
    ],
)
def test_latex_in_bibtex_fields_decodes_to_clean_text(raw: str, expected: str) -> None:
    out = bib_text(raw)
    assert out == expected and no_bare_marks(out)
    assert unicodedata.is_normalized("NFC", out)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$\\poly(n)$ time", "poly(n) time"),  # math keeps the unknown macro's name
        ("$\\poly{n}$ time", "poly(n) time"),
        ("\\foo bar", "foo bar"),
        ("a \\method{} wins", "a method wins"),
        ("\\v R and \\c c in an abstract", "Ř and ç in an abstract"),  # abstracts from any format
        ("in \\textbf{\\v Reh\\r u\\v rek's} model", "in Řehůřek's model"),
        ("Lee et. al.\\. No sampler", "Lee et. al.\\. No sampler"),  # a dot accent takes no space
        ("\\texit{DeepMDP} and \\snew{nearly} all", "DeepMDP and nearly all"),  # seen in the 87k corpus
    ],
)
def test_abstract_latex_keeps_the_math_rules(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_a_combining_mark_with_no_base_never_survives() -> None:
    out = normalise("\u0301 Reh \u030a u and (\u0308x)")
    assert no_bare_marks(out) and "\u0301" not in out and out == "Reh u and (x)"


# -- the record: every field a .bib gave ------------------------------------------------------------
def load(name: str) -> tuple[list[str], dict[str, Paper]]:
    """The file's warnings and its papers by citation key (by title when an entry has none)."""
    corpus = load_corpus([FIXTURES / name], use_cache=False)
    papers = {str(p.record.get("citation-key") or p.title): p for p in corpus}
    return list(corpus.warnings), papers


def custom(paper: Paper) -> dict[str, object]:
    value = paper.record.get("custom", {})
    assert isinstance(value, dict)
    return value


def test_better_bibtex_journal_article_keeps_volume_pages_date_and_the_rest() -> None:
    warnings, papers = load("betterbibtex.bib")
    assert warnings == [] and len(papers) == 6
    paper = papers["krizhevskyImageNetClassificationDeep2017"]
    record = paper.record
    assert (record["source-type"], record["type"]) == ("article", "article-journal")
    assert record["container-title"] == "Communications of the ACM"
    assert record["container-title-short"] == "Commun. ACM"
    assert (record["volume"], record["issue"], record["page"]) == ("60", "6", "84-90")
    assert record["issued"] == {"date-parts": [[2017, 5, 24]]} and record["ISSN"] == "0001-0782"
    assert record["language"] == "english"
    assert record["author"] == [
        {"family": "Krizhevsky", "given": "Alex"},
        {"family": "Sutskever", "given": "Ilya"},
        {"family": "Hinton", "given": "Geoffrey E."},
    ]
    assert custom(paper) == {"urldate": "2024-02-03"}  # what the reader does not model, verbatim
    assert record["file"] == [
        {"path": "/home/ana/Zotero/storage/ABCD1234/Krizhevsky et al. - 2017 - ImageNet.pdf"}
    ]


def test_better_bibtex_short_doi_resolves_from_the_url_or_is_kept() -> None:
    _, papers = load("betterbibtex.bib")
    assert papers["krizhevskyImageNetClassificationDeep2017"].doi == "10.1145/3065386"  # url holds it
    unresolved = papers["shortDoiUnresolved2020"]
    assert unresolved.doi == "10/fqd6hj"  # kept, not dropped
    assert unresolved.url == "https://example.org/a_b"  # \url{} unwrapped, "_" not a subscript
    assert custom(unresolved) == {"howpublished": "\\url{https://example.org/a_b}"}


def test_an_organisation_author_stays_whole_and_a_subtitle_is_shown() -> None:
    _, papers = load("betterbibtex.bib")
    census = papers["censusStatisticalAbstract2012"]
    assert census.authors == ["U.S. Bureau of the Census"]
    assert census.record["author"] == [{"literal": "U.S. Bureau of the Census"}]
    assert census.title == "Statistical Abstract of the United States: The National Data Book"
    assert (census.record["title-main"], census.record["subtitle"]) == (
        "Statistical Abstract of the United States",
        "The National Data Book",
    )
    record = census.record
    assert (record["type"], record["publisher"], record["publisher-place"]) == (
        "book",
        "U.S. Government Printing Office",
        "Washington, DC",
    )
    assert (record["edition"], record["collection-title"], record["ISBN"]) == (
        "131",
        "Statistical Abstract Series",
        "978-0-16-090239-6",
    )
    assert custom(census) == {"annotation": "Read for chapter 4."}


def test_a_chapter_keeps_its_editors_translator_and_zotero_attachments() -> None:
    _, papers = load("betterbibtex.bib")
    chapter = papers["rehurekSoftwareFrameworkTopic2010"]
    assert chapter.authors == ["Radim Řehůřek", "Petr Sojka"]  # {\v R}eh{\r u}{\v r}ek
    record = chapter.record
    assert record["type"] == "chapter" and record["issued"] == {"date-parts": [[2010, 5]]}
    assert record["editor"] == [
        {"family": "Witte", "given": "René"},
        {"family": "Cunningham", "given": "Hamish"},
    ]
    assert record["translator"] == [{"family": "François", "given": "Marie"}]
    assert record["file"] == [
        {
            "path": "files/12/Rehurek - 2010 - Software Framework.pdf",
            "mime": "application/pdf",
            "description": "Full Text PDF",
        },
        {"path": "files/13/rehurek.html", "mime": "text/html", "description": "Snapshot"},
    ]
    assert papers["zhangSensorReadings2021"].record["file"] == [{"path": "files/12/sensor-readings.csv"}]


def test_biblatex_text_macros_in_a_thesis_title() -> None:
    _, papers = load("betterbibtex.bib")
    thesis = papers["doeInferenceTextUnderstanding2019"]
    assert thesis.title == "Inference in Text Understanding: The Concept of \u201cMeaning\u201d"
    record = thesis.record
    assert (record["type"], record["genre"], record["institution"], record["publisher"]) == (
        "thesis",
        "phdthesis",
        "University of Somewhere",
        "University of Somewhere",
    )


def test_two_co_authors_with_the_same_name_stay_two() -> None:
    _, papers = load("betterbibtex.bib")
    data = papers["zhangSensorReadings2021"]
    assert data.authors == ["S. Zhang", "S. Zhang", "W. Li"]
    assert len(data.record["author"]) == 3  # type: ignore[arg-type]
    assert (data.record["type"], data.record["version"]) == ("dataset", "1.2")


def test_mendeley_several_urls_in_one_field_and_its_attachments() -> None:
    warnings, papers = load("mendeley-urls.bib")
    assert warnings == []
    paper = papers["Rehurek2011"]
    assert paper.url == "http://example.org/one"
    assert paper.record["links"] == [
        "http://example.org/one",
        "http://example.org/two_b",
        "https://example.org/three",
    ]
    assert paper.record["file"] == [
        {"path": "C:/Users/ana/Documents/Mendeley Desktop/Rehurek2011.pdf", "mime": "application/pdf"},
        {"path": "home/ana/Mendeley/Rehurek2011-supp.pdf", "mime": "application/pdf"},
    ]
    assert papers["Windows2015"].record["file"] == [
        {"path": "C:/Users/ana/Documents/Mendeley Desktop/Smith2015.pdf", "mime": "application/pdf"}
    ]
    assert custom(paper) == {"mendeley-groups": "Thesis/Chapter 2", "mendeley-tags": "topic models"}


def test_mendeley_accents_with_spaces_and_duplicate_co_authors() -> None:
    _, papers = load("mendeley-urls.bib")
    paper = papers["Rehurek2011"]
    assert paper.authors == ["Radim Řehůřek", "Jiří Košický", "S. Zhang", "S. Zhang"]
    assert paper.title == "Topic models (11=22) for François"
    assert paper.abstract == "We describe Řehůřek's topic modelling toolkit and its AND/OR queries."
    assert all(no_bare_marks(text) for text in (paper.title, paper.abstract, *paper.authors))
    assert paper.record["issued"] == {"date-parts": [[2011, 3]]}  # month = {mar}


def test_endnote_entries_without_a_citation_key_are_read() -> None:
    warnings, papers = load("endnote-keyless.bib")
    assert warnings == []  # no "malformed entry (author at ...)"
    assert set(papers) == {
        "A keyless article from EndNote",
        "A second keyless article on one line",
        "An empty key with its comma",
    }
    first = papers["A keyless article from EndNote"]
    assert "citation-key" not in first.record  # the file gave none: none is invented
    assert (first.doi, first.record["ISSN"], first.record["genre"]) == (
        "10.1000/endnote.1",
        "1234-5678",
        "Journal Article",
    )
    assert first.url == "" and custom(first) == {
        "url": "<Go to ISI>://WOS:000123456700001"
    }  # no web link, kept


def test_a_gbk_bib_with_a_jabref_encoding_line_reads_as_gbk() -> None:
    warnings, papers = load("jabref-gbk.bib")
    paper = papers["Wang2018"]
    assert paper.title == "基于深度学习的中文文本分类研究" and paper.venue == "计算机学报"
    assert [p["family"] for p in paper.record["author"]] == ["王", "李"]  # type: ignore[index, union-attr]
    assert paper.record["file"] == [
        {"path": "papers/wang2018.pdf", "mime": "application/pdf"},
        {"path": "wang2018-supp.pdf", "mime": "application/pdf"},
    ]
    assert custom(paper) == {"owner": "ana", "timestamp": "2018.05.01"}
    assert not any("guess" in w or "UTF-8" in w for w in warnings)  # declared, not guessed


def test_crossref_children_inherit_their_parent_and_are_listed() -> None:
    warnings, papers = load("thesis.bib")
    assert warnings == []
    assert {"acl2019", "childA", "childB", "bigBook", "chapterNoTitle"} <= set(papers)
    child = papers["childA"].record
    assert (
        child["container-title"]
        == "Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics"
    )
    assert child["publisher"] == "Association for Computational Linguistics"  # through an @string
    assert child["issued"] == {"date-parts": [[2019, 7]]} and child["page"] == "6086-6096"
    assert [e["family"] for e in child["editor"]] == ["Korhonen", "Traum", "Màrquez"]  # type: ignore[index, union-attr]
    assert papers["childA"].doi == ""  # the proceedings' DOI names the proceedings, not the paper
    assert papers["childA"].year == 2019
    assert papers["childB"].authors == ["S. Zhang", "S. Zhang"]
    chapter = papers["chapterNoTitle"]
    assert chapter.title == "Handbook of Everything" and chapter.abstract == ""  # not the book's abstract
    assert chapter.record["ISBN"] == "978-3-319-00000-0" and custom(chapter) == {
        "chapter": "3",
        "crossref": "bigBook",
    }


def test_a_crossref_child_renormalises_when_its_parent_changes(tmp_path: Path) -> None:
    path = tmp_path / "thesis.bib"
    path.write_text((FIXTURES / "thesis.bib").read_text("utf-8"), "utf-8")
    assert by_key(load_corpus([path]))["childA"].record["publisher-place"] == "Florence, Italy"
    path.write_text(path.read_text("utf-8").replace("Florence, Italy", "Firenze"), "utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**10))
    assert by_key(load_corpus([path]))["childA"].record["publisher-place"] == "Firenze"


def by_key(corpus: Corpus) -> dict[str, Paper]:
    return {str(p.record.get("citation-key")): p for p in corpus}


def test_a_thesis_report_by_an_organisation_with_cyrillic_and_slash() -> None:
    _, papers = load("thesis.bib")
    report = papers["caritas2020"]
    assert report.authors == ["Caritas Europa"] and report.record["author"] == [{"literal": "Caritas Europa"}]
    assert report.title == "Poverty in Europe: Бедность and AND/OR"
    assert (report.record["type"], report.record["number"]) == ("report", "TR-7")
    assert report.record["issued"] == {"date-parts": [[2020, 3, 15]]}


def test_same_title_different_works_are_two_papers_and_an_odd_month_is_kept() -> None:
    _, papers = load("thesis.bib")
    a, b = papers["inferenceA"], papers["inferenceB"]
    assert a.title == b.title and (a.authors, a.year) != (b.authors, b.year)
    assert b.record["issued"] == {"date-parts": [[1993]]} and custom(b) == {"month": "Spring"}


def test_the_existing_fixtures_carry_their_records() -> None:
    _, papers = load("jabref.bib")
    goedel = papers["Goedel2019"]
    assert goedel.record["source-type"] == "Article"  # as written
    assert (goedel.record["volume"], goedel.record["page"]) == ("20", "1-42")
    assert goedel.record["issued"] == {"date-parts": [[2019, 1]]}  # month = jan
    assert goedel.record["author"][-1] == {"literal": "Google Brain Team"}  # type: ignore[index]
    _, mendeley = load("mendeley.bib")
    assert custom(mendeley["Smith2019"])["mendeley-groups"] == "Thesis"
    assert mendeley["Smith2019"].record["file"] == [
        {"path": "home/user/Documents/Mendeley Desktop/Smith2019.pdf", "mime": "application/pdf"}
    ]


def test_a_field_given_twice_keeps_the_second_value_and_a_broken_keyless_entry_blames_no_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "twice.bib"
    path.write_text(
        "@article{twice, title = {First title}, title = {Second title},\n"
        "  year = {2020}, note = {a}, note = {b}}\n"
        "@article{\n  author = {Nobody, A.}, title = {An {unbalanced brace}\n",
        "utf-8",
    )
    corpus = load_corpus([path], use_cache=False)
    assert [w.split("/")[-1] for w in corpus.warnings] == ["twice.bib: skipped 1 malformed entry (line 3)"]
    (paper,) = corpus
    assert paper.title == "First title" and paper.record["note"] == "a"
    assert custom(paper) == {"title": "Second title", "note": "b"}
