"""Memory of a process tree from /proc (Linux): who descends from whom, and what they hold."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path


def descendants(root: int) -> list[int]:
    """root and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def status_mb(pid: int, field: str) -> float | None:
    """A kB field of /proc/PID/status (VmHWM, VmRSS) in MB."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return None


def pss_mb(pid: int) -> float | None:
    """Proportional set size: shared pages split between sharers, so a tree's sum is honest."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return status_mb(pid, "VmRSS")


def pss_parts_mb(pid: int) -> dict[str, float]:
    """Pss split as smaps_rollup splits it (Pss_Anon, Pss_File, Pss_Shmem): file pages of a
    mapping are the page cache's, given back under pressure; anonymous ones are the heap's."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss_"):
                name, kb = line.split()[:2]
                out[name[4:-1].lower()] = int(kb) / 1024
    return out


def tree_mb(root: int) -> float:
    return sum(pss_mb(pid) or 0.0 for pid in descendants(root))


def wait_sampling(proc: subprocess.Popen[bytes], interval: float = 0.1) -> float:
    """Wait for proc, sampling its tree's memory: the peak PSS of the whole tree in MB.
    (Give the child files, not pipes, for its output: nobody reads a pipe while we sample.)"""
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, tree_mb(proc.pid))
        time.sleep(interval)
    return peak
