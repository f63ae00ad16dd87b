"""Venue strings made into one name per venue and a year: the pure function, the loader, and
``venue:``/``year:`` queries over a real index of records shaped like the 87k collection."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tui_reader.corpus.formats import make_paper
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.venues import VENUES, split_venue, venue_label, venue_terms
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # the 87k collection's form: lowercase name, year glued on
        ("icml2019", ("ICML", 2019)),
        ("nips1987", ("NeurIPS", 1987)),
        ("nips2018", ("NeurIPS", 2018)),
        ("eccv2022", ("ECCV", 2022)),
        ("3dv2025", ("3DV", 2025)),
        ("www2025", ("WWW", 2025)),
        ("automl2023", ("AutoML", 2023)),
        ("colm2025", ("COLM", 2025)),
        ("corl2024", ("CoRL", 2024)),
        # written out, with apostrophes and hyphens
        ("ICML 2019", ("ICML", 2019)),
        ("ICML'19", ("ICML", 2019)),
        ("ICML '19", ("ICML", 2019)),
        ("ICML’98", ("ICML", 1998)),
        ("AAAI-22", ("AAAI", 2022)),
        ("iclr19", ("ICLR", 2019)),
        ("NeurIPS 2023", ("NeurIPS", 2023)),
        ("  NeurIPS\t 2023 ", ("NeurIPS", 2023)),
        ("neurips", ("NeurIPS", None)),
        ("NIPS", ("NeurIPS", None)),
        # proceedings titles and full names
        ("Proc. of CVPR", ("CVPR", None)),
        ("Proceedings of the 40th International Conference on Machine Learning", ("ICML", None)),
        ("Advances in Neural Information Processing Systems 33", ("NeurIPS", None)),
        ("IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)", ("CVPR", None)),
        ("Thirty-Sixth AAAI Conference on Artificial Intelligence", ("AAAI", None)),
        ("Robotics: Science and Systems XV", ("RSS", None)),
        ("The ACM Web Conference 2024", ("WWW", 2024)),
        ("TheWebConf 2023", ("WWW", 2023)),
        ("IEEE Robotics and Automation Letters", ("RA-L", None)),
        ("IEEE Transactions on Pattern Analysis and Machine Intelligence", ("TPAMI", None)),
        (
            "Proceedings of the 2019 Conference of the North American Chapter of the Association for "
            "Computational Linguistics: Human Language Technologies",
            ("NAACL", 2019),
        ),
        ("Annual Meeting of the Association for Computational Linguistics", ("ACL", None)),
        ("ACL-IJCNLP 2021", ("ACL", 2021)),
        ("SysML 2019", ("MLSys", 2019)),
        # qualifiers that matter are kept, the seeds' "Papers" is not
        ("ICML 2026 Papers", ("ICML", 2026)),
        ("ICML 2023 Workshop", ("ICML Workshop", 2023)),
        ("CVPR Workshops 2020", ("CVPR Workshop", 2020)),
        ("ICML Workshop on COVID-19", ("ICML Workshop", None)),  # COVID-19 is not a year
        ("Findings of the Association for Computational Linguistics: EMNLP 2021", ("EMNLP Findings", 2021)),
        # preprints
        ("arXiv", ("arXiv", None)),
        ("CoRR", ("arXiv", None)),
        ("arXiv preprint arXiv:2301.01234", ("arXiv", 2023)),  # the id's year, not 2301
        # unknown venues keep their own words
        ("QIP", ("QIP", None)),
        ("synth2024", ("SYNTH", 2024)),
        ("Journal of Foo Studies (2019)", ("Journal of Foo Studies", 2019)),
        ("Some Workshop 2019:", ("Some Workshop", 2019)),
        ("Nature", ("Nature", None)),
        ("2019", ("", 2019)),
        ("", ("", None)),
    ],
)
def test_split_venue(raw: str, expected: tuple[str, int | None]) -> None:
    assert split_venue(raw) == expected


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("NeurIPS", {"NeurIPS", "nips"}),
        ("ICML", {"ICML"}),
        ("ICML Workshop", {"ICML", "Workshop"}),
        ("WWW", {"WWW", "thewebconf", "webconf"}),
        ("RA-L", {"RA-L", "ral"}),
        ("QIP", {"QIP"}),
        ("", set()),
    ],
)
def test_venue_terms(name: str, words: set[str]) -> None:
    assert set(venue_terms(name).split()) == words


def test_every_name_and_alias_finds_its_own_venue() -> None:
    for venue in VENUES:
        for alias in (venue.name, *venue.aliases, *venue.full):
            assert split_venue(alias) == (venue.name, None), alias
            assert split_venue(f"{alias} 2021") == (venue.name, 2021), alias


@pytest.mark.parametrize(
    ("name", "year", "label"),
    [
        ("ICML", 2019, "ICML 2019"),
        ("ICML", None, "ICML"),
        ("", 2019, "2019"),
        ("", None, ""),
    ],
)
def test_venue_label(name: str, year: int | None, label: str) -> None:
    assert venue_label(name, year) == label


def test_loader_year_from_the_record_wins_over_the_venue() -> None:
    from_venue = make_paper("Some abstract.", "x.json", "T", venue="icml2019")
    assert from_venue is not None and (from_venue.venue, from_venue.year) == ("ICML", 2019)
    own = make_paper("Some abstract.", "x.json", "T", venue="NeurIPS 2021", year="2020-12-01")
    assert own is not None and (own.venue, own.year) == ("NeurIPS", 2020)
    none = make_paper("Some abstract.", "x.json", "T")
    assert none is not None and (none.venue, none.year) == ("", None)


# -- through a real index ---------------------------------------------------------------------
RECORDS = {  # title -> venue, shaped like the 87k collection: no year field
    "Kernels 2019": "icml2019",
    "Kernels 2013": "icml2013",
    "Kernels written out": "ICML 2019",
    "Sparse 2018": "nips2018",
    "Sparse 1987": "nips1987",
    "Sparse 2023": "NeurIPS 2023",
    "Sparse apostrophe": "NeurIPS '23",
    "Detection 2022": "eccv2022",
    "Detection 2019": "cvpr2019",
    "Unknown venue": "synth2019",
}


@pytest.fixture(scope="module")
def venue_searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    base = tmp_path_factory.mktemp("venue-index")
    folder = base / "corpus"
    folder.mkdir()
    lines = [
        json.dumps(
            {
                "title": title,
                "authors": "Ada Lovelace, Alan Turing, Grace Hopper",
                "abstract": f"An abstract about {title.lower()} number {i}.",
                "venue": venue,
                "url": f"https://example.org/{i}",
            }
        )
        for i, (title, venue) in enumerate(RECORDS.items())
    ]
    (folder / "papers.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(base / "cache"))
        mp.setenv("XDG_CACHE_HOME", str(base / "xdg-cache"))
        mp.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
        corpus = load_corpus([folder], use_cache=False)
        index = SearchIndex(corpus, root=base / "index")
        assert index.ensure().action == "built"
        searcher = Searcher(index)
    yield searcher
    index.close()
    corpus.close()


def _titles(searcher: Searcher, query: str) -> set[str]:
    result = searcher.search(query)
    assert result.notice is None, result.notice
    assert result.total == len(result.hits)
    return {searcher.corpus.titles[h.row] for h in result.hits}


ICML = {"Kernels 2019", "Kernels 2013", "Kernels written out"}
NEURIPS = {"Sparse 2018", "Sparse 1987", "Sparse 2023", "Sparse apostrophe"}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("venue:icml", ICML),
        ("venue:ICML", ICML),
        ("venue:nips", NEURIPS),
        ("venue:NIPS", NEURIPS),
        ("venue:neurips", NEURIPS),
        ("venue:NeurIPS", NEURIPS),
        ("venue:neurips year:2023", {"Sparse 2023", "Sparse apostrophe"}),
        ("venue:nips year:<2000", {"Sparse 1987"}),
        ("year:2019", {"Kernels 2019", "Kernels written out", "Detection 2019", "Unknown venue"}),
        ("venue:icml year:2019", {"Kernels 2019", "Kernels written out"}),
        ("venue:eccv OR venue:cvpr", {"Detection 2022", "Detection 2019"}),
        ("venue:synth", {"Unknown venue"}),
        ("venue:icml2019", set()),  # the raw string is not indexed: the venue and the year are
    ],
)
def test_venue_and_year_queries(venue_searcher: Searcher, query: str, expected: set[str]) -> None:
    assert _titles(venue_searcher, query) == expected


def test_loaded_papers_carry_the_normalised_venue(venue_searcher: Searcher) -> None:
    papers = {p.title: p for p in venue_searcher.corpus}
    assert (papers["Kernels 2019"].venue, papers["Kernels 2019"].year) == ("ICML", 2019)
    assert (papers["Sparse 1987"].venue, papers["Sparse 1987"].year) == ("NeurIPS", 1987)
    assert (papers["Sparse apostrophe"].venue, papers["Sparse apostrophe"].year) == ("NeurIPS", 2023)
    assert (papers["Unknown venue"].venue, papers["Unknown venue"].year) == ("SYNTH", 2019)
