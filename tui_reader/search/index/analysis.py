"""The index's analyzers: Whoosh filter chains, and fused versions that give the same tokens.

Whoosh runs a generator per filter per token; at 87k abstracts the stemming chain was ~40% of the
build. Each fused analyzer makes the chain's tokens in one loop when no character offsets are
needed (indexing, queries) and hands anything else (highlighting asks for chars) to the chain, so
the two always agree; ``tests/search/test_analysis.py`` holds them to that.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from whoosh.analysis import (
    STOP_WORDS,
    Analyzer,
    CharsetFilter,
    Filter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
    StopFilter,
    Token,
)
from whoosh.lang.porter import stem as porter_stem
from whoosh.support.charset import accent_map

# Math as the reader shows it meets math as users type it: the abstracts' \alpha is shown α, and
# α, alpha and $\alpha$ are one word to the index and to a query (issue 18). Greek letters (and ℓ)
# are word characters and fold inside a word (ℓ1 -> l1, β2 -> beta2); the common symbols are not,
# so each is a word of its own (x≤y -> x leq y). Uppercase Greek folds through lowercasing.
_GREEK = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega",
]  # fmt: skip
LETTER_NAMES: dict[str, str] = {
    **{chr(0x3B1 + i): name for i, name in enumerate(_GREEK)},  # α..ω, ς (final sigma) included
    "ϵ": "epsilon", "ϑ": "theta", "ϕ": "phi", "ϖ": "pi", "ϱ": "rho", "ϰ": "kappa", "ℓ": "l",
    "µ": "mu",  # the micro sign, as Windows keyboards type it
    # sub- and superscript digits, as LaTeX decoding shows them (\ell_1 -> ℓ₁, x^{2} -> x²)
    **{chr(0x2080 + d): str(d) for d in range(10)},
    **dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789", strict=True)),
}  # fmt: skip
SYMBOL_NAMES: dict[str, str] = {
    "∞": "infinity", "∑": "sum", "∏": "prod", "∫": "integral", "∇": "nabla", "∂": "partial",
    "√": "sqrt", "≤": "leq", "≥": "geq", "≠": "neq", "≈": "approx", "±": "pm", "×": "times",
    "∀": "forall", "∃": "exists", "∅": "emptyset", "∝": "propto", "⊗": "otimes", "⊕": "oplus",
    "⊂": "subset", "⊆": "subseteq", "∪": "cup", "∩": "cap", "⩽": "leq", "⩾": "geq",
}  # fmt: skip
_SYMBOLS = "".join(SYMBOL_NAMES)
# The chain's token pattern: words as 2.7.4 made them (the fork's default keeps "*" inside words),
# and each math symbol alone, so that character offsets (highlighting) point at the symbol.
TOKEN = rf"\w+(\.?\w+)*|[{_SYMBOLS}]"
# TOKEN's words, written so the regex engine never backtracks (1.7x faster, same matches); the
# fused analyzers spell symbols out as words first (_SPELL), so words are all they need to find.
_WORDS = re.compile(r"\w+(?:[.]\w+)*+").findall
# An ASCII text's words without the regex: its other characters to spaces, then str.split (1.4x
# faster on the abstracts, most of a bulk build's analysis); only a word holding a dot needs more.
_ASCII_GAPS = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.isalnum() or c in "_.")})


def _words(text: str) -> list[str]:
    """``_WORDS(text)``: the same words, in order (``tests/search/test_analysis.py``). Once the
    gaps are spaces, a dot that is not doubled and not at a word's start is inside a word or
    ends one; anything else (an ellipsis, ".hidden") goes to the regex."""
    if not text.isascii():
        return _WORDS(text)
    gaps = text.translate(_ASCII_GAPS)
    if "." not in gaps:
        return gaps.split()
    if ".." in gaps or " ." in gaps or gaps[0] == ".":
        return _WORDS(text)
    return gaps.replace(". ", " ").rstrip(".").split()


_FOLD_TOKEN = str.maketrans({**LETTER_NAMES, **SYMBOL_NAMES})  # one token's text
_SPELL = str.maketrans({**LETTER_NAMES, **{k: f" {v} " for k, v in SYMBOL_NAMES.items()}})


class MathFoldFilter(Filter):
    """Greek letters and math symbols to their names: the chain's half of the fused _folded."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for t in tokens:
            if not t.text.isascii():
                t.text = t.text.translate(_FOLD_TOKEN)
            yield t


