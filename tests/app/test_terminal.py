"""A terminal that closes without SIGHUP is seen as hung up (a real pty, both ends)."""

from __future__ import annotations

import os

from tui_reader.app.terminal import hung_up, watched_fd


def test_a_pty_whose_other_end_closed_is_hung_up() -> None:
    master, slave = os.openpty()
    try:
        assert not hung_up(slave)  # open and quiet
        os.write(master, b"x")
        assert not hung_up(slave)  # a key waiting is not a hang-up
        os.close(master)
        master = -1
        assert hung_up(slave)
    finally:
        os.close(slave)
        if master >= 0:
            os.close(master)


def test_only_a_terminal_is_watched() -> None:
    """A pipe whose writer closed polls as hung up too: the reader watches stdin only when it
    is a tty (a test's or a pipe's stdin would end the reader at once)."""
    read, write = os.pipe()
    os.close(write)
    try:
        assert hung_up(read)
    finally:
        os.close(read)
    assert watched_fd() == (0 if os.isatty(0) else None)
