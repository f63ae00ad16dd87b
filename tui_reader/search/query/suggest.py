""" "Did you mean": each misspelt word mended, in words as people write them, offered only if it helps.

A word is misspelt when the index does not know it, or knows it from a paper or two while a
word one letter away is far more common (measured at 87k papers, below). Corrections are title
words as written (the unstemmed ``tw`` field), ranked by edit distance (a transposition is one
edit: "modles" -> "models"), then by how many papers they find; an abstract's stem is shown as
its commonest title word, or as a paper writes it, never as the stem ("transform"). Every such
word of the text is mended, and the suggestion is offered only if Enter's reading of it, run on
the same searcher, finds more papers than the text did. A phrase or a field query that found
papers gets none: it found what it named (``title:"Thompson Sampling for the ..."``).

Measured at 87k papers: typos such as "tranformer", "modles", "langauge", "retreival" are in one
or two papers' abstracts (never as a title word) while their mends are in 1,000-43,000; of 3,147
rare words read from abstracts, those in at most two papers whose closest title word is one edit
away and 1,000 times as common are mostly typos (83, of which ~15 real words such as "loyal"),
while a looser rule (20 papers, 50 times) fired on 372, many real ("mother", "deprivation").
Rare words that titles use (model names: "InfoLM", "ReasoNet") are left alone when the text
found papers. When it found none, any word of 20 papers or fewer with a 50 times commoner
spelling two edits away is mended: the run check decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from whoosh import query
from whoosh.reading import IndexReader
from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.search import stop
from tui_reader.search.highlight import fold, match_spans, stem
from tui_reader.search.index.analysis import stem_analyzer
from tui_reader.search.index.schema import DEFAULT_FIELD
from tui_reader.search.query import caps, querytext
from tui_reader.search.query.terms import top_terms

if TYPE_CHECKING:
    from tui_reader.search.searcher import Searcher

# Words as the analyzer cuts them (a hyphen splits "Multi-armed"), not a field's name or value,
# not a fuzzy or prefix word, and not a number.
_WORD = re.compile(r"(?<![:\w~*])([^\W\d_]\w{2,})(?![\w:~*])")
# Identifiers are matched whole, not spelled: "doi:10.5555/goedel.2019" has no word to correct.
_VERBATIM = re.compile(r"(?<![\w\"])(?:doi|arxiv|kind|type|tag|is):(?:\"[^\"]*\"|\S+)", re.IGNORECASE)
TITLE_WORDS = "tw"
RARE, RATIO, MIN_LENGTH = 2, 1000, 5  # a word of papers found: misspelt if in <= RARE papers ...
RARE_IF_NONE, RATIO_IF_NONE = 20, 50  # ... and when nothing was found
MAX_DISTANCE = 2
SURFACES = 20  # title words looked at for an abstract stem's readable form
_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True, slots=True)
class _Word:
    folded: str
    stem: str
    papers: int  # content papers holding its stem


def suggest(
    text: str, s: WhooshSearcher, searcher: Searcher, found: int, count: Callable[[str], int]
) -> str | None:
    """The text with each misspelt word mended, if that finds more than ``found`` papers
    (``count`` runs Enter's reading of it), else None. At most caps.MAX_SUGGESTED_WORDS words
    of caps.MAX_SUGGESTED_CHARS or fewer are looked up (~1 ms each at 87k papers, ~0.3 s for
    one with no word one edit away), none once the search's deadline has passed."""
    if found and ('"' in text or any(m.group(1) in searcher.fields for m in querytext.FIELD.finditer(text))):
        return None
    reader = s.reader()
    verbatim = [m.span() for m in _VERBATIM.finditer(text)]
    mended = 0
    tried = 0

    def words(m: re.Match[str]) -> _Word | None:
        """The word of a match that may be spelt, as the index holds it (None: leave it)."""
        word = m.group(1)
        if any(a <= m.start() < b for a, b in verbatim) or word.lower() in querytext.OPERATORS:
            return None
        if len(word) > caps.MAX_SUGGESTED_CHARS or stop.passed():
            return None
        return _known(word, reader)

    def mend(m: re.Match[str]) -> str:
        nonlocal mended, tried
        w = words(m)
        if w is None or tried >= caps.MAX_SUGGESTED_WORDS or not _suspect(w, found, reader):
            return m.group(1)
        tried += 1
        better = _mend(w, found, s, searcher)
        mended += better is not None
        return _cased(m.group(1), better) if better else m.group(1)

    def respell(m: re.Match[str]) -> str:  # the same papers: only beside a real mend
        nonlocal tried
        w = words(m)
        if w is None or not w.papers or reader.doc_frequency(TITLE_WORDS, w.folded):
            return m.group(1)  # unknown (not mended), or written as a title writes it
        tried += 1
        respelt = _respelt(w, s, searcher) if tried <= 2 * caps.MAX_SUGGESTED_WORDS else None
        return _cased(m.group(1), respelt) if respelt else m.group(1)

    suggestion = _WORD.sub(mend, text)
    if not mended or suggestion == text:
        return None
    suggestion = _WORD.sub(respell, suggestion)
    try:
        return suggestion if count(suggestion) > found else None
    except stop.Stopped:  # out of time: the answer stands, without advice
        return None


def _cased(typed: str, word: str) -> str:
    """The word capitalised as the typed one was ("Difusion" -> "Diffusion")."""
    if len(typed) > 1 and typed.isupper():
        return word.upper()
    return word[:1].upper() + word[1:] if typed[:1].isupper() else word


def _known(word: str, reader: IndexReader) -> _Word | None:
    """The word as the index holds it, None for a stop word (the index never holds it)."""
    stems = _stems(word)
    if not stems:
        return None
    return _Word(fold(word), stems[0], int(reader.doc_frequency(DEFAULT_FIELD, stems[0])))


@lru_cache(maxsize=1)
def _analyzer() -> Any:
    return stem_analyzer()


def _stems(word: str) -> list[str]:
    return [t.text for t in _analyzer()(word, mode="query")]


def _suspect(w: _Word, found: int, reader: IndexReader) -> bool:
    """Whether a word may be misspelt, on its counts alone (see the module)."""
    if not w.papers:
        return True
    if found:
        titled = reader.doc_frequency(TITLE_WORDS, w.folded)
        return w.papers <= RARE and len(w.folded) >= MIN_LENGTH and not titled
    return w.papers <= RARE_IF_NONE


def _mend(w: _Word, found: int, s: WhooshSearcher, searcher: Searcher) -> str | None:
    """A commoner word for a suspect one, or None when none is near enough and common enough."""
    reader = s.reader()
    if w.papers == 0:
        # A word cut short ("graph neu") means its commonest completion; else the closest spelling.
        vocabulary = searcher.completer.vocabulary
        for c in vocabulary.complete(w.folded, 3):
            surface = c if vocabulary.fieldname == TITLE_WORDS else _surface(c, s, searcher)
            if _papers(surface, reader):
                return surface
        best = _closest(w, reader, MAX_DISTANCE, s, searcher)
        return best[0] if best else None
    if found:
        best = _closest(w, reader, 1, s, searcher)
        return best[0] if best and best[1] >= RATIO * w.papers else None
    best = _closest(w, reader, MAX_DISTANCE, s, searcher)
    return best[0] if best and best[1] >= RATIO_IF_NONE * w.papers else None


def _closest(
    w: _Word, reader: IndexReader, maxdist: int, s: WhooshSearcher, searcher: Searcher
) -> tuple[str, int] | None:
    """The nearest commonest word that searches something else, with the papers it finds: a
    title word as written (one edit away looked up first: ~1 ms against Whoosh's ~0.3 s for
    two at 87k), else an abstract's stem in its readable form."""
    ranked = _ranked(w, (c for c in _edits1(w.folded) if _titled(c, reader, searcher)), reader, 1)
    if not ranked and maxdist > 1:
        ranked = _ranked(w, reader.terms_within(TITLE_WORDS, w.folded, maxdist, prefix=1), reader, maxdist)
    if ranked:
        _, papers, word = min(ranked)
        return word, -papers
    stems = [
        (distance(w.stem, c), -papers, c)
        for c in reader.terms_within(DEFAULT_FIELD, w.stem, maxdist, prefix=1)
        if c != w.stem and (papers := _papers(c, reader, stemmed=True))
    ]
    stems = [x for x in stems if x[0] <= maxdist]
    if not stems:
        return None
    _, papers, term = min(stems)
    return _surface(term, s, searcher), -papers


def _ranked(
    w: _Word, candidates: Iterable[str], reader: IndexReader, maxdist: int
) -> list[tuple[int, int, str]]:
    """(edits, -papers, word) of the candidates that search something other than ``w``."""
    out = []
    for c in candidates:
        papers = _papers(c, reader)
        d = distance(w.folded, c)
        if papers and d <= maxdist and stem(c) != w.stem:
            out.append((d, -papers, c))
    return out


def _edits1(word: str) -> set[str]:
    """Every string one edit from the word that keeps its first letter (Whoosh's prefix=1):
    a deletion, a swap of neighbours, a replacement or an insertion."""
    out: set[str] = set()
    for i in range(1, len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            out.add(head + tail[1:])
            if len(tail) > 1:
                out.add(head + tail[1] + tail[0] + tail[2:])
            out.update(head + c + tail[1:] for c in _LETTERS)
        out.update(head + c + tail for c in _LETTERS)
    out.discard(word)
    return out


def _titled(word: str, reader: IndexReader, searcher: Searcher) -> bool:
    """Whether a title writes the word: the title vocabulary in memory when the completer holds
    it (a large collection), else the index's."""
    vocabulary = searcher.completer.vocabulary
    if vocabulary.fieldname == TITLE_WORDS:
        return word in vocabulary.freq
    return bool(reader.doc_frequency(TITLE_WORDS, word))


def _respelt(w: _Word, s: WhooshSearcher, searcher: Searcher) -> str | None:
    """The same word as titles or abstracts spell it, for a known word no title writes so
    ("reinforcment" -> "reinforcement"): it finds the same papers, so it is only shown beside
    a real mend."""
    reader = s.reader()
    near = [
        (-int(reader.doc_frequency(TITLE_WORDS, c)), c)
        for c in _edits1(w.folded)
        if _titled(c, reader, searcher) and stem(c) == w.stem
    ]
    if near:
        return min(near)[1]
    written = _surface(w.stem, s, searcher)
    if written != w.folded and stem(written) == w.stem and distance(w.folded, written) <= MAX_DISTANCE:
        return written
    return None


def _papers(word: str, reader: IndexReader, stemmed: bool = False) -> int:
    """Papers a word finds, 0 for an operator or a stop word (it searches nothing)."""
    if word.lower() in querytext.OPERATORS:
        return 0
    if not stemmed:
        stems = _stems(word)
        if not stems:
            return 0
        word = stems[0]
    return int(reader.doc_frequency(DEFAULT_FIELD, word))


def _surface(term: str, s: WhooshSearcher, searcher: Searcher) -> str:
    """A readable word for an abstract stem: its commonest title word, or its form in a paper."""
    reader = s.reader()
    for word in top_terms(reader, TITLE_WORDS, term, SURFACES):
        if stem(word) == term:
            return word
    corpus = searcher.corpus
    for hit in s.search(query.Term(DEFAULT_FIELD, term), limit=1):
        row = corpus.index_of.get(hit["id"])
        if row is not None:
            text = corpus.abstract(row)
            for a, b in match_spans(text, frozenset([term])):
                return text[a:b].lower()
    return term


def distance(a: str, b: str) -> int:
    """Edits from a to b, a swap of two neighbours counting one (optimal string alignment)."""
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row = row, [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], before[j - 2] + 1)
        before = prev
    return row[-1]
