"""Generated titles: tell papers apart at a glance and name the contribution when there is one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus, load_corpus
from tui_reader.corpus.titles import MAX_TITLE, make_title, uniquify


def test_seed_titles_are_unique_short_and_clean(seed_corpus: Corpus) -> None:
    titles = list(seed_corpus.titles)
    assert len(titles) == 30
    assert len({t.casefold() for t in titles}) == 30
    for title in titles:
        assert title and title == title.strip()
        assert len(title) <= 80, title
        assert not any(ch in title for ch in "$\\*`\n"), title


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


def test_make_title_drops_lead_ins_and_clips_at_a_word() -> None:
    sentence = (
        "the robustness of sparse attention to adversarial prompts in very long documents "
        "with many distractors and noisy retrieval"
    )
    title = make_title(f"In this paper, we study {sentence}. More text follows.")
    assert title.startswith("The robustness of sparse attention")
    assert len(title) <= MAX_TITLE and title.endswith("\u2026")
    assert title[:-1].split()[-1] in sentence.split(" ")


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
