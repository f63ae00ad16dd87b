"""The first keystrokes after a launch from a cold page cache (after a boot), with the index's
files read ahead (search/index/warmup.py) and the reader's malloc arena readied (heap.py), and
without either.

Each run drops the kernel's page cache (root only: ``/proc/sys/vm/drop_caches``), opens the
collection and its built index as the reader's index worker does (``Searcher(warm=True)``),
waits ``--wait`` seconds (the user reading the first screen), then types the text a keystroke
at a time and presses Enter, each timed in a new thread (the reader's search workers). Run:
``python -m bench.cold_start FOLDER --cache DIR`` (DIR: the XDG cache holding its parse cache
and index, built already).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

_CHILD = """
import json, sys, threading, time
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index import heap, warmup
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.query.modes import SearchMode
from tui_reader.search.searcher import Searcher
folder, text, wait, warm_up = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
if warm_up:
    heap.one_arena()  # as the reader's start does
else:
    warmup.SHARE = 0.0
    heap.settle = lambda: False
index = SearchIndex(load_corpus([folder]))
index.ensure()
made = []  # opened in a thread that then ends, as the reader's index worker does
opener = threading.Thread(target=lambda: made.append(Searcher(index)))
opener.start()
opener.join()
searcher = made[0]
time.sleep(wait)
out = []
def timed(text, mode):  # each in a thread of its own, as the reader's search workers are
    start = time.perf_counter()
    worker = threading.Thread(target=searcher.search, args=(text, mode))
    worker.start()
    worker.join()
    out.append(1000 * (time.perf_counter() - start))
for n in range(1, len(text) + 1):
    timed(text[:n], SearchMode.TYPING)
timed(text, SearchMode.ENTER)
print(json.dumps(out))
"""


def drop_caches() -> None:
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("1\n")


def one(folder: Path, cache: Path, text: str, wait: float, warm_up: bool, drop: bool = True) -> list[float]:
    if drop:
        drop_caches()
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), text, str(wait), "1" if warm_up else "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(ms) for ms in json.loads(run.stdout.splitlines()[-1])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--cache", type=Path, required=True, help="XDG_CACHE_HOME holding the built index")
    parser.add_argument("--text", default="graph neural")
    parser.add_argument("--wait", type=float, default=3.0, help="seconds between ready and the first key")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--keep-cache", action="store_true", help="a relaunch: the page cache kept (no root needed)"
    )
    args = parser.parse_args(argv)
    try:
        if not args.keep_cache:
            drop_caches()
    except OSError as exc:
        print(f"cannot drop the page cache ({exc}): run as root", file=sys.stderr)
        return 2
    runs: dict[bool, list[list[float]]] = {False: [], True: []}
    for _ in range(args.reps):
        for warm_up in (False, True):
            measured = one(args.folder, args.cache, args.text, args.wait, warm_up, not args.keep_cache)
            runs[warm_up].append(measured)
            time.sleep(0.5)
    for warm_up, measured in runs.items():
        worst = [max(r[:-1]) for r in measured]
        first = [r[1] if len(r) > 2 else r[0] for r in measured]  # the first key with completions
        enter = [r[-1] for r in measured]
        label = "readied  " if warm_up else "as it was"
        print(
            f"{label}: 2nd key median {statistics.median(first):.0f} ms, "
            f"worst key median {statistics.median(worst):.0f} ms (max {max(worst):.0f}), "
            f"Enter median {statistics.median(enter):.0f} ms; runs {[round(w) for w in worst]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
