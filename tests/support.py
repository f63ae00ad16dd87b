"""Helpers shared by the tests (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_fork import run_forked

from tui_reader import paths

SEEDS = paths.seeds_dir()
SEED_FILES = sorted(SEEDS.glob("*.txt"))
HEADER = "ICML 2026 Papers"  # each seed file's first line: the venue, read as ("ICML", 2026)

# Ids of seed papers that tests refer to by content (ids are a hash of the normalised abstract).
GNN_TITLE_START = "Graph neural networks are not continuous"


def index_state(index: Any) -> tuple[Any, ...] | None:
    """What a Whoosh file index holds, as a key for the tests that keep Whoosh's reference answers:
    its folder, generation and the segments' random ids, so an index written again, even in the
    same folder, is another key. None for an index without a table of segments."""
    segments = getattr(index, "_segments", None)
    if segments is None:
        return None
    return (index.storage.folder, index.latest_generation(), tuple(g.segid for g in segments()))


def seed_paragraphs(path: Path) -> list[str]:
    """The raw abstracts of a seed file, read independently of the loader under test."""
    text = path.read_text("utf-8")
    _header, _, body = text.partition("\n")
    return [p.strip() for p in re.split(r"\n[ \t]*\n", body) if p.strip()]


def all_seed_paragraphs() -> list[tuple[str, int, str]]:
    return [(f.name, n, p) for f in SEED_FILES for n, p in enumerate(seed_paragraphs(f))]


def ascii_alnum(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text)


def source_alnum(text: str) -> str:
    """The letters and digits a reader must still see: LaTeX command names and '*' deleted."""
    text = re.sub(r"\\[A-Za-z]+", "", text)
    return ascii_alnum(text.replace("*", ""))


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+", text)


def _cli_env() -> dict[str, str]:
    env = dict(os.environ)  # already isolated by the autouse fixture
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def run_cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tui_reader ARGS`` with the (already isolated) environment of the test,
    forked from a process that has imported the CLI (cli_fork.py) where that is the same."""
    forked = run_forked(args, cwd, _cli_env(), timeout)
    if forked is not None:
        return forked
    return subprocess.run(
        [sys.executable, "-m", "tui_reader", *args],
        cwd=cwd,
        env=_cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_cli_many(
    *calls: tuple[str, ...], cwd: Path, timeout: float = 60
) -> list[subprocess.CompletedProcess[str]]:
    """Several independent CLI runs (they only read), results in the order given: one after
    another where they are forked (cli_fork.py), else all at once."""
    env = _cli_env()
    forked = [run_forked(args, cwd, env, timeout) for args in calls]
    if all(r is not None for r in forked):
        return [r for r in forked if r is not None]
    procs = [
        (
            args,
            subprocess.Popen(
                [sys.executable, "-m", "tui_reader", *args],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
        for args in calls
    ]
    results = []
    for args, proc in procs:
        out, err = proc.communicate(timeout=timeout)
        results.append(subprocess.CompletedProcess(list(args), proc.returncode, out, err))
    return results


def arrivals_by_the_general_rule(visits: list[str], ids: list[str]) -> tuple[list[int], list[str]]:
    """arrivals()'s answer the long way (a dict of every id): each paper's first visit (or
    len(visits): new) and the new ids, what its shortcuts are checked against."""
    seen: dict[str, int] = {}
    for n, joined in enumerate(visits):
        for pid in joined.split():
            seen.setdefault(pid, n)
    fresh = list(dict.fromkeys(p for p in ids if p not in seen))
    return [seen.get(p, len(visits)) for p in ids], fresh


# -- records of one work in the ways the identity rule knows (the fold tests' shapes) ----------


def fold_record(
    i: int, doi: str = "", text: int | None = None, title: bool = True, key: str = ""
) -> dict[str, object]:
    out: dict[str, object] = {
        "abstract": f"Abstract {i if text is None else text} about graphs and their many uses in learning.",
        "authors": [f"Author {i % 7}"],
        "year": 2000 + i % 5,
    }
    if title:
        out["title"] = f"Paper {i} on graphs"
    if doi:
        out["doi"] = doi
    if key:
        out["citation-key"] = key
    return out


def fold_shape(kind: int, i: int) -> dict[str, object]:
    """A record of a later file: the same work as paper i in one of the ways identity knows, or
    another work sharing something with it, or a new one."""
    return [
        fold_record(i, doi=f"10.1234/a{i}"),  # a copy
        fold_record(i, doi=f"10.5678/b{i}"),  # the same text under another DOI: another work
        fold_record(i),  # the same text without a DOI
        fold_record(i + 3000),  # new
        fold_record(i + 1000, doi=f"10.1234/a{i}"),  # the same DOI, other text
        fold_record(i, text=i + 2000),  # the same title, author and year, another abstract
        fold_record(i, title=False),  # no title (a generated one): a titled copy's title wins
        fold_record(i, key=f"k{i}"),  # a citation key
        fold_record(i, key=f"other{i}"),  # another citation key, so maybe another work, renamed
    ][kind]