def stem_chain() -> Any:
    # Unbounded stem cache: the default LRU of 50k costs ~15% of build time at 87k papers.
    return (
        RegexTokenizer(TOKEN)
        | LowercaseFilter()
        | CharsetFilter(accent_map)
        | MathFoldFilter()
        | StopFilter()
        | StemFilter(cachesize=-1)
    )


def fold_chain() -> Any:
    return RegexTokenizer(TOKEN) | LowercaseFilter() | CharsetFilter(accent_map) | MathFoldFilter()


# The authors field holds every author, joined by AUTHOR_SEPARATOR (schema.document): the first
# word of the next author stands AUTHOR_GAP positions past the last of this one, so that a phrase
# (slop below the gap) never runs across two names: "Bengio Yoshua" is not in "Samy Bengio ;
# Yoshua Bengio". The field's length (BM25F) counts words, not positions: scores are unchanged.
AUTHOR_SEPARATOR = ";"
AUTHOR_GAP = 100


class AuthorGapTokenizer(RegexTokenizer):
    """RegexTokenizer whose positions jump AUTHOR_GAP at each AUTHOR_SEPARATOR."""

    def __call__(self, value: str, positions: bool = False, **kwargs: Any) -> Iterator[Any]:
        if not positions or not kwargs.get("tokenize", True):
            yield from super().__call__(value, positions=positions, **kwargs)
            return
        cuts = [m.start() for m in re.finditer(re.escape(AUTHOR_SEPARATOR), value)]
        start_char = kwargs.get("start_char", 0)
        wanted = kwargs.pop("chars", False)
        for t in super().__call__(value, positions=True, chars=True, **kwargs):
            t.pos += AUTHOR_GAP * bisect_right(cuts, t.startchar - start_char)
            t.chars = wanted
            yield t


def authors_chain() -> Any:
    return AuthorGapTokenizer(TOKEN) | LowercaseFilter() | CharsetFilter(accent_map) | MathFoldFilter()


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _fold_run(match: re.Match[str]) -> str:
    return match.group().translate(accent_map).translate(_SPELL)


def _folded(value: str) -> str:
    """Lowercased, accents folded, math spelled out. Only the non-ASCII runs are translated
    (translate is per character, and neither table changes a lowercase ASCII one): 3x faster
    on text with a few accents."""
    text = value.lower()
    return text if text.isascii() else _NON_ASCII.sub(_fold_run, text)


class _Fused(Analyzer):
    """A chain's tokens from ``_kept`` (word, position) pairs."""

    def __init__(self) -> None:
        self._chain = self._make_chain()

    def _make_chain(self) -> Any:
        raise NotImplementedError

    def _kept(self, value: str) -> list[tuple[str, int]]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __getstate__(self) -> dict[str, object]:
        return {}  # the schema is pickled into the index: keep it free of caches

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__()  # type: ignore[misc]

    def __call__(
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        **kwargs: Any,
    ) -> Iterator[Any]:
        if chars or keeporiginal or not removestops or not tokenize or start_pos or start_char:
            return self._chain(
                value,
                positions=positions,
                chars=chars,
                keeporiginal=keeporiginal,
                removestops=removestops,
                start_pos=start_pos,
                start_char=start_char,
                tokenize=tokenize,
                mode=mode,
                **kwargs,
            )
        return self._tokens(value, positions, mode, kwargs)

    def _tokens(self, value: str, positions: bool, mode: str, kwargs: dict[str, Any]) -> Iterator[Any]:
        token = Token(positions, False, True, mode, **kwargs)
        for text, pos in self._kept(value):
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if positions:
                token.pos = pos
            yield token

    # True when the chain's tokens are ``kept_text`` of each of ``words(value)`` (None dropped),
    # their positions running on from the first kept word's index: the bulk build then numbers
    # the words themselves (index/build/gather.py)
    consecutive = False

    def words(self, value: str) -> list[str]:
        return _words(_folded(value))

    def kept_text(self, word: str) -> str | None:
        return word

    def tokens(self, value: str) -> tuple[list[str], list[int]]:
        """The chain's tokens and their positions (positions=True), in order: what the bulk
        build gathers (index/build/gather.py)."""
        kept = self._kept(value)
        return [t for t, _ in kept], [p for _, p in kept]

    def positions(self, value: str) -> dict[str, list[int]]:
        """Each token's positions, as the chain gives them with positions=True (bulk indexing)."""
        out: dict[str, list[int]] = {}
        for text, pos in self._kept(value):
            poslist = out.get(text)
            if poslist is None:
                out[text] = [pos]
            else:
                poslist.append(pos)
        return out


