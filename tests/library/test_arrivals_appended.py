"""arrivals()'s relaunch shortcut (the collection is what its visits listed, in order) gives what
the general rule gives, on every shape of visits hypothesis finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support import arrivals_by_the_general_rule as _general

from tui_reader.library.arrivals import arrivals


@given(
    st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=4, unique=True), max_size=4),
    st.lists(st.sampled_from("abcdefghij"), max_size=9, unique=True),
    st.booleans(),
)
def test_the_shortcut_agrees_with_the_general_rule(
    groups: list[list[str]], other: list[str], same: bool
) -> None:
    visits = [" ".join(g) for g in groups]
    ids = list(dict.fromkeys(p for g in groups for p in g)) if same else other
    doc = {"visits": [{"at": f"2026-01-0{n + 1}", "ids": v} for n, v in enumerate(visits)]}
    found, fresh = arrivals(doc, ids, "2026-02-01")
    assert (found.visit_of, fresh) == _general(visits, ids)


def test_a_relaunch_finds_nothing_new_and_each_paper_its_visit() -> None:
    doc = {"visits": [{"at": "t1", "ids": "a b"}, {"at": "t2", "ids": "c"}]}
    found, fresh = arrivals(doc, ["a", "b", "c"], "t3")
    assert fresh == [] and found.visit_of == [0, 0, 1] and found.visits == ["t1", "t2"]
    found, fresh = arrivals(doc, ["a", "c", "b", "d"], "t3")  # reordered and grown: the general rule
    assert fresh == ["d"] and found.visit_of == [0, 1, 0, 2] and found.new == frozenset({"d"})
