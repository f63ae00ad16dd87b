"""Issue 19, findings 11-13: "did you mean" only when it helps, author queries as users type them,
and a paper's own title ranks it first.

One real index over a made-up collection with the shape of the 87k one where it matters: a
word in a thousand titles ("transformer"), the same word misspelt in one abstract, words only
abstracts use ("reinforcement learning"), two authors named Bengio, and papers whose abstracts
say "attention" more often than the one titled "Attention is All you Need". Every answer is
checked against Whoosh's own searcher with ``limit=None`` on the query Enter runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest
from whoosh import query

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import score, selfcheck
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.query import querytext
from tui_reader.search.query.suggest import distance
from tui_reader.search.searcher import Searcher, SearchMode

FILLER = 1_050  # papers with "transformer" in the title: 1,000 times the one typo's one paper
THOMPSON = "Analysis of Thompson Sampling for the Multi-armed Bandit Problem"
VASWANI = "Attention is All you Need"


def _papers() -> list[dict[str, object]]:
    papers: list[dict[str, object]] = [
        {
            "title": f"Transformer models for task {k}",
            "abstract": f"We train diffusion models on benchmark {k}."
            + (" Reinforcement learning agents explore." if k % 10 == 0 else ""),
            "authors": [f"Author {k}"],
        }
        for k in range(FILLER)
    ]
    papers += [
        {"title": "Obstacle detection", "abstract": "A tranformer for obstacles.", "authors": ["Ann Typo"]},
        {"title": "Sparse codes", "abstract": "Sparse modles of images.", "authors": ["Ben Typo"]},
        {"title": THOMPSON, "abstract": "Regret bounds for bandits.", "authors": ["Shipra Agrawal"]},
        {"title": "Force fields in theory", "abstract": "Molecular forces.", "authors": ["Carl Force"]},
        {"title": "Sampling with noise", "abstract": "Diffusion samplers.", "doi": "10.5555/Difusion.2019"},
        {"title": "Deep architectures", "abstract": "Depth helps.", "authors": ["Yoshua Bengio"]},
        {"title": "Greedy layer-wise training", "abstract": "Pretraining.", "authors": ["Yoshua Bengio"]},
        {"title": "Large margin SVMs", "abstract": "Kernels.", "authors": ["Samy Bengio", "Yoshua Smith"]},
        {"title": "Quantized Mamba in 1.58 Bits", "abstract": "Ternary weights."},
        {"title": VASWANI, "abstract": "The Transformer, based solely on it, dispensing with recurrence."},
        {
            "title": "All the Attention You Need: global and local attention for retrieval",
            "abstract": "Attention, attention everywhere: all the attention you need is all here.",
        },
        {
            "title": "Attention guided localization",
            "abstract": "Attention is needed; all attention maps need all the attention they get.",
        },
    ]
    return papers


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("quality")
    path = base / "papers.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in _papers()), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        corpus = load_corpus([path], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
        yield Searcher(index)
    index.close()
    corpus.close()


def enter(searcher: Searcher, text: str) -> list[str]:
    """Enter's titles, best first, after checking them against Whoosh's own answer (limit=None)
    to the query Enter runs: the same papers, order and scores, and the same count."""
    result = searcher.search(text, limit=2_000)
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        theirs = s.search(q, limit=None)
        assert [h.id for h in result.hits] == [hit["id"] for hit in theirs], text
        assert all(
            math.isclose(h.score, hit.score, rel_tol=1e-9) for h, hit in zip(result.hits, theirs, strict=True)
        )
        assert result.total == len(theirs)
    corpus = searcher.corpus
    return [corpus.titles[h.row] for h in result.hits]


# -- 11: did you mean --------------------------------------------------------------------------
def test_a_field_phrase_that_found_its_paper_suggests_nothing(searcher: Searcher) -> None:
    """It suggested "...Sampling force theory Multi-armed..." ("for the" are stop words)."""
    result = searcher.search(f'title:"{THOMPSON}"')
    assert result.total == 1 and result.suggestion is None
    assert searcher.search("thompson sampling for the bandit").suggestion is None


def test_a_misspelling_is_mended_even_when_a_paper_shares_it(searcher: Searcher) -> None:
    """One abstract says "tranformer"; a thousand titles say "transformer"."""
    result = searcher.search("tranformer")
    assert result.total == 1
    assert result.suggestion == "transformer"


def test_every_misspelt_word_is_mended(searcher: Searcher) -> None:
    """It mended one of two ("diffusion modles"), and accepting it found nothing."""
    assert searcher.search("difusion modles").suggestion == "diffusion models"
    assert searcher.search("Difusion MODLES").suggestion == "Diffusion MODELS"  # as typed
    suggestion = searcher.search("tranformer difusion").suggestion
    assert suggestion == "transformer diffusion"
    assert enter(searcher, suggestion)


def test_a_suggestion_is_a_word_as_written_not_a_stem(searcher: Searcher) -> None:
    """Words only abstracts use were offered as stems ("reinforcment learn"); a word spelt
    wrong whose stem is right is spelt right beside the mend."""
    assert searcher.search("reinforcment lerning").suggestion == "reinforcement learning"


def test_a_suggestion_that_finds_no_more_is_not_offered(searcher: Searcher) -> None:
    assert searcher.search("difusion qqqxxzz").total == 0
    assert searcher.search("difusion qqqxxzz").suggestion is None


def test_a_word_that_titles_use_is_not_spelt_again(searcher: Searcher) -> None:
    """A rare word a title uses (a name, a model) found its paper: no advice."""
    assert searcher.search("thompson").suggestion is None
    assert searcher.search("obstacle").suggestion is None


def test_identifiers_keep_their_spelling(searcher: Searcher) -> None:
    """A DOI is matched whole, never spelt: accepting the suggestion finds its paper."""
    text = "difusion doi:10.5555/Difusion.2019"
    assert searcher.search(text).total == 0
    assert searcher.search(text).suggestion == "diffusion doi:10.5555/Difusion.2019"
    assert enter(searcher, "diffusion doi:10.5555/Difusion.2019") == ["Sampling with noise"]


def test_edit_distance_counts_a_swap_once() -> None:
    assert distance("modles", "models") == 1
    assert distance("tranformer", "transformer") == 1
    assert distance("lerning", "learning") == 1
    assert distance("abc", "abc") == 0 and distance("", "ab") == 2 and distance("ca", "abc") == 3


# -- 12: author queries --------------------------------------------------------------------------
def test_author_is_an_alias_of_authors(searcher: Searcher) -> None:
    result = searcher.search("author:bengio")
    assert result.notice is None
    assert enter(searcher, "author:bengio") == enter(searcher, "authors:bengio")
    assert len(enter(searcher, "author:bengio")) == 3


def test_an_authors_phrase_does_not_run_across_two_authors(searcher: Searcher) -> None:
    """Samy Bengio and Yoshua Smith hold "bengio yoshua" only across the two names."""
    assert enter(searcher, 'authors:"Bengio Yoshua"') == []
    assert enter(searcher, 'authors:"Bengio Yoshua"~3') == []
    assert sorted(enter(searcher, 'authors:"Yoshua Bengio"')) == [
        "Deep architectures",
        "Greedy layer-wise training",
    ]


def test_last_comma_first_reads_as_first_last(searcher: Searcher) -> None:
    expected = ["Deep architectures", "Greedy layer-wise training"]
    assert sorted(enter(searcher, 'authors:"Bengio, Yoshua"')) == expected
    assert sorted(enter(searcher, 'author:"Bengio,Yoshua"')) == expected
    assert enter(searcher, 'authors:"Smith, Yoshua"') == ["Large margin SVMs"]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ('authors:"Bengio, Yoshua"', 'authors:"Yoshua Bengio "'),
        ('author:"LeCun,Yann"~2 x', 'author:"Yann LeCun"~2 x'),
        ('authors:"Hinton, G. E." OR title:"a, b"', 'authors:"G. E. Hinton " OR title:"a, b"'),
        ('authors:"a, b, c"', 'authors:"a, b, c"'),  # not one name: as typed
        ('"Bengio, Yoshua"', '"Bengio, Yoshua"'),  # not an authors phrase
    ],
)
def test_author_order_keeps_every_offset(typed: str, read: str) -> None:
    assert querytext.author_order(typed) == read and len(read) == len(typed)


def test_last_comma_first_while_typing(searcher: Searcher) -> None:
    result = searcher.search('authors:"Bengio, Yoshua" deep', SearchMode.TYPING)
    assert [searcher.corpus.titles[h.row] for h in result.hits] == ["Deep architectures"]


# -- 13: a paper's title ranks it first ---------------------------------------------------------------
TITLES = {
    VASWANI.lower(): VASWANI,
    "attention is all you": VASWANI,  # nearly: a word short
    "Thompson Sampling Multi-armed Bandit": THOMPSON,
}


@pytest.mark.parametrize(("text", "title"), TITLES.items())
def test_a_papers_title_ranks_it_first(searcher: Searcher, text: str, title: str) -> None:
    assert enter(searcher, text)[0] == title


@pytest.mark.parametrize(
    "text", [*TITLES, "transformer models", "diffusion models benchmark 7", "attention need"]
)
def test_the_title_phrase_changes_the_order_not_the_papers(searcher: Searcher, text: str) -> None:
    """Enter's query is the plain AND OR'ed with a title phrase: the same papers as the AND."""
    q, _ = searcher.parse(text)
    assert isinstance(q, query.Or) and isinstance(q.subqueries[1], query.Phrase)
    plain = searcher.reading.words(text)
    with searcher.index.searcher() as s:
        assert {hit["id"] for hit in s.search(q, limit=None)} == {
            hit["id"] for hit in s.search(plain, limit=None)
        }
        assert selfcheck.status().ok and score.every_score(s, q) is not None  # the fast path scored it
    enter(searcher, text)


def test_a_pasted_title_keeps_its_numbers_whole(searcher: Searcher) -> None:
    """A colon sends a pasted title to its plain words, which cut "1.58" in two (0 papers)."""
    assert querytext.plain_words("Mamba: 1.58 bits, v1.2") == "Mamba 1.58 bits v1.2"
    assert enter(searcher, "Quantized Mamba: 1.58 Bits") == ["Quantized Mamba in 1.58 Bits"]


@pytest.mark.parametrize(
    "text", ["transformer", '"attention is all"', "attention OR need", "title:attention need"]
)
def test_other_queries_run_as_typed(searcher: Searcher, text: str) -> None:
    """A word alone, a phrase, operators or a field: the query as typed, no title phrase."""
    q, _ = searcher.parse(text)
    assert not any(isinstance(n, query.Phrase) and n.fieldname == "title" for n in [q, *q.children()])
    enter(searcher, text)
