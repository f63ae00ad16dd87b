"""RIS, CSL-JSON, JSON and arXiv snapshot records kept whole (issue 18): each fixture is written
the way its tool writes it, and every field it gives lands in Paper.record (RECORD.md)."""

from __future__ import annotations

import json
from pathlib import Path

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats.arxiv import journal_name
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats"


def by_title(corpus: Corpus) -> dict[str, Paper]:
    return {p.title: p for p in corpus}


def load(name: str) -> tuple[dict[str, Paper], list[str]]:
    corpus = load_corpus([FIXTURES / name])
    return by_title(corpus), [w.split("/")[-1] for w in corpus.warnings]


def test_zotero_one_space_tags_a_book_its_publisher_series_notes_and_attachment() -> None:
    papers, warnings = load("zotero-onespace.ris")
    assert warnings == [] and len(papers) == 2  # "TY - BOOK": one space after every tag
    book = papers["The Elements of Statistical Learning"]
    assert (book.kind, book.venue, book.year) == ("book", "Springer", 2009)  # the venue is PB, not T2
    r = book.record
    assert r["type"] == "book" and r["source-type"] == "BOOK" and r["citation-key"] == "hastie2009elements"
    assert r["publisher"] == "Springer" and r["collection-title"] == "Springer Series in Statistics"
    assert "container-title" not in r
    assert (r["publisher-place"], r["edition"], r["ISBN"], r["language"]) == (
        "New York",
        "2",
        "978-0-387-84857-0",
        "en",
    )
    assert r["issued"] == {"date-parts": [[2009, 2, 9]]}
    assert r["editor"] == [{"family": "Editor", "given": "Series"}]
    assert r["note"] == "First line of a note\nthat goes on here.\nA second note."  # every N1 line
    assert r["file"] == [{"path": "files/12/Hastie - 2009 - The Elements.pdf", "mime": "application/pdf"}]
    assert "custom" not in r


def test_a_ris_dataset_is_a_dataset_and_duplicate_co_authors_stay() -> None:
    papers, _ = load("zotero-onespace.ris")
    data = papers["ImageNet Large Scale Visual Recognition Challenge Data"]
    assert (data.kind, data.record["type"]) == ("dataset", "dataset")
    assert data.authors == ["Olga Russakovsky", "S. Zhang", "S. Zhang"]
    assert data.record["author"][1:] == [{"family": "Zhang", "given": "S."}] * 2  # type: ignore[index]
    assert data.record["custom"] == {"db": "Zenodo"}  # a tag the reader does not model, verbatim


def test_endnote_spelled_out_type_the_full_journal_name_and_its_abbreviation() -> None:
    papers, warnings = load("endnote.ris")
    assert warnings == []
    lecun = papers["Convolutional networks for images, speech, and time series"]
    assert (lecun.kind, lecun.venue) == ("article", "The Handbook of Brain Theory and Neural Networks")
    r = lecun.record
    assert (r["source-type"], r["type"]) == ("Journal Article", "article-journal")
    assert r["container-title-short"] == "Handb. Brain Theory"  # JO kept, not the venue
    assert (r["volume"], r["issue"], r["page"], r["citation-key"]) == ("3361", "10", "255-258", "17")
    assert r["note"] == "Times Cited: 12" and r["custom"] == {"an": "000123"}
    conference = papers["A conference paper with a spelled-out type"]
    assert (conference.kind, conference.record["type"]) == ("inproceedings", "paper-conference")


def test_scopus_record_whose_only_title_is_t2_is_listed() -> None:
    papers, warnings = load("scopus.ris")
    assert warnings == []
    adam = papers["Adam: A method for stochastic optimization"]  # T2 only: it is the title
    assert (adam.venue, adam.year, adam.authors) == ("", 2015, ["D.P. Kingma", "J. Ba"])
    assert adam.record["genre"] == "Conference Paper" and adam.record["custom"] == {"db": "Scopus"}
    dropout = papers["Dropout: A simple way to prevent neural networks from overfitting"]
    assert dropout.record["container-title"] == "Journal of Machine Learning Research"
    assert dropout.record["container-title-short"] == "J. Mach. Learn. Res."
    assert dropout.record["ISSN"] == "15324435"


def test_web_of_science_ris_month_day_date_two_issns_and_a_damaged_record() -> None:
    papers, warnings = load("wos.ris")
    assert warnings == ["wos.ris: skipped 1 malformed record (line 22)"]  # "TY-JOUR"
    deep = papers["Deep learning"]
    assert (deep.venue, deep.doi, deep.year) == ("NATURE", "10.1038/nature14539", 2015)
    r = deep.record
    assert r["issued"] == {"date-parts": [[2015, 5, 28]]}  # DA "MAY 28" with PY 2015
    assert r["ISSN"] == "0028-0836" and r["page"] == "436-444"
    assert r["custom"] == {"an": "WOS:000355286600030", "sn": "1476-4687", "j9": "NATURE", "ji": "Nature"}


