"""What the fuzzers found, each as the smallest input that showed it (see the fuzz targets for the
properties). A bug in a file another helper is still changing is marked xfail(strict=True) with
its cause; it passes (and the mark must go) once fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzzing import url_problem

from tui_reader.corpus.corpus import load_corpus


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
