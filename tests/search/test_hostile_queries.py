"""Hostile queries (issue 13): every query answers or stops with a message, a newer search never
waits for an older one, the language's limits hold on Enter as in Whoosh's reference, and a count
never exceeds the collection. No timings: the caps and the behaviours are what is asserted."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tui_reader.search import stop
from tui_reader.search.query import caps
from tui_reader.search.searcher import Searcher, SearchMode, SearchResult

WAIT = 30.0  # seconds a test waits for another thread before it fails (never reached when it works)


@pytest.fixture
def searcher(seed_searcher: Searcher) -> Iterator[Searcher]:
    seed_searcher.invalidate()  # the session's searcher: no cached answer from another test
    yield seed_searcher
    seed_searcher.invalidate()


def whoosh(searcher: Searcher, text: str) -> list[str]:
    """Whoosh's own answer to Enter's reading of the text, every match, best first."""
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        return [hit["id"] for hit in s.search(q, limit=None)]


def assert_whooshs_answer(result: SearchResult, searcher: Searcher, text: str) -> None:
    expected = whoosh(searcher, text)
    assert [h.id for h in result.hits] == expected[: len(result.hits)], text
    assert result.total == len(expected) and result.exact and result.stopped is None, text


# -- the language's limits ----------------------------------------------------------------------
def test_a_long_query_is_cut_at_a_space_and_says_so(searcher: Searcher) -> None:
    text = " ".join(["graph"] * 400)  # 2,399 characters
    _, notice = searcher.parse(text)
    assert notice is not None and "2,399 characters" in notice
    cut, said = caps.shorten(text)
    assert len(cut) <= caps.MAX_QUERY_CHARS and cut.endswith("graph") and said
    result = searcher.search(text)
    assert result.notice == notice and result.total == searcher.search("graph").total
    one_word = "x" * 10_000
    assert len(caps.shorten(one_word)[0]) == caps.MAX_QUERY_CHARS
    assert searcher.search(one_word).total == 0
    assert caps.shorten("graph neural") == ("graph neural", None)


@pytest.mark.parametrize("text", ["netwrk~9", "netwrk~5/1", "title:netwrk~3"])
def test_fuzzy_allows_at_most_two_edits(searcher: Searcher, text: str) -> None:
    q, notice = searcher.parse(text)
    assert q.maxdist == caps.MAX_EDITS and notice and f"at most {caps.MAX_EDITS} edits" in notice
    assert f"'netwrk~{caps.MAX_EDITS}'" in notice  # the word as typed, not its stem
    result = searcher.search(text)
    assert result.notice == notice
    assert_whooshs_answer(searcher.search(text, limit=1000), searcher, text)


@pytest.mark.parametrize("text", ["title:[a TO z]", "authors:[a TO z]", "[a TO z]", "graph title:[TO m]"])
def test_a_range_of_words_is_refused_with_a_notice(searcher: Searcher, text: str) -> None:
    result = searcher.search(text)
    assert result.notice and "ranges are for numbers" in result.notice and "plain words" in result.notice
    assert_whooshs_answer(searcher.search(text, limit=1000), searcher, text)
    typed = searcher.search(text, SearchMode.TYPING)
    assert typed.notice is None or "ranges" not in typed.notice


def test_a_range_of_years_is_still_a_range(searcher: Searcher) -> None:
    result = searcher.search("year:[2020 TO 2030]")
    assert result.notice is None and result.total == len(searcher.corpus)


@pytest.mark.parametrize("text", ["m*", "*ing", "title:?o*", "netwrk~2", "m* OR *ing"])
def test_expansions_are_capped_to_the_most_frequent_words(
    searcher: Searcher, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setattr(caps, "MAX_EXPANSIONS", 3)
    result = searcher.search(text, limit=1000)
    assert_whooshs_answer(result, searcher, text)
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        reader = s.reader()
        for leaf in [q, *q.leaves()]:
            if isinstance(leaf, caps.CappedFuzzy | caps.CappedPrefix | caps.CappedWildcard):
                words = list(leaf._btexts(reader))
                assert len(words) <= 3 and words == sorted(words)
                everything = list(type(leaf).__mro__[2]._btexts(leaf, reader))  # Whoosh's own
                frequency = sorted((-reader.doc_frequency(leaf.fieldname, w), w) for w in everything)
                assert set(words) == {w for _, w in frequency[:3]}
                assert leaf.cut == (len(everything) > 3)
    if "m*" in text:  # far more than three words start with m: the notice says what was searched
        assert result.notice and "3 most frequent words" in result.notice


def test_expansions_under_the_cap_are_whooshs_own(searcher: Searcher) -> None:
    for text in ["m*", "*ing", "netwrk~2"]:
        result = searcher.search(text, limit=1000)
        assert result.notice is None
        assert_whooshs_answer(result, searcher, text)


def test_did_you_mean_corrects_a_bounded_number_of_words(searcher: Searcher) -> None:
    typos = ["grpah", "nerual", "netwrok", "lerning", "modle", "difusion", "samplng", "robsut"]
    text = " OR ".join(typos * 3)  # OR: mended in part, it still finds more (issue 19's rule)
    suggestion = searcher.search(text).suggestion
    assert suggestion is not None
    changed = [a for a, b in zip(text.split(), suggestion.split(), strict=True) if a != b]
    assert 0 < len(changed) <= caps.MAX_SUGGESTED_WORDS
    long_typo = "grpah" + "x" * caps.MAX_SUGGESTED_CHARS
    assert searcher.search(long_typo).suggestion is None


def test_every_paper_and_every_paper_with_a_field(searcher: Searcher) -> None:
    for text in ["*", "title:*", "authors:*", "graph *", "* NOT graph"]:
        result = searcher.search(text, limit=1000)
        assert result.notice is None
        assert_whooshs_answer(result, searcher, text)
    assert searcher.search("*").total == len(searcher.corpus)


@pytest.mark.parametrize(
    "text",
    [
        "* OR title:* OR authors:* OR venue:*",
        "m* OR *ing OR graph OR graph OR netwrk~2",
        "(graph OR graph OR graph) OR (model OR model)",
        '"neural network" OR "neural network" OR neural',
        "NOT zzzz OR *",
        "year:[2000 TO 2030] OR year:2026 OR *",
    ],
)
def test_a_count_never_exceeds_the_collection(searcher: Searcher, text: str) -> None:
    papers = len(searcher.corpus)
    for mode in SearchMode:
        result = searcher.search(text, mode, limit=1000)
        assert result.total <= papers, (text, mode)
        assert len(result.hits) <= result.total
    assert_whooshs_answer(searcher.search(text, limit=1000), searcher, text)


# -- stopping ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["graph", "year:2026", '"neural network"', "m*", "*"])
def test_a_search_past_its_time_limit_stops_and_says_so(searcher: Searcher, text: str) -> None:
    stopped = searcher.search(text, time_limit=0.0)
    assert stopped.stopped == "time" and not stopped.exact and stopped.count_text.endswith("+")
    assert stopped.notice and "stopped after 0 s" in stopped.notice
    assert stopped.total >= len(stopped.hits)
    full = searcher.search(text)  # a stopped answer is not cached
    assert full.stopped is None and full.exact
    assert_whooshs_answer(full, searcher, text)
    typed = searcher.search(text, SearchMode.TYPING, time_limit=0.0)
    assert typed.stopped == "time" and typed.partial and not typed.exact


def test_without_a_time_limit_a_search_is_whole(searcher: Searcher) -> None:
    result = searcher.search("graph", time_limit=None)
    assert_whooshs_answer(result, searcher, "graph")


class OneSlowCheck:
    """stop.check, except that the first check made in ``thread`` waits until ``release`` is
    set: a search held mid-way, deterministically, without any timing."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.original = stop.check
        self.thread: threading.Thread | None = None
        self.inside = threading.Event()
        self.release = threading.Event()
        monkeypatch.setattr(stop, "check", self)

    def __call__(self) -> None:
        if threading.current_thread() is self.thread and not self.inside.is_set():
            self.inside.set()
            assert self.release.wait(WAIT)
        self.original()


