"""Generated titles: tell papers apart at a glance and name the contribution when there is one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.titles import MAX_TITLE, make_title, uniquify


def test_seed_titles_are_unique_short_and_clean(seed_corpus: Corpus) -> None:
    titles = list(seed_corpus.titles)
    assert len(titles) == 30
    assert len({t.casefold() for t in titles}) == 30
    assert MAX_TITLE == 70
    for title in titles:
        assert title and title == title.strip()
        assert len(title) <= MAX_TITLE, title
        assert not any(ch in title for ch in "$\\*`\n"), title


def test_seed_titles_are_headlines_not_clipped_sentences(seed_corpus: Corpus) -> None:
    """Cut at a phrase boundary, so at most 5 of 30 need "…", and none ends mid-word."""
    clipped = [t for t in seed_corpus.titles if t.endswith("\u2026")]
    assert len(clipped) <= 5, clipped
    for paper, title in zip(seed_corpus, seed_corpus.titles, strict=True):
        last = title.rstrip("\u2026").split()[-1]
        assert re.search(rf"(?<![\w-]){re.escape(last)}(?![\w-])", paper.abstract), (title, last)


@pytest.mark.parametrize(
    "title",
    [
        "Graph neural networks are not continuous",  # the finding, cut before "with respect to"
        "Negative sampling in self-supervised graph representation learning",  # the topic in its field
        "PoLar: training-free, flexible, dynamic program-of-layers",  # a lowercase long form
        "An interpretation of EoS through the lens of Directional Smoothness",  # what "we provide"
        "PRM-BiasBench: State-of-the-art PRMs are systematically exploitable",  # name + finding
        "BFCL Audio: a large-scale benchmark for audio function calling",  # cut before "with 6.2K"
        "ORBIT: the first ophthalmic Prognostic World Model",  # the named one with a descriptor
        "Embedding condensation: token embeddings collapse",  # "which we term embedding condensation"
        "A tighter convergence analysis of Decentralized SGD",  # "we present ..."
        "DCU: decentralized continual learning framework",
    ],
)
def test_seed_titles_name_the_contribution_or_finding(seed_corpus: Corpus, title: str) -> None:
    assert title in seed_corpus.titles


def test_seed_titles_are_generated(seed_corpus: Corpus) -> None:
    assert all(p.title_generated for p in seed_corpus)


@pytest.mark.parametrize(
    "name",
    ["M-IDoL", "ConPress", "AMDP", "GPUA", "LaViDa-R1", "RARO", "NOVA", "TRUCE", "AlignG"],
)
def test_named_contributions_lead_their_titles(seed_corpus: Corpus, name: str) -> None:
    starts = [t for t in seed_corpus.titles if t.startswith(name + ":")]
    assert len(starts) == 1, (name, seed_corpus.titles)
    paper = seed_corpus.get(seed_corpus.ids[seed_corpus.titles.index(starts[0])])
    assert paper is not None and name in paper.abstract


def test_untitled_without_a_name_condenses_the_first_sentence(seed_corpus: Corpus) -> None:
    gnn = [t for t in seed_corpus.titles if t.startswith("Graph neural networks are not")]
    assert len(gnn) == 1  # "We show that contrary to ..., graph neural networks (GNNs) are not ..."
    assert "(GNNs)" not in gnn[0]


def test_make_title_names_the_contribution() -> None:
    title = make_title(
        "Sparse data is hard. We propose FooNet, a simple method for tabular "
        "learning that scales to millions of rows. It works."
    )
    assert title == "FooNet: a simple method for tabular learning"


def test_make_title_drops_lead_ins_and_cuts_at_a_phrase_boundary() -> None:
    sentence = (
        "the robustness of sparse attention to adversarial prompts in very long documents "
        "with many distractors and noisy retrieval"
    )
    title = make_title(f"In this paper, we study {sentence}. More text follows.")
    # Was "The robustness of sparse attention to adversarial prompts in very long…" (clipped
    # mid-phrase with an ellipsis); issue 12 asks for a cut at a phrase boundary instead.
    assert title == "The robustness of sparse attention to adversarial prompts"


def test_make_title_clips_at_a_word_when_no_phrase_boundary_fits() -> None:
    words = "supercalifragilistic hyperparameterised transformer-based mixture-of-experts"
    title = make_title(f"A {words} {words} {words} model. Next.")
    assert len(title) <= MAX_TITLE and title.endswith("\u2026")
    assert title[:-1].split()[-1] in words.split()


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (  # the acronym's long form may be lowercase
            "Caching is hard. We propose a learned eviction policy with lookahead (LEPL), which wins.",
            "LEPL: learned eviction policy with lookahead",
        ),
        (  # an acronym inside a prepositional phrase is not the contribution's name
            "Text is long. We introduce two advances in automatic keyphrase extraction (AKE) for "
            "scientific text with noisy labels.",
            "Two advances in automatic keyphrase extraction for scientific text",
        ),
        (  # a finding: what "we show that"
            "Background sentence here. We show that transformers can learn to sort in linear time "
            "when trained with curriculum on random permutations of growing length.",
            "Transformers can learn to sort in linear time",
        ),
        (  # a contribution without a name
            "Background sentence here. In this paper, we present a tighter convergence analysis of "
            "federated averaging, offering a precise picture.",
            "A tighter convergence analysis of federated averaging",
        ),
        (  # "we propose and analyze": the verb pair is not the title
            "Background. We propose and analyze a sketching algorithm for streaming low-rank "
            "approximation under memory limits.",
            "A sketching algorithm for streaming low-rank approximation",
        ),
        (  # a generic descriptor keeps what follows it
            "Robots are clumsy. We propose GraspIt, a novel framework that lets robots learn "
            "grasps from sketches.",
            "GraspIt: a novel framework that lets robots learn grasps from sketches",
        ),
        (  # a topic sentence: "X is an important problem in Y" -> "X in Y"
            "Entity resolution is a fundamental yet challenging problem in data integration pipelines, "
            "particularly at scale. Existing methods fail.",
            "Entity resolution in data integration pipelines, particularly at scale",
        ),
        (  # the named contribution with a descriptor wins over one without
            "Problem. We introduce the Abductive Data Engine. Then we propose ORBIT, the first "
            "prognostic world model for the eye.",
            "ORBIT: the first prognostic world model for the eye",
        ),
    ],
)
def test_make_title_heuristics(abstract: str, title: str) -> None:
    assert make_title(abstract) == title


def test_make_title_short_sentence_and_empty() -> None:
    assert make_title("Here, we show that small models can reason. Next.") == "Small models can reason"
    assert make_title("") == "(empty abstract)"


def test_uniquify_numbers_repeats_case_insensitively() -> None:
    assert uniquify(["A", "a", "B", "A"]) == ["A", "a (2)", "B", "A (3)"]


def test_corpus_uniquifies_generated_titles_but_keeps_real_ones(tmp_path: Path) -> None:
    shared = "Shared opening sentence about sparse graphs."
    records = [
        {"abstract": shared + " First variant."},
        {"abstract": shared + " Second variant."},
        {"title": "A real title", "abstract": "Different text."},
        {"title": "A real title", "abstract": "Another paper with the same real title."},
    ]
    (tmp_path / "dup.json").write_text(json.dumps(records), "utf-8")
    corpus = load_corpus([tmp_path / "dup.json"])
    assert corpus.titles == [
        "Shared opening sentence about sparse graphs",
        "Shared opening sentence about sparse graphs (2)",
        "A real title",
        "A real title",  # a paper's own title is never renamed
    ]
    assert [p.title_generated for p in corpus] == [True, True, False, False]


def test_generated_title_never_duplicates_a_real_title(tmp_path: Path) -> None:
    records = [
        {"title": "Shared opening sentence about sparse graphs", "abstract": "Different text."},
        {"abstract": "Shared opening sentence about sparse graphs. More."},
    ]
    (tmp_path / "dup.json").write_text(json.dumps(records), "utf-8")
    corpus = load_corpus([tmp_path / "dup.json"])
    assert corpus.titles[0] == "Shared opening sentence about sparse graphs"
    assert len(set(corpus.titles)) == 2, corpus.titles
