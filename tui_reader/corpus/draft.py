"""A draft as "what am I missing" reads it: its prose as plain text, the keys it cites, and the
bibliographies it names.

A ``.tex`` draft is parsed by pylatexenc (LatexWalker, then LatexNodes2Text): comments go, a
``\\cite``/``\\ref``/``\\label`` leaves no placeholder, math stays as text the index matches
(``$\\alpha$`` is α, which the index reads as "alpha"), and only the document's body is read (with
the preamble's ``\\title``). A ``.md`` draft loses its emphasis, link targets, code and front
matter; anything else is plain text. Citation keys come from the natbib and biblatex commands
(``\\cite{a,b}``, ``\\citep``, ``\\citet``, ``\\parencite``, ``\\autocite``, ``\\textcite``, ...)
and from pandoc's ``[@key]`` / ``@key``. The bytes are decoded as corpus files are (a BOM, UTF-8,
then charset-normalizer's guess); control characters go where the draft is built.

A draft that cannot be one (binary, too large, not a file) raises DraftError: one line to show.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tui_reader.atomic import open_regular
from tui_reader.corpus.formats.common import CorpusError, shown, size_label
from tui_reader.corpus.formats.encoding import decode, notice
from tui_reader.corpus.text import strip_controls

__all__ = ["MAX_DRAFT_BYTES", "Draft", "DraftError", "kind_of", "parse_draft", "read_draft"]

MAX_DRAFT_BYTES = 2 * 2**20  # a thesis is ~1 MB of source (pylatexenc reads ~0.3 MB/s); more is not a draft
MIN_WORDS = 3  # fewer words than this: nothing to rank by
_BINARY_SHARE = 0.02  # control characters (not tab, newline, CR, FF, escapes) in more of the text: binary

LATEX_SUFFIXES = (".tex", ".ltx", ".latex")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".rmd", ".qmd")

# natbib, biblatex and plain LaTeX: each takes its keys in its last braced argument.
CITE_MACROS = (
    *("cite", "citep", "citet", "citealt", "citealp", "citeauthor", "citeyear", "citeyearpar"),
    *("Cite", "Citep", "Citet", "Citealt", "Citealp", "Citeauthor", "citenum", "nocite"),
    *("parencite", "Parencite", "autocite", "Autocite", "textcite", "Textcite", "footcite"),
    *("footcitetext", "smartcite", "Smartcite", "supercite", "fullcite", "footfullcite"),
    *("citetitle", "citeurl", "citedate", "citetalias", "citepalias"),
)
_SILENT = ("ref", "eqref", "autoref", "cref", "Cref", "pageref", "label", "nameref", "vref")
_SILENT_NOARG = (
    "bibliographystyle",
    "bibliography",
    "addbibresource",
    "includegraphics",
    "input",
    "maketitle",
)
_BIB_MACROS = ("bibliography", "addbibresource")

_INPUT = re.compile(r"(?<!\\)\\(?:input|include|subfile)\s*\{([^{}\n]+)\}")
_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)
MAX_INPUT_DEPTH = 5
_ROUGH_CITE = re.compile(
    r"\\([A-Za-z]+)\*?(?:\s*\[[^\]]*\]){0,2}\s*\{([^{}]*)\}"
)  # then only cite/bib macros count
_ROUGH_COMMAND = re.compile(
    r"\\(?:begin|end|label|ref|eqref|usepackage|documentclass)\s*\{[^{}]*\}|\\[A-Za-z@]+\*?|\\."
)
_ROUGH_MARKS = str.maketrans("{}$&#^_~", "        ")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.")
_WORD = re.compile(r"[^\W\d_]{2,}")

# Markdown: front matter, fenced code, inline code, images and links, emphasis, headings.
_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)", re.S | re.M)
_INLINE_CODE = re.compile(r"`+[^`\n]*`+")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>")
_REF_DEF = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+.*$", re.M)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.M)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?", re.M)
# pandoc: [@key], [see @key, p. 3; @other], and a bare @key in the text (not an e-mail address)
_PANDOC_GROUP = re.compile(r"\[[^\[\]\n]*?@[^\[\]\n]*\]")
_PANDOC_KEY = re.compile(r"(?<![\w@.])-?@(\w(?:[\w:.#$%&+?<>~/-]*\w)?)")
_YAML_TITLE = re.compile(r"^title:[ \t]*[\"']?(.*?)[\"']?[ \t]*$", re.M)
_YAML_BIB = re.compile(r"^bibliography:[ \t]*(.*)$|^[ \t]*-[ \t]+(\S.*\.bib)[ \t]*$", re.M)


class DraftError(CorpusError):
    """The draft cannot be read as one; the message is one line (the command line's exit 2)."""


@dataclass(frozen=True, slots=True)
class Draft:
    name: str  # as shown: the file's name or "pasted text"
    text: str  # the prose, plain text
    cites: tuple[str, ...] = ()  # citation keys, in order of first use, each once
    bibliographies: tuple[Path, ...] = ()  # the .bib files the draft names (next to it), found or not
    warnings: tuple[str, ...] = field(default=())

    @property
    def words(self) -> int:
        return len(_WORD.findall(self.text))


def kind_of(path: Path) -> str:
    """ "latex", "markdown" or "text", by the file's suffix."""
    suffix = path.suffix.lower()
    if suffix in LATEX_SUFFIXES:
        return "latex"
    return "markdown" if suffix in MARKDOWN_SUFFIXES else "text"


def sniff(text: str) -> str:
    """The kind of a pasted text: LaTeX when it has a LaTeX structure or cite command."""
    if re.search(r"\\(?:begin|section|subsection|documentclass|cite\w*|paragraph)\b", text):
        return "latex"
    if re.search(r"^#{1,6} |\[@|\]\(|^```", text, re.M):
        return "markdown"
    return "text"


def read_draft(path: Path) -> Draft:
    """The draft in a file (a LaTeX draft with the files it ``\\input``s); DraftError (one
    line) when it is not a readable text file."""
    warnings: list[str] = []
    source = _source(path, warnings)
    kind = kind_of(path)
    if kind == "latex":
        source = _with_inputs(source, path.parent, warnings, [len(source)], 0)
    return parse_draft(source, kind, path.name, path.parent, tuple(warnings))


def _source(path: Path, warnings: list[str], budget: int = MAX_DRAFT_BYTES) -> str:
    where = shown(path)
    try:
        with open_regular(path) as fh:
            raw = fh.read(budget + 1)
    except FileNotFoundError:
        raise DraftError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise DraftError(f"{where}: a folder, not a draft") from None
    except OSError as exc:
        raise DraftError(f"{where}: cannot read ({(exc.strerror or str(exc)).lower()})") from None
    if len(raw) > budget:
        raise DraftError(f"{where}: more than {size_label(MAX_DRAFT_BYTES)}; too large for a draft")
    decoded = decode(raw)
    if said := notice(where, decoded):
        warnings.append(said)
    if decoded.how == "fallback" or _binary(decoded.text):
        raise DraftError(f"{where}: not a text file (binary data)")
    return decoded.text


def _with_inputs(source: str, folder: Path, warnings: list[str], size: list[int], depth: int) -> str:
    """``\\input{x}``, ``\\include{x}`` and ``\\subfile{x}`` replaced by the files (``x.tex``,
    next to the main draft, as LaTeX finds them), comments dropped first (an \\input in one is
    none), MAX_INPUT_DEPTH deep and MAX_DRAFT_BYTES in all; one that does not read is a warning."""
    source = _COMMENT.sub("", source)

    def expand(m: re.Match[str]) -> str:
        name = m.group(1).strip()
        path = folder / (name if Path(name).suffix else name + ".tex")
        if depth >= MAX_INPUT_DEPTH:
            warnings.append(f"{shown(path)}: inputs more than {MAX_INPUT_DEPTH} deep; not read")
            return " "
        try:
            text = _source(path, warnings, MAX_DRAFT_BYTES - size[0])
        except DraftError as exc:
            warnings.append(f"{exc}; left out of the draft")
            return " "
        size[0] += len(text)
        return "\n" + _with_inputs(text, folder, warnings, size, depth + 1) + "\n"

    return _INPUT.sub(expand, source)


def parse_draft(
    source: str,
    kind: str = "",
    name: str = "pasted text",
    folder: Path | None = None,
    warnings: tuple[str, ...] = (),
) -> Draft:
    """A draft from its source text (``kind``: "latex", "markdown", "text"; "" to guess)."""
    if len(source) > MAX_DRAFT_BYTES:
        raise DraftError(f"{name}: more than {size_label(MAX_DRAFT_BYTES)}; too large for a draft")
    if _binary(source):
        raise DraftError(f"{name}: not text (binary data)")
    source = strip_controls(source.replace("\r\n", "\n"))
    kind = kind or sniff(source)
    if kind == "latex":
        try:
            text, cites, bibs = _latex(source)
        except DraftError as exc:  # pylatexenc gave up: read it roughly, and say so
            text, cites, bibs = _latex_rough(source)
            warnings = (*warnings, f"{name}: {exc}; read with its commands dropped")
    elif kind == "markdown":
        text, cites, bibs = _markdown(source)
    else:
        text, cites, bibs = _pandoc_free(source), _pandoc_keys(source), []
    found = tuple(dict.fromkeys(_bib_path(folder, b) for b in bibs)) if folder is not None else ()
    draft = Draft(name, " ".join(text.split()), tuple(dict.fromkeys(cites)), found, warnings)
    if draft.words < MIN_WORDS:
        raise DraftError(f"{name}: no prose to compare (fewer than {MIN_WORDS} words)")
    return draft


def _binary(text: str) -> bool:
    if "\x00" in text:
        return True
    sample = _strip_escapes(text[: 2**16])  # a terminal's escape sequences are text gone wrong, not binary
    return len(_CONTROL.findall(sample)) > max(8, _BINARY_SHARE * len(sample))


def _strip_escapes(text: str) -> str:
    return _ESCAPE.sub("", text) if "\x1b" in text else text


def _bib_path(folder: Path, name: str) -> Path:
    """A bibliography as LaTeX finds it: next to the draft, ``.bib`` added when it has none."""
    path = Path(name.strip())
    if path.suffix.lower() != ".bib":
        path = path.with_name(path.name + ".bib")
    return path if path.is_absolute() else folder / path


# -- LaTeX ----------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _contexts() -> tuple[Any, Any]:
    """pylatexenc's default contexts, with the cite commands' arguments known to the walker and
    silent in the text (no "<cit.>"), and cross-references silent too."""
    import logging

    from pylatexenc import latex2text, latexwalker
    from pylatexenc.macrospec import std_macro

    logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)  # a warning per odd macro, on stderr
    walker = latexwalker.get_default_latex_context_db()
    walker.add_context_category(
        "tui-draft",
        macros=[
            *(std_macro(name, "*[[{") for name in CITE_MACROS),
            std_macro("addbibresource", "[{"),
            std_macro("bibliographystyle", "{"),
        ],
        prepend=True,
    )
    text = latex2text.get_default_latex_context_db()
    text.add_context_category(
        "tui-draft",
        macros=[
            latex2text.MacroTextSpec(name, simplify_repl="")
            for name in (*CITE_MACROS, *_SILENT, *_SILENT_NOARG)
        ],
        prepend=True,
    )
    return walker, text


