"""SIGTERM, SIGHUP and SIGINT end the real reader as `q` does: the terminal restored, the session
saved. The reader runs as a subprocess on a real pty (the test holds both ends, so it can read
what the reader wrote and the terminal modes it left)."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import GNN_TITLE_START, run_cli

from tui_reader import paths

REPO = Path(__file__).resolve().parents[2]
RESTORE = (b"\x1b[?1049l", b"\x1b[?1000l", b"\x1b[?25h")  # main screen, mouse off, cursor shown


class PtyReader:
    """``python -m tui_reader`` on a fresh 120x40 pty; ``out`` is all it wrote so far."""

    def __init__(self, cwd: Path) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.out = b""
        env = dict(os.environ, TERM="xterm-256color")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tui_reader"],
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )

    def read_for(self, seconds: float, until: bytes | None = None, quiet: float = 0.0) -> None:
        """Collect output for up to ``seconds``: until ``until`` shows, or ``quiet`` seconds pass
        without output, or the reader ends."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            wait = quiet or 0.1
            ready, _, _ = select.select([self.master], [], [], wait)
            if not ready:
                if quiet or self.proc.poll() is not None:
                    return
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            self.out += data
            if until is not None and until in self.out:
                return

    def finish(self, seconds: float = 20) -> int:
        """Wait for the reader to end, reading what it writes meanwhile: a pty whose buffer
        nobody drains blocks the reader's last writes, and it never ends."""
        try:
            self.read_for(seconds)
            code = self.proc.wait(timeout=1)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.read_for(1.0, quiet=0.2)
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[PtyReader]:
    started = PtyReader(tmp_path)
    yield started
    started.close()


def _second_paper(tmp_path: Path) -> str:
    listing = run_cli("list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    first, second = listing.stdout.splitlines()[:2]
    assert GNN_TITLE_START in first  # the reader's list starts with the same paper
    return second.split()[0]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_restores_the_terminal_and_saves_the_session(
    reader: PtyReader, tmp_path: Path, signum: int
) -> None:
    modes_before = termios.tcgetattr(reader.slave)
    reader.read_for(60, until=GNN_TITLE_START.encode())
    assert GNN_TITLE_START.encode() in reader.out, reader.out[-500:]
    assert not termios.tcgetattr(reader.slave)[3] & termios.ECHO  # the reader is in raw mode
    os.write(reader.master, b"j")  # the cursor to the second paper: a session to save
    reader.read_for(5, quiet=0.5)
    shown = len(reader.out)

    reader.proc.send_signal(signum)
    code = reader.finish()

    assert code == 128 + signum  # a normal exit that says which signal ended it
    after = reader.out[shown:]
    for sequence in RESTORE:
        assert sequence in after, (sequence, after[-300:])
    modes = termios.tcgetattr(reader.slave)
    assert modes[3] & termios.ECHO and modes[3] & termios.ICANON
    assert modes[3] == modes_before[3]
    session = json.loads((paths.data_dir() / "session.json").read_text("utf-8"))
    (saved,) = session["collections"].values()
    assert saved["paper"] == _second_paper(tmp_path)


def test_q_still_quits_with_status_zero(reader: PtyReader) -> None:
    reader.read_for(60, until=GNN_TITLE_START.encode())
    os.write(reader.master, b"q")
    assert reader.finish() == 0
    assert b"\x1b[?1049l" in reader.out
