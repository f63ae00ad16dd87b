"""Search meets the text as shown: α, alpha and $\\alpha$ are one word, ℓ1 is l1, ≤ is leq (issue 18).

Abstracts are shown with their LaTeX decoded ($\\alpha$-divergence reads α-divergence), so a user
copies α from the screen, types alpha, or pastes the LaTeX: each must find the same papers, and
each answer must be Whoosh's own (``limit=None``), with the matched symbol highlighted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.analysis import FastFoldAnalyzer, FastStemAnalyzer, fold_chain, stem_chain
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher, match_spans

PAPERS = [
    ("Alpha-divergence variational inference", "We minimise the $\\alpha$-divergence between q and p."),
    ("Renyi bounds", "Bounds on the alpha divergence family for every order."),
    ("Plain divergences", "The Kullback-Leibler divergence and nothing Greek at all."),
    ("Sparse recovery", "We study $\\ell_1$ regularization and $\\ell1$ penalties for sparse models."),
    ("Lasso paths", "The l1 regularization path of the lasso, computed exactly."),
    ("Regret bounds", "Regret is $O(\\sqrt{T})$ whenever $\\epsilon \\leq 1/2$ and $\\beta_2 > 0$."),
    ("Infinite width", "Networks at $\\infty$ width behave as kernels; we sum over $\\sum_i x_i$."),
]


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("math")
    path = base / "math.jsonl"
    path.write_text(
        "".join(json.dumps({"title": t, "abstract": a}) + "\n" for t, a in PAPERS), encoding="utf-8"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        corpus = load_corpus([path], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
        yield Searcher(index)
    index.close()
    corpus.close()


def titles(searcher: Searcher, text: str) -> list[str]:
    """Enter's answer, checked against Whoosh's own searcher with limit=None."""
    result = searcher.search(text, limit=100)
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        assert [h.id for h in result.hits] == [hit["id"] for hit in s.search(q, limit=None)], text
    corpus = searcher.corpus
    return sorted(corpus.titles[corpus.index_of[h.id]] for h in result.hits)


def test_the_abstract_shows_the_letter_it_is_searched_by(searcher: Searcher) -> None:
    paper = searcher.corpus.paper(0)
    assert "α-divergence" in paper.abstract


@pytest.mark.parametrize(
    "query", ["α-divergence", "alpha-divergence", "$\\alpha$-divergence", "\\alpha divergence"]
)
def test_alpha_written_every_way_finds_the_same_papers(searcher: Searcher, query: str) -> None:
    assert titles(searcher, query) == ["Alpha-divergence variational inference", "Renyi bounds"]


def test_a_lone_greek_letter_is_a_word(searcher: Searcher) -> None:
    assert titles(searcher, "α") == titles(searcher, "alpha") != []
    assert titles(searcher, "ϵ") == titles(searcher, "epsilon") == ["Regret bounds"]
    assert titles(searcher, "β2") == titles(searcher, "beta2") == ["Regret bounds"]  # shown β₂


@pytest.mark.parametrize("query", ["ℓ1 regularization", "l1 regularization"])
def test_ell_one_is_l1(searcher: Searcher, query: str) -> None:
    assert titles(searcher, query) == ["Lasso paths", "Sparse recovery"]


@pytest.mark.parametrize(("symbol", "name"), [("≤", "leq"), ("∞", "infinity"), ("∑", "sum"), ("√", "sqrt")])
def test_math_symbols_are_their_names(searcher: Searcher, symbol: str, name: str) -> None:
    assert titles(searcher, symbol) == titles(searcher, name) != []


def test_phrases_cross_the_folded_letter(searcher: Searcher) -> None:
    assert titles(searcher, '"α-divergence between"') == ["Alpha-divergence variational inference"]
    assert titles(searcher, '"alpha divergence between"') == ["Alpha-divergence variational inference"]


def test_highlighting_marks_the_symbol_itself() -> None:
    text = "the α-divergence and ℓ1 when ε ≤ 1"
    terms = frozenset({"alpha", "l1", "leq"})
    assert [text[a:b] for a, b in match_spans(text, terms)] == ["α", "ℓ1", "≤"]


_ALPHABET = st.sampled_from(list("abcxyz01 .-_,") + list("αβΔΣςϵℓµ∞≤≥∑√∂∇±×") + ["é", "ß", "中"])


@settings(max_examples=300, deadline=None)
@given(st.text(_ALPHABET, max_size=40))
def test_fused_analyzers_agree_with_their_chains_on_math(text: str) -> None:
    """The fused analyzers (index, query) and the chains (highlighting) make the same tokens."""
    for fused, chain in ((FastStemAnalyzer(), stem_chain()), (FastFoldAnalyzer(), fold_chain())):
        expected = [(t.text, t.pos) for t in chain(text, positions=True, mode="index")]
        assert [(t.text, t.pos) for t in fused(text, positions=True, mode="index")] == expected
