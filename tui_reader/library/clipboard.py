"""System clipboard through pyperclip, reporting (never raising) when there is none.

The TUI also sends text through the terminal (OSC 52), which works over SSH; this module is the
second route, and the only one for the command line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class CopyOutcome:
    ok: bool
    detail: str  # what happened, in words fit for a notice


def copy_text(text: str) -> CopyOutcome:
    try:
        import pyperclip
    except ImportError:  # pragma: no cover - a declared dependency
        return CopyOutcome(False, "pyperclip is not installed")
    try:
        pyperclip.copy(text)
    except pyperclip.PyperclipException:
        return CopyOutcome(False, "no system clipboard tool (xclip, xsel, wl-copy) found")
    except Exception as exc:  # a clipboard tool that fails must not take the app down
        return CopyOutcome(False, f"system clipboard failed ({exc.__class__.__name__})")
    return CopyOutcome(True, "system clipboard")


def as_markdown_quote(title: str, abstract: str, sources: list[str], url: str = "") -> str:
    """The abstract as a Markdown quote with its title and where it came from."""
    where = url or ", ".join(sources)
    lines = [f"**{title}**", "", f"> {abstract}", ""]
    if where:
        lines.append(f"— {where}")
    return "\n".join(lines).rstrip() + "\n"