def _latex(source: str) -> tuple[str, list[str], list[str]]:
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import LatexWalker

    walker_context, text_context = _contexts()
    try:
        nodes = LatexWalker(source, latex_context=walker_context, tolerant_parsing=True).get_latex_nodes()[0]
        return _latex_parts(nodes, text_context, LatexNodes2Text)
    except (RecursionError, MemoryError):
        raise DraftError("the LaTeX nests too deep to read") from None
    except Exception as exc:  # pylatexenc's tolerant parsing still fails on some input
        raise DraftError(f"cannot read the LaTeX ({type(exc).__name__})") from None


def _latex_parts(
    nodes: list[Any], text_context: Any, converter_class: Any
) -> tuple[str, list[str], list[str]]:
    """The prose, the cited keys and the named bibliographies of a parsed LaTeX draft."""
    cites: list[str] = []
    bibs: list[str] = []
    body, title = None, None
    for node in _walk(nodes):
        name = getattr(node, "macroname", None)
        if name in CITE_MACROS or name in _BIB_MACROS:
            keys = _last_argument(node)
            (cites if name in CITE_MACROS else bibs).extend(
                k for k in (s.strip() for s in keys.split(",")) if k
            )
        elif name == "title" and title is None:
            title = node
        elif getattr(node, "environmentname", None) == "document" and body is None:
            body = node
    converter = converter_class(latex_context=text_context, math_mode="text", keep_comments=False)
    parts = []
    if body is not None and title is not None:
        parts.append(converter.nodelist_to_text([n for n in _arguments(title)]))
    parts.append(converter.nodelist_to_text(body.nodelist if body is not None else nodes))
    return "\n".join(parts), [c for c in cites if c != "*"], bibs


