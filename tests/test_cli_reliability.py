"""The command line's faults (issue 22): output that cannot be written, --time-limit values that
turned the limit off, global options before a subcommand, paths after options, and the JSON
answer written a hit at a time (the same text as the whole answer dumped at once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import GNN_TITLE_START, run_cli

from tui_reader.cli_output import write_search_json as _write_json
from tui_reader.corpus.text import safe_json
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.search.searcher import SearchResult

FULL = Path("/dev/full")


def _run(
    *args: str, cwd: Path, stdout: object, close_stdout: bool = False
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "tui_reader", *args],
        cwd=cwd,
        env=env,
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=(lambda: os.close(1)) if close_stdout else None,
    )


def _one_error_line(result: subprocess.CompletedProcess[str], reason: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert errors == [f"tui-reader: error: cannot write the output: {reason}"], result.stderr


COMMANDS = [
    ("list",),
    ("list", "--json"),
    ("search", "neural"),
    ("search", "neural", "--json"),
    ("config",),
    ("list", "--help"),
]


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
@pytest.mark.parametrize("args", COMMANDS)
def test_a_full_disk_is_one_line_and_exit_1(tmp_path: Path, args: tuple[str, ...]) -> None:
    with FULL.open("w") as full:
        result = _run(*args, cwd=tmp_path, stdout=full)
    _one_error_line(result, "no space left on device")


@pytest.mark.parametrize("args", [*COMMANDS, ("bookmarks", "export")])
def test_a_closed_stdout_is_one_line_and_exit_1(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = _run(*args, cwd=tmp_path, stdout=None, close_stdout=True)
    _one_error_line(result, "standard output is closed")


def test_a_closed_stdout_changes_nothing(tmp_path: Path) -> None:
    """Refused before the command runs: no bookmark added that the user was never told of."""
    store = tmp_path / "marks.json"
    pid = run_cli("list", cwd=tmp_path).stdout.split()[0]
    result = _run(
        "bookmarks", "add", pid, "--bookmarks", str(store), cwd=tmp_path, stdout=None, close_stdout=True
    )
    _one_error_line(result, "standard output is closed")
    assert not store.exists()


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
def test_bookmarks_export_to_a_full_disk(tmp_path: Path) -> None:
    store = tmp_path / "marks.json"
    pid = run_cli("list", cwd=tmp_path).stdout.split()[0]
    assert run_cli("bookmarks", "add", pid, "--bookmarks", str(store), cwd=tmp_path).returncode == 0
    with FULL.open("w") as full:
        result = _run("bookmarks", "export", "--bookmarks", str(store), cwd=tmp_path, stdout=full)
    _one_error_line(result, "no space left on device")


@pytest.mark.parametrize("args", [("list",), ("list", "--json"), ("search", "neural", "--json")])
def test_a_broken_pipe_stays_quiet(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`tui-reader list | head -1`: the reader of the pipe is gone before the first write."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui_reader", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert err == ""


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "-0.5", "soon"])
def test_a_time_limit_that_is_no_limit_is_a_usage_error(tmp_path: Path, value: str) -> None:
    result = run_cli("search", "neural", f"--time-limit={value}", cwd=tmp_path)
    assert result.returncode == 2
    assert "--time-limit" in result.stderr.splitlines()[-1]
    assert result.stdout == ""


def test_a_time_limit_of_zero_is_no_limit(tmp_path: Path) -> None:
    result = run_cli("search", "neural", "--time-limit", "0", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


def test_global_bookmarks_option_before_the_subcommand(tmp_path: Path) -> None:
    store = tmp_path / "marks.json"
    pid = run_cli("list", cwd=tmp_path).stdout.split()[0]
    added = run_cli("--bookmarks", str(store), "bookmarks", "add", pid, cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert pid in BookmarkStore(store)
    for args in (
        ("--bookmarks", str(store), "bookmarks", "list"),
        (f"--bookmarks={store}", "bookmarks", "list"),
        ("bookmarks", "list", "--bookmarks", str(store)),
        ("--bookmarks", str(tmp_path / "other.json"), "bookmarks", "list", "--bookmarks", str(store)),
    ):
        listed = run_cli(*args, cwd=tmp_path)
        assert listed.returncode == 0, (args, listed.stderr)
        assert listed.stdout.startswith(pid), args
    found = run_cli("--bookmarks", str(store), "search", "is:bookmarked", "--json", cwd=tmp_path)
    assert [h["id"] for h in json.loads(found.stdout)["hits"]] == [pid]


def test_paths_may_follow_the_options(tmp_path: Path) -> None:
    seeds = str(Path(__file__).resolve().parents[1] / "seeds")
    before = run_cli("search", "neural", seeds, "--json", "--limit", "2", cwd=tmp_path)
    after = run_cli("search", "neural", "--json", "--limit", "2", seeds, cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k != "took_ms"}  # noqa: E731
    assert drop(after.stdout) == drop(before.stdout)
    wrong = run_cli("search", "neural", "--json", "--bogus", seeds, cwd=tmp_path)
    assert wrong.returncode == 2 and "unrecognized arguments: --bogus" in wrong.stderr


def test_search_json_is_the_whole_answer_dumped_at_once(tmp_path: Path) -> None:
    result = run_cli("search", "neural OR graph", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["hits"] and answer["hits"][0]["title"].startswith(GNN_TITLE_START)
    assert result.stdout == safe_json(answer, indent=2) + "\n"


HOSTILE = [
    "plain",
    "tab\tnew\nline\r\x1b[2J\x07",
    "del\x7f c1\x85\x9b sep\u2028\u2029 bidi\u202e\u2066",
    "lone \ud800 surrogate",
    'é ü ∑ 𝒟 … “quotes” \\ "',
    "",
]


@pytest.mark.parametrize("hits", [0, 1, 3])
def test_the_streamed_json_is_safe_json_exactly(capsys: pytest.CaptureFixture[str], hits: int) -> None:
    """Every value safe_json escapes, in every place a hit holds one, and an empty list."""
    rows = [
        {
            "id": text or "x",
            "title": text,
            "score": 1.2345 * n,
            "venue": None,
            "year": 2026 if n else None,
            "snippet": text,
            "abstract": text * 3,
            "sources": [text, "a.bib"] if n % 2 else [],
        }
        for n, text in enumerate((HOSTILE * 2)[:hits])
    ]
    result = SearchResult("q \x1b", total=hits, suggestion="s\u2028", notice="n\x7f")
    _write_json("q \x1b", result, iter(rows))
    whole = {
        "query": "q \x1b",
        "total": hits,
        "total_exact": True,
        "stopped": None,
        "took_ms": 0.0,
        "suggestion": "s\u2028",
        "notice": "n\x7f",
        "hits": rows,
    }
    assert capsys.readouterr().out == safe_json(whole, indent=2) + "\n"


def test_json_hits_hold_every_hostile_value_as_given() -> None:
    for text in HOSTILE:
        assert json.loads(safe_json({"t": [text]}, indent=2)) == {"t": [text]}