def test_mendeley_several_urls_in_one_field_first_valid_is_the_url_all_are_links() -> None:
    papers, _ = load("mendeley-urls.ris")
    paper = papers["Several links in one field"]
    assert paper.url == "http://www.example.org/paper"  # javascript: is never the link
    assert paper.record["links"] == [
        "javascript:alert(1)",
        "http://www.example.org/paper",
        "https://doi.org/10.1000/xyz",
    ]


def test_better_csl_json_literal_names_stay_whole_and_every_variable_is_kept() -> None:
    papers, warnings = load("better-literal.csl.json")
    assert warnings == []
    gemini = papers["Gemini: A Family of Highly Capable Multimodal Models"]
    assert gemini.authors == ["Google DeepMind", "S. Zhang", "S. Zhang"]
    r = gemini.record
    assert r["author"] == [
        {"literal": "Google DeepMind"},
        {"family": "Zhang", "given": "S."},
        {"family": "Zhang", "given": "S."},
    ]
    assert r["editor"] == [{"family": "Fontaine", "given": "Jean", "non-dropping-particle": "de la"}]
    assert (r["type"], r["number"], r["publisher"], r["publisher-place"]) == (
        "report",
        "TR-2023-1",
        "Google",
        "Mountain View",
    )
    assert r["issued"] == {"date-parts": [[2023, 12]]} and r["citation-key"] == "deepmind2023gemini"
    assert r["custom"] == {"accessed": {"date-parts": [[2024, 1, 2]]}, "PMID": "12345"}
    assert gemini.url == "https://arxiv.org/abs/2312.11805"
    assert r["links"] == ["https://arxiv.org/abs/2312.11805", "https://deepmind.google/gemini.pdf"]


def test_a_csl_webpage_stays_a_webpage() -> None:
    papers, _ = load("better-literal.csl.json")
    page = papers["The Zotero documentation"]
    assert (page.record["type"], page.record["source-type"], page.kind) == ("webpage", "webpage", "online")
    assert page.authors == ["Corporation for Digital Scholarship"]


def test_arxiv_journal_ref_is_kept_whole_and_names_a_venue_only_when_separable() -> None:
    papers, warnings = load("arxiv-journalref.jsonl")
    assert warnings == []
    graphs = papers["Sparsity-certifying Graph Decompositions"]
    assert graphs.venue == "Nature" and graphs.record["container-title"] == "Nature"
    custom = graphs.record["custom"]
    assert isinstance(custom, dict)
    assert custom["journal-ref"] == "Nature 521, 436-444 (2015)"
    assert (custom["submitter"], custom["report-no"], custom["comments"]) == (
        "Louis Theran",
        "UMASS-2007-1",
        "To appear in Graphs and Combinatorics",
    )
    assert custom["license"] == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert [v["created"] for v in custom["versions"]] == [
        "Sat, 31 Mar 2007 02:26:18 GMT",
        "Sat, 13 Dec 2008 17:26:00 GMT",
    ]
    assert graphs.record["issued"] == {"date-parts": [[2007, 3, 31]]} and graphs.record["version"] == "v2"
    moon = papers["The evolution of the Earth-Moon system based on the dark matter field fluid model"]
    assert moon.venue == "" and moon.doi == "10.1103/PhysRevD.76.013009"  # never "Phys.Rev.D76:013009"
    assert moon.record["custom"]["journal-ref"] == "Phys.Rev.D76:013009,2007"  # type: ignore[index]
    assert moon.record["type"] == "article-journal"


def test_journal_names_in_journal_refs() -> None:
    assert journal_name("Phys.Rev.D76:013009,2007") == ""
    assert journal_name("Int.J.Mod.Phys.A22:5855-5873,2007") == ""
    assert journal_name("Phys. Rev. D 76, 013009 (2007)") == "Phys. Rev. D"
    assert journal_name("JHEP 0702:025,2007") == "JHEP"
    assert journal_name("Journal of Machine Learning Research, Vol. 12 (2011)") == (
        "Journal of Machine Learning Research"
    )


def test_generic_json_several_urls_and_unread_fields_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mendeley.json"
    item = {
        "title": "T",
        "abstract": "An abstract.",
        "url": "http://a.example/x http://b.example/y",
        "pdf": "http://c.example/z.pdf",
        "tags": ["x"],
    }
    path.write_text(json.dumps([item]), "utf-8")
    (paper,) = list(load_corpus([path]))
    assert paper.url == "http://a.example/x"
    assert paper.record == {
        "links": ["http://a.example/x", "http://b.example/y"],
        "custom": {"pdf": "http://c.example/z.pdf", "tags": ["x"]},
    }


def test_the_record_survives_the_parse_cache(tmp_path: Path) -> None:
    path = tmp_path / "zotero.ris"
    path.write_bytes((FIXTURES / "zotero-onespace.ris").read_bytes())
    first = {p.title: p.record for p in load_corpus([path])}
    again = {p.title: p.record for p in load_corpus([path])}  # read back from the cache rows
    assert again == first and first["The Elements of Statistical Learning"]["publisher"] == "Springer"