def _latex_rough(source: str) -> tuple[str, list[str], list[str]]:
    """LaTeX pylatexenc cannot read: comments and commands dropped, the words of their arguments
    kept; the keys and bibliographies of the cite commands found by pattern."""
    cites: list[str] = []
    bibs: list[str] = []

    def taken(m: re.Match[str]) -> str:
        name, keys = m.group(1), [k.strip() for k in m.group(2).split(",") if k.strip()]
        if name in CITE_MACROS:
            cites.extend(keys)
        elif name in _BIB_MACROS:
            bibs.extend(keys)
        else:
            return m.group(0)  # another command: its argument's words stay
        return " "

    text = _ROUGH_CITE.sub(taken, _COMMENT.sub("", source))
    return _ROUGH_COMMAND.sub(" ", text).translate(_ROUGH_MARKS), cites, bibs


def _walk(nodes: list[Any] | None) -> Iterator[Any]:
    """Every node, depth first, arguments included (a \\cite inside \\footnote counts)."""
    for node in nodes or ():
        if node is None:
            continue
        yield node
        yield from _walk(getattr(node, "nodelist", None))
        yield from _walk(_arguments(node))


def _arguments(node: Any) -> list[Any]:
    parsed = getattr(node, "nodeargd", None)
    return [a for a in (getattr(parsed, "argnlist", None) or ()) if a is not None]


