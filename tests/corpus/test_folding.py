"""Records fold into one paper exactly when they are one work (issue 18), read from real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import SEED_FILES, seed_paragraphs

from tui_reader.corpus import folding
from tui_reader.corpus.columns import title_only
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.folding import identities, identity_of
from tui_reader.corpus.formats import make_paper
from tui_reader.corpus.formats.common import key
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.outcomes import encode as _encode
from tui_reader.corpus.paper import Paper, paper_id
from tui_reader.corpus.parse_cache import FileData
from tui_reader.corpus.rows import Rows
from tui_reader.corpus.text import normalise

BOOK = (
    "This handbook surveys the theory and practice of sparse graph algorithms, from matchings and flows "
    "to spectral sparsifiers, with exercises for every chapter."
)
ABSTRACT = "We show that a greedy matching is optimal for every degree bound on sparse random graphs."


def bib(path: Path, *entries: str) -> Path:
    path.write_text("\n\n".join(entries), "utf-8")
    return path


def entry(
    key: str, title: str, author: str = "Smith, John", year: int = 2020, kind: str = "article", **fields: str
) -> str:
    extra = "".join(f"  {k} = {{{v}}},\n" for k, v in fields.items())
    return (
        f"@{kind}{{{key},\n  title = {{{title}}},\n  author = {{{author}}},\n  year = {{{year}}},\n{extra}}}"
    )


def test_fifteen_placeholder_abstracts_are_fifteen_title_only_papers(tmp_path: Path) -> None:
    path = bib(
        tmp_path / "scopus.bib",
        *(entry(f"k{n}", f"Paper number {n}", abstract="Not Available") for n in range(15)),
    )
    corpus = load_corpus([path])
    assert len(corpus) == 15 and corpus.warnings == []
    papers = list(corpus)
    assert all(p.abstract == "" for p in papers)
    assert all(p.record["custom"]["abstract"] == "Not Available" for p in papers)  # type: ignore[index]
    assert title_only(corpus) == frozenset(corpus.ids)
    # the one id they all had before resolves to the first, the paper the user saw
    assert corpus.resolve(paper_id("Not Available")) == 0


def test_chapters_carrying_their_books_abstract_stay_apart(tmp_path: Path) -> None:
    chapters = [
        entry(
            f"ch{n}",
            f"Chapter {n}: part {n} of the handbook",
            kind="incollection",
            abstract=BOOK,
            booktitle="Handbook",
        )
        for n in range(17)
    ]
    corpus = load_corpus([bib(tmp_path / "thesis.bib", *chapters)])
    assert len(corpus) == 17 and all(p.abstract == BOOK for p in corpus)
    assert corpus.resolve(paper_id(BOOK)) == 0


def test_same_title_different_works(tmp_path: Path) -> None:
    title = "Inference in text understanding"
    corpus = load_corpus(
        [
            bib(tmp_path / "a.bib", entry("norvig87", title, "Norvig, Peter", 1987)),
            bib(tmp_path / "b.bib", entry("charniak88", title, "Charniak, Eugene", 1988)),
        ]
    )
    assert [p.authors for p in corpus] == [["Peter Norvig"], ["Eugene Charniak"]]


def test_two_arxiv_papers_sharing_an_abstract(tmp_path: Path) -> None:
    lines = [
        {
            "id": "2101.00001",
            "submitter": "A. One",
            "title": "First version of the idea",
            "abstract": ABSTRACT,
            "authors": "A. One",
            "categories": "cs.DS",
        },
        {
            "id": "2101.00002",
            "submitter": "B. Two",
            "title": "A different paper",
            "abstract": ABSTRACT,
            "authors": "B. Two",
            "categories": "cs.DS",
        },
    ]
    path = tmp_path / "arxiv.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    corpus = load_corpus([path])
    assert [p.arxiv for p in corpus] == ["2101.00001", "2101.00002"]


def test_john_smith_and_steven_smith_write_two_books(tmp_path: Path) -> None:
    corpus = load_corpus(
        [
            bib(tmp_path / "a.bib", entry("a", "Book A", "Smith, John", kind="book")),
            bib(tmp_path / "b.bib", entry("a", "Book A", "Smith, Steven", kind="book")),
        ]
    )
    assert len(corpus) == 2
    same = load_corpus(
        [
            bib(tmp_path / "c.bib", entry("a", "Book A", "Smith, John", kind="book")),
            bib(tmp_path / "d.bib", entry("b", "Book A", "J. Smith", kind="book")),
        ]
    )
    assert len(same) == 1 and same.paper(0).sources == ["c.bib", "d.bib"]


def test_same_doi_from_two_files_is_one_paper_with_both_sources_and_the_abstract(tmp_path: Path) -> None:
    first = bib(
        tmp_path / "mendeley.bib",
        entry("lecun", "Deep learning", "LeCun, Yann", 2015, doi="10.1038/nature14539"),
    )
    second = bib(
        tmp_path / "zotero.bib",
        entry(
            "lecun2015",
            "Deep Learning.",
            "Yann LeCun",
            2015,
            doi="https://doi.org/10.1038/NATURE14539",
            abstract=ABSTRACT,
            volume="521",
        ),
    )
    corpus = load_corpus([first, second])
    assert len(corpus) == 1
    paper = corpus.paper(0)
    assert paper.sources == ["mendeley.bib", "zotero.bib"] and paper.abstract == ABSTRACT
    assert paper.title == "Deep learning" and paper.doi == "10.1038/nature14539"  # the first's fields stay
    assert paper.record.get("volume", "521") == "521"  # a field only the second has is filled in
    assert corpus.abstract(0) == ABSTRACT and corpus.row(0)[2] == ABSTRACT
    assert title_only(corpus) == frozenset()
    alone = load_corpus([first])  # the id a paper listed under before the second file came stays
    assert corpus.ids == alone.ids


def test_title_only_and_a_copy_with_abstract_from_two_files_are_one(tmp_path: Path) -> None:
    a = bib(tmp_path / "a.bib", entry("x", "Sparse matchings", "Smith, John", 2020))
    b = bib(tmp_path / "b.bib", entry("y", "Sparse Matchings", "John Smith", 2020, abstract=ABSTRACT))
    corpus = load_corpus([a, b])
    assert len(corpus) == 1 and corpus.paper(0).abstract == ABSTRACT
    assert corpus.paper(0).sources == ["a.bib", "b.bib"]
    # both old ids (the title's hash and the abstract's) now name that one paper
    assert corpus.resolve(paper_id("", "Sparse matchings")) == 0 and corpus.resolve(paper_id(ABSTRACT)) == 0
    reverse = load_corpus([b, a])
    assert len(reverse) == 1 and reverse.paper(0).abstract == ABSTRACT


def test_different_dois_same_title_are_two(tmp_path: Path) -> None:
    one = entry("a", "Erratum", "Smith, John", 2020, doi="10.1000/one", abstract=ABSTRACT)
    two = entry("b", "Erratum", "Smith, John", 2020, doi="10.1000/two", abstract=ABSTRACT)
    assert len(load_corpus([bib(tmp_path / "one-file.bib", one, two)])) == 2
    assert len(load_corpus([bib(tmp_path / "x.bib", one), bib(tmp_path / "y.bib", two)])) == 2


def _file(name: str, papers: list[Paper]) -> FileData:
    """A file's rows as the parse cache keeps them (the importer's citation keys given here)."""
    blobs = [_encode(p) for p in papers]
    generated = bytearray(p.title_generated for p in papers)
    keys = b"".join(key(b) for b in blobs)
    return FileData(
        Path(name), [p.id for p in papers], [p.title for p in papers], generated, Rows(blobs), [], keys
    )


def _paper(title: str, cite: str, abstract: str = "") -> Paper:
    paper = make_paper(
        abstract, "x.bib", title, "Smith, John", None, 2020, title_only=True, record={"citation-key": cite}
    )
    assert paper is not None
    return paper


def test_within_a_file_two_citation_keys_are_two_works() -> None:
    data = _file("x.bib", [_paper("Same title", "smith2020a"), _paper("Same title", "smith2020b", ABSTRACT)])
    corpus = Corpus([data], [], [])
    assert len(corpus) == 2 and corpus.ids[0] == data.ids[0] and corpus.ids[1] != data.ids[1]
    assert [corpus.paper(i).record["citation-key"] for i in range(2)] == ["smith2020a", "smith2020b"]
    assert corpus.get(corpus.ids[1]) is not None and corpus.resolve(corpus.ids[1]) == 1
    again = Corpus(
        [_file("x.bib", [_paper("Same title", "smith2020a"), _paper("Same title", "smith2020b", ABSTRACT)])],
        [],
        [],
    )
    assert again.ids == corpus.ids  # the second work's id is stable
    # the same key twice (a file listing one entry twice) is one work
    same = Corpus([_file("x.bib", [_paper("Same title", "k"), _paper("Same title", "k", ABSTRACT)])], [], [])
    assert len(same) == 1 and same.paper(0).abstract == ABSTRACT


def test_a_work_in_two_files_under_two_keys_is_one() -> None:
    corpus = Corpus(
        [_file("a.bib", [_paper("Same title", "a")]), _file("b.bib", [_paper("Same title", "b", ABSTRACT)])],
        [],
        [],
    )
    assert len(corpus) == 1 and corpus.paper(0).abstract == ABSTRACT


def test_seeds_fold_as_before_with_their_ids() -> None:
    """No title, no author: a seed is its abstract, its duplicates fold and its id is unchanged."""
    before: list[str] = []
    for f in SEED_FILES:
        for text in seed_paragraphs(f):
            pid = paper_id(normalise(text))
            if pid not in before:
                before.append(pid)
    corpus = load_corpus([])
    assert sorted(corpus.ids) == sorted(before) and len(corpus) < sum(
        len(seed_paragraphs(f)) for f in SEED_FILES
    )
    assert all(not corpus.paper(i).aliases for i in range(len(corpus)))


def test_identities_read_at_once_are_each_rows(tmp_path: Path) -> None:
    """folding.identities (one read for a run of rows) gives identity_of row by row, from the
    parse cache's file and from memory alike, for any run."""
    path = bib(
        tmp_path / "refs.bib",
        *(
            entry(f"k{i}", f"Graphs {i}", year=2000 + i, doi=f"10.1234/g{i}", abstract=ABSTRACT)
            for i in range(9)
        ),
    )
    data = load_corpus([path]).files[0]
    assert data.rows.path is not None  # rows read from the cache file
    one_by_one = [identity_of(data, r) for r in range(len(data))]
    assert len({i.doi for i in one_by_one}) == 9
    for start, stop in [(0, 9), (2, 5), (4, 4), (8, 9)]:
        assert identities(data, start, stop) == one_by_one[start:stop]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(folding, "READ", 2)  # several reads, the last one short
        assert identities(data, 0, 9) == one_by_one and identities(data, 1, 6) == one_by_one[1:6]
    data.rows.to_memory()
    assert data.rows.in_memory and identities(data, 0, 9) == one_by_one
