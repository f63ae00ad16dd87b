"""Orders of the list, each checked against a plain sort of the papers themselves; and links made
from a record's url field."""

from __future__ import annotations

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.library.links import paper_link
from tui_reader.library.sorting import (
    SORTS,
    SortColumns,
    all_equal,
    arrange,
    by_relevance,
    next_sort,
    sort_label,
    title_key,
)


def test_each_order_against_a_direct_sort(seed_corpus: Corpus) -> None:
    papers = list(seed_corpus)
    visit_of = [i % 3 for i in range(len(papers))]  # as if added over three visits
    columns = SortColumns.build(seed_corpus, visit_of)
    rows = list(range(len(papers)))
    base = rows[::-1]  # any starting order: ties must keep it
    expected = {
        "relevance": base,
        "year": sorted(base, key=lambda r: (papers[r].year is None, -(papers[r].year or 0))),
        "venue": sorted(
            base,
            key=lambda r: (
                not papers[r].venue,
                papers[r].venue.casefold(),
                papers[r].year is None,
                -(papers[r].year or 0),
            ),
        ),
        "title": sorted(base, key=lambda r: title_key(papers[r].title)),
        "added": sorted(base, key=lambda r: -visit_of[r]),
    }
    for sort in SORTS:
        assert arrange(base, sort, columns) == expected[sort], sort
    assert expected["added"][: len(papers) // 3] == [r for r in base if visit_of[r] == 2]


def test_orders_on_varied_papers() -> None:
    """Years, venues and titles that differ (the seeds share one venue and year)."""
    years = [2019, None, 2023, 2019, 2021]
    venues = ["icml", "", "neurips", "icml", "cvpr"]
    titles = ['"Quoted" first', "alpha", "Beta", "álpha", "gamma"]
    columns = SortColumns(years, venues, [title_key(t) for t in titles], [0, 1, 1, 0, 2])
    rows = [0, 1, 2, 3, 4]
    assert arrange(rows, "year", columns) == [2, 4, 0, 3, 1]
    assert arrange(rows, "venue", columns) == [4, 0, 3, 2, 1]
    assert arrange(rows, "title", columns) == [1, 2, 4, 0, 3]
    assert arrange(rows, "added", columns) == [4, 1, 2, 0, 3]
    assert arrange(rows, "relevance", columns) == rows


def test_equal_scores_fall_back_to_collection_order() -> None:
    assert by_relevance([5, 2, 9], [1.0, 1.0, 1.0]) == [2, 5, 9]
    assert by_relevance([5, 2, 9], [3.0, 2.0, 2.0]) == [5, 2, 9]
    assert all_equal([1.0, 1.0]) and not all_equal([1.0]) and not all_equal([2.0, 1.0])


def test_sort_names() -> None:
    assert [next_sort(s) for s in SORTS] == [*SORTS[1:], SORTS[0]]
    assert next_sort("nonsense") == "relevance"
    assert sort_label("relevance", query=False) == "collection order"
    assert sort_label("relevance", query=True) == "relevance"
    assert sort_label("year", query=False) == "year, newest first"


@pytest.mark.parametrize(
    ("raw", "link"),
    [
        ("https://openreview.net/forum?id=abc", "https://openreview.net/forum?id=abc"),
        ("http://example.org/p.pdf", "http://example.org/p.pdf"),
        ("10.1145/3292500.3330701", "https://doi.org/10.1145/3292500.3330701"),
        ("doi:10.1000/xyz<1>", "https://doi.org/10.1000/xyz%3C1%3E"),
        ("https://doi.org/10.1000/182", "https://doi.org/10.1000/182"),
        ("arXiv:2101.00001v2", "https://arxiv.org/abs/2101.00001v2"),
        ("2101.00001", "https://arxiv.org/abs/2101.00001"),
        ("hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001"),
        ("math.GT/0309136", "https://arxiv.org/abs/math.GT/0309136"),
        ("openreview.net/forum?id=x", "https://openreview.net/forum?id=x"),
        ("www.example.org/a", "https://www.example.org/a"),
        ("", None),
        ("paper.pdf", None),
        ("/home/me/paper.pdf", None),
        ("file:///etc/passwd", None),
        ("javascript:alert(1)", None),
        ("http://", None),
        ("https://x.org/\x1b]8;;evil\x07", None),
        ("two words.org", None),
    ],
)
def test_paper_link(raw: str, link: str | None) -> None:
    assert paper_link(raw) == link
