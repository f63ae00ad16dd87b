"""The screen's model without Pilot: the view stack, requests and late answers."""

from __future__ import annotations

from tui_reader.app.model import MAX_DEPTH, Kind, ReaderModel, Restriction, Sort, View


def test_a_view_knows_its_kind() -> None:
    assert View().kind is Kind.COLLECTION
    assert View("graph").kind is Kind.SEARCH
    assert View("gra", typing=True).kind is Kind.TYPING
    assert View("graph", similar_to="p1").kind is Kind.SIMILAR
    assert View("  ").kind is Kind.COLLECTION


def test_push_and_pop_give_back_the_view_exactly() -> None:
    model = ReaderModel()
    search = model.push(View("contrastive"))
    number = model.request()
    model.answer(number, None, [5, 3, 9], "relevance")
    model.moved("p9", 7)
    similar = model.push(View(similar_to="p9"))
    assert model.top is similar and model.depth == 3
    back = model.pop()
    assert back is search
    assert back.view == View("contrastive", cursor="p9", scroll=7)
    assert back.rows == [5, 3, 9] and not back.waiting  # nothing to search again
    assert model.pop() is not None and model.pop() is None  # the bottom stays


def test_a_late_answer_never_lands_on_a_newer_view() -> None:
    model = ReaderModel()
    model.push(View("diffusion"))
    older = model.request()
    model.replace(View("graph"))  # typed on: the top view changed
    newer = model.request()
    assert model.answer(older, None, [1], "relevance") is None  # nobody waits for it
    assert model.top.rows is None
    assert model.answer(newer, None, [2], "relevance") is model.top
    assert model.top.rows == [2]
    assert model.answer(newer, None, [3], "relevance") is None  # answered once


def test_an_answer_for_a_view_below_is_kept_for_when_esc_comes_back() -> None:
    model = ReaderModel()
    below = model.push(View("robot"))
    waiting = model.request()
    model.push(View(similar_to="p1"))  # pushed before the answer came
    assert model.answer(waiting, None, [4, 2], "relevance") is below
    assert not model.is_current(waiting)
    assert model.pop() is below and below.rows == [4, 2]


def test_a_sort_during_a_search_applies_to_the_answer_it_waits_for() -> None:
    model = ReaderModel()
    model.push(View("robot"))
    first = model.request()
    entry = model.replace(model.view.replace(sort=Sort.TITLE), keep_answer=True)
    second = model.request(entry)
    assert model.answer(first, None, [1, 2], "relevance") is None
    assert model.answer(second, None, [2, 1], "title") is entry
    assert entry.order == "title" and entry.view.sort is Sort.TITLE


def test_moving_does_not_change_what_is_asked() -> None:
    model = ReaderModel()
    model.push(View("graph", restriction=Restriction.BOOKMARKS))
    model.moved("p3", 12)
    assert model.view.same_list(View("graph", restriction=Restriction.BOOKMARKS))
    assert not model.view.same_list(View("graph"))


def test_reset_restores_a_session_and_the_stack_is_bounded() -> None:
    model = ReaderModel()
    model.reset(View("kept", Sort.YEAR, cursor="p2"))
    assert model.depth == 1 and model.view.sort is Sort.YEAR
    for i in range(MAX_DEPTH + 10):
        model.push(View(f"q{i}"))
    assert model.depth == MAX_DEPTH and model.view.query == f"q{MAX_DEPTH + 9}"
