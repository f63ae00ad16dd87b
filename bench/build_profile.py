"""Where a cold index build's time goes: phase times, CPU seconds and peak memory for one file.

    python -m bench.build_profile FILE [--procs 2] [--cache DIR]

The collection is loaded first (from the parse cache under ``--cache``, parsed once if it is not
there) and not timed; then a full rebuild (``SearchIndex.ensure(rebuild=True)``) is timed: wall
seconds at each phase change, the parent's and the workers' CPU seconds (``getrusage``), the
parent's and each worker's peak RSS, the whole process tree's peak PSS (sampled from /proc:
getrusage's children figure inherits the parse workers' and the parent's peaks), and the index's
size on disk. Run it niced on a quiet machine; on a busy one compare CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from pathlib import Path

from bench import procfs


def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _rss_now() -> str:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return f"{int(line.split()[1]) / 1024:.0f} MB"
    except OSError:
        pass
    return "?"


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class TreeSampler:
    """The build's process tree every ``interval`` s: its peak PSS sum, each worker's VmHWM."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.peak = 0.0
        self.hwm: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="tree-sampler")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.interval):
            pids = procfs.descendants(me)
            self.peak = max(self.peak, sum(procfs.pss_mb(pid) or 0.0 for pid in pids))
            for pid in pids:
                if pid != me:
                    self.hwm[pid] = max(self.hwm.get(pid, 0.0), procfs.status_mb(pid, "VmHWM") or 0.0)

    def workers(self) -> str:
        return ", ".join(f"{mb:.0f}" for mb in sorted(self.hwm.values(), reverse=True)[:4]) or "none"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--procs", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/build-profile"))
    args = ap.parse_args(argv)
    os.environ["XDG_CACHE_HOME"] = str(args.cache / "cache")
    os.environ["XDG_DATA_HOME"] = str(args.cache / "data")
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.persistent import SearchIndex

    t0 = time.perf_counter()
    corpus = load_corpus([args.file])
    print(f"loaded {len(corpus):,} papers in {time.perf_counter() - t0:.1f} s (not timed below)", flush=True)
    rss_loaded = _rss_mb(resource.RUSAGE_SELF)
    cpu0 = _cpu(resource.RUSAGE_SELF)
    kids0 = _cpu(resource.RUSAGE_CHILDREN)
    last: list[str | None] = [None]
    start = time.perf_counter()

    tenth = [0]

    def progress(done: int, total: int, phase: str) -> None:
        step = 10 * done // total if total else 0
        if phase != last[0] or step > tenth[0]:
            tenth[0] = step
            cpu = _cpu(resource.RUSAGE_SELF) - cpu0
            print(
                f"  {time.perf_counter() - start:7.1f} s  parent cpu {cpu:6.1f} s  rss {_rss_now()}"
                f"  {phase} {done}/{total}",
                flush=True,
            )
            last[0] = phase

    index = SearchIndex(corpus)
    sampler = TreeSampler()
    sampler.start()
    report = index.ensure(progress=progress, rebuild=True, procs=args.procs)
    sampler.stop()
    wall = time.perf_counter() - start
    parent = _cpu(resource.RUSAGE_SELF) - cpu0
    workers = _cpu(resource.RUSAGE_CHILDREN) - kids0
    size = sum(f.stat().st_size for f in index.dir.iterdir() if f.is_file()) / 2**20
    index.close()
    print(f"build {wall:.1f} s ({report.action}); cpu parent {parent:.1f} s, workers {workers:.1f} s")
    print(
        f"peak rss: parent {_rss_mb(resource.RUSAGE_SELF):.0f} MB (after loading {rss_loaded:.0f}), "
        f"workers' peaks (sampled) {sampler.workers()} MB; index {size:.0f} MB"
    )
    print(f"peak tree PSS (sampled every {sampler.interval} s) {sampler.peak:.0f} MB")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
