"""``is:`` filters against Whoosh's own ``search(q, filter=..., mask=...)`` on the seed index."""

from __future__ import annotations

import pytest

from tui_reader.search.query import querytext
from tui_reader.search.searcher import Searcher, SearchMode


@pytest.mark.parametrize(
    ("text", "rest", "known", "unknown"),
    [
        ("graph is:unread", "graph          ", ("unread",), ()),
        ("is:bookmarked", "             ", ("bookmarked",), ()),
        ("IS:Read graph is:read", "        graph        ", ("read",), ()),
        ("graph is:foo", "graph       ", (), ("foo",)),
        ("xis:unread", "xis:unread", (), ()),  # not after a word character
        ("graph", "graph", (), ()),
        ("graph tag:ToRead", "graph           ", ("tag:toread",), ()),
        ('tag:"to read" graph', "              graph", ("tag:to read",), ()),
        ("is:read tag:x", "             ", ("read", "tag:x"), ()),
        ("xtag:y", "xtag:y", (), ()),
    ],
)
def test_split_filters(text: str, rest: str, known: tuple[str, ...], unknown: tuple[str, ...]) -> None:
    assert querytext.split_filters(text) == (rest, known, unknown)


def whoosh(searcher: Searcher, text: str, allow: set[str] | None, deny: set[str] | None) -> list[str]:
    """The reference: Whoosh's own search of Enter's reading, with its filter and mask."""
    with searcher.index.searcher() as s:
        q = searcher.parse(text)[0] if text.strip() else None

        def numbers(ids: set[str] | None) -> set[int] | None:
            return (
                None if ids is None else {n for n in (s.document_number(id=i) for i in ids) if n is not None}
            )

        if q is None:
            from whoosh.query import Every

            q = Every()
        return [hit["id"] for hit in s.search(q, limit=None, filter=numbers(allow), mask=numbers(deny))]


@pytest.fixture(scope="module")
def marked(seed_searcher: Searcher) -> dict[str, frozenset[str]]:
    ids = seed_searcher.corpus.ids
    graph = [h.id for h in seed_searcher.search("graph", limit=1000).hits]
    assert len(graph) >= 3
    return {
        "bookmarked": frozenset([graph[0], graph[2], ids[5], ids[7]]),
        "read": frozenset([graph[1], ids[5], ids[9]]),
        "new": frozenset(ids[:10]),
    }


@pytest.mark.parametrize(
    ("text", "allow", "deny"),
    [
        ("graph is:bookmarked", ["bookmarked"], []),
        ("graph is:unread", [], ["read"]),
        ("graph is:read", ["read"], []),
        ("is:bookmarked", ["bookmarked"], []),
        ("is:unread", [], ["read"]),
        ("is:bookmarked is:unread", ["bookmarked"], ["read"]),
        ("learning is:new is:unread", ["new"], ["read"]),
        ("graph OR learning is:bookmarked", ["bookmarked"], []),
    ],
)
def test_enter_with_filters_is_whooshs_filtered_answer(
    seed_searcher: Searcher, marked: dict[str, frozenset[str]], text: str, allow: list[str], deny: list[str]
) -> None:
    allowed: set[str] | None = None
    for name in allow:
        allowed = set(marked[name]) if allowed is None else allowed & marked[name]
    denied = set().union(*(marked[n] for n in deny)) if deny else None
    plain = querytext.split_filters(text)[0]
    expected = whoosh(seed_searcher, plain, allowed, denied)
    result = seed_searcher.search(text, limit=1000, sets=marked)
    assert [h.id for h in result.hits] == expected
    assert result.total == len(expected) and result.exact and result.notice is None
    if allowed is not None:
        assert set(expected) <= allowed
    assert not (set(expected) & (denied or set()))


def test_filters_change_the_answer(seed_searcher: Searcher, marked: dict[str, frozenset[str]]) -> None:
    everything = seed_searcher.search("graph", limit=1000)
    only = seed_searcher.search("graph is:bookmarked", limit=1000, sets=marked)
    unread = seed_searcher.search("graph is:unread", limit=1000, sets=marked)
    assert 0 < only.total < everything.total and 0 < unread.total < everything.total


def test_a_filter_without_its_set_or_unknown_is_said_and_ignored(
    seed_searcher: Searcher, marked: dict[str, frozenset[str]]
) -> None:
    plain = [h.id for h in seed_searcher.search("graph", limit=1000).hits]
    result = seed_searcher.search("graph is:unread", limit=1000)
    assert [h.id for h in result.hits] == plain
    assert result.notice is not None and "is:unread needs the reader's own data" in result.notice
    result = seed_searcher.search("graph is:starred", limit=1000, sets=marked)
    assert [h.id for h in result.hits] == plain
    assert result.notice is not None and "unknown filter is:starred" in result.notice


def test_typing_with_a_filter_stays_inside_it(
    seed_searcher: Searcher, marked: dict[str, frozenset[str]]
) -> None:
    result = seed_searcher.search("is:bookmarked gra", SearchMode.TYPING, limit=1000, sets=marked)
    assert result.hits and {h.id for h in result.hits} <= marked["bookmarked"]  # "gra" completed
    everything = seed_searcher.search("gra", SearchMode.TYPING, limit=1000)
    assert len(everything.hits) > len(result.hits)
    typing = seed_searcher.search("graph is:unr", SearchMode.TYPING, limit=1000, sets=marked)
    assert typing.notice is None  # a filter being typed is not an error yet


def test_tag_filters_are_whooshs_filtered_answer(
    seed_searcher: Searcher, marked: dict[str, frozenset[str]]
) -> None:
    tagged = frozenset(list(marked["bookmarked"])[:3])
    sets = {**marked, querytext.tag_set("Survey"): tagged}
    expected = whoosh(seed_searcher, "learning", set(tagged), None)
    result = seed_searcher.search("learning tag:survey", limit=1000, sets=sets)
    assert [h.id for h in result.hits] == expected and result.notice is None
    alone = seed_searcher.search('tag:"SURVEY"', limit=1000, sets=sets)
    assert {h.id for h in alone.hits} == set(tagged) and alone.total == len(tagged)
    both = seed_searcher.search("tag:survey is:read", limit=1000, sets=sets)
    assert {h.id for h in both.hits} == set(tagged) & marked["read"]


def test_an_unused_tag_matches_nothing_and_says_so(
    seed_searcher: Searcher, marked: dict[str, frozenset[str]]
) -> None:
    result = seed_searcher.search("graph tag:nosuch", limit=1000, sets=marked)
    assert result.hits == [] and result.total == 0
    assert result.notice is not None and "no paper is tagged 'nosuch'" in result.notice
    ignored = seed_searcher.search("graph tag:nosuch", limit=1000)  # no sets: not the reader's data
    assert ignored.total == seed_searcher.search("graph", limit=1000).total
    assert ignored.notice is not None and "tag:nosuch needs the reader's own data" in ignored.notice
