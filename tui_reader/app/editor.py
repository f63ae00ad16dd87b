"""A note written in the user's own editor: ``$VISUAL``, else ``$EDITOR``, else ``vi``, run on a
temporary file holding the text, which is read back when the editor exits.

The reader hands the terminal over (``App.suspend``) around ``edit_text``; this module only runs
the editor and says, in words fit for a notice, why it could not (no such program, a failed
exit): the text is then left as it was.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

FALLBACK = "vi"


class EditorFailed(Exception):
    """The editor could not be run, or did not end well; the message says which, for a notice."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The editor to run, split as a shell would (``code --wait``); raises EditorFailed when the
    program cannot be found."""
    env = os.environ if env is None else env
    spec = (env.get("VISUAL") or "").strip() or (env.get("EDITOR") or "").strip() or FALLBACK
    try:
        command = shlex.split(spec)
    except ValueError as exc:
        raise EditorFailed(f"the editor setting {spec!r} cannot be read ({exc})") from exc
    if not command:
        raise EditorFailed(f"the editor setting {spec!r} names no program")
    if shutil.which(command[0], path=env.get("PATH")) is None:
        raise EditorFailed(f"no editor {command[0]!r} here; set $VISUAL or $EDITOR")
    return command


def edit_text(text: str, command: list[str]) -> str:
    """Run the editor on a temporary file holding ``text`` and return what it holds afterwards
    (the newline editors add at the end taken off). The file is removed whatever happens."""
    fd, name = tempfile.mkstemp(prefix="tui-reader-note-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        try:
            done = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            raise EditorFailed(f"the editor {command[0]!r} could not be started ({exc.strerror})") from exc
        if done.returncode != 0:
            raise EditorFailed(f"the editor {command[0]!r} exited with status {done.returncode}")
        try:
            edited = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise EditorFailed(f"the edited note could not be read back ({exc.strerror})") from exc
    finally:
        path.unlink(missing_ok=True)
    return edited.rstrip("\n")
