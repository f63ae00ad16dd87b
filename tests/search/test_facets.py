"""Facet counts against a direct count over Whoosh's own answer, on a generated collection with
real-looking venues, years and authors."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from whoosh.query import Every

from bench import corpusgen
from tui_reader.corpus.columns import columns
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.facets import facets
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.query import querytext
from tui_reader.search.searcher import Searcher


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("facets")
    corpus_file = corpusgen.write(base / "papers.jsonl", 300)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        corpus = load_corpus([corpus_file], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
        yield Searcher(index)
    index.close()
    corpus.close()


def direct(
    searcher: Searcher, text: str, allow: frozenset[str] | None = None
) -> tuple[Counter, Counter, Counter]:
    """Year, venue and author counts of the papers Whoosh's own search returns, paper by paper."""
    rest = querytext.split_filters(text)[0]
    with searcher.index.searcher() as s:
        q = searcher.parse(rest)[0] if rest.strip() else Every()
        ids = [hit["id"] for hit in s.search(q, limit=None)]
    papers = [searcher.corpus.get(i) for i in ids if allow is None or i in allow]
    years = Counter(p.year for p in papers if p and p.year)
    venues = Counter(p.venue for p in papers if p and p.venue)
    authors = Counter(a for p in papers if p for a in p.authors)
    return len(papers), years, venues, authors


@pytest.mark.parametrize(
    "text", ["learning", "graph OR robot", '"neural network"', "year:[2015 TO 2018]", ""]
)
def test_facets_count_every_match(searcher: Searcher, text: str) -> None:
    count, years, venues, authors = direct(searcher, text)
    found = facets(searcher, text, top=0)
    assert found.total == count > 0
    assert dict(found.years) == dict(years)
    assert dict(found.venues) == dict(venues)
    assert dict(found.authors) == dict(authors)
    assert [y for y, _ in found.years] == sorted(years, reverse=True)


def test_facets_follow_is_filters(searcher: Searcher) -> None:
    marked = frozenset(searcher.corpus.ids[::7])
    count, years, venues, _ = direct(searcher, "learning", allow=marked)
    found = facets(searcher, "learning is:bookmarked", {"bookmarked": marked}, top=0)
    assert dict(found.years) == dict(years) and dict(found.venues) == dict(venues)
    assert found.total == count < facets(searcher, "learning", top=0).total


def test_top_values_are_the_most_frequent(searcher: Searcher) -> None:
    found = facets(searcher, "learning", top=3)
    _, _, venues, authors = direct(searcher, "learning")
    assert (
        len(found.venues) == 3 and [n for _, n in found.venues] == sorted(venues.values(), reverse=True)[:3]
    )
    assert [n for _, n in found.authors] == sorted(authors.values(), reverse=True)[:3]


def test_columns_hold_what_the_papers_say(searcher: Searcher) -> None:
    cols = columns(searcher.corpus)
    for row in (0, 17, 299):
        paper = searcher.corpus.paper(row)
        assert cols.years[row] == (paper.year or 0)
        assert cols.venues[cols.venue_of[row]] == paper.venue
        assert cols.authors_of(row) == paper.authors


def test_total_is_enters_count(searcher: Searcher) -> None:
    for text in ("learning", "graph OR robot", "year:[2015 TO 2018]"):
        assert facets(searcher, text).total == searcher.search(text).total


def test_counting_gives_way_to_a_search(searcher: Searcher, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search begun while facets are counted (a keystroke) stops the count: None, not a wait."""
    from tui_reader.search import facets as facets_module

    monkeypatch.setattr(facets_module, "CHECK_EVERY", 1)
    real_sleep = facets_module.time.sleep

    def a_key_is_pressed(seconds: float) -> None:
        searcher.cancel()  # what a newer search does: the searcher's generation moves on
        real_sleep(seconds)

    monkeypatch.setattr(facets_module.time, "sleep", a_key_is_pressed)
    assert facets(searcher, "learning") is None
    monkeypatch.undo()
    assert facets(searcher, "learning") is not None
