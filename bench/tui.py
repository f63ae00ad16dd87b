"""First paint of the TUI and the app's peak RSS, measured in a real terminal (tmux).

The reader is started in a detached tmux session of its own (own server socket, so nothing of the
user's tmux is touched); the pane is captured every 20 ms until the corpus's first title shows.
A few keystrokes later (moves and a search) the app's VmHWM is read from /proc, then the session's
server is killed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench import procfs

POLL_S = 0.020
# A few moves down the list, then a search typed and submitted ("/" focuses the search box):
# (key, literal) pairs for tmux send-keys. The app's VmHWM is read SETTLE_S after the last one.
KEYS = (
    ("Down", False),
    ("Down", False),
    ("Down", False),
    ("Up", False),
    ("/", False),
    ("graph neural", True),
    ("Enter", False),
)
SETTLE_S = 1.5


@dataclass(slots=True)
class Paint:
    seconds: float | None = None
    peak_rss_mb: float | None = None
    na: str | None = None


def app_problem(python: str, cwd: Path) -> str | None:
    """Why the reader cannot be launched yet (None: it can)."""
    if shutil.which("tmux") is None:
        return "tmux is not installed"
    if importlib.util.find_spec("tui_reader.app.app") is None:
        return "tui_reader.app.app does not exist yet"
    done = subprocess.run(
        [python, "-c", "from tui_reader.app.app import ReaderApp"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["import failed"])[-1]
        return f"ReaderApp is not importable ({last})"
    return None


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tmux", "-L", socket, "-f", "/dev/null", *args], capture_output=True, text=True, check=False
    )


def _app_pid(pane_pid: int, module: str) -> int | None:
    for pid in procfs.descendants(pane_pid):
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if module.encode() in cmdline:
                return pid
    return None


def _reap(pid: int, grace: float = 2.0) -> None:
    """The reader we launched, if it outlived its terminal: SIGTERM, then SIGKILL, by its own
    pid. SIGKILL because a reader hung up on in its first second can hang in Textual's shutdown
    (its main thread waits on the writer thread's full queue, SIGTERM or not: seen in ~1 launch of
    8 at load 6, each left holding its memory)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if _gone(pid, grace):
            return
        with contextlib.suppress(OSError):
            os.kill(pid, sig)
    _gone(pid, grace)


def _gone(pid: int, grace: float) -> bool:
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.05)
    return False


def needle(title: str) -> str:
    """What must be on screen: the title's opening (a list pane may clip the rest)."""
    return title[:24].rstrip()


def first_paint(
    corpus_args: list[str],
    first_title: str,
    env: dict[str, str],
    cwd: Path,
    python: str = sys.executable,
    timeout: float = 60.0,
    module: str = "tui_reader",
) -> Paint:
    """One launch: seconds to the first title on screen, then VmHWM after a few keystrokes."""
    socket = f"tui-reader-bench-{os.getpid()}-{time.monotonic_ns()}"
    command = shlex.join(["env", *(f"{k}={v}" for k, v in env.items()), python, "-m", module, *corpus_args])
    want = needle(first_title)
    started = time.perf_counter()
    made = _tmux(socket, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", str(cwd), command)
    if made.returncode != 0:
        return Paint(na=f"tmux new-session failed: {made.stderr.strip()}")
    pid: int | None = None
    try:
        screen = ""
        painted: float | None = None
        while time.perf_counter() - started < timeout:
            screen = _tmux(socket, "capture-pane", "-p", "-t", "bench").stdout
            if want and want in screen:
                painted = time.perf_counter() - started
                break
            if _tmux(socket, "has-session", "-t", "bench").returncode != 0:
                return Paint(na="the reader exited before showing the first title")
            time.sleep(POLL_S)
        if painted is None:
            last = " | ".join(line.strip() for line in screen.splitlines() if line.strip())[:160]
            return Paint(na=f"first title not shown within {timeout:.0f} s (screen: {last!r})")
        pane = _tmux(socket, "display-message", "-p", "-t", "bench", "#{pane_pid}").stdout.strip()
        pid = _app_pid(int(pane), module) if pane.isdigit() else None
        for key, literal in KEYS:
            _tmux(socket, "send-keys", "-t", "bench", *(["-l"] if literal else []), key)
            time.sleep(0.1)
        time.sleep(SETTLE_S)
        rss = procfs.status_mb(pid, "VmHWM") if pid else None
        return Paint(painted, rss)
    finally:
        _tmux(socket, "kill-server")  # SIGHUP to the pane; the reader should exit on it
        if pid is not None:
            _reap(pid)
        base = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        with contextlib.suppress(OSError):
            (base / socket).unlink()  # the socket file of our own server


def measure(
    corpus_args: list[str], first_title: str, env: dict[str, str], cwd: Path, runs: int, warmup: bool = True
) -> tuple[list[float], list[float], str | None]:
    """``runs`` launches (after an unmeasured one that warms caches): paint seconds, RSS MB."""
    problem = app_problem(sys.executable, cwd)
    if problem:
        return [], [], problem
    seconds: list[float] = []
    rss: list[float] = []
    for k in range(runs + (1 if warmup else 0)):
        paint = first_paint(corpus_args, first_title, env, cwd)
        if paint.na:
            return seconds, rss, paint.na
        if warmup and k == 0:
            continue
        if paint.seconds is not None:
            seconds.append(paint.seconds)
        if paint.peak_rss_mb is not None:
            rss.append(paint.peak_rss_mb)
    return seconds, rss, None
