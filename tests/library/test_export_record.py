"""Exports keep every field of Paper.record (RECORD.md) and follow the source's types: written from
Paper objects made with a record, read back by bibtexparser, rispy and json."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import replace

import bibtexparser
import pytest
import rispy
from export_fixtures import ARTICLE, BOOK, CHAPTER, LIBRARY
from hypothesis import given
from hypothesis import strategies as st

from tui_reader.corpus.paper import Paper
from tui_reader.library.citation import balanced, bibtex, citation, latex
from tui_reader.library.citeformats import csl_json, ris
from tui_reader.library.citekeys import cite_keys
from tui_reader.library.latexsafe import RAW_SETTABLE


def bib(papers: list[Paper]) -> dict[str, tuple[str, dict[str, str]]]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        library = bibtexparser.parse_string(bibtex([(p, "") for p in papers]))
    assert library.failed_blocks == []
    return {e.key: (e.entry_type, {f.key: f.value for f in e.fields}) for e in library.entries}


def test_bibtex_keeps_every_field_of_an_article() -> None:
    kind, f = bib([ARTICLE])["rehurek_2010_gensim"]
    assert kind == "article"
    assert (
        f["journal"] == "Journal of Machine Learning Research" and f["shortjournal"] == "J. Mach. Learn. Res."
    )
    assert (f["volume"], f["number"], f["pages"]) == ("11", "3", "45--50")
    assert (f["year"], f["month"], f["date"]) == ("2010", "may", "2010-05-22")
    assert f["issn"] == "1532-4435" and f["language"] == "en" and f["doi"] == "10.5555/1234.5678"
    assert f["url"] == "https://example.org/gensim" and f["url2"] == "https://example.org/mirror"
    assert f["file"] == "Full Text PDF:files/12/gensim.pdf:application/pdf"
    assert f["author"] == "{\\v{R}}eh{\\r{u}}{\\v{r}}ek, Radim and Sojka, Petr"
    assert f["note"].startswith("First line of the note.\nSecond line.")
    assert f["timestamp"] == "2020-01-01" and f["mendeley-tags"] == "topics, {LDA}"  # verbatim


def test_entry_types_follow_the_source() -> None:
    entries = bib(LIBRARY)
    types = {key: kind for key, (kind, _f) in entries.items()}
    assert types["knuth1997"] == "book" and entries["knuth1997"][1]["publisher"] == "Addison-Wesley"
    assert "booktitle" not in entries["knuth1997"][1] and entries["knuth1997"][1]["edition"] == "3"
    chapter = entries["steyvers2007probabilistic"]
    assert chapter[0] == "incollection" and chapter[1]["booktitle"] == "Handbook of Latent Semantic Analysis"
    assert chapter[1]["editor"] == "Landauer, Thomas" and chapter[1]["pages"] == "427--448"
    thesis = entries["muller2019deep"][1]
    assert entries["muller2019deep"][0] == "phdthesis" and "publisher" not in thesis
    assert thesis["school"] == 'Universit{\\"a}t T{\\"u}bingen'
    report = entries["census2020statistical"]
    assert report[0] == "techreport" and report[1]["number"] == "TR-2020-7"
    assert report[1]["author"] == "{U.S. Bureau of the Census}"  # an organisation, whole
    assert types["europa2021ocean"] == "dataset" and entries["europa2021ocean"][1]["publisher"] == "Zenodo"
    assert types["anon2022introduction"] == "online"  # biblatex's types; BibTeX styles set them as misc
    assert entries["europa2021ocean"][1]["author"] == "{Caritas Europa} and Zhang, S. and Zhang, S."
    assert types["lovelace1843article"] == "article"  # EndNote's 'Journal Article'


@pytest.mark.parametrize("source", ["DATA", "Journal Article", "JOUR", "dataset"])
def test_a_ris_or_endnote_type_is_never_inproceedings(source: str) -> None:
    paper = Paper(
        id="x1", title="T", abstract="", venue="Some Venue", year=2020, record={"source-type": source}
    )
    [(kind, _f)] = bib([paper]).values()
    assert kind == ("dataset" if source in ("DATA", "dataset") else "article")


def test_a_custom_field_never_overrides_ours() -> None:
    copy = replace(ARTICLE, record={**ARTICLE.record, "custom": {"volume": "11", "title": "Another"}})
    _kind, f = bib([copy])["rehurek_2010_gensim"]
    assert f["volume"] == "11" and "custom-volume" not in f  # the same value: a copy, dropped
    assert f["title"].startswith("Software") and f["custom-title"] == "Another"


def test_source_keys_are_kept_and_clashes_get_a_suffix() -> None:
    twin = replace(BOOK, id="book02", title="Another Book")
    plain = Paper(id="p1", title="Knuth Again", abstract="", authors=["Donald Knuth"], year=1997)
    keys = cite_keys([BOOK, twin, plain, ARTICLE])
    assert keys["book01"] == "knuth1997" and keys["book02"] == "knuth1997a"
    assert keys["art001"] == "rehurek_2010_gensim" and keys["p1"] == "knuth1997knuth"
    assert citation(ARTICLE).key == "rehurek_2010_gensim"


def test_nothing_latex_cannot_set_is_left_bare() -> None:
    text = bibtex([(p, "") for p in LIBRARY])
    body = text.split("\n", 1)[1]
    bare = {c for c in body if ord(c) > 127}
    # each inside \tuireaderchar{...}; ǐ as it is (inputenc sets it)
    assert bare == set("深度学习简介李明ĦȨǐДмитрий\u0302"), bare
    assert "{\\tuireaderchar{深度学习简介}}" in body and text.startswith("@preamble{{\\providecommand")
    decomposed = Paper(id="d", title="Re\u030chu\u030ar\u030cek", abstract="", record={})
    assert "\u030c" not in bibtex([(decomposed, "")])  # NFC first: no bare combining mark


def test_ris_types_publisher_notes_and_custom_tags() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = rispy.loads(ris([(p, "") for p in LIBRARY]))
    by_id = {r["id"]: r for r in records}
    book = by_id["knuth1997"]
    assert book["type_of_reference"] == "BOOK" and book["publisher"] == "Addison-Wesley"
    assert "secondary_title" not in book and book["edition"] == "3"
    assert book["issn"] == "978-0-201-89683-1"  # rispy's name for SN, which holds an ISBN too
    assert by_id["europa2021ocean"]["type_of_reference"] == "DATA"
    assert by_id["anon2022introduction"]["type_of_reference"] == "ELEC"
    assert by_id["lovelace1843article"]["type_of_reference"] == "JOUR"
    assert by_id["census2020statistical"]["publisher"] == "U.S. Bureau of the Census"
    assert by_id["europa2021ocean"]["accession_number"] == "ACC-1"  # the source's AN tag back
    note_lines = ris([(ARTICLE, "")]).split("\n")
    assert [line for line in note_lines if line.startswith("N1")] == [
        "N1  - First line of the note.",
        "N1  - Second line.",
        "N1  -  ",
        "N1  - A new paragraph.",
    ]


def test_csl_json_keeps_the_records_variables() -> None:
    items = {i["id"]: i for i in json.loads(csl_json([(p, "") for p in LIBRARY]))}
    assert items["anon2022introduction"]["type"] == "webpage"
    book = items["knuth1997"]
    assert book["type"] == "book" and book["publisher"] == "Addison-Wesley" and "container-title" not in book
    assert book["editor"] == [{"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van"}]
    assert book["ISBN"] == "978-0-201-89683-1" and book["collection-title"] == "Series in Computer Science"
    article = items["rehurek_2010_gensim"]
    assert (article["volume"], article["issue"], article["page"]) == ("11", "3", "45–50")
    assert article["issued"] == {"date-parts": [[2010, 5, 22]]}
    assert article["custom"]["links"] == ["https://example.org/gensim", "https://example.org/mirror"]
    assert article["custom"]["timestamp"] == "2020-01-01"
    assert items["census2020statistical"]["author"] == [{"literal": "U.S. Bureau of the Census"}]
    assert items["anon2022introduction"]["accessed"] == {"date-parts": [[2023, 1, 2]]}  # a CSL source's own
    assert items["europa2021ocean"]["type"] == "dataset" and items["europa2021ocean"]["version"] == "2.1"
    assert items["steyvers2007probabilistic"]["type"] == "chapter"
    assert items["muller2019deep"]["type"] == "thesis" and items["muller2019deep"]["genre"] == "PhD thesis"


def test_a_ris_sources_clashing_tag_is_kept_as_a_note_and_foreign_fields_get_no_tag() -> None:
    record = {**CHAPTER.record, "volume": "11", "custom": {"vl": "12", "py": "2007", "n2": "x"}}
    lines = ris([(replace(CHAPTER, record=record), "")]).split("\n")
    assert "VL  - 11" in lines and "N1  - VL: 12" in lines  # ours wins, theirs kept
    assert lines.count("PY  - 2007") == 1 and "N2  - x" in lines  # the same value: one copy
    assert not [line for line in ris([(ARTICLE, "")]).split("\n") if "2020-01-01" in line]  # BibTeX's own


@given(st.text(max_size=40))
def test_any_text_is_ascii_outside_the_char_macro_and_balanced(text: str) -> None:
    out = latex(text)
    outside = re.sub(r"\{\\tuireaderchar\{[^{}\\%#&$_^~]+\}\}", "", out)  # no TeX sign inside
    assert all(c.isascii() or c in RAW_SETTABLE for c in outside), out
    assert balanced(out), out


def test_a_sign_before_a_combining_mark_stays_out_of_the_macro() -> None:
    assert latex("50%\u0301") == "50{\\%}{\\tuireaderchar{\u0301}}"


def test_a_snapshot_without_its_file_name_still_writes_its_own_fields_back_verbatim() -> None:
    from tui_reader.library.bibrecord import origin

    bare = [replace(p, sources=[]) for p in (ARTICLE, CHAPTER, LIBRARY[6])]
    assert [origin(p) for p in bare] == ["bibtex", "ris", "csl"]
    _kind, f = bib([bare[0]])["rehurek_2010_gensim"]
    assert f["mendeley-tags"] == "topics, {LDA}"  # verbatim, as from the .bib
