"""Citation-grade export: BibTeX that bibtexparser 2 and pybtex both read without a complaint,
stable keys, the right entry types, text that decodes back to itself; RIS that rispy reads back;
CSL-JSON of the right shape; and all of it from the bookmarks' snapshots when no collection is open.
"""

from __future__ import annotations

import json
import logging
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import bibtexparser
import pybtex.errors
import pytest
import rispy
from pybtex.bibtex.utils import change_case
from pybtex.database import parse_string as pybtex_parse
from pylatexenc.latex2text import LatexNodes2Text

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.citation import citation, latex, latex_title
from tui_reader.library.citekeys import cite_keys, key_base, split_name
from tui_reader.library.export import FORMATS, bookmark_citation, export

NOTE = "first line\nsecond line, with 50% & a_b\n\nafter a blank line {braced}"
TRICKY = 'Gödel, Escher & Bach: 50% of a_b {braces} #1 $5 ~x "quoted" `tick` -- naïve Łódź'


def paper(pid: str, title: str, **kw: object) -> Paper:
    return Paper(id=pid, title=title, abstract=kw.pop("abstract", f"Abstract of {title}."), **kw)  # type: ignore[arg-type]


PAPERS = [
    paper(
        "aaa111",
        "Attention Is All You Need",
        authors=["Ashish Vaswani", "Noam Shazeer"],
        venue="NeurIPS",
        year=2017,
        doi="10.5555/3295222.3295349",
        keywords=["attention", "transformers"],
    ),
    paper(
        "bbb222", "On the GPT-4 Report for ImageNet in 3D", authors=["Kurt Gödel"], venue="JMLR", year=2023
    ),
    paper("ccc333", "Towards a Theory of Everything", authors=["Vincent van Gogh"], arxiv="2101.00001"),
    paper("ddd444", TRICKY, authors=["Łukasz Kaiser", "King, Jr., Martin Luther"], venue="ICML", year=2020),
    paper("eee555", "Deep Nets", venue="Journal of Machine Learning Research", year=2019, kind="phdthesis"),
]


def lookup_of(papers: list[Paper]) -> Callable[[str], Paper | None]:
    by_id = {p.id: p for p in papers}
    return by_id.get


@pytest.fixture
def store(tmp_path: Path) -> BookmarkStore:
    store = BookmarkStore(tmp_path / "bookmarks.json")
    for n, p in enumerate(PAPERS):
        store.add(p.id, p.title, note=NOTE if n == 3 else "", snapshot=p)
    store.set_tags("aaa111", ["ml", "Classics"])
    store.set_tags("ddd444", ["ML"])
    return store


