"""Whether a link can be opened in a browser from here. Asked in the browser worker, never on the
UI thread (finding a browser may run ``xdg-settings``).

Python's webbrowser honours ``$BROWSER``; without it, on Linux with no display (over SSH) it falls
back to text-mode browsers (lynx, w3m, ...), which would take this very terminal from the reader.
So: ``$BROWSER`` set is the user's word; otherwise no display, no browser found, or only a
text-mode one all mean "no browser", and the reader copies the link instead.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Mapping

TEXT_MODE = {"www-browser", "links", "links2", "elinks", "lynx", "w3m"}


def browser_problem(env: Mapping[str, str] | None = None) -> str:
    """'' when a browser should open the link; otherwise why not, fit for a notice."""
    env = os.environ if env is None else env
    if env.get("BROWSER", "").strip():
        return ""
    graphical = sys.platform == "darwin" or sys.platform.startswith("win")
    if not graphical and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return "no $BROWSER and no display: over SSH?"
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "no browser found; set $BROWSER"
    name = os.path.basename(str(getattr(browser, "name", "") or ""))
    if name in TEXT_MODE:
        return f"only a text-mode browser ({name}); set $BROWSER"
    return ""
