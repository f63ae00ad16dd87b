"""The recommender on a collection where the right answer is known (recommend_fixture.py): a
real Whoosh index in a temp folder, the model trained on a few papers of one topic."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import recommend_fixture as fx
from whoosh import query

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search import Searcher, SearchIndex
from tui_reader.search.recommend import (
    MIN_POSITIVES,
    Cancelled,
    Pick,
    needs_text,
    recommend,
    unread_first,
)


@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("topics")
    corpus = load_corpus([fx.write(base / "files")], use_cache=False)
    index = SearchIndex(corpus, root=base / "index")
    index.ensure()
    yield Searcher(index, warm=False)
    index.close()
    corpus.close()


def of_topic(corpus: Corpus, topic: str) -> list[str]:
    return [corpus.ids[i] for i, t in enumerate(corpus.titles) if fx.topic_of(t) == topic]


def topic(corpus: Corpus, pick: Pick) -> str:
    return fx.topic_of(corpus.titles[pick.row])


@pytest.mark.parametrize("name", ["diffusion", "graph", "privacy"])
def test_positives_of_one_topic_rank_that_topic_first(topics: Searcher, name: str) -> None:
    corpus = topics.corpus
    mine = of_topic(corpus, name)
    got = recommend(topics, mine[:3], limit=40)
    rest = len(mine) - 3
    assert [topic(corpus, p) for p in got.picks[:rest]] == [name] * rest
    assert {p.id for p in got.picks[:rest]} == set(mine[3:])
    assert got.positives == 3 and got.short_by == 0 and got.sampled > 0


def test_the_kept_papers_are_not_recommended(topics: Searcher) -> None:
    mine = of_topic(topics.corpus, "graph")[:4]
    got = recommend(topics, mine, limit=len(topics.corpus))
    assert not {p.id for p in got.picks} & set(mine)
    assert len(got.picks) == got.total


def test_a_paper_not_interested_in_never_comes_back(topics: Searcher) -> None:
    corpus = topics.corpus
    mine = of_topic(corpus, "diffusion")[:3]
    first = recommend(topics, mine, limit=10)
    unwanted = [first.picks[0].id, first.picks[3].id]
    again = recommend(topics, mine, unwanted, limit=len(corpus))
    assert again.negatives == 2
    assert not {p.id for p in again.picks} & set(unwanted)
    # retrained on two papers of the topic as negatives: the topic is still first
    assert [topic(corpus, p) for p in again.picks[:5]] == ["diffusion"] * 5


def test_not_interested_steers_the_ranking_away(topics: Searcher) -> None:
    """Diffusion papers kept, and the bandit papers near the top marked not interested: the
    bandit papers that remain drop below every paper of the other topics near them."""
    corpus = topics.corpus
    kept = of_topic(corpus, "diffusion")[:3]
    bandits = of_topic(corpus, "bandit")
    before = recommend(topics, kept, limit=len(corpus))
    ranked = [p.id for p in before.picks]
    unwanted = bandits[:5]
    after = recommend(topics, kept, unwanted, limit=len(corpus))
    moved = [p.id for p in after.picks]
    left = [b for b in bandits if b not in unwanted]
    mean_before = sum(ranked.index(b) for b in left) / len(left)
    mean_after = sum(moved.index(b) for b in left) / len(left)
    assert mean_after > mean_before


def test_because_names_real_terms_of_the_paper(topics: Searcher) -> None:
    corpus = topics.corpus
    got = recommend(topics, of_topic(corpus, "speech")[:3], limit=30)
    with topics.index.searcher() as s:
        analyzer = s.schema["content"].analyzer
        for pick in got.picks:
            paper = corpus.paper(pick.row)
            text = f"{paper.title} {' '.join(paper.authors)} {paper.abstract}"
            terms = {t.text for t in analyzer(text)}
            assert 1 <= len(pick.because) <= 3 and len(pick.because) == len(pick.terms)
            for word, term in zip(pick.because, pick.terms, strict=True):
                assert term in terms
                assert re.search(rf"\b{re.escape(word)}\b", text, re.I), (word, text)
                assert [t.text for t in analyzer(word)] == [term]
    assert {"speech", "acoustic", "phoneme"} & set(got.picks[0].because)


def test_scores_are_the_indexes_bm25f_weights(topics: Searcher) -> None:
    """The features are Whoosh's own BM25F term scores: a paper's score over one term, read
    through the ranking's postings, is Whoosh's score of that term's query for it."""
    from tui_reader.search.recommend import _weighted

    with topics.index.searcher() as s:
        avgfl = s.avg_field_length("content")
        leaf, base = next(iter(s.reader().leaf_readers()))
        for word in ("spectral", "regret", "method"):
            ids, x = _weighted(leaf, base, word, s.idf("content", word), avgfl)
            whoosh = {h.docnum: h.score for h in s.search(query.Term("content", word), limit=None)}
            assert dict(zip(ids.tolist(), x.tolist(), strict=True)) == pytest.approx(whoosh, rel=1e-6)


def test_fewer_than_three_positives_says_what_it_needs(topics: Searcher) -> None:
    corpus = topics.corpus
    two = of_topic(corpus, "robot")[:2]
    got = recommend(topics, [*two, "not-in-this-collection"], limit=10)
    assert got.picks == [] and got.positives == 2 and got.short_by == 1 and got.missing == 1
    text = needs_text('the tag "robot"', got.positives, got.missing)
    assert f"at least {MIN_POSITIVES} papers" in text and "2 are here" in text and "1 more" in text
    assert "other collections" in text


def test_the_same_input_gives_the_same_ranking(topics: Searcher) -> None:
    mine = of_topic(topics.corpus, "causal")[:3]
    one = recommend(topics, mine, limit=20)
    two = recommend(topics, list(reversed(mine)), limit=20)
    assert [p.id for p in one.picks] == [p.id for p in two.picks]


def test_a_newer_request_cancels_the_training(topics: Searcher) -> None:
    with pytest.raises(Cancelled):
        recommend(topics, of_topic(topics.corpus, "protein")[:3], cancelled=lambda: True)


def test_progress_is_told(topics: Searcher) -> None:
    seen: list[str] = []
    recommend(topics, of_topic(topics.corpus, "protein")[:3], progress=lambda d, t, phase: seen.append(phase))
    assert list(dict.fromkeys(seen)) == ["training", "ranking", "ranked"]


def test_unread_first_keeps_the_order_within_each_part() -> None:
    picks = [Pick(i, f"p{i}", 10.0 - i, (), ()) for i in range(5)]
    ordered = unread_first(picks, {"p0", "p3"})
    assert [p.id for p in ordered] == ["p1", "p2", "p4", "p0", "p3"]
