"""Starting a build process (the reader's build child, the bulk build's workers): a plain
subprocess of ``python -m module``, not multiprocessing, so nothing forks the app's threads and
the caller's main module is never imported again. It finds this very tui_reader (PYTHONPATH),
which a clone's tests and a checkout beside an installed copy need."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import IO

PARENT_ENV = "TUI_READER_BUILD_PARENT"  # the pid a build process ends with when it is gone
ROOT = str(Path(__file__).resolve().parents[3])  # the folder tui_reader is imported from


def start(python: str, module: str, err: IO[bytes], without: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """``python -m module`` with pipes for stdin and stdout, stderr into ``err``; the variables
    in ``without`` left out of its environment. OSError when it cannot start."""
    env = {k: v for k, v in os.environ.items() if k not in without}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    env[PARENT_ENV] = str(os.getpid())
    return subprocess.Popen(
        [python, "-m", module],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        env=env,
        close_fds=True,
    )
