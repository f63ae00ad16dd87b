"""``tui-reader export QUERY``: exactly Enter's answer (``tui-reader search``'s hits, all of them, in
their order), in every format; ``*`` is the whole collection; ``-o`` writes a file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import bibtexparser
import pytest
from support import run_cli, run_cli_many

from tui_reader.corpus.corpus import Corpus


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


def ok(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_export_is_the_search_answer_whole_and_in_order(cwd: Path, seed_corpus: Corpus) -> None:
    search, exported, everything = run_cli_many(
        ("search", "learning", "--json", "--limit", "1000"),
        ("export", "learning", "--format", "json"),
        ("export", "*", "--format", "json"),
        cwd=cwd,
    )
    for result in (search, exported, everything):
        ok(result)
    hits = [h["id"] for h in json.loads(search.stdout)["hits"]]
    assert len(hits) > 10
    assert [p["id"] for p in json.loads(exported.stdout)] == hits
    assert [p["id"] for p in json.loads(everything.stdout)] == seed_corpus.ids


def test_export_writes_bibtex_to_a_file(cwd: Path) -> None:
    result = run_cli("export", "learning", "--format", "bibtex", "-o", "out.bib", cwd=cwd)
    ok(result)
    assert result.stdout == "" and "exported" in result.stderr and "out.bib" in result.stderr
    library = bibtexparser.parse_string((cwd / "out.bib").read_text("utf-8"))
    assert library.failed_blocks == [] and len(library.entries) > 10


def test_a_query_that_finds_nothing_says_so(cwd: Path) -> None:
    result = run_cli("export", "zzzzqqqxxnothing", "--format", "ris", cwd=cwd)
    ok(result)
    assert result.stdout == "" and "no paper matches" in result.stderr
