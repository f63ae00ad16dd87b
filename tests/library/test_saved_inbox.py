"""The inbox's counts (library/inbox.py) on a real collection file that grows between launches,
against Enter's answers from a real index and a set intersection worked out here."""

from __future__ import annotations

import json
from pathlib import Path

from tui_reader.corpus.loading import load_corpus
from tui_reader.library.arrivals import ArrivalStore
from tui_reader.library.inbox import Timeline, all_new, count, new_first, open_timeline
from tui_reader.library.saved import SavedSearch
from tui_reader.search import Searcher, SearchIndex, SearchMode

FIRST = [
    {"title": "Diffusion models for images", "abstract": "Score based diffusion with guidance."},
    {"title": "Graph networks", "abstract": "Message passing on graphs."},
    {"title": "Guided diffusion for text", "abstract": "Classifier free guidance in diffusion."},
]
LATER = [
    {"title": "Latent diffusion at scale", "abstract": "Diffusion in a latent space."},
    {"title": "Graph transformers", "abstract": "Attention over graphs."},
]
QUERIES = {"diffusion": "diffusion", "graphs": "graphs OR graph", "guided": "title:guided"}


def _write(path: Path, records: list[dict[str, str]], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)


def _enter(path: Path, query: str) -> tuple[list[int], int, list[str]]:
    corpus = load_corpus([str(path)])
    index = SearchIndex(corpus)
    index.ensure()
    try:
        result = Searcher(index).search(query, SearchMode.ENTER, len(corpus), time_limit=None)
        return [h.row for h in result.hits], result.total, list(corpus.ids)
    finally:
        index.close()


def test_counts_after_papers_are_added(tmp_path: Path) -> None:
    papers, history = tmp_path / "papers.jsonl", tmp_path / "collection.json"
    _write(papers, FIRST)
    first = load_corpus([str(papers)])
    ArrivalStore(history).record(first.ids, "2026-01-01T00:00:00+00:00")  # the first launch
    searches = [SavedSearch(n, q, "2025-12-31T00:00:00+00:00") for n, q in QUERIES.items()]
    timeline, _ = open_timeline(history, first.ids)
    for saved in searches:  # nothing is new on the first visit
        rows, total, ids = _enter(papers, saved.query)
        assert count(saved, rows, ids, timeline, set(), "k", total=total).new == frozenset()

    _write(papers, LATER, "a")
    grown = load_corpus([str(papers)])
    index = SearchIndex(grown)
    assert index.ensure().action == "updated"  # the new papers added, nothing rebuilt
    index.close()
    arrived = set(grown.ids) - set(first.ids)
    assert len(arrived) == len(LATER)
    before_launch, _ = open_timeline(history, grown.ids)  # as `tui-reader inbox` reads it
    ArrivalStore(history).record(grown.ids, "2026-01-02T00:00:00+00:00")  # the next launch
    after_launch, _ = open_timeline(history, grown.ids)
    read = {grown.ids[0]}
    for saved in searches:
        rows, total, ids = _enter(papers, saved.query)
        matched = {ids[r] for r in rows}
        assert total == len(matched)
        for timeline in (before_launch, after_launch):
            counted = count(saved, rows, ids, timeline, read, "k", total=total)
            assert counted.new == matched & arrived, saved.name
            assert counted.unread == len(matched - read) and counted.total == total
        shown = new_first(rows, ids, matched & arrived)
        assert sorted(shown) == sorted(rows)
        assert {ids[r] for r in shown[: len(matched & arrived)]} == matched & arrived

    # opened in the reader after that launch: seen up to it, nothing new any more
    seen = SavedSearch("diffusion", "diffusion", "2025-12-31T00:00:00+00:00", {"k": after_launch.seen_upto()})
    assert after_launch.seen_upto() == "2026-01-02T00:00:00+00:00"
    rows, total, ids = _enter(papers, "diffusion")
    assert count(seen, rows, ids, after_launch, read, "k").new == frozenset()
    assert count(seen, rows, ids, after_launch, read, "other collection").new != frozenset()


def test_a_search_saved_after_the_papers_came_finds_them_not_new() -> None:
    timeline = Timeline(
        [0, 1, 2], ["2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00", "2026-01-03T00:00:00+00:00"], 3
    )
    saved = SavedSearch("a", "q", "2026-01-02T12:00:00+00:00")
    assert count(saved, [0, 1, 2], ["p0", "p1", "p2"], timeline, (), "k").new == {"p2"}


def test_first_launch_recorded_by_the_inbox(tmp_path: Path) -> None:
    """A collection no launch has seen: `tui-reader inbox` records it (nothing new), so papers
    added later are new to it, without the reader ever opening it."""
    history = tmp_path / "collection.json"
    timeline, _ = open_timeline(history, ["a", "b"], first_launch=True)
    assert not timeline.is_new(0, "") and not timeline.is_new(1, "")
    assert history.exists()
    later, _ = open_timeline(history, ["a", "b", "c"])
    assert [later.is_new(r, "9999") for r in range(3)] == [False, False, True]  # not recorded: new
    again, _ = open_timeline(history, ["a", "b", "c"], first_launch=True)  # records nothing more
    assert again.is_new(2, "9999")
    assert len(json.loads(history.read_text(encoding="utf-8"))["visits"]) == 1


def test_all_new_counts_each_paper_once() -> None:
    timeline = Timeline([0, 1, 1], ["2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"], 2)
    ids = ["p0", "p1", "p2"]
    one = count(SavedSearch("a", "q", "2026-01-01T12:00:00+00:00"), [0, 1, 2], ids, timeline, (), "k")
    two = count(SavedSearch("b", "q", "2026-01-01T12:00:00+00:00"), [1], ids, timeline, (), "k")
    assert len(one.new) + len(two.new) == 3 and all_new([one, two]) == {"p1", "p2"}
    assert one.line == "a  2 new · 3 unread · 3 total"
