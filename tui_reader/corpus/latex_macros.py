"""The macro tables the LaTeX converter reads (corpus/latex.py): what vanishes, what is a symbol,
what keeps its argument's text, and the glued-argument conventions of custom macros."""

from __future__ import annotations

import re


def names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Macros that lay out, size or space and carry no text: they vanish, as LaTeX shows nothing for them.
LAYOUT = frozenset(
    names(
        "left right middle mleft mright mmiddle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl "
        "Biggr bigm Bigm displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits nonumber "
        "notag small tiny scriptsize footnotesize normalsize large Large LARGE huge Huge noindent indent "
        "newline linebreak pagebreak newpage par medskip smallskip bigskip vfill hfill centering xspace "
        "protect relax allowbreak nobreak ignorespaces displaybreak maketitle hline bf it rm sf tt sc sl "
        "em up md normalfont bfseries itshape scshape rmfamily sffamily ttfamily mdseries upshape "
        "nopagecolor enspace thinspace negthinspace begin end"
    )
)
# Font switches that style the rest of their group ({\cal O} -> 𝒪).
SWITCHES = {"cal": "script"}
# A macro name with its argument glued on (braces lost upstream): prefix -> how to rebuild it.
FONTS = names(
    "mathcal mathbb mathbf mathrm mathit mathsf mathtt mathscr mathfrak mathds mathbbm boldsymbol "
    "textbf textit textsc textsf textrm texttt textsl textup text emph cal sqrt"
)
SWITCHED = {"cal": "mathcal"}
ACCENTS = names("widetilde widehat overline tilde hat bar vec dot ddot check breve")
OPERATORS = names("log ln exp sin cos tan max min sup inf det Pr")
GLUED = sorted(FONTS, key=len, reverse=True)
GLUED_SHORT = (  # custom-macro conventions: \cA = \mathcal{A}, \bbR = \mathbb{R}, \bx = bold x
    (re.compile(r"c([A-Z])$"), r"\\mathcal{\1}"),
    (re.compile(r"bb([A-Z])$"), r"\\mathbb{\1}"),
    (re.compile(r"bf([A-Za-z])$"), r"\1"),
    (re.compile(r"b([a-z])$"), r"\1"),
)
_SYMBOLS = {  # what pylatexenc lacks, and common custom macros (\eps, \R, \ie)
    "ne": "≠", "land": "∧", "lor": "∨", "neg": "¬", "colon": ":", "gets": "←", "iff": "⟺",
    "implies": "⟹", "impliedby": "⟸", "owns": "∋", "bot": "⊥", "models": "⊨", "triangle": "△",
    "ddagger": "‡", "lhd": "⊲", "rhd": "⊳", "unlhd": "⊴", "unrhd": "⊵", "biguplus": "⨄",
    "checkmark": "✓", "S": "§", "pounds": "£", "copyright": "©", "degree": "°",
    "coloneqq": "≔", "eqqcolon": "≕", "Bbbk": "𝕜", "|": "‖", "Otilde": "Õ", "otilde": "Õ",
    "eps": "ε", "ie": "i.e.", "eg": "e.g.", "etal": "et al.", "etc": "etc.", "wrt": "w.r.t.",
    "iid": "i.i.d.", "R": "ℝ", "RR": "ℝ", "reals": "ℝ", "Real": "ℝ", "Reals": "ℝ", "N": "ℕ", "NN": "ℕ",
    "Z": "ℤ", "ZZ": "ℤ", "Q": "ℚ", "QQ": "ℚ", "E": "𝔼", "EE": "𝔼", "slash": "/",
}  # fmt: skip
# Macros whose space after them is LaTeX's own, not the text's: AND\slash OR reads "AND/OR".
NO_GAP = frozenset(("slash",))
# name -> (pylatexenc argument spec, text with "%s"/"%(n)s" for the arguments; "" = nothing).
MACROS: dict[str, tuple[str, str]] = {
    **{n: ("", t) for n, t in _SYMBOLS.items()},
    **{n: ("{", "%s") for n in names("textsf texttt textup textmd textsl textnormal mathnormal mbox hbox")},
    **{n: ("{", "%s") for n in names("keywords mathrm mathop boldsymbol bm pmb")},
    **{n: ("*[[{", "<cit.>") for n in names("Cite autocite footcite nocite parencite textcite")},
    **{n: ("*{", "<ref>") for n in names("pageref cref Cref autoref")},
    **{n: ("[{", "") for n in names("phantom hphantom vphantom")},
    "smash": ("[{", "%(2)s"),
    "-": ("", ""),  # a hyphenation hint, not a character
    "/": ("", ""),  # italic correction
    "operatorname": ("*{", "%(2)s"),
    "enquote": ("{", "\u201c%s\u201d"),
    "hyperlink": ("{{", "%(2)s"),
    "binom": ("{{", "(%s choose %s)"),
    "norm": ("{", "‖%s‖"),
    "abs": ("{", "|%s|"),
    # biblatex's text macros, as BibTeX fields written for biblatex carry them.
    **{n: ("{", "%s") for n in names("mkbibemph mkbibitalic mkbibbold mkbibacro bibcyr bibstring")},
    **{n: ("{", "%s") for n in names("mkbibsuperscript mkbibsubscript textcyrillic")},
    "foreignlanguage": ("[{{", "%(3)s"),
    "mkbibquote": ("{", "\u201c%s\u201d"),
    "mkbibparens": ("{", "(%s)"),
    "mkbibbrackets": ("{", "[%s]"),
}
