"""Whether the terminal copy (OSC 52) can arrive. Inside tmux it reaches tmux, and the terminal
beyond it, only with ``set -g set-clipboard on``: with ``external`` (tmux's default) or ``off``
tmux drops it silently. Asked in the clipboard worker, never on the UI thread.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

TMUX_FIX = 'add "set -g set-clipboard on" to ~/.tmux.conf'
TIMEOUT = 1.0  # seconds: a wedged tmux server must not hold the notice up for long


def terminal_copy_problem(env: Mapping[str, str] | None = None, timeout: float = TIMEOUT) -> str:
    """'' when the terminal copy should arrive; otherwise why it may not, fit for a notice."""
    env = os.environ if env is None else env
    if not env.get("TMUX"):
        return ""
    try:
        done = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=dict(env),
        )
    except (OSError, subprocess.SubprocessError):
        return f"could not ask tmux whether set-clipboard is on ({TMUX_FIX})"
    value = done.stdout.strip()
    if done.returncode != 0 or not value:
        return f"could not ask tmux whether set-clipboard is on ({TMUX_FIX})"
    if value == "on":
        return ""
    return f"tmux has set-clipboard {value[:20]} ({TMUX_FIX})"
