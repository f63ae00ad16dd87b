"""Whether the reader's terminal is gone (its window closed, its tmux server killed).

Closing a terminal normally sends SIGHUP, which ends the reader. When it does not arrive (a
wrapper such as ``make run`` in between, a killed tmux server), Textual 8's input thread reads
end-of-file from the dead terminal in a loop and the reader lives on at 100% CPU with nobody to
see it. The reader polls for the hang-up instead and quits. No Textual import: tested on a pty.
"""

from __future__ import annotations

import os
import select

_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def hung_up(fd: int) -> bool:
    """True when ``fd`` is a terminal whose other side has closed (poll says hang-up)."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return any(events & _GONE for _, events in poller.poll(0))
    except (OSError, ValueError):
        return False


def watched_fd() -> int | None:
    """The terminal the reader reads keys from, if stdin is one (not a pipe or a test's stdin)."""
    try:
        return 0 if os.isatty(0) else None
    except (OSError, ValueError):
        return None
