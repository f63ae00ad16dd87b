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
