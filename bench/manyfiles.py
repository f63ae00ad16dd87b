"""A folder of 20,000 small files under the common limit of 1,024 open files (issue 22, item 5).

Each file's parsed rows are a file in the parse cache; they are opened on demand through a
bounded pool of descriptors (corpus/rows.py), so the CLI's search must work at ``ulimit -n
1024``. Timed: a search with cold caches (every file parsed, the index built) and with warm ones.
Run alone: ``python -m bench.manyfiles [FILES]``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.measures import cache_env
from bench.report import Row

FILES = 20_000
NOFILE = 1024
WORDS = [
    "graph",
    "neural",
    "network",
    "transformer",
    "sparse",
    "attention",
    "learning",
    "model",
    "data",
    "robust",
    "kernel",
]


def make_folder(folder: Path, files: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        words = " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(30))
        text = f"ICML 2026 Papers\n\nPaper {n} on {words} marker{n}q.\n"
        (folder / f"f{n:05d}.txt").write_text(text, encoding="utf-8")


def _lower_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(NOFILE, hard), hard))


def timed_search(folder: Path, env: dict[str, str], word: str) -> tuple[float, bool]:
    """Seconds for ``tui-reader search WORD FOLDER`` at the lowered limit; whether it found it."""
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "tui_reader", "search", word, str(folder)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        preexec_fn=_lower_limit,
        check=False,
    )
    seconds = time.perf_counter() - started
    return seconds, run.returncode == 0 and f"{word}" in run.stdout and "Too many open" not in run.stderr


def rows(workdir: Path, files: int = FILES) -> list[Row]:
    folder = workdir / f"manyfiles-{files}"
    make_folder(folder, files)
    env = cache_env(workdir / "manyfiles-cache")
    cold, ok_cold = timed_search(folder, env, "marker123q")
    warm, ok_warm = timed_search(folder, env, "marker4567q")
    note = f"{files:,} files, ulimit -n {NOFILE}"
    if not (ok_cold and ok_warm):
        return [Row("corpus.manyfiles", f"search over {files:,} files", "s", na="failed: " + note)]
    return [
        Row("corpus.manyfiles_cold", f"search, {files:,} files, cold caches", "s", [cold], note=note),
        Row("corpus.manyfiles_warm", f"search, {files:,} files, warm caches", "s", [warm], note=note),
    ]


def main() -> int:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else FILES
    with tempfile.TemporaryDirectory(prefix="tui-reader-manyfiles-") as tmp:
        for row in rows(Path(tmp), files):
            print(row.key, row.values, row.na or "", row.note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
