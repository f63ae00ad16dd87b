"""LaTeX spans to readable Unicode, parsed by pylatexenc and configured so nothing a reader needs is lost.

pylatexenc's defaults flatten groups (``d^{4/3}`` read "d^4/3", ``\\sum_{s\\in S}w(s)`` read
"∑_s∈ Sw(s)") and drop any macro they do not know, so ``\\mathcalD`` (braces lost upstream),
``\\eps`` or ``\\|x\\|`` left a gap. Here a script becomes Unicode super/subscripts when every
character has one (``x²``, ``xᵢ``, ``n⁻¹``) and keeps parentheses otherwise (``d^(4/3)``); a
fraction keeps its grouping (``(a+b)/c``); a font or accent macro glued to its argument is split
(``\\mathcalD`` -> 𝒟, ``\\sqrtT`` -> √T); and an unknown macro keeps its name as text, since a word
the reader can look up beats an empty gap. Spacing and sizing macros still vanish.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from tui_reader.corpus.accents import ACCENT, accent_to_text
from tui_reader.corpus.latex_macros import (
    ACCENTS,
    GLUED,
    GLUED_SHORT,
    LAYOUT,
    MACROS,
    NO_GAP,
    OPERATORS,
    SWITCHED,
    SWITCHES,
)

__all__ = ["convert_spans"]

# pylatexenc fails on \href: keep its text, or its address when that is all there is.
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}(?:\s*\{([^{}]*)\})?")
# Text-style macros pylatexenc drops inside math ($\texttt{GPT2}$ -> ""): unwrap them first. Their
# text is text, so a "_" in it is a character, not a subscript.
_TEXT_MACROS = re.compile(
    r"\\(?:text|texttt|textbf|textit|textsc|textsf|textrm|textnormal|emph|underline|mbox|hbox)"
    r"\s*\{([^{}]*)\}"
)
_MATH_FONTS = re.compile(
    r"\\(?:mathrm|mathbf|mathit|mathsf|mathtt|operatorname\*?|boldsymbol|bm)\s*\{([^{}]*)\}"
)
# \tilde\mathcal{O}: TeX accents the whole font macro; pylatexenc would take \mathcal alone.
_ACCENTED_FONT = re.compile(
    r"\\(tilde|widetilde|hat|widehat|bar|overline|vec|dot)\s*"
    r"(\\(?:mathcal|mathbb|mathscr|mathfrak|mathrm|mathbf|cal|Bbb)\s*(?:\{[^{}]*\}|[A-Za-z]))"
)
_SCRIPT_CHARS = re.compile(r"(?<!\\)([_^])")
# LaTeX only where it is: math, macros with their brace arguments, escapes. Converting just these
# spans keeps plain text safe ("50% of" is not a comment) and is ~100x faster than whole abstracts.
_LATEX_SPAN = re.compile(  # the lookahead lets plain text through without trying each alternative
    r"(?=[$\\{])(?:\$\$[^$]{1,400}?\$\$|(?<!\\)\$(?=\S)[^$]{1,400}?(?<=[^\s\\])\$|\\\(.{1,400}?\\\)|\\\[.{1,400}?\\\]"
    r"|\{\\[A-Za-z]+\s[^{}$\\]{1,200}\}"  # {\em word}, {\cal O}
    r"|\\(?:cal|mathcal|mathbb|mathfrak|mathscr)\s+[A-Za-z]+"  # \cal NP, \mathbb R (no braces)
    r"|\\slash(?![A-Za-z])\s*(?:\{\})?"  # AND\slash OR: the space is the macro's
    r"|"
    + ACCENT.pattern  # accents: G\"odel, \'{e}, \v R
    + r"|\\[A-Za-z]+\*?(?:\s*\[[^\]{}$]{0,80}\])?(?:\s*\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})*"
    r"|\\[\\%&#_{}$,;! |/\-—–])"
)
# Spans with nothing left to convert ($7$, $O(n)$, \emph{word} once unwrapped) skip pylatexenc.
_PLAIN = re.compile(r"(?!.*(?:--|''|``))(?:\$([^{}\\$^_~%&#`]*)\$|\{([^{}\\$^_~%&#`]*)\})")
_BARE_SPECIALS = re.compile(r"(?<!\\)([%&#~])")

_SUP = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεϵθιφϕχ⊤",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᵋᶿᶥᵠᵠᵡᵀ",
        strict=True,
    )
)
_SUB = dict(
    zip("0123456789+-−=()aehijklmnoprstuvxβγρφϕχ", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵩᵪ", strict=True)
)
_RAISED = frozenset("*∗⋆′″‴†‡'")  # already read as superscripts: x^* -> x*, x^\prime -> x′
# Scripted operators whose operand follows: \sum_{s\in S}w(s) reads "∑_(s∈S) w(s)", not "…)w(s)".
_OPERATOR_BASES = (
    *("∑", "∏", "∐", "⋃", "⋂", "⋁", "⋀", "⨁", "⨂", "∫", "∮"),
    *("max", "min", "sup", "inf", "lim", "log", "ln", "exp", "det", "Pr"),
)
_INNERMOST = re.compile(r"\([^()]*\)")
_COMPOUND = re.compile(r"[\s+\-−/×·=<>≤≥,±∓:;|]")  # a fraction part with these needs parentheses


def _script(body: str, mark: str) -> str:
    """x^{body} / x_{body}: Unicode scripts when every character has one, else mark + (body)."""
    body = body.strip()
    table = _SUP if mark == "^" else _SUB
    if not body:
        return ""
    packed = body.replace(" ", "")  # 2^{\\delta n}: spaces in math only separate tokens
    if all(c in table or (mark == "^" and c in _RAISED) for c in packed):
        return "".join(table.get(c, c) for c in packed)
    if len(body) == 1:
        return mark + body
    return f"{mark}({body})"


def _ungrouped(text: str) -> str:
    """``text`` without its parenthesised groups: what is left is not yet grouped."""
    while (inner := _INNERMOST.sub("", text)) != text:
        text = inner
    return text


def _part(text: str) -> str:
    """A numerator or denominator, in parentheses when it has several terms: (a+b)/c, √(x/y)/2."""
    text = text.strip()
    return f"({text})" if _COMPOUND.search(_ungrouped(text)) else text


@lru_cache(maxsize=1)
def _converter() -> Any:
    """pylatexenc, configured once: building its context dbs per call is 80% of the cost."""
    import logging

    from pylatexenc import latexwalker, macrospec
    from pylatexenc.latex2text import (
        LatexNodes2Text,
        MacroTextSpec,
        SpecialsTextSpec,
        fmt_math_text_style,
        get_default_latex_context_db,
    )

    logging.getLogger("pylatexenc").setLevel(logging.ERROR)  # it warns on stderr per odd macro
    one_arg = macrospec.MacroStandardArgsParser("{")
    walker_db = latexwalker.get_default_latex_context_db()
    walker_db.add_context_category(
        "tui-reader",
        prepend=True,
        macros=[macrospec.MacroSpec(n, args) for n, (args, _) in MACROS.items()]
        + [macrospec.MacroSpec(n, "{") for n in ("mathds", "mathbbm", "Tilde", "wt", "wh")]
        + [macrospec.MacroSpec(n, "{") for n in ("textsuperscript", "textsubscript")]
        + [macrospec.MacroSpec(n, "{{") for n in ("tfrac", "dfrac")]
        + [macrospec.MacroSpec("sqrt", "[{")],
        specials=[macrospec.SpecialsSpec(c, args_parser=one_arg) for c in "^_"],
    )
    text_db = get_default_latex_context_db()
    accent = {n: text_db.get_macro_spec(n).simplify_repl for n in ("tilde", "hat", "bar")}

    def script(node: Any, l2tobj: Any) -> str:
        mark = str(node.specials_chars)
        if node.nodeargd is None or not node.nodeargd.argnlist or node.nodeargd.argnlist[0] is None:
            return mark  # x^ at the end of a span
        body = str(l2tobj.node_arg_to_text(node, 0))
        return _script(body, mark) if node.parsing_state.in_math_mode else mark + body

    def frac(node: Any, l2tobj: Any) -> str:
        return f"{_part(l2tobj.node_arg_to_text(node, 0))}/{_part(l2tobj.node_arg_to_text(node, 1))}"

    def sqrt(node: Any, l2tobj: Any) -> str:
        index = l2tobj.node_arg_to_text(node, 0).strip()
        body = l2tobj.node_arg_to_text(node, 1).strip()
        root = {"": "√", "2": "√", "3": "∛", "4": "∜"}.get(index) or _script(index, "^") + "√"
        grouped = len(body) <= 1 or (body[0] == "(" and not _ungrouped(body))
        return root + (body if grouped else f"({body})")

    def arrow(node: Any, l2tobj: Any, macroname: str) -> str:
        label = l2tobj.node_arg_to_text(node, 1).strip()
        head = "→" if macroname == "xrightarrow" else "←"
        return head if not label else (f"-{label}{head}" if head == "→" else f"{head}{label}-")

    def restyle(text: str, style: str) -> str:  # accents survive: \mathcal{\tilde O} -> 𝒪̃
        return unicodedata.normalize("NFC", fmt_math_text_style(unicodedata.normalize("NFD", text), style))

    def font(style: str) -> Any:
        def fmt(node: Any, l2tobj: Any) -> str:
            body = l2tobj.node_arg_to_text(node, 0)
            return "𝟙" if style == "doublestruck" and body.strip() == "1" else restyle(body, style)

        return fmt

    text_db.add_context_category(
        "tui-reader",
        prepend=True,
        macros=[MacroTextSpec(n, t) if t else MacroTextSpec(n, discard=True) for n, (_, t) in MACROS.items()]
        + [MacroTextSpec(n, accent["tilde"]) for n in ("widetilde", "Tilde", "wt")]
        + [MacroTextSpec(n, accent["hat"]) for n in ("widehat", "wh")]
        + [MacroTextSpec("overline", accent["bar"])]
        + [MacroTextSpec(n, frac) for n in ("frac", "tfrac", "dfrac", "nicefrac")]
        + [MacroTextSpec(n, arrow) for n in ("xrightarrow", "xleftarrow")]
        + [MacroTextSpec(n, font("doublestruck")) for n in ("mathbb", "mathds", "mathbbm")]
        + [MacroTextSpec(n, font(f)) for n, f in (("mathcal", "script"), ("mathscr", "script"))]
        + [MacroTextSpec("mathfrak", font("fraktur"))]
        + [
            MacroTextSpec("sqrt", sqrt),
            MacroTextSpec("textsuperscript", lambda n, l2tobj: _script(l2tobj.node_arg_to_text(n, 0), "^")),
            MacroTextSpec("textsubscript", lambda n, l2tobj: _script(l2tobj.node_arg_to_text(n, 0), "_")),
        ],
        specials=[SpecialsTextSpec(c, script) for c in "^_"],
    )

    class Converter(LatexNodes2Text):
        """Adds what the defaults lack: glued and unknown macros, font switches, word spacing."""

        def nodelist_to_text(self, nodelist: list[Any]) -> str:
            s = ""
            style = None  # an active \cal: styles the rest of its group
            gap = ""  # the space a bare macro swallowed, given back to the text that follows
            prev_word = after_operator = False
            i = 0
            while i < len(nodelist):
                node = nodelist[i]
                i += 1
                kind = _kind(node)
                math = bool(node.parsing_state.in_math_mode)
                if kind == "macro" and node.macroname in SWITCHES and _bare(node):
                    style = SWITCHES[node.macroname]
                    continue
                text = self.node_to_text(node)
                consumed = False
                if kind == "macro" and self._unknown(node.macroname):
                    args: list[str] = []
                    while i < len(nodelist) and _kind(nodelist[i]) == "group":
                        arg = self.nodelist_to_text(nodelist[i].nodelist).strip()
                        args, i, consumed = [*args, arg] if arg else args, i + 1, True
                    if args and not math:  # \mkbibfoo{The Concept} in a title: its text
                        text = " ".join(args)
                    elif args:  # $\poly{n}$: the name, a word the reader can look up
                        text += "".join(f"({a})" for a in args)
                elif style and text:
                    text = restyle(text, style)
                if kind == "chars" and math and not text and s and not s[-1].isspace():
                    text = " "  # r_T \in X: the space before \in is a node of its own
                if gap and (kind == "chars" or (math and text and kind in ("macro", "group"))):
                    text = gap + text  # \alpha \in X: "α ∈ X", as typed
                word = kind == "macro" and _bare(node) and text.isalpha() and len(text) > 1
                if text[:1].isalnum() and kind != "script":
                    if s[-1:].isalnum() and (word or prev_word):
                        text = " " + text  # n\log n -> "n log n", not "nlog n"
                    elif after_operator:
                        text = " " + text  # \sum_{s\in S}w(s) -> "∑_(s∈S) w(s)"
                if kind == "script":
                    after_operator = after_operator or s.rstrip().endswith(_OPERATOR_BASES)
                elif text.strip():
                    after_operator = False
                gap = (
                    ""
                    if consumed or (kind == "macro" and node.macroname in NO_GAP)
                    else _gap(node, kind, text, s, math)
                )
                s += text
                prev_word = word
            return s

        def macro_node_to_text(self, node: Any) -> str:
            name = node.macroname
            if self.latex_context.get_macro_spec(name) is not None:
                return str(super().macro_node_to_text(node))
            if name in LAYOUT or walker_db.get_macro_spec(name) is not None:
                return ""  # structure pylatexenc parses but has no text for (\label{x})
            glued = _unglue(name)
            return self.convert(glued) if glued is not None else name  # unknown: its name

        def _unknown(self, name: str) -> bool:
            return (
                self.latex_context.get_macro_spec(name) is None
                and name not in LAYOUT
                and walker_db.get_macro_spec(name) is None
                and _unglue(name) is None
            )

        def convert(self, span: str) -> str:
            walker = latexwalker.LatexWalker(span, latex_context=walker_db, tolerant_parsing=True)
            nodes, _, _ = walker.get_latex_nodes()
            return str(self.nodelist_to_text(nodes))

    return Converter(latex_context=text_db, math_mode="text", strict_latex_spaces=False)


def _kind(node: Any) -> str:
    name = type(node).__name__
    if name == "LatexSpecialsNode" and node.specials_chars in "^_":
        return "script"
    return {"LatexMacroNode": "macro", "LatexCharsNode": "chars", "LatexGroupNode": "group"}.get(name, "")


def _gap(node: Any, kind: str, text: str, before: str, math: bool) -> str:
    """The space after a bare macro (or a script whose argument is one) that the next text keeps:
    none after an empty macro ({\\rm x}), nor in math after an operator glued to its left (s\\in S)."""
    if kind == "script" and node.nodeargd and node.nodeargd.argnlist:  # v_\\pi - v
        arg = node.nodeargd.argnlist[0]
        return str(arg.macro_post_space) if _kind(arg) == "macro" and _bare(arg) else ""
    if kind != "macro" or not text or not _bare(node):
        return ""
    glued = before and not before[-1].isspace() and not text[0].isspace()
    if math and glued and not text.lstrip()[:1].isalnum():
        return ""
    return str(node.macro_post_space)


def _bare(node: Any) -> bool:
    """A macro without arguments (pylatexenc's own check fails on macros that are arguments)."""
    if node is None or not hasattr(node, "macroname"):
        return False
    return node.nodeargd is None or not any(a is not None for a in node.nodeargd.argnlist or ())


def _unglue(name: str) -> str | None:
    """``mathcalD`` -> ``\\mathcal{D}``, ``logT`` -> ``\\log T``: a macro whose argument lost its braces."""
    for prefix in GLUED:
        if name.startswith(prefix) and len(name) > len(prefix):
            return f"\\{SWITCHED.get(prefix, prefix)}{{{name[len(prefix) :]}}}"
    for prefix in (*ACCENTS, *OPERATORS):
        rest = name[len(prefix) :]
        if name.startswith(prefix) and rest and (len(rest) == 1 or rest[0].isupper()):
            return f"\\{prefix}{{{rest}}}" if prefix in ACCENTS else f"\\{prefix} {rest}"
    for pattern, repl in GLUED_SHORT:
        if pattern.match(name):
            return pattern.sub(repl, name)
    return None


@lru_cache(maxsize=20000)
def _latex_to_text(span: str) -> str:
    return str(_converter().convert(span))


def _escape_script(match: re.Match[str]) -> str:
    return r"\_" if match.group(1) == "_" else r"\textasciicircum{}"


def _unwrap_text(match: re.Match[str]) -> str:
    return "{" + _SCRIPT_CHARS.sub(_escape_script, match.group(1)) + "}"


def _span_to_text(match: re.Match[str]) -> str:
    span = _HREF.sub(lambda m: "{" + (m.group(2) or m.group(1)) + "}", match.group(0))
    span = span.replace("\\’", "\\'")
    if accent := ACCENT.fullmatch(span):
        return accent_to_text(accent)
    if "\\" in span:
        span = ACCENT.sub(accent_to_text, span)
    if "\\" in span:
        span = _ACCENTED_FONT.sub(r"\\\1{\2}", span)
    for _ in range(3):  # nested \textbf{\emph{x}} unwraps from the inside out
        unwrapped = _MATH_FONTS.sub(r"{\1}", _TEXT_MACROS.sub(_unwrap_text, span))
        if unwrapped == span:
            break
        span = unwrapped
    plain = _PLAIN.fullmatch(span)
    if plain:
        return (plain.group(1) or "").strip() + (plain.group(2) or "")
    try:
        out = _latex_to_text(_BARE_SPECIALS.sub(r"\\\1", span))
    except Exception:  # pylatexenc is lenient, but a pathological span must not lose its words
        return match.group(0)
    # Citations come out as "<cit.>": a citation key is not worth a word.
    return out.replace("<cit.>", "").replace("\u00a0", " ")


def convert_spans(text: str) -> str:
    """Every LaTeX span of ``text`` (math, macros with their arguments, escapes) as Unicode text."""
    return _LATEX_SPAN.sub(_span_to_text, text)
