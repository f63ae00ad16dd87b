"""Accent commands, as BibTeX files and abstracts write them, made one character each.

``{\\v R}eh{\\r u}{\\v r}ek`` (a space between the accent and its letter) once read as a bare
combining mark before "R". Here every spelling becomes the precomposed letter (pylatexenc's
accents, then NFC), and a mark that accents nothing is dropped: a bare U+0301 in an export stops
LaTeX ("Unicode character ́ (U+0301)").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["ACCENT", "accent_to_text", "drop_baseless_marks"]

# An accent command written any way BibTeX files write it: \'{e}, \'e, \' e, {\v R} (inside its group),
# \v{R}, \c c, \= a, \"\i. A letter-named accent (\v, \c, ...) needs a space or a brace before its
# letter: \vec and \cite are other macros. A dot accent takes no space ("et al.\. No" is a period).
ACCENT = re.compile(
    r"(?<!\\)\\(?P<mark>[\"'’`^~=]|\.(?!\s+[^\W_])|[vrcHukdbt](?![A-Za-z]))\s*"
    r"(?:\{\s*(?P<braced>\\[ij](?![A-Za-z])|[^\W_])?\s*\}|(?P<bare>\\[ij](?![A-Za-z])|[^\W_]))"
)
# Combining marks with no base (at the start, after a space or punctuation): an accent command whose
# letter was lost. A bare U+0301 would reach an export and stop LaTeX ("Unicode character ́").
_COMBINING = "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
_ANY_MARK = re.compile(_COMBINING)
_BASELESS = re.compile(
    "(?:^|(?<=[\\s\\-\u2010-\u2015(\\[{/,;:.!?\"'\u201c\u201d\u2018\u2019]))" + _COMBINING + "+"
)


@lru_cache(maxsize=4096)
def _accented(mark: str, base: str) -> str:
    """pylatexenc's accent, NFC; \\= before a digit or sign is the "=" it escapes (11\\=22)."""
    if not base:
        return ""  # \\"{} alone: no letter to accent, and never a bare combining mark
    if mark == "=" and not base.isalpha() and not base.startswith("\\"):
        return "=" + base
    from pylatexenc.latex2text import LatexNodes2Text

    text = LatexNodes2Text().latex_to_text(f"\\{mark.replace('’', chr(39))}{{{base}}}")
    return unicodedata.normalize("NFC", str(text)) or base


def accent_to_text(match: re.Match[str]) -> str:
    """An ``ACCENT`` match as its character: \\v R -> Ř, \\c c -> ç, \\"\\i -> ï."""
    return _accented(match.group("mark"), match.group("braced") or match.group("bare") or "")


def drop_baseless_marks(text: str) -> str:
    """NFC, without combining marks that accent nothing (see ``_BASELESS``)."""
    if text.isascii() or not _ANY_MARK.search(text):
        return text
    return _BASELESS.sub("", unicodedata.normalize("NFC", text))
