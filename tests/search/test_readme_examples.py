"""Every example in the README's search syntax table finds papers in a collection shaped like
real data (venues such as ``icml2019`` with no year field), and Enter agrees with Whoosh."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.sections import readme_queries
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.query import querytext
from tui_reader.search.searcher import Searcher

README = Path(__file__).resolve().parents[2] / "README.md"

RECORDS = [
    (
        "Graph neural networks for molecules",
        "Yoshua Bengio, Ada Lovelace",
        "icml2019",
        "We study graph neural networks and message passing for molecule property prediction.",
    ),
    (
        "Vision transformers at scale",
        "Grace Hopper",
        "NeurIPS 2018",
        "A transformer for vision trained on large image collections; graph structure is ignored.",
    ),
    (
        "Language models as planners",
        "Alan Turing",
        "nips2017",
        "Large language models plan robot actions from instructions in natural language.",
    ),
    (
        "Reinforcement learning for robot control",
        "Emmy Noether",
        "icra2021",
        "Deep reinforcement learning trains a robot arm; a graph of contacts guides exploration.",
    ),
    (
        "Bayesian optimisation revisited",
        "Kurt Gödel",
        "Proc. of ICML 2020",
        "Bayesian optimisation with Gaussian processes tunes neural network hyperparameters.",
    ),
    (
        "Scene graphs for vision",
        "Marie Curie",
        "eccv2022",
        "Scene graph generation links objects in vision tasks with a graph neural model.",
    ),
    (
        "Variational inference with divergences",
        "Alfréd Rényi",
        "icml2016",
        "We minimise the $\\alpha$-divergence between the posterior and its approximation.",
    ),
]


BIB = r"""@article{lovelace2019graph,
  title = {Graph Learning with {DOI}s},
  author = {Lovelace, Ada and G{\"o}del, Kurt},
  journal = {Journal of Examples},
  year = {2019},
  doi = {10.1145/3292500.3330701},
  eprint = {2101.00001},
  archivePrefix = {arXiv},
  keywords = {graph learning, cs.LG},
  abstract = {We learn on graphs, and the paper has a {DOI} and an arXiv id.}
}
"""


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("readme")
    path = base / "papers.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"title": t, "authors": a, "venue": v, "abstract": x, "url": f"https://example.org/{n}"}
            )
            + "\n"
            for n, (t, a, v, x) in enumerate(RECORDS)
        ),
        "utf-8",
    )
    # what a citation file carries: the README's doi:, arxiv:, keywords: and kind: examples
    (base / "refs.bib").write_text(BIB, "utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        corpus = load_corpus([path, base / "refs.bib"], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
        yield Searcher(index)
    index.close()


def readme_examples() -> list[str]:
    """The examples the bench counts at 87k: one parser of the README's table for both."""
    return readme_queries(README.read_text("utf-8"))


def test_the_table_was_read() -> None:
    examples = readme_examples()
    assert "venue:icml" in examples and '"language models"' in examples and len(examples) >= 15


@pytest.mark.parametrize("example", readme_examples())
def test_every_readme_example_finds_papers(searcher: Searcher, example: str) -> None:
    _, tags, _ = querytext.split_filters(example)
    tagged = frozenset(searcher.corpus.ids[:2])  # the reader gives every tag in use as a set
    sets = {name: tagged for name in tags} if tags else None
    result = searcher.search(example, limit=100, sets=sets)
    assert result.notice is None, result.notice
    assert result.hits and result.exact, example
    if tags:
        assert {h.id for h in result.hits} == tagged
        return
    q, _ = searcher.parse(example)
    with searcher.index.searcher() as s:
        expected = [hit["id"] for hit in s.search(q, limit=None)]
    assert [h.id for h in result.hits] == expected
