"""What BibTeX adds to LaTeX, undone before ``normalise`` (which converts the LaTeX itself).

A BibTeX field is LaTeX with habits of its own: braces that only group (``{{Braced}}`` titles keep
their case, ``{GPU}s``, ``{\\"o}``), accents written every way (``\\"{o}``, ``{\\"o}``, ``\\'e``,
``{\\"\\i}``), ``--`` / ``---`` for dashes, ``~`` for a tie. Those are made text here; math, macros
and escapes (``$\\alpha$``, ``\\emph{x}``, ``50\\%``) are left as written for ``normalise``, so every
source's LaTeX is converted once, by the same code. Plain text stays as written ("50% of" is not a
comment). Only spans are touched, with regular expressions; accents go through pylatexenc.
"""

from __future__ import annotations

import re

from tui_reader.corpus.accents import ACCENT, accent_to_text

_GROUP = r"\{(?:\\.|[^{}\\]|\{(?:\\.|[^{}\\]|\{(?:\\.|[^{}\\]|\{(?:\\.|[^{}\\])*\})*\})*\})*\}"  # 4 deep
_TOKEN = re.compile(  # the lookahead lets plain text through 7x faster than the alternatives would
    r"(?=[$\\{}~-])(?:"
    r"(?P<math>\$\$[^$]{1,1000}?\$\$|(?<!\\)\$[^$]{1,1000}?(?<!\\)\$)"
    r"|(?P<accent>" + ACCENT.pattern + ")"
    r"|(?P<macro>\\(?P<name>[A-Za-z]+)\*?(?P<args>(?:\s*" + _GROUP + r")*))"
    r"|(?P<escape>\\[^A-Za-z])"
    r"|(?P<group>" + _GROUP + r")"
    r"|(?P<dash>---?)|(?P<tie>~)|(?P<stray>[{}]))"
)
_NEEDS = re.compile(r"[\\{}~]|--")
_ENDS_IN_WORD = re.compile(r"\\[A-Za-z]+\*?$")  # "{\ss}e" unwrapped must not read "\sse"
_DASHES = {"--": "\u2013", "---": "\u2014"}
# Macros normalise would drop or map oddly (pylatexenc has no \LaTeX; its ^ is a modifier letter).
_WORDS = {
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2\u03b5",
    "TeX": "TeX",
    "BibTeX": "BibTeX",
    "textasciicircum": "^",
}


def _token(m: re.Match[str]) -> str:
    kind = m.lastgroup
    text = m.group(0)
    if kind == "accent":
        return accent_to_text(m)
    if kind == "macro":
        word = _WORDS.get(m.group("name"))
        return word if word is not None and m.group("args").strip() in ("", "{}") else text
    if kind == "group":
        inner = to_text(text[1:-1])
        return inner + "{}" if _ENDS_IN_WORD.search(inner) else inner
    if kind == "dash":
        return _DASHES[text]
    if kind == "tie":
        return " "
    if kind == "stray":
        return ""  # a brace left unmatched (or nested past 4): BibTeX text has no literal braces
    return text  # math and escapes (\%, \&, \{, \$): normalise's


def to_text(value: str) -> str:
    """A BibTeX field as ``normalise`` expects an abstract: LaTeX, without BibTeX's own syntax."""
    if not value or not _NEEDS.search(value):
        return value
    return _TOKEN.sub(_token, value)
