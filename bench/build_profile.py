"""Where a cold index build's time goes: phase times, CPU seconds and peak memory for one file.

    python -m bench.build_profile FILE [--procs 2] [--cache DIR] [--trace SECONDS]

The collection is loaded first (from the parse cache under ``--cache``, parsed once if it is not
there) and not timed; then a full rebuild (``SearchIndex.ensure(rebuild=True)``) is timed: wall
seconds at each phase change, the parent's and the workers' CPU seconds (``getrusage``), the
parent's and each worker's peak RSS, the whole process tree's peak PSS (sampled from /proc:
getrusage's children figure inherits the parse workers' and the parent's peaks), and the index's
size on disk. ``--trace`` prints the tree's PSS every so many seconds, split into anonymous
and file-backed pages (mapped run files), to find which phase holds the peak. Run it niced on
a quiet machine; on a busy one compare CPU seconds.
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

    def __init__(self, interval: float = 0.25, trace: float = 0.0) -> None:
        self.interval, self.trace = interval, trace
        self.peak = 0.0
        self.parts_peak: dict[str, float] = {}
        self._traced = self._t0 = time.perf_counter()
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
            if self.trace and time.perf_counter() - self._traced >= self.trace:
                self._traced = time.perf_counter()
                self._print_trace(pids)
            for pid in pids:
                if pid != me:
                    self.hwm[pid] = max(self.hwm.get(pid, 0.0), procfs.status_mb(pid, "VmHWM") or 0.0)

    def _print_trace(self, pids: list[int]) -> None:
        parts = [procfs.pss_parts_mb(pid) for pid in pids]
        total = {k: sum(p.get(k, 0.0) for p in parts) for k in ("anon", "file", "shmem")}
        for k, v in total.items():
            self.parts_peak[k] = max(self.parts_peak.get(k, 0.0), v)
        each = " ".join(f"{p.get('anon', 0):.0f}+{p.get('file', 0):.0f}" for p in parts)
        print(
            f"  {time.perf_counter() - self._t0:7.1f} s  trace pss anon {total['anon']:.0f}"
            f" file {total['file']:.0f} MB; per process anon+file {each}",
            file=sys.stderr,
            flush=True,
        )

    def workers(self) -> str:
        return ", ".join(f"{mb:.0f}" for mb in sorted(self.hwm.values(), reverse=True)[:4]) or "none"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--procs", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/build-profile"))
    ap.add_argument("--trace", type=float, default=0.0, help="print the tree's PSS every N s")
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
    sampler = TreeSampler(trace=args.trace)
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
    if sampler.parts_peak:
        kinds = ", ".join(f"{k} {v:.0f} MB" for k, v in sampler.parts_peak.items())
        print(f"peak tree PSS by kind (traced): {kinds}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