def _in_thread(searcher: Searcher, text: str, out: dict[str, SearchResult]) -> threading.Thread:
    def run() -> None:
        out[text] = searcher.search(text, limit=1000)

    return threading.Thread(target=run, name=f"search {text}")


@pytest.mark.parametrize("older", ["graph", "year:2026", '"neural network"', "m*"])
def test_a_newer_search_never_waits_for_an_older_one(
    searcher: Searcher, monkeypatch: pytest.MonkeyPatch, older: str
) -> None:
    """The older search is held inside its scoring (score.py's blocks, Whoosh's collector, a
    phrase's postings) until the newer one has begun; it then stops at its next check, and the
    newer one, which waited for the searcher meanwhile, gets its whole answer."""
    slow = OneSlowCheck(monkeypatch)
    begin = Searcher._begin
    newer_began = threading.Event()

    def begin_and_tell(self: Searcher, *args: float | None) -> stop.Deadline:
        deadline = begin(self, *args)
        if threading.current_thread().name == "search learning":
            newer_began.set()
        return deadline

    monkeypatch.setattr(Searcher, "_begin", begin_and_tell)
    results: dict[str, SearchResult] = {}
    first = _in_thread(searcher, older, results)
    slow.thread = first
    first.start()
    assert slow.inside.wait(WAIT)
    second = _in_thread(searcher, "learning", results)
    second.start()
    assert newer_began.wait(WAIT)  # it has begun: the older one is replaced
    slow.release.set()
    first.join(WAIT)
    second.join(WAIT)
    old, new = results[older], results["learning"]
    assert old.stopped == "replaced" and not old.exact and old.count_text.endswith("+")
    assert old.notice and "newer search" in old.notice
    assert_whooshs_answer(new, searcher, "learning")
    assert_whooshs_answer(searcher.search(older, limit=1000), searcher, older)  # not cached


def test_cancel_stops_the_running_search(searcher: Searcher, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = OneSlowCheck(monkeypatch)
    results: dict[str, SearchResult] = {}
    thread = _in_thread(searcher, "graph", results)
    slow.thread = thread
    thread.start()
    assert slow.inside.wait(WAIT)
    searcher.cancel()
    slow.release.set()
    thread.join(WAIT)
    assert results["graph"].stopped == "replaced"
    assert_whooshs_answer(searcher.search("graph"), searcher, "graph")
