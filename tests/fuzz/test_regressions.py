"""What the fuzzers found, each as the smallest input that showed it (see the fuzz targets for the
properties). A bug in a file another helper is still changing is marked xfail(strict=True) with
its cause; it passes (and the mark must go) once fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzzing import url_problem

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.searcher import Searcher, SearchMode, SearchResult


def _urls(tmp_path: Path, name: str, content: bytes) -> list[str]:
    (tmp_path / name).write_bytes(content)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        return [p.url for p in corpus]
    finally:
        corpus.close()


@pytest.mark.parametrize(
    "value",
    ["10.1103/PhysRevD.76.013009", "javascript:alert(1)", "/etc/passwd"],
)
def test_a_json_lines_link_that_is_no_url_is_no_link(tmp_path: Path, value: str) -> None:
    """Found by the arXiv target: an arXiv line whose "id" key was mutated is read as generic
    JSON Lines, and its "doi" became paper.url verbatim."""
    line = b'{"title": "t", "abstract": "An abstract of some length.", "url": "%s"}\n' % value.encode()
    urls = _urls(tmp_path, "in.jsonl", line)
    assert urls and all(url_problem(u) is None for u in urls), urls


def test_an_ris_link_that_is_no_url_is_no_link(tmp_path: Path) -> None:
    """Found by the RIS target: a truncated UR line ("UR  - j") became paper.url "j"."""
    ris = (
        b"TY  - JOUR\r\nT1  - Several links in one field\r\nA1  - Smith, John\r\n"
        b"Y1  - 2018\r\nJF  - Journal of Stuff\r\nUR  - j"
    )
    urls = _urls(tmp_path, "in.ris", ris)
    assert urls == [""]


def test_a_bibtex_field_name_holding_a_control_is_that_field(tmp_path: Path) -> None:
    """Found by the BibTeX target: a NUL after the key's comma made a custom field named
    "\\x00\\n  title" (a control in the record) and the entry lost its title."""
    bib = b"@article{k,\x00\n  title = {A title},\n  abstract = {An abstract that is long enough.}\n}\n"
    (tmp_path / "in.bib").write_bytes(bib)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        (paper,) = list(corpus)
    finally:
        corpus.close()
    assert paper.title == "A title"
    assert "custom" not in paper.record, paper.record


def _custom(tmp_path: Path, name: str, content: bytes) -> dict[str, object]:
    (tmp_path / name).write_bytes(content)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        (paper,) = list(corpus)
    finally:
        corpus.close()
    custom = paper.record.get("custom")
    assert isinstance(custom, dict), paper.record
    return custom


def test_an_ris_tag_kept_verbatim_holds_no_control(tmp_path: Path) -> None:
    """Found by the RIS target (a UTF-16 file with one byte inserted)."""
    ris = b"TY  - JOUR\nTI  - T\nY1  - 2018\rxx\nZZ  - a\x1b[2Jb\n"
    ris += b"AB  - An abstract here, long enough.\nER  - \n"
    custom = _custom(tmp_path, "in.ris", ris)
    assert custom == {"y1": "2018 xx", "zz": "ab"}


def test_a_json_field_kept_verbatim_holds_no_control(tmp_path: Path) -> None:
    line = b'{"title": "t", "abstract": "An abstract of some length.", "zzz": "a\\u001b]0;x\\u0007b"}\n'
    custom = _custom(tmp_path, "in.jsonl", line)
    assert custom == {"zzz": "ab"}


def test_a_csl_id_holding_a_control_is_no_citation_key_with_it(tmp_path: Path) -> None:
    """Found by the CSL-JSON target: "id": "\\u0000http://zotero.org/..." kept its NUL."""
    fixture = Path(__file__).parent.parent / "fixtures" / "formats" / "zotero.csl.json"
    item = fixture.read_bytes().replace(b'"id": "', b'"id": "\\u0000', 1)
    (tmp_path / "in.json").write_bytes(item)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        papers = list(corpus)
    finally:
        corpus.close()
    assert papers and all("\x00" not in str(p.record.get("citation-key", "")) for p in papers)


@pytest.mark.parametrize("text", ["x ANDNOT ANDNOT x", "a ANDMAYBE ANDMAYBE b"])
def test_a_doubled_binary_operator_is_a_query_not_a_damaged_index(seed_searcher: Searcher, text: str) -> None:
    """Found by the query target ('abductive ANDNOT ANDNOT abductive ')."""
    for mode in (SearchMode.ENTER, SearchMode.TYPING):
        result = seed_searcher.search(text, mode, 10)
        assert isinstance(result, SearchResult)


@pytest.mark.parametrize("url", ["https://#example.org/a_b?x=1", "https://[example.org/a"])
def test_a_bibtex_url_with_no_host_is_no_link(tmp_path: Path, url: str) -> None:
    """Found by the BibTeX target: a flipped byte left "https://#..." (no host) or "https://[..."
    (which urlsplit refuses) as paper.url."""
    bib = b"@article{k, title = {T}, abstract = {An abstract of some length.}, url = {%s}}\n" % url.encode()
    assert _urls(tmp_path, "in.bib", bib) == [""]


def test_saving_the_theme_over_a_value_holding_nel_replaces_it(tmp_path: Path) -> None:
    """Found by the config target: theme = "\\x85nord"."""
    from tui_reader.library.config import save_theme

    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "\xc2\x85nord"\nsort = "year"\n')
    save_theme(path, "gruvbox")  # with_theme split lines where str.splitlines does (at U+0085)
    assert path.read_bytes() == b'theme = "gruvbox"\nsort = "year"\n'


def test_a_bibtex_file_field_holding_a_control_keeps_none(tmp_path: Path) -> None:
    """Found by the BibTeX target: a JabRef file field ":y.pdf:\\x10DF" kept the control in
    record["file"][...]["mime"]."""
    bib = b"@article{k, title = {T}, abstract = {An abstract of some length.},"
    bib += b" file = {:papers/x.pdf:PDF;:y.pdf:\x10DF}}\n"
    (tmp_path / "in.bib").write_bytes(bib)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        (paper,) = list(corpus)
    finally:
        corpus.close()
    files = paper.record["file"]
    assert isinstance(files, list) and len(files) == 2
    assert all("\x10" not in v for f in files for v in f.values()), files


def test_a_csl_type_holding_a_control_is_no_kind_with_it(tmp_path: Path) -> None:
    """Found by the CSL-JSON target: "type": "\\u007farticle-journal"."""
    fixture = Path(__file__).parent.parent / "fixtures" / "formats" / "zotero.csl.json"
    item = fixture.read_bytes().replace(b'"type": "', b'"type": "\\u007f', 1)
    (tmp_path / "in.json").write_bytes(item)
    corpus = load_corpus([tmp_path], use_cache=False)
    try:
        papers = list(corpus)
    finally:
        corpus.close()
    assert papers and all("\x7f" not in p.kind + str(p.record.get("type", "")) for p in papers)
