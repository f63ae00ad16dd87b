"""Text normalisation, done once at load so display, index and clipboard all see the same text.

Abstracts arrive with LaTeX (``$\\eta$``, ``\\textbf{x}``, ````quotes''``), Markdown emphasis
(``**GPUA**``, ``***M***FM``), CRLF, BOMs and sometimes terminal control sequences. The rule is:
no source markup survives, and no word inside the markup is lost.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from tui_reader.corpus.accents import drop_baseless_marks
from tui_reader.corpus.latex import convert_spans

__all__ = [
    "Normalised",
    "clean_label",
    "clean_text",
    "normalise",
    "normalise_inline",
    "safe_json",
    "strip_controls",
]

# ANSI/VT escape sequences (CSI, OSC, single-char escapes) go whole, not just their ESC byte.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL / ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# C0 (but tab/newline), DEL, C1, and bidi/zero-width controls that can reorder what is shown.
_BREAKS = re.compile("[\r\x0b\x0c]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
# A lone surrogate (JSON "\\ud800") cannot be encoded, hashed or printed: it becomes U+FFFD.
_SURROGATES = re.compile("[\ud800-\udfff]")

# Labels (file names, paths, warnings, bookmark fields): every control is shown, not obeyed or lost.
_LABEL_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_TEXT_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
# Characters json.dumps(ensure_ascii=False) leaves raw that a terminal may obey or Python cannot encode.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

# Markdown emphasis: ***x***, **x**, *x* (and __x__ / _x_ only at word edges, so snake_case lives).
_EMPH_STAR = re.compile(r"(\*{1,3})(?=[^\s*])([^*\n]{1,300}?)(?<=[^\s*])\1(?!\*)")
_EMPH_UNDER = re.compile(r"(?<![\w\\])(_{1,2})(?=[^\s_])([^_\n]{1,300}?)(?<=[^\s_])\1(?!\w)")

_QUOTES = (("``", "\u201c"), ("''", "\u201d"))


_SPECIAL = re.compile(r"[*_\\$`{]|''")


class Normalised(str):
    """A normalised string that remembers the phrases the source emphasised (for titles)."""

    emphasis: tuple[str, ...] = ()


def strip_controls(text: str) -> str:
    """Remove escape sequences and control characters (keeps newlines and tabs)."""
    if not text:
        return ""
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    # A lone CR, VT or FF separates words like a newline does: a space, not nothing.
    return _CONTROLS.sub("", _BREAKS.sub(" ", text))


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ESC -> \u241b, BEL -> \u2407
    if code == 0x7F:
        return "\u2421"
    if 0xDC80 <= code <= 0xDCFF:  # a non-UTF-8 byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean_label(text: str) -> str:
    """One line safe for a terminal (file names, paths, warnings, bookmark titles): every control
    character, escape, bidi override or lone surrogate is replaced by a visible stand-in (ESC by
    \u241b, a newline by \u240a, C1 and others by ``\\x9b``-style text), so nothing is obeyed and
    the reader can still tell what was there."""
    if text.isprintable():
        return text
    return _LABEL_UNSAFE.sub(_visible, text)


def clean_text(text: str) -> str:
    """Like clean_label, for free text such as a bookmark note: newlines and tabs are kept (a lone
    CR becomes a newline, so it cannot overwrite what is already on the line)."""
    if text.isprintable():
        return text
    return _TEXT_UNSAFE.sub(_visible, text.replace("\r\n", "\n").replace("\r", "\n"))


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def safe_json(value: object, **kwargs: Any) -> str:
    """json.dumps(ensure_ascii=False) but exact and terminal-safe: C0 controls are escaped by JSON
    itself; DEL, C1, line separators, bidi overrides and lone surrogates get ``\\uXXXX`` escapes too
    (JSON decodes them back to the same string)."""
    return json_escapes(json.dumps(value, ensure_ascii=False, **kwargs))


def json_escapes(text: str) -> str:
    """safe_json's escapes, on JSON text already written (json.dumps(ensure_ascii=False))."""
    return _JSON_UNSAFE.sub(_json_escape, text)


def _delatex(text: str) -> str:
    if "\\" not in text and "$" not in text:
        if "``" in text:
            for old, new in _QUOTES:
                text = text.replace(old, new)
        return text
    for old, new in _QUOTES:
        text = text.replace(old, new)
    return convert_spans(text)


def _emphasis(text: str) -> tuple[str, list[str]]:
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        found.append(match.group(2))
        return match.group(2)

    if "*" in text:
        text = _EMPH_STAR.sub(keep, text)
    if "_" in text:
        text = _EMPH_UNDER.sub(keep, text)
    return text, found


def normalise_inline(text: str) -> Normalised:
    """Normalise one field to a single line: markup out, controls out, whitespace collapsed."""
    if not text:
        return Normalised("")
    if text.isascii() and text.isprintable() and not _SPECIAL.search(text):
        return Normalised(" ".join(text.split()))  # the common case: nothing to undo
    text = strip_controls(text.replace("\r\n", "\n"))
    if not text.isprintable():
        text = _SURROGATES.sub("\ufffd", text)
    text = unicodedata.normalize("NFC", text)
    text, emphasised = _emphasis(text)
    text = drop_baseless_marks(_delatex(text))
    text = " ".join(text.split())
    result = Normalised(text)
    if emphasised:
        result.emphasis = tuple(" ".join(_delatex(e).split()) for e in emphasised)
    return result


def normalise(text: str) -> Normalised:
    """Normalise an abstract (a paragraph: newlines become spaces)."""
    return normalise_inline(text)
