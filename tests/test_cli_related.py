"""``tui-reader related DRAFT``: the papers most like a draft, those it cites marked, as text or as
``search --json``'s JSON plus ``"cited"``; a hostile draft is one line and exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support import run_cli, run_cli_many

FIXTURES = Path(__file__).parent / "fixtures" / "related"
CITED = {
    "Denoising Diffusion Probabilistic Models",
    "Score-Based Generative Modeling through Stochastic Differential Equations",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The fixtures, copied: the collection, the drafts and the draft's refs.bib."""
    out = tmp_path / "work"
    shutil.copytree(FIXTURES, out)
    return out


def ok(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def failed(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("tui-reader: error: ") and message in lines[-1], result.stderr


def test_json_hits_are_search_hits_plus_cited(folder: Path) -> None:
    related, search = run_cli_many(
        ("related", "draft.tex", "--bib", "refs.bib", "collection.bib", "--json", "--limit", "8"),
        ("search", "diffusion", "collection.bib", "--json"),
        cwd=folder,
    )
    ok(related)
    ok(search)
    answer, searched = json.loads(related.stdout), json.loads(search.stdout)
    assert answer.keys() == searched.keys()
    assert answer["total"] == len(answer["hits"]) == 8 and answer["query"] == "related: draft.tex"
    for hit in answer["hits"]:
        assert list(hit) == [*searched["hits"][0].keys(), "cited"]
        assert isinstance(hit["cited"], bool)
    cited = {h["title"] for h in answer["hits"] if h["cited"]}
    assert cited == CITED
    assert {h["title"] for h in answer["hits"][:5]} >= CITED
    scores = [h["score"] for h in answer["hits"]]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0


def test_text_marks_the_cited_papers_and_finds_the_bib_the_draft_names(folder: Path) -> None:
    """No --bib: the draft's \\bibliography{refs} is refs.bib next to it."""
    result = run_cli("related", "draft.tex", "collection.bib", "--limit", "5", cwd=folder)
    ok(result)
    out = result.stdout
    assert out.startswith("5 papers related to draft.tex")
    assert "cited: 2 of these · 4 of 4 cited keys known (refs.bib)" in out
    marked = [line for line in out.splitlines() if line.endswith("[cited]")]
    assert sorted(line.split(". ", 1)[1].removesuffix("  [cited]") for line in marked) == sorted(CITED)


def test_keys_resolve_against_the_bookmarks_without_a_bib(folder: Path) -> None:
    listed = run_cli("list", "collection.bib", "--json", cwd=folder)
    ok(listed)
    gat = next(p for p in json.loads(listed.stdout) if p["title"] == "Graph Attention Networks")
    ok(run_cli("bookmarks", "add", gat["id"], "collection.bib", cwd=folder))
    result = run_cli("related", "draft.md", "collection.bib", "--json", cwd=folder)
    ok(result)
    hits = json.loads(result.stdout)["hits"]
    assert [h["title"] for h in hits if h["cited"]] == ["Graph Attention Networks"]
    assert "graphs.bib: no such bibliography" in result.stderr  # named in its front matter, not there


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64, "not a text file"),
        (b"word " * (2 * 2**20 // 5 + 1), "too large for a draft"),
        (b"\x1b[2J\x1b]0;owned\x07\x1b[31m", "no prose"),
    ],
    ids=["binary", "huge", "only-escapes"],
)
def test_a_hostile_draft_is_one_line_and_exit_2(folder: Path, content: bytes, message: str) -> None:
    (folder / "hostile.tex").write_bytes(content)
    result = run_cli("related", "hostile.tex", "collection.bib", cwd=folder)
    failed(result, message)
    assert "\x1b" not in result.stderr


def test_a_draft_or_bib_that_is_not_there(folder: Path) -> None:
    failed(run_cli("related", "nowhere.tex", "collection.bib", cwd=folder), "nowhere.tex: no such file")
    failed(
        run_cli("related", "draft.tex", "--bib", "gone.bib", "collection.bib", cwd=folder),
        "no such bibliography",
    )
    result = run_cli("related", "draft.tex", "--limit", "0", cwd=folder)
    assert result.returncode == 2 and "must be at least 1" in result.stderr


def test_one_paper_is_one_paper(folder: Path) -> None:
    result = run_cli("related", "draft.tex", "collection.bib", "--limit", "1", cwd=folder)
    ok(result)
    assert result.stdout.startswith("1 paper related to draft.tex (")
