"""Normalisation: no source markup survives, no word inside the markup is lost."""

from __future__ import annotations

import re

import pytest
from support import all_seed_paragraphs, ascii_alnum, source_alnum, words

from tui_reader.corpus.text import normalise, normalise_inline, strip_controls

SEED_PARAGRAPHS = all_seed_paragraphs()
# What must never be left of LaTeX/Markdown source in a normalised abstract.
MARKUP = re.compile(r"[$\\*`]|''")


def test_seed_files_hold_the_expected_paragraphs() -> None:
    assert len(SEED_PARAGRAPHS) == 38
    assert len({p for _, _, p in SEED_PARAGRAPHS}) == 30


@pytest.mark.parametrize(
    "paragraph",
    [p for _, _, p in SEED_PARAGRAPHS],
    ids=[f"{name}#{n}" for name, n, _ in SEED_PARAGRAPHS],
)
def test_seed_abstract_loses_markup_but_no_word(paragraph: str) -> None:
    out = normalise(paragraph)
    assert out
    leftover = MARKUP.search(out)
    where = out[max(0, leftover.start() - 30) : leftover.end() + 30] if leftover else ""
    assert leftover is None, f"markup left: {where!r}"
    assert "\n" not in out and "  " not in out and out == out.strip()
    assert ascii_alnum(out) == source_alnum(paragraph)


def test_seeds_contain_the_markup_this_suite_is_about() -> None:
    """Guard: the per-paragraph test above is only meaningful while the seeds carry markup."""
    joined = "\n".join(p for _, _, p in SEED_PARAGRAPHS)
    for needle in (
        "$\\texttt{GPT2}$",
        "\\textbf{",
        "\\emph{",
        "**GPUA**",
        "***M***",
        "``Propose-and-Verify''",
        "\\rightarrow",
        "$\\eta$",
    ):
        assert needle in joined


def test_normalise_is_idempotent_on_seeds() -> None:
    for _, _, paragraph in SEED_PARAGRAPHS:
        once = normalise(paragraph)
        assert normalise(once) == once


def test_known_seed_markup_comes_out_readable() -> None:
    joined = " ".join(normalise(p) for _, _, p in SEED_PARAGRAPHS)
    assert "GPT2-xl" in joined and "Qwen3-0.6B" in joined
    assert "embedding condensation" in joined
    assert "\u201cPropose-and-Verify\u201d" in joined
    assert "GPUA" in joined and "MFM" in joined
    assert "\u2192" in joined  # \rightarrow
    assert "\u03b7" in joined  # \eta


# -- unit cases ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("alert \x1b[31mred\x1b[0m text", "alert red text"),  # CSI colour
        ("\x1b]0;evil title\x07kept", "kept"),  # OSC set-title, terminated by BEL
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ here", "link here"),  # OSC 8 hyperlink, ST
        ("\x9b31mX marks", "X marks"),  # 8-bit CSI
        ("a\x1bMb", "ab"),  # two-byte escape
        ("nul\x00 bell\x07 del\x7f c1\x85 end", "nul bell del c1 end"),
        ("\u202egraph\u200b neural\u2066", "graph neural"),  # bidi + zero-width
    ],
)
def test_control_characters_and_escape_sequences_are_removed(raw: str, expected: str) -> None:
    out = normalise(raw)
    assert out == expected
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", out)


def test_strip_controls_keeps_newlines_and_tabs() -> None:
    assert strip_controls("a\tb\nc\x1b[1m\x00d") == "a\tb\ncd"
    assert strip_controls("") == ""


