"""Round trips: bookmarks exported as BibTeX, RIS or CSL-JSON and opened as a collection give the
same papers (ids, titles, authors, years, links). Real files both ways: the loaders and the
writers are the ones the reader and ``tui-reader bookmarks export`` use."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.export import export

SOURCE = [
    {
        "title": "Graph Neural Networks for Molecules: Gödel, Ångström & 100% of $\\alpha$",
        "authors": ["Ada Lovelace", "Kurt Gödel", "Vincent van Gogh"],
        "abstract": "We study graph networks (GNNs) with α ≥ 0.5, 100% recall, costs of $5 & more; "
        "see Müller's results_on_things and {braces}.",
        "venue": "ICML 2021",
        "url": "https://example.org/gnn?a=1&b=2",
    },
    {
        "title": "Attention Is All You Need",
        "authors": ["Ashish Vaswani", "Noam Shazeer"],
        "abstract": "The dominant sequence transduction models are based on recurrent networks -- "
        "we propose the Transformer, based solely on attention.",
        "venue": "NeurIPS 2017",
        "url": "https://arxiv.org/abs/1706.03762",
    },
    {
        "title": "A Journal Paper on Deep Learning",
        "authors": ["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"],
        "abstract": "Deep learning allows computational models composed of multiple layers to learn.",
        "venue": "Nature",
        "year": 2015,
        "url": "https://doi.org/10.1038/nature14539",
    },
    {
        "title": "",  # untitled: the title is generated, and must come back the same
        "authors": "Grace Hopper",
        "abstract": "We introduce COBOL-R, a compiler that reads English-like programs.",
        "venue": "icml2019",
        "url": "",
    },
]


@pytest.fixture
def collection(tmp_path: Path) -> Corpus:
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in SOURCE), "utf-8")
    return load_corpus([path])


def exported(corpus: Corpus, tmp_path: Path, fmt: str, suffix: str) -> Path:
    store = BookmarkStore(tmp_path / "bookmarks.json")
    for paper in corpus:
        store.add(paper.id, paper.title, note="line one\nline two", snapshot=paper)
    out = tmp_path / f"export{suffix}"
    out.write_text(export(store.all(), corpus.get, fmt), "utf-8")
    return out


def fields(paper: Paper) -> tuple[object, ...]:
    return (paper.id, paper.title, paper.authors, paper.year, paper.url, paper.abstract)


@pytest.mark.parametrize(("fmt", "suffix"), [("bibtex", ".bib"), ("ris", ".ris"), ("csl-json", ".csl.json")])
def test_export_then_open_gives_the_same_papers(
    collection: Corpus, tmp_path: Path, fmt: str, suffix: str
) -> None:
    out = exported(collection, tmp_path, fmt, suffix)
    reopened = load_corpus([out])
    assert reopened.warnings == []
    assert sorted(f[1:] for f in map(fields, reopened)) == sorted(f[1:] for f in map(fields, collection))
    # every id comes back: as the paper's id, or (a generated title is a real one in the file, so
    # the work gets a title's id) as the alias its abstract gives it
    at = {p.id: reopened.resolve(p.id) for p in collection}
    assert {pid: reopened.paper(i).title for pid, i in at.items() if i is not None} == {
        p.id: p.title for p in collection
    }
    venues = {p.id: reopened.paper(i).venue for p in collection if (i := at[p.id]) is not None}
    assert venues == {p.id: p.venue for p in collection}


def test_export_without_the_collection_is_the_same_file(collection: Corpus, tmp_path: Path) -> None:
    live = exported(collection, tmp_path, "bibtex", ".bib").read_text("utf-8")
    store = BookmarkStore(tmp_path / "bookmarks.json")
    closed = export(store.all(), lambda pid: None, "bibtex")  # snapshots only
    assert closed == live


def test_exported_bibtex_parses_cleanly_with_both_parsers(collection: Corpus, tmp_path: Path) -> None:
    import bibtexparser
    from pybtex.database import parse_string

    text = exported(collection, tmp_path, "bibtex", ".bib").read_text("utf-8")
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == [] and len(library.entries) == len(collection)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = parse_string(text, "bibtex")
    assert len(data.entries) == len(collection)
    assert {e.key for e in library.entries} == set(data.entries.keys())


@pytest.mark.parametrize(("fmt", "suffix"), [("bibtex", ".bib"), ("ris", ".ris"), ("csl-json", ".csl.json")])
def test_organisations_old_years_and_book_venues_come_back(tmp_path: Path, fmt: str, suffix: str) -> None:
    import bibtexparser

    papers = [
        Paper(
            "a1",
            "A Mathematical Theory of Communication",
            "We study communication.",
            ["Claude Shannon"],
            "Bell System Technical Journal",
            1948,
            kind="article",
        ),
        Paper(
            "a2",
            "Annual Report",
            "What the council did.",
            ["Science and Technology Facilities Council", "Google DeepMind"],
            "STFC Press",
            2020,
            kind="book",
        ),
        Paper("a3", "A Note", "A note on things.", ["Ada Lovelace"], "Self-published", 1843, kind="misc"),
    ]
    store = BookmarkStore(tmp_path / "bookmarks.json")
    for p in papers:
        store.add(p.id, p.title, snapshot=p)
    out = tmp_path / f"export{suffix}"
    out.write_text(export(store.all(), lambda pid: None, fmt), "utf-8")
    back = {p.title: p for p in load_corpus([out])}
    for p in papers:
        got = back[p.title]
        assert (got.authors, got.year, got.venue) == (p.authors, p.year, p.venue), fmt
    if fmt == "bibtex":
        entries = bibtexparser.parse_string(out.read_text("utf-8")).entries
        report = next(e for e in entries if e.fields_dict["title"].value == "Annual Report")
        assert report.fields_dict["author"].value == (
            "{Science and Technology Facilities Council} and {Google DeepMind}"
        )
        assert report.key.startswith("science2020")