def parse_bibtex(text: str) -> bibtexparser.Library:
    """Parsed by both libraries, failing on any warning, failed block or pybtex error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    pybtex.errors.set_strict_mode(True)  # the default: any error raises
    pybtex_parse(text, "bibtex")
    return library


def fields(library: bibtexparser.Library, key: str) -> dict[str, str]:
    return {f.key: f.value for f in library.entries_dict[key].fields}


def decode(value: str) -> str:
    return str(LatexNodes2Text(math_mode="text", strict_latex_spaces=False).latex_to_text(value))


# -- BibTeX ------------------------------------------------------------------------------------
def test_bibtex_parses_cleanly_with_types_keys_and_fields(
    store: BookmarkStore, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        text = export(store.all(), lambda _pid: None, "bibtex")  # the collection is not open
        library = parse_bibtex(text)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    types = {e.key: e.entry_type for e in library.entries}
    assert types == {
        "vaswani2017attention": "inproceedings",
        "godel2023gpt4": "article",
        "goghndtheory": "misc",
        "kaiser2020godel": "inproceedings",
        "anon2019deep": "phdthesis",  # the kind its citation file gave wins over the venue
    }
    first = fields(library, "vaswani2017attention")
    assert first["author"] == "Vaswani, Ashish and Shazeer, Noam"
    assert first["booktitle"] == "NeurIPS" and first["year"] == "2017"
    assert first["doi"] == "10.5555/3295222.3295349" and first["keywords"] == "attention, transformers"
    assert first["abstract"] == "Abstract of Attention Is All You Need."
    assert fields(library, "godel2023gpt4")["journal"] == "JMLR"
    arxiv = fields(library, "goghndtheory")
    assert arxiv["eprint"] == "2101.00001" and arxiv["archivePrefix"] == "arXiv"
    assert arxiv["url"] == "https://arxiv.org/abs/2101.00001" and arxiv["author"] == "van Gogh, Vincent"
    assert fields(library, "anon2019deep")["school"] == "Journal of Machine Learning Research"


def test_special_characters_are_encoded_and_decode_back(store: BookmarkStore) -> None:
    library = parse_bibtex(export(store.all(), lambda _pid: None, "bibtex"))
    tricky = fields(library, "kaiser2020godel")
    raw = tricky["title"]
    for encoded in ('G{\\"o}del', "{\\&}", "50{\\%}", "a{\\_}b", "{\\#}1", "{\\$}5", "{\\L}{\\'o}d{\\'z}"):
        assert encoded in raw, encoded
    assert "{braces}" not in raw  # the braces are text, not BibTeX grouping
    assert decode(raw) == TRICKY
    assert decode(tricky["note"]) == NOTE  # three lines and a blank one, kept
    assert tricky["author"] == "Kaiser, {\\L}ukasz and King, Jr., Martin Luther"
    for entry in library.entries:  # every field's braces balance, as BibTeX counts them
        for f in entry.fields:
            depth = 0
            for ch in f.value:
                depth += {"{": 1, "}": -1}.get(ch, 0)
                assert depth >= 0, (entry.key, f.key)
            assert depth == 0, (entry.key, f.key)


@pytest.mark.parametrize(
    "text",
    [
        TRICKY,
        "Ünïcödé — “quotes” ‘single’ … ø ß æ œ",
        "x < y > z, a | b, 100 % sure",
        "'' and ``",
        "--- -- -",
    ],
)
def test_latex_round_trips_through_pylatexenc(text: str) -> None:
    assert decode(latex(text)) == text
    assert decode(latex_title(text)) == text


def test_capitals_are_protected_where_a_style_would_lower_them() -> None:
    title = latex_title("On the GPT-4 Report for ImageNet in 3D: Part B of a Study")
    assert title == "On the {GPT}-4 Report for {ImageNet} in {3D}: Part {B} of a Study"
    assert change_case(title, "t") == "On the {GPT}-4 report for {ImageNet} in {3D}: Part {B} of a study"


def test_pybtex_reads_the_names_as_written(store: BookmarkStore) -> None:
    data = pybtex_parse(export(store.all(), lambda _pid: None, "bibtex"), "bibtex")
    (gogh,) = data.entries["goghndtheory"].persons["author"]
    assert gogh.prelast_names == ["van"] and gogh.last_names == ["Gogh"] and gogh.first_names == ["Vincent"]
    king = data.entries["kaiser2020godel"].persons["author"][1]
    assert king.last_names == ["King"] and king.lineage_names == ["Jr."]
    assert king.first_names == ["Martin"] and king.middle_names == ["Luther"]


def test_split_name_follows_bibtex() -> None:
    assert split_name("Ada Lovelace").bibtex == "Lovelace, Ada"
    assert split_name("Lovelace, Ada").bibtex == "Lovelace, Ada"
    assert split_name("Johannes Diderik van der Waals").family == "van der Waals"
    assert split_name("Martin Luther King Jr.").bibtex == "King, Jr., Martin Luther"
    assert split_name("OpenAI").bibtex == "OpenAI"


# -- keys --------------------------------------------------------------------------------------
def test_keys_are_stable_and_clashes_get_letters_by_id() -> None:
    a = paper("id-b", "Deep Learning", authors=["Yann LeCun"], year=2015)
    b = paper("id-a", "Deep learning revisited", authors=["Yann LeCun"], year=2015)
    c = paper("id-c", "The Deep Sea", authors=["Jacques Lecun"], year=2015)
    alone = paper("id-z", "Alone", authors=["Émile Zola"], year=1880)
    first = cite_keys([a, b, c, alone])
    assert first == {
        "id-a": "lecun2015deepa",
        "id-b": "lecun2015deepb",
        "id-c": "lecun2015deepc",
        "id-z": "zola1880alone",
    }
    assert cite_keys([alone, c, b, a]) == first  # the order given does not matter
    assert cite_keys([a]) == {"id-b": "lecun2015deep"}  # no clash, no letter


def test_key_parts_fold_skip_and_default() -> None:
    assert key_base(paper("1", "Towards the Understanding", authors=["Kurt Gödel"], year=1931)) == (
        "godel1931understanding"
    )
    assert key_base(paper("2", "A Study", authors=["Vincent van Gogh"], year=1888)) == "gogh1888study"
    assert key_base(paper("3", "Untitled work")) == "anonnduntitled"
    assert key_base(paper("6", "M-IDoL: a Self-Supervised MFM", year=2026)) == "anon2026midol"
    assert key_base(paper("4", "", authors=["Łukasz Kaiser"], year=2017)) == "kaiser2017"
    assert re.fullmatch(r"[a-z0-9]+", key_base(paper("5", "Über 東京", authors=["東京 大学"], year=2020)))


def test_a_letter_that_would_take_another_papers_key_skips_it() -> None:
    clash = [paper(f"x{n}", "Deep", authors=["Ann Lee"], year=2020) for n in range(2)]
    taken = paper("y", "Deepa", authors=["Ann Lee"], year=2020)  # its own key is lee2020deepa
    keys = cite_keys([*clash, taken])
    assert keys == {"y": "lee2020deepa", "x0": "lee2020deepb", "x1": "lee2020deepc"}


def test_many_clashes_get_two_letters() -> None:
    same = [paper(f"p{n:02d}", "Same", year=2000) for n in range(28)]
    keys = cite_keys(same)
    assert keys["p00"] == "anon2000samea" and keys["p25"] == "anon2000samez"
    assert keys["p26"] == "anon2000sameaa" and len(set(keys.values())) == 28


def test_one_papers_entry_and_cite_command() -> None:
    cited = citation(PAPERS[0], note="to read")
    assert cited.key == "vaswani2017attention" and cited.cite == "\\cite{vaswani2017attention}"
    library = parse_bibtex(cited.entry)
    assert fields(library, cited.key)["note"] == "to read"


def test_a_bookmarks_citation_uses_the_open_collection_first(store: BookmarkStore) -> None:
    mark = store.get("aaa111")
    assert mark is not None
    renamed = paper("aaa111", "Attention Is Still All You Need", authors=["Ashish Vaswani"], year=2018)
    assert bookmark_citation(mark, lookup_of([renamed])).key == "vaswani2018attention"
    assert bookmark_citation(mark, lambda _pid: None).key == "vaswani2017attention"  # the snapshot


# -- RIS and CSL-JSON --------------------------------------------------------------------------
def test_ris_reads_back_with_rispy(store: BookmarkStore) -> None:
    text = export(store.all(), lambda _pid: None, "ris")
    assert text.startswith("TY  - ")
    records = {r["id"]: r for r in rispy.loads(text)}
    assert len(records) == len(PAPERS)
    first = records["vaswani2017attention"]
    assert first["type_of_reference"] == "CPAPER" and first["title"] == "Attention Is All You Need"
    assert first["authors"] == ["Vaswani, Ashish", "Shazeer, Noam"] and first["year"] == "2017"
    assert first["secondary_title"] == "NeurIPS" and first["doi"] == "10.5555/3295222.3295349"
    assert first["keywords"] == ["attention", "transformers"]
    assert records["godel2023gpt4"]["type_of_reference"] == "JOUR"
    assert records["goghndtheory"]["urls"] == ["https://arxiv.org/abs/2101.00001"]
    tricky = records["kaiser2020godel"]
    assert tricky["title"] == TRICKY
    assert "\n".join(tricky["notes"]) == NOTE


def test_ris_lines_of_a_note_never_read_as_tags(tmp_path: Path) -> None:
    store = BookmarkStore(tmp_path / "b.json")
    store.add("p1", "One", note="ER  - not the end\nTY  - JOUR")
    store.add("p2", "Two")
    records = rispy.loads(export(store.all(), lambda _pid: None, "ris"))
    assert [r["title"] for r in records] == ["One", "Two"]
    assert records[0]["notes"] == ["ER  - not the end", "TY  - JOUR"]


CSL_TYPES = {
    "article",
    "article-journal",
    "paper-conference",
    "chapter",
    "thesis",
    "report",
    "book",
    "manuscript",
}


def test_csl_json_has_the_shape_csl_processors_read(store: BookmarkStore) -> None:
    items = json.loads(export(store.all(), lambda _pid: None, "csl-json"))
    assert isinstance(items, list) and len(items) == len(PAPERS)
    for item in items:
        assert isinstance(item["id"], str) and item["type"] in CSL_TYPES and isinstance(item["title"], str)
        for name in item.get("author", []):
            assert set(name) <= {"family", "given", "suffix"} and isinstance(name["family"], str)
        if "issued" in item:
            assert isinstance(item["issued"]["date-parts"][0][0], int)
        for key in ("container-title", "DOI", "URL", "abstract", "keyword", "note", "publisher", "number"):
            assert isinstance(item.get(key, ""), str), key
    by_id = {item["id"]: item for item in items}
    first = by_id["vaswani2017attention"]
    assert first["type"] == "paper-conference" and first["container-title"] == "NeurIPS"
    assert first["author"][0] == {"family": "Vaswani", "given": "Ashish"}
    assert first["issued"] == {"date-parts": [[2017]]} and first["DOI"] == "10.5555/3295222.3295349"
    assert first["keyword"] == "attention, transformers"
    assert by_id["godel2023gpt4"]["type"] == "article-journal"
    preprint = by_id["goghndtheory"]
    assert (
        preprint["type"] == "article"
        and preprint["publisher"] == "arXiv"
        and preprint["number"] == "2101.00001"
    )
    assert preprint["author"] == [{"family": "van Gogh", "given": "Vincent"}]
    assert by_id["kaiser2020godel"]["note"] == NOTE and by_id["kaiser2020godel"]["title"] == TRICKY


# -- what is exported ------------------------------------------------------------------------------
def test_the_tag_filter_is_case_blind(store: BookmarkStore) -> None:
    library = parse_bibtex(export(store.all(), lambda _pid: None, "bibtex", tag="ML"))
    assert {e.key for e in library.entries} == {"vaswani2017attention", "kaiser2020godel"}
    assert json.loads(export(store.all(), lambda _pid: None, "json", tag="classics"))[0]["id"] == "aaa111"
    assert json.loads(export(store.all(), lambda _pid: None, "csl-json", tag="nothing")) == []


def test_every_format_is_complete_without_the_collection(store: BookmarkStore) -> None:
    closed = {fmt: export(store.all(), lambda _pid: None, fmt) for fmt in FORMATS}
    opened = {fmt: export(store.all(), lookup_of(PAPERS), fmt) for fmt in FORMATS}
    for fmt in ("bibtex", "ris", "csl-json", "markdown"):
        assert closed[fmt] == opened[fmt], fmt  # the snapshot says what the paper says
    entry = json.loads(closed["json"])[0]
    assert entry["in_corpus"] is False and entry["authors"] == ["Ashish Vaswani", "Noam Shazeer"]
    assert entry["abstract"] == "Abstract of Attention Is All You Need." and entry["tags"] == [
        "Classics",
        "ml",
    ]
    assert entry["key"] == "vaswani2017attention" and "paper" not in entry
    assert json.loads(opened["json"])[0]["in_corpus"] is True
    assert "Ashish Vaswani, Noam Shazeer · id `aaa111`" in closed["markdown"]
    assert "Tags: `Classics`, `ml`" in closed["markdown"]


def test_bookmarks_without_a_snapshot_still_export(tmp_path: Path) -> None:
    store = BookmarkStore(tmp_path / "b.json")
    store.add("old1", "An Old Bookmark", note="from version 1")
    library = parse_bibtex(export(store.all(), lambda _pid: None, "bibtex"))
    (entry,) = library.entries
    assert entry.key == "anonndold" and entry.entry_type == "misc"
    assert {f.key: f.value for f in entry.fields} == {"title": "An Old Bookmark", "note": "from version 1"}


def test_seed_papers_cite_as_icml_2026(tmp_path: Path, seed_corpus: Corpus) -> None:
    store = BookmarkStore(tmp_path / "b.json")
    for row in (0, 5):
        store.add(seed_corpus.ids[row], seed_corpus.titles[row], snapshot=seed_corpus.paper(row))
    library = parse_bibtex(export(store.all(), lambda _pid: None, "bibtex"))
    for entry in library.entries:
        f = {x.key: x.value for x in entry.fields}
        assert entry.entry_type == "inproceedings" and f["booktitle"] == "ICML" and f["year"] == "2026"
        assert entry.key.startswith("anon2026")
    assert {decode(x.value) for e in library.entries for x in e.fields if x.key == "abstract"} == {
        seed_corpus.paper(0).abstract,
        seed_corpus.paper(5).abstract,
    }
