"""Launch costs a reader sees before anything else: the first rows of a first launch (nothing
parsed, no index) and a whole one-shot ``tui-reader search`` process against a built index.

A first launch lists papers while the file is still being parsed (corpus.load_corpus streams
them), so its first rows come long before the parse ends; it is measured in a real terminal
(tmux, bench/tui.py) from a cache folder of its own, emptied for each run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench import measures, tui
from bench.report import Budget, Row

if TYPE_CHECKING:
    from bench.sections import Context
    from tui_reader.corpus.corpus import Corpus

FIRST_ROWS_S = 3.0  # issue 12: the first rows on screen within 3 s at 87k, caches empty
CLI_SEARCH_S = 0.5  # issue 12: a one-shot search, the whole process, index built
CLI_QUERY = "graph neural"


def cli_search(corpus: Path, env: dict[str, str], text: str = CLI_QUERY, reps: int = 3) -> list[float]:
    """Wall seconds of whole ``tui-reader search`` processes against a built index (the first,
    unmeasured, warms the file cache)."""
    out = []
    for k in range(reps + 1):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tui_reader", "search", text, str(corpus), "--limit", "10"],
            env={**os.environ, **env},
            capture_output=True,
            check=True,
        )
        if k:
            out.append(time.perf_counter() - started)
    return out


def first_rows(
    corpus: Path, first_title: str, env: dict[str, str], workdir: Path, runs: int
) -> tuple[list[float], str | None]:
    """Seconds from launch to the first title on screen, each run with an empty cache."""
    problem = tui.app_problem(sys.executable, measures.REPO)
    if problem:
        return [], problem
    seconds = []
    for k in range(runs):
        cold = workdir / f"first-launch-{k}"
        shutil.rmtree(cold, ignore_errors=True)
        try:
            paint = tui.first_paint(
                [str(corpus)], first_title, {**env, **measures.cache_env(cold)}, measures.REPO
            )
        finally:
            shutil.rmtree(cold, ignore_errors=True)
        if paint.na:
            return seconds, paint.na
        if paint.seconds is not None:
            seconds.append(paint.seconds)
    return seconds, None


def rows(ctx: Context, corpus_file: Path, corpus: Corpus) -> list[Row]:
    s = ctx.s
    label = f"first launch: first rows, {len(corpus):,} (no cache)"
    if s.tui:
        print("bench: first launch (empty cache)", file=sys.stderr, flush=True)
        shown, why = first_rows(corpus_file, corpus.titles[0], ctx.env, ctx.workdir, s.tui_runs)
    else:
        shown, why = [], "skipped (--skip-tui)"
    print("bench: one-shot CLI search", file=sys.stderr, flush=True)
    cli = cli_search(corpus_file, ctx.env, reps=1 if s.quick else 5)
    return [
        Row("tui.first_rows", label, "s", shown, [Budget("median", FIRST_ROWS_S)], na=why),
        Row(
            "search.cli",
            "CLI search one-shot (process)",
            "s",
            cli,
            [Budget("median", CLI_SEARCH_S)],
            note=f"tui-reader search {CLI_QUERY!r}, index built",
        ),
    ]
