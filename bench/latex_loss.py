"""``python -m bench.latex_loss [CORPUS] [--examples N] [--limit N]``: abstracts whose LaTeX loses a symbol.

Every abstract goes through ``normalise`` (what the reader shows, indexes and copies). A macro
occurrence is **lost** when deleting just its control word from the source (``\\name``, or the
``\\|`` norm bar; its braces and arguments stay) leaves the normalised abstract unchanged: what
it stood for left no trace, e.g. ``$\\mathcalD\\subset X$`` once read "⊂X" with or without
``\\mathcalD``. This is a differential test, so it needs no table of what each macro should
become, and it catches unknown macros, malformed ones and accents that vanish alike.

Macros that by design leave no trace are not counted: spacing, sizing and delimiter sizes
(``\\quad``, ``\\big``, ``\\left``), layout, labels and citations (``\\label``, ``\\cite``…), font
switches, and wrappers whose argument is the visible text (``\\textbf{x}``, ``\\mathrm{d}``,
``\\operatorname{softmax}``), and whatever sits inside a citation's arguments
(``\\citet[\\S 2]{key}`` goes whole). Everything else is "symbol-bearing" and must leave a trace.

Prints how many abstracts lose at least one such macro (target: zero), the macros most often
lost, and the first few examples (source span -> normalised span). Also counted: abstracts whose
normalised text still shows a backslash (LaTeX source left as it was, e.g. a span that failed).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.run import DEFAULT_CORPUS
from tui_reader.corpus.text import normalise

# A control word, or the \| of a norm: the tokens that stand for a symbol.
_MACRO = re.compile(r"\\(?:[A-Za-z]+|\|)")
_CITES = {
    "cite", "citep", "citet", "citealt", "citealp", "citeauthor", "citeyear", "citeyearpar", "citenum",
    "Cite", "Citep", "Citet", "Citealt", "Citealp", "Citeauthor", "nocite", "parencite", "textcite",
    "autocite", "footcite", "citetext", "citetalias", "citepalias", "ref", "eqref", "autoref", "cref",
    "Cref", "pageref", "label", "url", "href", "hyperlink", "footnote", "bibliography", "keywords",
}  # fmt: skip
_SPACING = {
    "quad", "qquad", "enspace", "thinspace", "negthinspace", "hspace", "vspace", "hfill", "vfill",
    "medskip", "smallskip", "bigskip", "noindent", "indent", "newline", "linebreak", "pagebreak",
    "newpage", "par", "centering", "xspace", "protect", "relax", "allowbreak", "nobreak",
    "ignorespaces", "phantom", "hphantom", "vphantom", "smash", "displaystyle", "textstyle",
    "scriptstyle", "scriptscriptstyle", "limits", "nolimits", "nonumber", "notag", "item", "begin",
    "end", "maketitle", "hline", "left", "right", "middle", "mleft", "mright", "big", "Big", "bigg",
    "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "bigm", "Bigm",
    "small", "tiny", "scriptsize", "footnotesize", "normalsize", "large", "Large", "LARGE", "huge",
    "Huge", "color", "definecolor",
}  # fmt: skip
_WRAPPERS = {
    "text", "textbf", "textit", "textsc", "textsf", "textrm", "texttt", "textup", "textmd", "textsl",
    "textnormal", "emph", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathnormal",
    "operatorname", "boldsymbol", "bm", "pmb", "underline", "mbox", "hbox", "ensuremath", "mathop",
    "mathrel", "mathbin", "mathord", "mathopen", "mathclose", "mathpunct",
    "textcolor", "enquote", "bf", "it", "rm", "sf", "tt", "sc", "sl", "em", "up", "md", "normalfont",
    "bfseries", "itshape", "scshape", "rmfamily", "sffamily", "ttfamily", "mdseries", "upshape",
}  # fmt: skip
NOT_SYMBOLS = frozenset(_CITES | _SPACING | _WRAPPERS)
# A citation or reference goes whole, with whatever its arguments hold (\citet[\S 9.2]{key}).
_CITATION = re.compile(
    r"\\(?:" + "|".join(sorted(_CITES, key=len, reverse=True)) + r")\*?(?:\[[^\]]*\])*\{[^{}]*\}"
)


@dataclass
class Loss:
    macro: str
    before: str
    after: str


def abstracts(path: Path, limit: int | None = None) -> Iterator[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if limit is not None and n >= limit:
                return
            if line.strip():
                yield str(json.loads(line).get("abstract") or "")


def _context(text: str, start: int, end: int) -> str:
    """The math span around a macro (``$…$``), else a few words either side."""
    if text.count("$", 0, start) % 2:
        left = text.rfind("$", 0, start)
        right = text.find("$", end)
        if right != -1 and right - left <= 240:
            return text[left : right + 1]
    left = text.rfind(" ", 0, max(0, start - 30)) + 1
    right = text.find(" ", end + 30)
    return text[left : right if right != -1 else len(text)]


def symbol_macros(abstract: str) -> list[re.Match[str]]:
    """The symbol-bearing macro occurrences of an abstract (see the module docstring)."""
    cited = [m.span() for m in _CITATION.finditer(abstract)] if "cit" in abstract or "ref" in abstract else []
    return [
        m
        for m in _MACRO.finditer(abstract)
        if m.group(0)[1:] not in NOT_SYMBOLS and not any(a < m.start() < b for a, b in cited)
    ]


def losses(abstract: str) -> list[Loss]:
    """The symbol-bearing macros of one abstract whose deletion does not change ``normalise``."""
    found = []
    out: str | None = None
    for m in symbol_macros(abstract):
        if out is None:
            out = normalise(abstract)
        if normalise(abstract[: m.start()] + abstract[m.end() :]) == out:
            before = _context(abstract, m.start(), m.end())
            found.append(Loss(m.group(0), before, str(normalise(before))))
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.latex_loss", description=__doc__.split("\n")[0])
    p.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="gzip JSON Lines")
    p.add_argument("--examples", type=int, default=12, help="examples to print (default 12)")
    p.add_argument("--limit", type=int, default=None, help="read only the first N papers")
    args = p.parse_args(argv)
    if not args.corpus.is_file():
        print(f"latex_loss: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    papers = with_macros = counted = 0
    raw: list[str] = []
    lost_papers: list[list[Loss]] = []
    names: Counter[str] = Counter()
    for abstract in abstracts(args.corpus, args.limit):
        papers += 1
        if "\\" not in abstract:
            continue
        with_macros += 1
        counted += len(symbol_macros(abstract))
        if "\\" in normalise(abstract):
            raw.append(abstract)
        found = losses(abstract)
        if found:
            lost_papers.append(found)
            names.update(loss.macro for loss in found)
    seconds = time.perf_counter() - started
    print(f"papers: {papers:,}  with a backslash: {with_macros:,}  symbol-bearing macros: {counted:,}")
    print(f"abstracts losing a symbol-bearing macro: {len(lost_papers):,} ({sum(names.values()):,} macros)")
    if names:
        print("most often lost: " + ", ".join(f"{n} x{c}" for n, c in names.most_common(15)))
    shown = 0
    for found in lost_papers:
        for loss in found:
            if shown >= args.examples:
                break
            print(f"  {loss.macro:<14} {loss.before!r}\n  {'':<14} -> {loss.after!r}")
            shown += 1
    print(
        f"abstracts still showing a backslash (LaTeX left as typed, or a literal \\backslash): {len(raw):,}"
    )
    for abstract in raw[: args.examples]:
        out = str(normalise(abstract))
        at = out.index("\\")
        print(f"  ...{out[max(0, at - 40) : at + 40]!r}...")
    print(f"({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
