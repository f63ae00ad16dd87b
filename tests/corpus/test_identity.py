"""The identity rule (issue 18): which records are one work, as pure functions."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tui_reader.corpus.identity import (
    Identity,
    author_key,
    conflict,
    fold,
    identify,
    is_placeholder,
    normalise_arxiv,
    normalise_doi,
    same_work,
    substantive,
)
from tui_reader.corpus.paper import paper_id

ABSTRACT = "We study sparse graphs and show that a greedy matching is optimal for every degree bound."


def ident(
    title: str = "A title", abstract: str = "", authors: tuple[str, ...] = ("John Smith",), **kw: object
) -> Identity:
    return identify(title=title, abstract=abstract, authors=list(authors), year=kw.pop("year", 2020), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "Not Available",
        "not available.",
        "Abstract",
        "No abstract available",
        "N/A",
        "[No abstract available]",
        "Abstract not available",
        "  ABSTRACT  ",
        "—",
        "...",
    ],
)
def test_placeholders_are_no_abstract(text: str) -> None:
    assert is_placeholder(text) and not substantive(text)


def test_short_abstracts_do_not_identify_but_real_ones_do() -> None:
    assert not is_placeholder("Short note on graphs.") and not substantive("Short note on graphs.")
    assert substantive(ABSTRACT) and not is_placeholder(ABSTRACT)
    assert not is_placeholder("Not available " * 10)  # a long text is never a placeholder


@pytest.mark.parametrize(
    ("given_doi", "url", "expected"),
    [
        ("10.1038/Nature14539", "", "10.1038/nature14539"),
        ("https://doi.org/10.1038/nature14539", "", "10.1038/nature14539"),
        ("doi:10.1038/nature14539.", "", "10.1038/nature14539"),
        ("http://dx.doi.org/10.1000%2Fabc", "", "10.1000/abc"),
        ("10.1016/0370-2693(93)90272-J", "", "10.1016/0370-2693(93)90272-j"),
        ("(10.1000/abc)", "", "10.1000/abc"),
        ("10/fqd6hj", "https://doi.org/10.1145/3290605.3300857", "10.1145/3290605.3300857"),
        ("10/FQD6HJ", "https://example.org/paper", "10/fqd6hj"),
        ("", "https://doi.org/10.1/x", ""),  # a url alone is not a DOI the source gave
        ("not a doi", "", ""),
    ],
)
def test_doi_normalised(given_doi: str, url: str, expected: str) -> None:
    assert normalise_doi(given_doi, url) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2101.00001v3", "2101.00001"),
        ("arXiv:2101.00001", "2101.00001"),
        ("https://arxiv.org/abs/1706.03762v5", "1706.03762"),
        ("hep-th/9901001v2", "hep-th/9901001"),
        ("math.GT/0309136", "math/0309136"),
        ("HEP-TH/9901001", "hep-th/9901001"),
        ("", ""),
    ],
)
def test_arxiv_normalised(value: str, expected: str) -> None:
    assert normalise_arxiv(value) == expected


def test_first_author_family_name_and_initial() -> None:
    same = {
        author_key(n) for n in ("Smith, John", "John Smith", "J. Smith", "Smith, J.", "Smith J", "JOHN SMITH")
    }
    assert same == {"smith j"}
    assert author_key("John Smith") != author_key("Steven Smith")
    assert author_key("Jan van der Berg") == author_key("van der Berg, Jan") == "berg j"
    assert author_key("Smith, Jr., John") == author_key("John Smith Jr.") == "smith j"
    assert author_key("Müller, Jörg") == author_key("Jorg Muller") == "muller j"
    assert author_key("U.S. Bureau of the Census") == "census u" and author_key("") == ""


def test_title_folding_ignores_case_accents_punctuation_spacing() -> None:
    assert fold("Naïve  Bayes: a Gödel-view!") == fold("naive bayes — a godel view") == "naivebayesagodelview"


def test_doi_decides_then_arxiv_then_title_author_year() -> None:
    a = ident(doi="10.1000/a")
    assert same_work(a, ident(title="Another title", doi="10.1000/A"), same_file=False)
    assert not same_work(a, ident(doi="10.1000/b"), same_file=False)  # different DOIs: never one
    assert same_work(ident(arxiv="2101.00001v1"), ident(arxiv="2101.00001v2"), same_file=False)
    assert not same_work(
        ident(arxiv="2101.00001"), ident(arxiv="2101.00002", abstract=ABSTRACT), same_file=False
    )
    assert same_work(ident(doi="10.1000/a"), ident(), same_file=False)  # the other has no DOI: title decides
    assert not same_work(ident(), ident(authors=("Steven Smith",)), same_file=False)
    assert not same_work(ident(), ident(year=2021), same_file=False)


def test_same_title_author_year_with_one_abstract_is_one_with_two_different_abstracts_two() -> None:
    assert same_work(ident(abstract=ABSTRACT), ident(), same_file=False)
    assert not same_work(ident(abstract=ABSTRACT), ident(abstract=ABSTRACT + " More."), same_file=False)


def test_within_a_file_two_citation_keys_are_two_works() -> None:
    a, b = ident(key="smith2020a"), ident(key="smith2020b")
    assert conflict(a, b, same_file=True) and not same_work(a, b, same_file=True)
    assert same_work(a, b, same_file=False)  # in two files, keys are each file's own


def test_an_abstract_speaks_only_when_no_title_disagrees() -> None:
    chapter1, chapter2 = ident("Chapter one", ABSTRACT), ident("Chapter two", ABSTRACT)
    assert not same_work(chapter1, chapter2, same_file=False)
    untitled = identify(title="", abstract=ABSTRACT, authors=[], year=None)
    assert same_work(chapter1, untitled, same_file=False)
    assert untitled.id == paper_id(ABSTRACT)  # a record without a title keeps today's id


def test_untitled_records_are_their_abstract_however_short() -> None:
    a = identify(title="", abstract="Tiny.", authors=[], year=None)
    assert a.id == paper_id("Tiny.") and same_work(a, a, same_file=True)


def test_ids_by_strength() -> None:
    assert (
        ident(doi="10.1000/a").id
        == ident(title="Other", doi="https://doi.org/10.1000/A", arxiv="2101.00001").id
    )
    assert ident(arxiv="2101.00001v2").id == ident(title="Other", arxiv="arXiv:2101.00001").id
    assert ident().id == ident(title="a  TITLE!", authors=("Smith, J.",)).id != ident(year=2019).id
    assert len({ident(doi="10.1000/a").id, ident(arxiv="2101.00001").id, ident().id}) == 3


def test_identity_round_trips_through_json() -> None:
    for x in (
        ident(doi="10.1000/a", arxiv="2101.00001", abstract=ABSTRACT, key="k"),
        ident(abstract="Short one."),
    ):
        assert Identity.from_json(x.to_json(), key=x.key) == x


# -- properties -------------------------------------------------------------------------------------
# letters whose case maps round trip (not the Turkish dotted and dotless i)
letters = st.characters(whitelist_categories=("Lu", "Ll"), max_codepoint=0x24F, blacklist_characters="İı")
words = st.text(letters, min_size=2, max_size=12)


@given(st.text(max_size=60))
def test_fold_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)


@given(st.lists(words, min_size=1, max_size=8), st.sampled_from([" ", "  ", " - ", ": ", ", "]))
def test_fold_ignores_spacing_punctuation_and_case(parts: list[str], sep: str) -> None:
    assert fold(" ".join(parts)) == fold(sep.join(p.upper() for p in parts))


@given(words, words)
def test_family_given_either_way(family: str, given_name: str) -> None:
    # "AA JR" is a given name and a suffix, not a family name: the one real ambiguity of the order
    assume(family.casefold().strip(".") not in {"jr", "sr", "ii", "iii", "iv", "v"})
    assert author_key(f"{family}, {given_name}") == author_key(f"{given_name.lower()} {family.lower()}")


@given(
    st.from_regex(r"10\.\d{4,6}/[a-z0-9.\-]{1,12}[a-z0-9]", fullmatch=True),
    st.sampled_from(["", "doi:", "https://doi.org/", "DOI "]),
)
def test_doi_prefix_and_case_blind(doi: str, prefix: str) -> None:
    assert normalise_doi(prefix + doi.upper()) == normalise_doi(doi) == doi
    assert normalise_doi(normalise_doi(doi)) == normalise_doi(doi)


@given(st.from_regex(r"\d{4}\.\d{5}", fullmatch=True), st.integers(1, 30))
def test_arxiv_version_dropped(arxiv: str, version: int) -> None:
    assert normalise_arxiv(f"{arxiv}v{version}") == normalise_arxiv(f"arXiv:{arxiv}") == arxiv


identities = st.builds(
    Identity,
    doi=st.sampled_from(["", "10.1000/a", "10.1000/b"]),
    arxiv=st.sampled_from(["", "2101.00001", "2101.00002"]),
    title=st.sampled_from(["", "t1", "t2"]),
    work=st.sampled_from(["", "w1", "w2"]),
    text=st.sampled_from(["", "x1", "x2"]),
    weak=st.booleans(),
    key=st.sampled_from(["", "k1", "k2"]),
)


@given(identities, identities, st.booleans())
def test_same_work_is_symmetric_and_never_joins_two_dois(a: Identity, b: Identity, same_file: bool) -> None:
    assert same_work(a, b, same_file) == same_work(b, a, same_file)
    if a.doi and b.doi and a.doi != b.doi:
        assert not same_work(a, b, same_file)
    if same_file and a.key and b.key and a.key != b.key:
        assert not same_work(a, b, same_file)
    if a.doi and a.doi == b.doi and not (same_file and a.key and b.key and a.key != b.key):
        assert same_work(a, b, same_file) or (a.arxiv and b.arxiv and a.arxiv != b.arxiv)


@given(st.text(max_size=80))
def test_paper_id_is_the_hash_of_the_text_with_its_spacing_collapsed(text: str) -> None:
    import hashlib

    expected = hashlib.sha1(" ".join(text.split()).casefold().encode("utf-8", "surrogatepass")).hexdigest()[
        :12
    ]
    assert paper_id(text) == expected  # the ids saved before issue 18 stay what they were
