"""The bulk build's documents, read a run of rows at a time, are the documents of each whole
Paper: every field, for single records, papers folded from several files and citation records."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from support import SEED_FILES

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.venues import venue_terms
from tui_reader.search.index.analysis import AUTHOR_SEPARATOR
from tui_reader.search.index.schema import BATCH, document, documents

FORMATS = Path(__file__).resolve().parent.parent / "fixtures" / "formats"


def _from_paper(corpus: Corpus, i: int) -> dict[str, object]:
    """A document as it was made before the rows were read in runs: from ``corpus.paper(i)``."""
    paper = corpus.paper(i)
    authors = f" {AUTHOR_SEPARATOR} ".join(paper.authors)
    keywords = "\n".join(paper.keywords)
    doc: dict[str, object] = {
        "id": paper.id,
        "title": paper.title,
        "content": f"{paper.title}\n{paper.title}\n{authors}\n{paper.abstract}\n{keywords}",
        "authors": authors,
        "venue": venue_terms(paper.venue),
        "sources": " ".join(paper.sources),
        "tw": paper.title,
    }
    for name in ("year", "doi", "arxiv", "kind"):
        if value := getattr(paper, name):
            doc[name] = value
    if paper.keywords:
        doc["keywords"] = ",".join(k.replace(",", " ") for k in paper.keywords)
    return doc


def _collection(tmp_path: Path) -> Corpus:
    folder = tmp_path / "library"
    folder.mkdir()
    for path in [*SEED_FILES, *FORMATS.glob("*.bib"), *FORMATS.glob("*.ris"), *FORMATS.glob("*json*")]:
        shutil.copy(path, folder / path.name)
    return load_corpus([folder])


def test_documents_in_runs_are_each_papers(tmp_path: Path) -> None:
    corpus = _collection(tmp_path)
    n = len(corpus)
    folded = [i for i in range(n) if len(corpus.records(i)) > 1]
    assert folded and n > 50  # the seeds' shared abstracts fold across files
    cited = [i for i in range(n) if {"doi", "keywords", "kind"} <= document(corpus, i).keys()]
    assert cited  # the citation exports give DOIs, keywords and entry types
    expected = {i: _from_paper(corpus, i) for i in range(n)}
    assert dict(documents(corpus, range(n))) == expected
    assert {i: document(corpus, i) for i in range(n)} == expected
    # the bulk build's order: runs of ranges, interleaved, and any order at all
    order = [*range(n // 2, n), *range(n // 2)]
    shuffled = random.Random(7).sample(range(n), n)
    for given in (order, shuffled, list(reversed(range(n)))):
        got = list(documents(corpus, given))
        assert [i for i, _ in got] == given
        assert all(doc == expected[i] for i, doc in got)


def test_a_run_longer_than_a_batch_with_a_row_folded_into_an_earlier_one(tmp_path: Path) -> None:
    paragraphs = [f"Abstract number {k} about graphs and a few more words here." for k in range(BATCH + 50)]
    paragraphs.insert(BATCH // 2, paragraphs[3])  # the same abstract again: one paper, a gap in the rows
    (tmp_path / "many.txt").write_text("Header\n" + "".join(f"{p}\n\n" for p in paragraphs))
    corpus = load_corpus([tmp_path / "many.txt"])
    assert len(corpus) == BATCH + 50
    got = dict(documents(corpus, range(len(corpus))))
    assert got == {i: _from_paper(corpus, i) for i in range(len(corpus))}