def _last_argument(node: Any) -> str:
    """The text of a macro's last braced argument (its keys), verbatim."""
    for arg in reversed(_arguments(node)):
        if getattr(arg, "delimiters", None) == ("{", "}"):
            return "".join(n.latex_verbatim() for n in arg.nodelist or ())
    return ""


# -- Markdown and plain text ------------------------------------------------------------------------
def _markdown(source: str) -> tuple[str, list[str], list[str]]:
    bibs: list[str] = []
    front = _FRONT.match(source)
    if front:
        for m in _YAML_BIB.finditer(front.group(1)):
            value = (m.group(1) or m.group(2) or "").strip().strip("'\"[]")
            bibs += [v.strip().strip("'\"") for v in value.split(",") if v.strip()]
        title = _YAML_TITLE.search(front.group(1))
        source = (title.group(1) + "\n" if title else "") + source[front.end() :]
    source = _HTML_COMMENT.sub(" ", _FENCE.sub("\n", source))
    cites = _pandoc_keys(source)
    text = _INLINE_CODE.sub(" ", _pandoc_free(source))
    text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", _AUTOLINK.sub(" ", _REF_DEF.sub("", text))))
    for _ in range(2):  # ***x*** is emphasis in emphasis
        text = _EMPHASIS.sub(r"\2", text)
    return _QUOTE.sub("", _HEADING.sub("", text)), cites, bibs


def _pandoc_keys(source: str) -> list[str]:
    keys = []
    for group in _PANDOC_GROUP.finditer(source):
        keys += _PANDOC_KEY.findall(group.group(0))
    return keys


def _pandoc_free(source: str) -> str:
    return _PANDOC_GROUP.sub(" ", source)
