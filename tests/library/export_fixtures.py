"""A fixture library of Paper objects with full records (RECORD.md), one per kind of work the
exporters must get right: shared by the exporter tests and the real-tool checks."""

from __future__ import annotations

from tui_reader.corpus.paper import Paper


def _p(pid: str, title: str, kind: str, record: dict[str, object], **kw: object) -> Paper:
    return Paper(id=pid, title=title, abstract=str(kw.pop("abstract", "")), kind=kind, record=record, **kw)  # type: ignore[arg-type]


ARTICLE = _p(
    "art001",
    "Software Framework for Topic Modelling with Large Corpora",
    "article",
    {
        "citation-key": "rehurek_2010_gensim",
        "source-type": "article",
        "type": "article-journal",
        "author": [{"family": "Řehůřek", "given": "Radim"}, {"family": "Sojka", "given": "Petr"}],
        "container-title": "Journal of Machine Learning Research",
        "container-title-short": "J. Mach. Learn. Res.",
        "volume": "11",
        "issue": "3",
        "page": "45–50",
        "ISSN": "1532-4435",
        "language": "en",
        "issued": {"date-parts": [[2010, 5, 22]]},
        "links": ["https://example.org/gensim", "https://example.org/mirror"],
        "file": [{"path": "files/12/gensim.pdf", "mime": "application/pdf", "description": "Full Text PDF"}],
        "note": "First line of the note.\nSecond line.\n\nA new paragraph.",
        "custom": {"timestamp": "2020-01-01", "mendeley-tags": "topics, {LDA}"},
    },
    authors=["Radim Řehůřek", "Petr Sojka"],
    venue="Journal of Machine Learning Research",
    year=2010,
    url="https://example.org/gensim",
    doi="10.5555/1234.5678",
    abstract="We describe gensim, with α-divergence and 50% & $5 costs.",
    sources=["library.bib"],
)
BOOK = _p(
    "book01",
    "The Art of Computer Programming",
    "book",
    {
        "citation-key": "knuth1997",
        "source-type": "book",
        "type": "book",
        "author": [{"family": "Knuth", "given": "Donald E."}],
        "editor": [{"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van"}],
        "publisher": "Addison-Wesley",
        "publisher-place": "Reading, MA",
        "edition": "3",
        "collection-title": "Series in Computer Science",
        "volume": "1",
        "ISBN": "978-0-201-89683-1",
        "issued": {"date-parts": [[1997]]},
    },
    authors=["Donald E. Knuth"],
    venue="Addison-Wesley",
    year=1997,
    sources=["library.bib"],
)
CHAPTER = _p(
    "chap01",
    "Probabilistic Topic Models",
    "incollection",
    {
        "source-type": "CHAP",
        "type": "chapter",
        "author": [{"family": "Steyvers", "given": "Mark"}],
        "editor": [{"family": "Landauer", "given": "Thomas"}],
        "container-title": "Handbook of Latent Semantic Analysis",
        "publisher": "Psychology Press",
        "page": "427-448",
        "issued": {"date-parts": [[2007]]},
        "custom": {"n2": "A second abstract.", "db": "Scopus"},
    },
    authors=["Mark Steyvers"],
    venue="Handbook of Latent Semantic Analysis",
    year=2007,
    sources=["scopus.ris"],
)
THESIS = _p(
    "thes01",
    "Deep Nets for Everything: Łódź, Ħ, Ȩ, ì, ǐ, Дмитрий, ℓ1, ∞ and x̂",
    "phdthesis",
    {
        "type": "thesis",
        "source-type": "phdthesis",
        "author": [{"family": "Müller", "given": "Jürgen"}],
        "institution": "Universität Tübingen",
        "publisher": "Universität Tübingen",
        "publisher-place": "Tübingen",
        "genre": "PhD thesis",
        "issued": {"date-parts": [[2019, 11]]},
    },
    authors=["Jürgen Müller"],
    venue="Universität Tübingen",
    year=2019,
    sources=["thesis.bib"],
)
REPORT = _p(
    "rep001",
    "Statistical Abstract of the United States: 100% of #1 {data} & $_costs_",
    "techreport",
    {
        "type": "report",
        "source-type": "Report",
        "author": [{"literal": "U.S. Bureau of the Census"}],
        "institution": "U.S. Bureau of the Census",
        "number": "TR-2020-7",
        "publisher-place": "Washington, DC",
        "issued": {"date-parts": [[2020]]},
    },
    authors=["U.S. Bureau of the Census"],
    year=2020,
    sources=["endnote.txt"],
)
DATASET = _p(
    "data01",
    "Ocean Temperatures 1990–2020",
    "misc",
    {
        "source-type": "DATA",
        "type": "dataset",
        "author": [
            {"literal": "Caritas Europa"},
            {"family": "Zhang", "given": "S."},
            {"family": "Zhang", "given": "S."},
        ],
        "publisher": "Zenodo",
        "version": "2.1",
        "issued": {"date-parts": [[2021]]},
        "custom": {"an": "ACC-1"},
    },
    authors=["Caritas Europa", "S. Zhang", "S. Zhang"],
    year=2021,
    doi="10.5281/zenodo.123",
    url="https://zenodo.org/record/123",
    sources=["data.ris"],
)
WEBPAGE = _p(
    "web001",
    "深度学习简介 (An Introduction to Deep Learning)",
    "misc",
    {
        "type": "webpage",
        "source-type": "webpage",
        "author": [{"family": "李", "given": "明"}],
        "container-title": "Example Blog",
        "issued": {"date-parts": [[2022, 3, 4]]},
        "custom": {"accessed": {"date-parts": [[2023, 1, 2]]}},
    },
    authors=["李 明"],
    year=2022,
    url="https://example.org/深度",
    sources=["items.csl.json"],
)
JOURNAL_ARTICLE_RIS = _p(
    "jar001",
    "An Article Typed in EndNote's Words",
    "",
    {
        "source-type": "Journal Article",
        "container-title": "Proceedings of the Royal Society A",
        "volume": "7",
        "page": "1-9",
    },
    authors=["Ada Lovelace"],
    venue="Proceedings of the Royal Society A",
    year=1843,
    sources=["endnote.ris"],
)

LIBRARY = [ARTICLE, BOOK, CHAPTER, THESIS, REPORT, DATASET, WEBPAGE, JOURNAL_ARTICLE_RIS]
