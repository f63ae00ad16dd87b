"""arrivals()'s run-at-a-time shortcut (a relaunch, or papers added after the recorded ones)
gives what the general rule gives, for runs shorter and longer than the collection, on visits
of every shape hypothesis finds (odd whitespace, empty visits, reordered or grown collections)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import arrivals_by_the_general_rule as _general

from tui_reader.library import arrivals as module
from tui_reader.library.arrivals import ArrivalStore, arrivals

LETTERS = "abcdefghij"


def _doc(visits: list[str]) -> dict:
    return {"visits": [{"at": f"2026-01-0{n + 1}", "ids": v} for n, v in enumerate(visits)]}


SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u2003"])


@st.composite
def visits_and_ids(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    groups = draw(st.lists(st.lists(st.sampled_from(LETTERS[:7]), max_size=4, unique=True), max_size=4))
    visits = []
    for g in groups:
        text = "".join(p + draw(SEPARATORS) for p in g)
        visits.append(draw(st.sampled_from(["", " "])) + (text[:-1] if draw(st.booleans()) else text))
    recorded = list(dict.fromkeys(p for g in groups for p in g))
    extra = [p for p in draw(st.permutations(LETTERS[7:])) if draw(st.booleans())]
    shape = draw(st.sampled_from(["same", "grown", "other"]))
    if shape == "same":
        return visits, recorded
    if shape == "grown":
        return visits, recorded + extra
    return visits, draw(st.lists(st.sampled_from(LETTERS), max_size=9, unique=True))


@pytest.mark.parametrize("run", [1, 2, 3, 1 << 14])
@given(case=visits_and_ids())
def test_the_shortcut_agrees_with_the_general_rule(run: int, case: tuple[list[str], list[str]]) -> None:
    visits, ids = case
    saved, module.RUN = module.RUN, run
    try:
        found, fresh = arrivals(_doc(visits), ids, "2026-02-01")
    finally:
        module.RUN = saved
    assert (found.visit_of, fresh) == _general(visits, ids)
    assert found.new == (frozenset(fresh) if visits else frozenset())


@given(st.text(alphabet=" a\t\u00a0\n\u2028", max_size=8))
def test_canonical_is_what_split_and_join_give(text: str) -> None:
    assert module._canonical(text) == (text == " ".join(text.split()))


def test_papers_added_after_the_recorded_ones_are_new(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A real store on disk: three launches, the collection growing at its end, runs of 2."""
    monkeypatch.setattr(module, "RUN", 2)
    store = ArrivalStore(tmp_path / "c.json")
    first = store.record(["a", "b", "c"], "t1")
    assert first.first_visit and first.new == frozenset()
    grown = store.record(["a", "b", "c", "d", "e"], "t2")
    assert grown.new == {"d", "e"} and grown.visit_of == [0, 0, 0, 1, 1] and grown.visits == ["t1", "t2"]
    again = store.record(["a", "b", "c", "d", "e"], "t3")
    assert again.new == frozenset() and again.visit_of == [0, 0, 0, 1, 1]
    assert again.previous == "t2"
    moved = store.record(["e", "a", "b", "c", "d", "f"], "t4")  # reordered: the general rule
    assert moved.new == {"f"} and moved.visit_of == [1, 0, 0, 0, 1, 2]
