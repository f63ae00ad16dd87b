"""The fused analyzers give exactly the tokens and positions of the Whoosh chains they replace."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import SEEDS

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index import analysis
from tui_reader.search.index.analysis import FastFoldAnalyzer, FastStemAnalyzer, fold_chain, stem_chain

TRICKY = [
    "The a an of: stop words first, then Learning Models learned.",
    "e.g. U.S.A. v1.2.3 x_y __init__ 3.14 a.b. .hidden trailing.",
    "Café naïve Ångström Zürich straße ÉCOLE façade",
    "α-β testing, ∑ sums and 中文 字符 mixed with words",
    "I a A x y z: single letters",
    "",
    "   ",
    "model models modelling modeled MODELS",
]


def _chain_tokens(chain, text: str) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(t.text, t.pos) for t in chain(text, positions=True, mode="index")]


def _grouped(pairs: list[tuple[str, int]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for text, pos in pairs:
        out.setdefault(text, []).append(pos)
    return out


def _texts() -> list[str]:
    corpus = load_corpus([SEEDS])
    return TRICKY + [corpus.abstract(i) for i in range(len(corpus))] + list(corpus.titles)


@pytest.mark.parametrize(("fused", "chain"), [(FastStemAnalyzer, stem_chain), (FastFoldAnalyzer, fold_chain)])
def test_fused_analyzer_matches_its_chain(fused, chain) -> None:  # type: ignore[no-untyped-def]
    analyzer, reference = fused(), chain()
    for text in _texts():
        expected = _chain_tokens(reference, text)
        assert [(t.text, t.pos) for t in analyzer(text, positions=True, mode="index")] == expected
        assert [t.text for t in analyzer(text, mode="query")] == [t for t, _ in expected]
        assert analyzer.positions(text) == _grouped(expected)


def test_character_offsets_come_from_the_chain() -> None:
    """Highlighting asks for chars: those tokens must carry real offsets into the text."""
    text = "Diffusion models; diffusion policies."
    tokens = [(t.text, t.startchar, t.endchar) for t in FastStemAnalyzer()(text, positions=True, chars=True)]
    assert [(text[a:b].lower(), stem) for stem, a, b in tokens] == [
        ("diffusion", "diffus"),
        ("models", "model"),
        ("diffusion", "diffus"),
        ("policies", "polici"),
    ]


ASCIIISH = st.text(alphabet=st.sampled_from("aZ09_. ..\t\n\x1c\x7f-,;:'$\\é"), max_size=40)


@settings(max_examples=400, deadline=None)
@given(ASCIIISH | st.text(max_size=40))
def test_the_ascii_word_split_is_the_regexs(text: str) -> None:
    """The fast split of ASCII text (a build's hot path) finds exactly the token regex's words:
    dots inside, at the ends, doubled or alone; the separators str.split also splits on."""
    assert analysis._words(text) == analysis._WORDS(text)