class _StemCache(dict[str, str]):
    """word -> its stem, or "" if the chain drops it; a missing word is stemmed once."""

    def __init__(self, stem: Any) -> None:
        super().__init__()
        self.stem = stem

    def __missing__(self, word: str) -> str:
        stemmed = self[word] = self.stem(word) or ""
        return stemmed


class FastStemAnalyzer(_Fused):
    """``stem_chain()``: words, lowercased, accents folded, stop words out, Porter stems."""

    def __init__(self) -> None:
        super().__init__()
        self._stems: dict[str, str | None] = {}  # word -> its stem, or None if the chain drops it
        self._cache = _StemCache(self._stem)

    consecutive = True

    def _make_chain(self) -> Any:
        return stem_chain()

    def kept_text(self, word: str) -> str | None:
        """The stem, not remembered here: the bulk build's Words remembers each word once."""
        return None if len(word) < 2 or word in STOP_WORDS else porter_stem(word)

    def _stem(self, word: str) -> str | None:
        stemmed = None if len(word) < 2 or word in STOP_WORDS else porter_stem(word)
        self._stems[word] = stemmed
        return stemmed

    def _kept(self, value: str) -> list[tuple[str, int]]:
        """Stopped words leave no gap, but the first kept word keeps its own index:
        StopFilter(renumber=True) does exactly that."""
        stems, new = self._stems, self._stem
        out = []
        pos = None
        for i, word in enumerate(_words(_folded(value))):
            stemmed = stems[word] if word in stems else new(word)
            if stemmed is not None:
                pos = i if pos is None else pos + 1
                out.append((stemmed, pos))
        return out

    def tokens(self, value: str) -> tuple[list[str], list[int]]:
        """``_kept`` as two lists, the stems looked up in C (``_StemCache``): most of the work
        of a bulk build. Stopped words leave no gap, so the positions run on from the first
        kept word's own index."""
        stems = list(map(self._cache.__getitem__, _words(_folded(value))))
        kept = [s for s in stems if s]
        if not kept:
            return kept, []
        first = 0
        while not stems[first]:
            first += 1
        return kept, list(range(first, first + len(kept)))

    def positions(self, value: str) -> dict[str, list[int]]:
        """``_kept`` grouped by stem, in one loop: this is most of the work of a bulk build."""
        stems, new = self._stems, self._stem
        out: dict[str, list[int]] = {}
        pos = -1
        for i, word in enumerate(_words(_folded(value))):
            stemmed = stems[word] if word in stems else new(word)
            if stemmed is None:
                continue
            pos = i if pos < 0 else pos + 1
            poslist = out.get(stemmed)
            if poslist is None:
                out[stemmed] = [pos]
            else:
                poslist.append(pos)
        return out


class FastFoldAnalyzer(_Fused):
    """``fold_chain()``: words, lowercased, accents folded (names, venues, title words)."""

    consecutive = True

    def _make_chain(self) -> Any:
        return fold_chain()

    def _kept(self, value: str) -> list[tuple[str, int]]:
        return [(word, i) for i, word in enumerate(_words(_folded(value)))]

    def tokens(self, value: str) -> tuple[list[str], list[int]]:
        words = _words(_folded(value))
        return words, list(range(len(words)))


class FastAuthorsAnalyzer(_Fused):
    """``authors_chain()``: folded words as FastFoldAnalyzer's, each author AUTHOR_GAP apart. The
    value is split before it is folded, as the chain splits it before its filters."""

    def _make_chain(self) -> Any:
        return authors_chain()

    def _kept(self, value: str) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        base = 0
        for part in value.split(AUTHOR_SEPARATOR):
            words = _words(_folded(part))
            out += [(word, base + i) for i, word in enumerate(words)]
            base += len(words) + AUTHOR_GAP
        return out


def stem_analyzer() -> FastStemAnalyzer:
    return FastStemAnalyzer()


def fold_analyzer() -> FastFoldAnalyzer:
    return FastFoldAnalyzer()


def authors_analyzer() -> FastAuthorsAnalyzer:
    return FastAuthorsAnalyzer()
