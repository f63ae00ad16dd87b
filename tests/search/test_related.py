"""What am I missing (search/related.py): a draft ranks the collection by Whoosh's more-like-this,
and the papers it already cites are told by its bibliography (library/cited.py), on a real index
of a small real collection (tests/fixtures/related/collection.bib, four topics)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.draft import parse_draft, read_draft
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.cited import resolve
from tui_reader.search import Searcher, SearchIndex
from tui_reader.search.related import NUMTERMS, key_terms, like_query, related

FIXTURES = Path(__file__).parent.parent / "fixtures" / "related"
DIFFUSION = {
    "Denoising Diffusion Probabilistic Models",
    "Score-Based Generative Modeling through Stochastic Differential Equations",
    "Classifier-Free Diffusion Guidance",
    "High-Resolution Image Synthesis with Latent Diffusion Models",
    "Diffusion Models Beat GANs on Image Synthesis",
}


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Corpus, Searcher]]:
    base = tmp_path_factory.mktemp("related")
    shutil.copy2(FIXTURES / "collection.bib", base / "collection.bib")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(base / "cache"))
        corpus = load_corpus([str(base / "collection.bib")], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        index.ensure()
        yield corpus, Searcher(index)
        index.close()


def titles(corpus: Corpus, result: object) -> list[str]:
    return [corpus.titles[h.row] for h in result.hits]  # type: ignore[attr-defined]


def test_a_draft_on_diffusion_ranks_the_diffusion_papers_first(collection: tuple[Corpus, Searcher]) -> None:
    corpus, searcher = collection
    draft = read_draft(FIXTURES / "draft.tex")
    result = related(searcher, draft.text, limit=5)
    assert set(titles(corpus, result)) == DIFFUSION
    assert result.kind == "related" and result.total == 5 and result.exact
    assert {"diffus", "denois"} <= result.terms  # the key terms, as the index spells them


def test_the_answer_is_whooshs_own_more_like_this_exactly(collection: tuple[Corpus, Searcher]) -> None:
    """Same papers, same order, same scores as Whoosh's more_like(text=...) for the draft."""
    _corpus, searcher = collection
    for name in ("draft.tex", "draft.md", "draft.txt"):
        text = read_draft(FIXTURES / name).text
        result = related(searcher, text, limit=10)
        with searcher.index.searcher() as s:
            whoosh = s.more_like(None, "content", text=text, top=10, numterms=NUMTERMS, normalize=False)
            expected = [(hit["id"], hit.score) for hit in whoosh]
            plain = [
                (s.stored_fields(h.docnum)["id"], h.score)
                for h in s.search(like_query(key_terms(s, text)), limit=10)
            ]
        assert [(h.id, h.score) for h in result.hits] == expected == plain
        assert expected, name


def test_each_fixture_draft_finds_its_topic(collection: tuple[Corpus, Searcher]) -> None:
    corpus, searcher = collection
    graphs = related(searcher, read_draft(FIXTURES / "draft.md").text, limit=3)
    assert all("Graph" in t for t in titles(corpus, graphs))
    rl = related(searcher, read_draft(FIXTURES / "draft.txt").text, limit=2)
    assert set(titles(corpus, rl)) == {
        "Proximal Policy Optimization Algorithms",
        "Human-Level Control through Deep Reinforcement Learning",
    }


def test_words_the_collection_lacks_give_no_papers_and_say_so(collection: tuple[Corpus, Searcher]) -> None:
    _corpus, searcher = collection
    result = related(searcher, parse_draft("Zyxwv qwertz plugh xyzzy frobnicate.").text)
    assert result.hits == [] and result.notice and "none of the draft's words" in result.notice


def test_the_bib_marks_the_two_cited_papers_by_doi_and_by_title_author_year(
    collection: tuple[Corpus, Searcher],
) -> None:
    """refs.bib cites DDPM by DOI (another key, a doi.org link, other case) and the SDE paper by
    title, first author and year (no DOI anywhere); "beatgans" is in the .bib but the draft never
    cites it: not cited. The draft's commented-out \\cite is no citation."""
    corpus, searcher = collection
    draft = read_draft(FIXTURES / "draft.tex")
    cited = resolve(draft.cites, draft.bibliographies)
    result = related(searcher, draft.text, limit=8)
    marks = {corpus.titles[h.row]: cited.cites(corpus.paper(h.row)) for h in result.hits}
    assert {t for t, m in marks.items() if m} == {
        "Denoising Diffusion Probabilistic Models",
        "Score-Based Generative Modeling through Stochastic Differential Equations",
    }
    assert marks["Diffusion Models Beat GANs on Image Synthesis"] is False
    assert len(marks) == 8
    assert cited.unknown == () and cited.found == 4 and cited.sources == ["refs.bib"]


def test_a_draft_without_keys_counts_every_bib_entry_cited(collection: tuple[Corpus, Searcher]) -> None:
    corpus, searcher = collection
    draft = parse_draft("Diffusion models beat GANs; denoising diffusion and guidance for image synthesis.")
    cited = resolve(draft.cites, [FIXTURES / "refs.bib"])
    result = related(searcher, draft.text, limit=6)
    marked = {corpus.titles[h.row] for h in result.hits if cited.cites(corpus.paper(h.row))}
    assert marked == {
        "Denoising Diffusion Probabilistic Models",
        "Score-Based Generative Modeling through Stochastic Differential Equations",
        "Diffusion Models Beat GANs on Image Synthesis",
    }
    assert cited.found == 5 and "every entry counts as cited" in cited.summary
