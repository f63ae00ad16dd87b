"""cli_fork.py's runs are what ``python -m tui_reader`` does in a fresh interpreter: the same exit
code, stdout and stderr for a listing, a search, a usage error, --help, a bad path and a
non-ASCII argument, forked and spawned side by side."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_fork import run_forked
from support import run_cli

CALLS = [
    ("list", "--json"),
    ("search", "graph neural", "--json", "--limit", "3"),
    ("search", "graph", "--limit", "0"),
    ("--help",),
    ("list", "no-such-folder"),
    ("search", "réseau “de” graphes"),
]


def _spawned(args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "tui_reader", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def _same_text(out: str) -> str:
    """Timings differ run to run."""
    out = re.sub(r'"took_ms": [0-9.]+', '"took_ms": 0', out)
    return re.sub(r"\([0-9.]+ ms\)", "(0 ms)", out)


@pytest.mark.parametrize("args", CALLS, ids=lambda a: " ".join(a)[:30])
def test_a_forked_run_is_a_fresh_interpreters_run(tmp_path: Path, args: tuple[str, ...]) -> None:
    spawned = _spawned(args, tmp_path)  # first: it builds the index both then read
    forked = run_forked(args, tmp_path, {**os.environ, "PYTHONIOENCODING": "utf-8"}, 60)
    assert forked is not None
    assert forked.returncode == spawned.returncode, (forked.stderr, spawned.stderr)
    assert _same_text(forked.stdout) == _same_text(spawned.stdout)
    assert _same_text(forked.stderr) == _same_text(spawned.stderr)
    if args[-1] == "--json":
        json.loads(forked.stdout)


def test_run_cli_forks_and_reads_the_whole_output(tmp_path: Path) -> None:
    forked = run_cli("list", cwd=tmp_path)
    assert forked.returncode == 0 and len(forked.stdout.splitlines()) == 30


def test_other_start_up_settings_spawn_a_real_interpreter(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    assert run_forked(("list",), tmp_path, env, 60) is None