def test_crlf_and_bom() -> None:
    assert normalise("\ufeffFirst line\r\nsecond line\r\n") == "First line second line"
    assert normalise_inline("  many \t  spaces\n\nhere ") == "many spaces here"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("improves 50% of the runs", "improves 50% of the runs"),
        ("$\\eta$ improves 50% of the runs", "\u03b7 improves 50% of the runs"),
        ("a 100\\% gain on $7$ tasks", "a 100% gain on 7 tasks"),
        ("R\\&D and Q\\&A", "R&D and Q&A"),
    ],
)
def test_percent_is_text_not_a_latex_comment(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    "raw",
    ["[red]x[/red] and [/]", "[bold]not markup[/bold] [link=https://x]y[/link]"],
)
def test_console_markup_is_kept_literally(raw: str) -> None:
    assert normalise(raw) == raw
    # Also on the slow path, when the same text carries LaTeX that must be converted.
    assert normalise("\\textbf{bold} " + raw) == "bold " + raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("uses snake_case_names and x_1", "uses snake_case_names and x_1"),
        ("$\\eta$ with snake_case kept", "\u03b7 with snake_case kept"),
        ("**bold** then a_b_c", "bold then a_b_c"),
    ],
)
def test_snake_case_survives(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$\\texttt{GPT2}$", "GPT2"),
        ("on $\\texttt{Qwen3-32B}$ and $\\texttt{GPT2-xl}$", "on Qwen3-32B and GPT2-xl"),
        ("``quotes''", "\u201cquotes\u201d"),
        ("a ``quoted phrase'' here", "a \u201cquoted phrase\u201d here"),
        ("\\emph{word} and \\textbf{\\emph{nested}}", "word and nested"),
        ("$\\textbf{embedding condensation}$", "embedding condensation"),
        ("$\\text{ASR}\\rightarrow\\text{LLM}$", "ASR\u2192LLM"),
        ("step size $2/\\eta$", "step size 2/\u03b7"),
        ("$2.9\\times$ faster", "2.9\u00d7 faster"),
        ("**GPUA** wins", "GPUA wins"),
        ("***M***FM", "MFM"),
        ("an *emphasised* word", "an emphasised word"),
    ],
)
def test_latex_and_markdown_are_converted(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_emphasis_is_remembered_for_titles() -> None:
    out = normalise("We propose **GPUA**, a framework for ***D***ata.")
    assert out == "We propose GPUA, a framework for Data."
    assert "GPUA" in out.emphasis


def test_empty_and_plain_text() -> None:
    assert normalise("") == ""
    assert normalise("   ") == ""
    assert normalise("plain words only") == "plain words only"


# -- bugs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("sep", ["\r", "\x0b", "\x0c"], ids=["CR", "VT", "FF"])
def test_lone_line_breaks_separate_words(sep: str) -> None:
    assert normalise(f"first line{sep}second line") == "first line second line"


def test_currency_dollars_do_not_merge_words() -> None:
    raw = "costs $5 and $10 each"
    assert words(normalise(raw)) == words(raw)


def test_href_is_converted() -> None:
    out = normalise("code at \\href{https://example.org}{our repository} now")
    assert "\\" not in out and "{" not in out
    assert "our repository" in out


# -- LaTeX keeps its grouping and every symbol (issue 12) --------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$d^{4/3}$", "d^(4/3)"),  # a group that has no superscript form keeps its parentheses
        ("$x^{2}$", "x\u00b2"),
        ("$x^2$ and $x_i$", "x\u00b2 and x\u1d62"),  # single characters too
        ("$x_{i}$", "x\u1d62"),
        ("$n^{-1}$", "n\u207b\u00b9"),
        ("$W_{ij}$", "W\u1d62\u2c7c"),
        ("$x^{(t)}$", "x\u207d\u1d57\u207e"),
        ("$2^{\\delta n}$", "2\u1d5f\u207f"),
        ("$10^{-3}$", "10\u207b\u00b3"),
        ("$e^{i\\pi}$", "e^(i\u03c0)"),
        ("$\\mathbb{R}^{d\\times d}$", "\u211d^(d\u00d7d)"),
        ("$f^*$ and $W^\\top$", "f* and W\u1d40"),
        ("$\\ell_{\\infty}$", "\u2113_\u221e"),
        ("$\\sum_{s\\in S} w(s)$", "\u2211_(s\u2208S) w(s)"),
        ("$\\sum_{s\\in S}w(s)$", "\u2211_(s\u2208S) w(s)"),  # no "Sw(s)"
        ("$\\frac{a+b}{c}$", "(a+b)/c"),
        ("$\\frac{1}{\\sqrt{n}}$", "1/\u221an"),
        ("$\\sqrt{T}$ and $\\sqrt{n+1}$", "\u221aT and \u221a(n+1)"),
        ("$\\|x\\|_2$", "\u2016x\u2016\u2082"),
        ("$O(n \\log n)$", "O(n log n)"),
        ("$n\\log n$", "n log n"),  # a word-like operator is not glued to its neighbours
        ("$\\Omega(\\log^2 n)$", "\u03a9(log\u00b2 n)"),
        ("$v_\\pi - v$", "v_\u03c0 - v"),
        ("$a \\cdot b$ and $a\\cdot b$", "a \u00b7 b and a\u00b7b"),
        ("$\\tilde{O}(\\sqrt{T})$", "\u00d5(\u221aT)"),
        ("$\\widetilde{O}(d)$", "\u00d5(d)"),
        ("$\\mathcal{\\tilde O}(d)$", "\U0001d4aa\u0303(d)"),
        ("$\\tilde\\mathcal{O}(n)$", "\U0001d4aa\u0303(n)"),
        ("{\\cal O}(n) and \\cal NP", "\U0001d4aa(n) and \U0001d4a9\U0001d4ab"),
        ("$\\binom{n}{k}$", "(n choose k)"),
        ("$\\operatorname*{argmax}_x f$", "argmax\u2093 f"),
        ("$\\texttt{my_model}$", "my_model"),  # text inside math: "_" is a character
        ('G\\"odel and Erd\\H{o}s', "G\u00f6del and Erd\u0151s"),
        ("{\\em online learning} works", "online learning works"),
    ],
)
def test_latex_grouping_and_scripts(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Braces lost upstream: the font or accent macro is glued to its argument.
        (
            "Given a data set $\\mathcalD\\subset\\mathbb{R}^d$, we",
            "Given a data set \U0001d49f\u2282\u211d\u1d48, we",
        ),
        ("between \\mathcal D and \\mathcalU.", "between \U0001d49f and \U0001d4b0."),
        ("a rate of $O(\\sqrtT)$ and \\tildeO(d)", "a rate of O(\u221aT) and \u00d5(d)"),
        ("We solve \\emphhow to arrange", "We solve how to arrange"),
        ("in time O(\\logT + L)", "in time O(log T + L)"),
        ("the set $\\cA$ of arms in $\\bbR^n$", "the set \U0001d49c of arms in \u211d\u207f"),
        # Unknown macros keep their name (and arguments) rather than leave a gap.
        ("$\\foo$ bar", "foo bar"),
        ("\\foo bar", "foo bar"),
        ("a \\method{} wins", "a method wins"),
        ("$\\norm{x}$ and $\\poly(n)$", "\u2016x\u2016 and poly(n)"),
        ("$\\OPT \\le 2$", "OPT \u2264 2"),
        # Common custom macros and symbols pylatexenc lacks.
        ("$\\eps$-close, \\ie the rest", "\u03b5-close, i.e. the rest"),
        ("$a \\ne b$", "a \u2260 b"),
        ("$x \\in \\R^d$", "x \u2208 \u211d\u1d48"),
        # Known symbols still convert; layout macros still vanish.
        ("$\\alpha \\in \\mathcal{D}$", "\u03b1 \u2208 \U0001d49f"),
        ("$\\left(a\\right)$ and $\\big| x \\big|$", "(a) and | x |"),
        ("see \\cite{x} and \\citep[\\S 2]{y}.", "see and ."),
        ("code at \\href{https://example.org/x}.", "code at https://example.org/x."),
        ("\\textcolor[rgb]{0,0.5,0.5}{Code} here", "Code here"),
        ("italic\\/ correction and hy\\-phen", "italic correction and hyphen"),
    ],
)
def test_unknown_and_malformed_macros_keep_their_text(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    ("raw", "joined"),
    [
        ("$\\sum_{s\\in S}w(s)$", "Sw"),
        ("$n\\log\\log n$", "nlog"),
        ("$n\\log\\log n$", "loglog"),
        ("$\\max_{x}f(x)$", "f(x)"),  # must read "maxₓ f(x)"
        ("$O(rd^2\\log(1/\\epsilon))$", "²log"),
        ("a $\\foo$b", "foob"),
    ],
)
def test_no_words_run_together(raw: str, joined: str) -> None:
    """``joined`` may appear only after a space: "Sw(s)" and "nlog n" run two words together."""
    out = normalise(raw)
    assert joined not in out.replace(" " + joined, ""), out
