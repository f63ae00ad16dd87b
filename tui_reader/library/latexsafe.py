"""Which of pylatexenc's LaTeX a document with ``\\usepackage[T1]{fontenc}`` and
``\\usepackage[utf8]{inputenc}`` (and nothing else) can set, measured: each of the 1,493
characters pylatexenc writes as a macro (U+00A0..U+2FFFF) set alone by pdflatex (TeX Live 2022),
693 failing (``\\cyrl``, ``\\textohm``, ``\\mathbb``, math commands outside math, ...). An encoding
is settable when every command in it is one of those that worked, a math-only one only inside
``\\ensuremath``, and no raw non-ASCII character is left: this rule keeps all 800 that worked and
none of the 693. tests/library/test_export_real_tools.py compiles the result.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

CHAR_MACRO = "tuireaderchar"  # what LaTeX cannot set goes in \tuireaderchar{...} (citation.py)


def _words(text: str) -> list[str]:
    return text.split()


TEXT_COMMANDS = frozenset(
    _words(r"""
    " ' . = AE DH DJ H IJ L NG O OE TH ^ ` ae c dh dj fbox guillemotleft guillemotright guilsinglleft
    guilsinglright i ij k l ng o oe quotedblbase quotesinglbase r ss textacutedbl textasciiacute
    textasciibreve textasciicaron textasciicircum textasciidieresis textasciigrave textasciimacron
    textasciitilde textasteriskcentered textbaht textbigcircle textblank textbrokenbar textbullet
    textcelsius textcent textcircledP textcolonmonetary textcopyright textcurrency textdagger
    textdaggerdbl textdegree textdiscount textdiv textdong textdownarrow textellipsis textemdash
    textendash textestimated texteuro textexclamdown textflorin textfractionsolidus textinterrobang
    textleftarrow textlira textlnot textmho textmu textmusicalnote textnaira textnumero textonehalf
    textonequarter textonesuperior textopenbullet textordfeminine textordmasculine textparagraph
    textperiodcentered textpertenthousand textperthousand textpeso textquestiondown textquotedblleft
    textquotedblright textquoteleft textquoteright textrecipe textreferencemark textregistered
    textrightarrow textsc textsection textservicemark textsterling textsuperscript textthreequarters
    textthreesuperior texttimes texttrademark texttwosuperior textuparrow textvisiblespace textwon
    textyen th u v ~
    """)
)
MATH_COMMANDS = frozenset(
    _words(r"""
    ! Delta Downarrow Gamma Lambda Leftarrow Leftrightarrow Longleftarrow Longleftrightarrow
    Longrightarrow Omega Phi Pi Psi Rightarrow Sigma Theta Uparrow Updownarrow Upsilon Vert Xi acute
    aleph alpha amalg angle approx asymp beta bigcap bigcirc bigcup bigtriangledown bigtriangleup bigvee
    bigwedge bowtie bullet cap cdot cdots chi circ cong coprod cup dashv ddot ddots delta diamond dot
    doteq ell ensuremath epsilon equiv eta exists forall frown gamma geq gg hbar hookleftarrow
    hookrightarrow in infty int iota kappa kern lambda langle lceil leftharpoondown leftharpoonup
    leftrightarrow leq lfloor ll lmoustache longleftarrow longleftrightarrow longmapsto longrightarrow
    mapsto mathbf mathbin mathchar mathit mathsf mathtt mid mp mu nabla nearrow neq ni not notin nu
    nwarrow odot oint omega ominus oplus oslash otimes parallel partial perp phi pi pm prec preceq prod
    propto psi rangle rceil rfloor rho rightharpoondown rightharpoonup rightleftharpoons rmoustache
    searrow sigma sim simeq smile sqcap sqcup sqrt sqsubseteq sqsupseteq stackrel star subset subseteq
    succ succeq sum supset supseteq swarrow tau theta times top triangleleft triangleright updownarrow
    uplus upsilon varepsilon varphi varpi varrho varsigma vartheta vdash vdots vee wedge wp wr xi zeta
    """)
)
# Characters (U+00A0..U+24FF) pdflatex sets as they are under T1 + utf8, measured the same way:
# biber decodes accent commands to the character, so an accented letter outside these (Ȩ, written
# {\c E}) compiles through BibTeX but not through biber, and is not written as a command.
RAW_SETTABLE = frozenset(
    "¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúû"
    "üýþÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİıĲĳĴĵĶķĹĺĻļĽľŁłŃńŅņŇňŊŋŌōŎŏŐőŒœŔŕŖŗŘřŚś"
    "ŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžƒǄǅǆǇǈǉǊǋǌǍǎǏǐǑǒǓǔǢǣǦǧǨǩǪǫǰǴǵȘșȚțȲȳȷˆˇ˘˙˛˜˝฿ḂḃḍḞḟḠḡḥḰḱḷṃṅ"
    "ṇṛṣṭẎẏẐẑẞỲỳ‐‑‒–—―‖‘’‚“”„†‡•…‰‱‹›※‽⁄⁎⁒₡₤₦₩₫€₱℃№℗℞℠™Ω℧℮←↑→↓〈〉␢␣"
)
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_RAW = re.compile(r"[^\x00-\x7f]")


def settable(latex: str, char: str = "") -> bool:
    """True when pdflatex with T1 and utf8 sets this LaTeX without an error (see above), also
    once biber has decoded its text commands to ``char``."""
    if char and not char.isascii() and char not in RAW_SETTABLE and "\\ensuremath" not in latex:
        return False
    names = set(_COMMAND.findall(latex))
    if _RAW.search(latex) or not names <= TEXT_COMMANDS | MATH_COMMANDS:
        return False
    return not (names & MATH_COMMANDS) or "\\ensuremath" in latex


@lru_cache(maxsize=1)
def _encoder() -> Any:
    from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

    # braces that keep every field's braces balanced; quotes that read back as typed
    ours = {
        ord("{"): r"\ensuremath{\lbrace}",
        ord("}"): r"\ensuremath{\rbrace}",
        ord('"'): '"',
        ord("`"): r"\textasciigrave",
    }
    return UnicodeToLatexEncoder(
        conversion_rules=[UnicodeToLatexConversionRule(RULE_DICT, ours), "defaults"],
        replacement_latex_protection="braces-all",  # G{\"o}del: BibTeX sorts and cases it right
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


# What the encoder changes: these ASCII characters and anything beyond ASCII (with the letter
# before it, which a combining accent belongs to). Only those runs go through it: it works
# character by character in Python, ~50x slower than a regex over text that is mostly plain.
_ENCODED = re.compile(r'[A-Za-z]?(?:[^\x00-\x7f]|["#$%&<>\\^_`{}~])+')


_DOTLESS = re.compile(r"(\\[`'^\"])\\i(?![A-Za-z])")  # {\`\i}: biber reads a dotless i; {\`i} is ì


@lru_cache(maxsize=8192)
def _encode_run(run: str) -> str:  # the same few runs ("ö", "&", "%") come back again and again
    pieces: list[str] = []
    unset = ""  # clusters LaTeX cannot set, gathered into one \tuireaderchar{...}
    for cluster in _clusters(run):
        encoded = _DOTLESS.sub(r"\1i", str(_encoder().unicode_to_latex(cluster)))
        if not (cluster.isascii() or (settable(encoded, cluster) and _decoded(encoded) == cluster)):
            if cluster not in RAW_SETTABLE:
                unset += cluster
                continue
            encoded = cluster  # no command for it, but inputenc sets it as it is (ǐ)
        pieces += [_char(unset), encoded]
        unset = ""
    return "".join([*pieces, _char(unset)])


@lru_cache(maxsize=1)
def _decoder() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


def _decoded(encoded: str) -> str:
    """What the LaTeX reads back as (biber and the importers decode it so): an approximation
    (pylatexenc writes Ħ as H-macron) is not the character, and is not written."""
    return unicodedata.normalize("NFC", str(_decoder().latex_to_text(encoded)))


def _char(text: str) -> str:
    return "{\\" + CHAR_MACRO + "{" + text + "}}" if text else ""


def _clusters(run: str) -> list[str]:
    """A character with the combining marks that follow it, one piece each (an ASCII sign such as
    ``%`` stays alone: written inside \\tuireaderchar it would start a comment)."""
    out: list[str] = []
    for ch in run:
        if out and unicodedata.combining(ch) and (out[-1][0].isalnum() or not out[-1].isascii()):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def latex(text: str) -> str:
    """Plain text as LaTeX that reads back as the same text: runs of hyphens or of quotes stay
    what they are (not dashes, not curly quotes)."""
    text = unicodedata.normalize("NFC", text)
    out = _ENCODED.sub(lambda m: _encode_run(m.group()), text)
    for pair, apart in (("--", "-{}-"), ("''", "'{}'")):
        out = out.replace(pair, apart).replace(pair, apart)
    return out
