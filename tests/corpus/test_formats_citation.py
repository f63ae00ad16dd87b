"""What researchers have: BibTeX, RIS, CSL-JSON and the arXiv metadata snapshot as collections.

The fixtures are written the way Zotero, JabRef, Mendeley, Google Scholar and arXiv write them:
accents every way, braced titles, @string macros, month = jan, comments, missing fields, title-only
entries and one malformed entry per file (the rest still load; the warning names it).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest
from pylatexenc.latexencode import unicode_to_latex

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats import bibtex, common, discover
from tui_reader.corpus.formats.latex import to_text
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper, paper_id
from tui_reader.corpus.text import normalise

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats"


def by_title(corpus: Corpus) -> dict[str, Paper]:
    return {p.title: p for p in corpus}


def warned(corpus: Corpus, name: str) -> list[str]:
    """The warnings about one file, without the folder its path starts with."""
    return [w.split("/")[-1] for w in corpus.warnings if f"/{name}:" in w]


def fields(paper: Paper) -> dict[str, object]:
    d = paper.to_dict()
    del d["id"], d["sources"], d["title_generated"]
    return d


# -- BibTeX ----------------------------------------------------------------------------------------
def test_zotero_bibtex_every_field_lands() -> None:
    corpus = load_corpus([FIXTURES / "zotero.bib"])
    assert corpus.warnings == []
    papers = by_title(corpus)
    attention = papers["Attention Is All You Need"]  # {Is} {All}: braces that keep case, gone
    assert attention.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit"]
    assert (attention.year, attention.kind, attention.venue) == (2017, "misc", "arXiv")
    assert attention.url == "http://arxiv.org/abs/1706.03762"
    assert (attention.doi, attention.arxiv) == ("10.48550/arXiv.1706.03762", "1706.03762")
    assert attention.keywords == [
        "Computer Science - Computation and Language",
        "Computer Science - Machine Learning",
    ]
    assert "28.4 BLEU on WMT 2014" in attention.abstract and paper_id(attention.abstract) in attention.aliases
    naive = papers["Naïve Bayes for Gödel numbering — a Möbius view"]  # UTF-8 as Zotero writes it
    assert naive.authors == ["Jörg Müller", "Ayşe Çelik", "José Ñúñez"]
    assert (naive.venue, naive.year, naive.kind) == ("ICML", 2021, "inproceedings")
    assert "50% of the usual features" in naive.abstract  # a bare % is text, not a comment
    nature = papers["Deep learning"]  # no abstract: listed by its title, not dropped
    assert not nature.has_abstract and paper_id("", "Deep learning") in nature.aliases
    assert (nature.venue, nature.doi, nature.kind) == ("Nature", "10.1038/nature14539", "article")


def test_jabref_bibtex_macros_latex_and_a_malformed_entry() -> None:
    corpus = load_corpus([FIXTURES / "jabref.bib"])
    assert warned(corpus, "jabref.bib") == [
        "jabref.bib: skipped 1 malformed entry (Broken2020 at line 22)",
        "jabref.bib: skipped 1 entry with neither title nor abstract (line 36)",
    ]
    papers = by_title(corpus)
    assert set(papers) == {
        "Braced Titles and Öther LaTeX — in BibTeX",
        "A Title-Only Entry About Ångström Scales",
    }
    goedel = papers["Braced Titles and Öther LaTeX — in BibTeX"]
    assert goedel.authors == [
        "Kurt Gödel",
        "Paul Erdős",
        "Jean de la Fontaine",
        "John Smith Jr.",
        "Google Brain Team",
    ]
    assert goedel.venue == "JMLR"  # journal = jmlr, an @string
    assert goedel.year == 2019 and goedel.keywords == ["graph theory", "inversion", "speed-ups"]
    assert goedel.abstract == (
        "We show that Möbius inversion and Erdős–Rényi graphs explain 50% of naïve GPU speed-ups, "
        "with O(n log n) cost in practice."
    )
    assert (goedel.doi, goedel.url) == ("10.5555/goedel.2019", "https://jmlr.org/papers/v20/goedel19a.html")
    only = papers["A Title-Only Entry About Ångström Scales"]
    assert only.authors == ["Marie François"] and not only.has_abstract
    assert only.venue == "Proceedings of Machine Learning Research (Volume 80)"  # procml # " (...)"
    assert (only.year, only.kind) == (2018, "inproceedings")


def test_mendeley_bibtex_with_crlf_eprint_and_escaped_urls() -> None:
    papers = by_title(load_corpus([FIXTURES / "mendeley.bib"]))
    smith = papers["A Study of Things in Mendeley"]
    assert smith.abstract == "We study % of {braces} and _ underscores in Mendeley exports."
    assert smith.authors == ["John Smith", "Jörg Müller"]  # M{\"{u}}ller
    assert (smith.arxiv, smith.url) == ("1901.00001", "https://arxiv.org/abs/1901.00001")
    assert smith.keywords == ["deep learning", "neural networks"]
    assert papers["Escaped URLs"].url == "https://example.org/a_b?x=1&y=2"
    assert papers["Escaped URLs"].venue == "NeurIPS"


def test_google_scholar_entries_are_title_only_and_find_their_arxiv_id() -> None:
    papers = by_title(load_corpus([FIXTURES / "scholar.bib"]))
    adam = papers["Adam: A method for stochastic optimization"]
    assert (adam.arxiv, adam.url, adam.venue) == ("1412.6980", "https://arxiv.org/abs/1412.6980", "arXiv")
    dbn = papers["A fast learning algorithm for deep belief nets"]
    assert dbn.authors == ["Geoffrey E Hinton", "Simon Osindero", "Yee-Whye Teh"]
    assert (dbn.venue, dbn.year, dbn.abstract) == ("Neural computation", 2006, "")


def test_bibtexparser_never_writes_to_the_terminal(capfd: pytest.CaptureFixture[str]) -> None:
    load_corpus([FIXTURES / "jabref.bib"], use_cache=False)
    assert capfd.readouterr().err == ""  # its per-block log lines would land over the UI


# -- RIS ----------------------------------------------------------------------------------------------
def test_zotero_ris_fields_continuations_and_a_one_space_tag() -> None:
    corpus = load_corpus([FIXTURES / "zotero.ris"])
    assert warned(corpus, "zotero.ris") == [
        "zotero.ris: skipped 1 record with neither title nor abstract (line 56)",
    ]
    papers = by_title(corpus)
    assert len(papers) == 4 and "A record whose TY line lost a space" in papers  # "TY - JOUR"
    nature = papers["Deep learning"]
    assert nature.record["volume"] == "521"  # the record is checked in test_ris_csl_fidelity.py
    assert fields(nature) | {"abstract": "", "record": None} == {
        "record": None,
        "title": "Deep learning",
        "abstract": "",
        "authors": ["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"],
        "venue": "Nature",
        "year": 2015,
        "url": "https://www.nature.com/articles/nature14539",
        "doi": "10.1038/nature14539",
        "arxiv": "",
        "keywords": ["Computer science", "Mathematics and computing"],
        "kind": "article",
    }
    naive = papers["Naïve Bayes for Gödel numbering — a Möbius view"]
    assert naive.abstract.endswith("suffice; the Möbius transform gives a closed form for the posterior.")
    assert (naive.venue, naive.kind, naive.year) == ("ICML", "inproceedings", 2021)
    attention = papers["Attention Is All You Need"]
    assert not attention.has_abstract and attention.arxiv == "1706.03762" and attention.kind == "unpublished"


def test_endnote_style_ris_tags() -> None:
    papers = by_title(load_corpus([FIXTURES / "mendeley.ris"]))
    smith = papers["A Study of Things in Mendeley RIS"]  # T1, A1, Y1, N2, JF; CRLF line ends
    assert smith.authors == ["John Smith", "Jörg Müller Jr."]
    assert (smith.year, smith.venue, smith.doi) == (2019, "Journal of Stuff", "10.1000/xyz.2019")
    assert smith.keywords == ["deep learning", "kernels"] and "50% of things" in smith.abstract
    assert papers["A Technical Report With Only A Title"].kind == "techreport"


# -- CSL-JSON -------------------------------------------------------------------------------------------
def test_zotero_csl_json() -> None:
    corpus = load_corpus([FIXTURES / "zotero.csl.json"])
    assert warned(corpus, "zotero.csl.json") == [
        "zotero.csl.json: skipped 1 item with neither title nor abstract (item 4)"
    ]
    papers = by_title(corpus)
    nature = papers["Deep learning"]
    assert (nature.year, nature.venue, nature.kind, nature.doi) == (
        2015,
        "Nature",
        "article",
        "10.1038/nature14539",
    )
    attention = papers["Attention Is All You Need"]
    assert (attention.arxiv, attention.venue, attention.kind) == ("1706.03762", "arXiv", "misc")
    assert attention.keywords == [
        "Computer Science - Computation and Language",
        "Computer Science - Machine Learning",
    ]
    naive = papers["Naïve Bayes for Gödel numbering — a Möbius view"]  # <i>, <span class="nocase"> gone
    assert naive.authors == ["Jörg Müller", "Jean de la Fontaine", "Google Brain Team"]
    assert (naive.year, naive.venue, naive.has_abstract) == (2021, "ICML", False)


def test_csl_json_in_a_plain_json_file_is_sniffed_and_generic_json_is_not() -> None:
    papers = by_title(load_corpus([FIXTURES / "better-csl.json"]))
    smith = papers["A Study of Things in Better CSL JSON"]  # Crossref-style JATS abstract
    assert smith.abstract == "Crossref-style abstracts carry JATS markup & entities; kernels beat everything."
    assert (smith.venue, smith.year, smith.doi) == ("Journal of Stuff", 2019, "10.1000/xyz.2019")


def test_generic_json_keeps_skipping_records_without_an_abstract(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    items = [{"title": "No abstract", "type": "paper"}, {"title": "Kept", "abstract": "A kept abstract."}]
    path.write_text(json.dumps(items), "utf-8")
    corpus = load_corpus([path])
    assert corpus.titles == ["Kept"] and "skipped 1 record(s) without an abstract" in corpus.warnings[0]


# -- the arXiv metadata snapshot ----------------------------------------------------------------------
def test_arxiv_snapshot_lines_and_a_generic_line_in_the_same_file() -> None:
    corpus = load_corpus([FIXTURES / "arxiv-snapshot.jsonl"])
    assert warned(corpus, "arxiv-snapshot.jsonl") == [
        "arxiv-snapshot.jsonl: skipped 1 malformed line (line 4)"
    ]
    papers = by_title(corpus)
    diphoton = papers["Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"]
    assert diphoton.authors == ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]
    assert (diphoton.arxiv, diphoton.url) == ("0704.0001", "https://arxiv.org/abs/0704.0001")
    assert (diphoton.year, diphoton.kind, diphoton.doi) == (2007, "article", "10.1103/PhysRevD.76.013009")
    assert diphoton.venue == "" and diphoton.keywords == ["hep-ph"]  # "Phys.Rev.D76:013009,2007" names none
    assert diphoton.record["custom"]["journal-ref"] == "Phys.Rev.D76:013009,2007"  # type: ignore[index]
    assert diphoton.abstract.startswith("A fully differential calculation in perturbative")
    first_line = json.loads(FIXTURES.joinpath("arxiv-snapshot.jsonl").open().readline())
    assert paper_id(normalise(first_line["abstract"])) in diphoton.aliases  # its id before issue 18
    attention = papers["Attention Is All You Need"]
    assert (attention.venue, attention.kind, attention.year) == ("arXiv", "misc", 2017)  # v1's date
    assert attention.keywords == ["cs.CL", "cs.LG"]
    old = papers["Old-style identifiers and Gödel's incompleteness"]
    assert (old.arxiv, old.year) == ("math/0309136", 2003)  # update_date when there are no versions
    assert old.authors == ["J. Doe", "R. Roe", "S. Müller"]  # the authors string, affiliation dropped
    generic = papers["A generic JSON Lines record"]
    assert (generic.arxiv, generic.url, generic.keywords, generic.kind) == ("", "", [], "")


def test_the_snapshot_streams_even_under_its_json_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "arxiv-metadata-oai-snapshot.json"  # its real name: JSON Lines in a .json
    shutil.copy(FIXTURES / "arxiv-snapshot.jsonl", path)
    monkeypatch.setattr(common, "MAX_WHOLE_FILE", 100)  # read whole, it would be refused
    corpus = load_corpus([path])
    assert len(corpus) == 4 and "1706.03762" in {p.arxiv for p in corpus}


# -- gzip, folders, sniffing -----------------------------------------------------------------------------
ALL = ["zotero.bib", "jabref.bib", "mendeley.bib", "scholar.bib", "zotero.ris", "mendeley.ris"]
ALL += ["zotero.csl.json", "better-csl.json", "arxiv-snapshot.jsonl"]


@pytest.mark.parametrize("name", ALL)
def test_gzipped_files_read_the_same(tmp_path: Path, name: str) -> None:
    packed = tmp_path / (name + ".gz")
    packed.write_bytes(gzip.compress((FIXTURES / name).read_bytes()))
    plain, zipped = load_corpus([FIXTURES / name]), load_corpus([packed])
    assert [fields(p) for p in zipped] == [fields(p) for p in plain] and zipped.ids == plain.ids
    assert len(zipped.warnings) == len(plain.warnings)


def test_a_folder_mixing_formats_loads_every_one(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    (folder / "nested").mkdir(parents=True)
    for name in ALL:
        shutil.copy(FIXTURES / name, folder / name)
    shutil.copy(FIXTURES / "scholar.bib", folder / "nested" / "scholar-copy.bibtex")
    zipped = folder / "nested" / "items.csljson.gz"
    zipped.write_bytes(gzip.compress((FIXTURES / "zotero.csl.json").read_bytes()))
    found = {p.name for p in discover([folder])}
    assert found == {*ALL, "scholar-copy.bibtex", "items.csljson.gz"}
    corpus = load_corpus([folder])
    alone = {pid for name in ALL for pid in load_corpus([FIXTURES / name]).ids}
    assert set(corpus.ids) <= alone  # a work in two files (one DOI, one arXiv id) lists once
    adam_at = corpus.resolve(paper_id("", "Adam: A method for stochastic optimization"))
    adam = None if adam_at is None else corpus.paper(adam_at)
    assert adam is not None and adam.sources == ["scholar.bib", "scholar-copy.bibtex"]  # one paper


def test_files_without_a_telling_suffix_are_sniffed(tmp_path: Path) -> None:
    bib, ris = tmp_path / "references.export", tmp_path / "citations"
    shutil.copy(FIXTURES / "jabref.bib", bib)  # starts with "% Encoding: UTF-8", then @String
    shutil.copy(FIXTURES / "zotero.ris", ris)
    assert len(load_corpus([bib])) == 2 and len(load_corpus([ris])) == 4


# -- the parse cache ------------------------------------------------------------------------------------
def test_second_load_comes_from_the_cache_and_an_edited_entry_renormalises_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "zotero.bib"
    shutil.copy(FIXTURES / "zotero.bib", path)
    built: list[str] = []
    real = bibtex.build

    def counting(p: Path, data: object) -> Paper | None:
        paper = real(p, data)
        built.append(paper.title if paper else "")
        return paper

    monkeypatch.setattr(bibtex, "build", counting)
    first = load_corpus([path])
    assert len(built) == 3
    second = load_corpus([path])
    assert len(built) == 3 and [fields(p) for p in second] == [fields(p) for p in first]
    text = path.read_text("utf-8").replace("50% of the usual", "40% of the usual")
    path.write_text(text, "utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**10))
    third = load_corpus([path])
    assert built[3:] == ["Naïve Bayes for Gödel numbering — a Möbius view"]  # only the edited entry
    assert [p.title for p in third] == [p.title for p in first]
    assert "40% of the usual" in by_title(third)[built[3]].abstract
    assert third.ids == first.ids  # a work is its DOI or title, author and year: an edited abstract keeps it


def test_editing_a_string_macro_renormalises_its_file(tmp_path: Path) -> None:
    path = tmp_path / "jabref.bib"
    shutil.copy(FIXTURES / "jabref.bib", path)
    assert by_title(load_corpus([path]))["Braced Titles and Öther LaTeX — in BibTeX"].venue == "JMLR"
    path.write_text(
        path.read_text("utf-8").replace("Journal of Machine Learning Research", "Nature"), "utf-8"
    )
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**10))
    assert by_title(load_corpus([path]))["Braced Titles and Öther LaTeX — in BibTeX"].venue == "Nature"


# -- round trips through pylatexenc's encoder ---------------------------------------------------------------
SAMPLES = [
    "Müller – naïve ß café costs 50% of a_b {x} \\ ~ $5 & #1 “quoted” — ≥ α’s Ø ł",
    "Œuvre ¿Qué? Ærø ÿ ŷ Čech ğ ő Ångström Erdős–Rényi",
    "GPUs ≈ 2× faster on x<y>z ^ | with 95% CI",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_latex_encoded_text_reads_back_the_same(text: str) -> None:
    plain = str(normalise(text))
    assert str(normalise(to_text(unicode_to_latex(plain)))) == plain


def test_an_exported_bibtex_file_reopens_with_the_same_ids(tmp_path: Path) -> None:
    authors = ["Jörg Müller", "Ayşe Çelik", "Jean de la Fontaine"]
    path = tmp_path / "export.bib"
    entries = []
    for n, text in enumerate(SAMPLES):
        plain, title = str(normalise(text)), f"Title {n}: {str(normalise(text))[:20]}"
        names = " and ".join(unicode_to_latex(a) for a in authors)
        entries.append(
            f"@article{{k{n},\n  title = {{{unicode_to_latex(title)}}},\n  author = {{{names}}},\n"
            f"  abstract = {{{unicode_to_latex(plain)}}},\n  year = {{2024}},\n}}\n"
        )
    path.write_text("\n".join(entries), "utf-8")
    corpus = load_corpus([path])
    assert corpus.warnings == []
    for n, paper in enumerate(corpus):
        plain = str(normalise(SAMPLES[n]))
        assert paper_id(plain) in paper.aliases and paper.abstract == plain
        assert paper.title == f"Title {n}: {plain[:20]}".strip() and paper.authors == authors


def test_a_protected_double_hyphen_stays_two_hyphens() -> None:
    """unicode_to_latex leaves "--" alone and BibTeX reads it as an en dash: an exporter that must
    keep "--help" writes "-{}-", which reads back as two hyphens."""
    assert str(normalise(to_text("use -{}-help, pages 1--2"))) == "use --help, pages 1–2"
