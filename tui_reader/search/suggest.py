"""'Did you mean': Whoosh's spelling corrector over title words, then over abstract stems."""

from __future__ import annotations

import re

from whoosh import query
from whoosh.reading import IndexReader
from whoosh.searching import Searcher as WhooshSearcher

from tui_reader.corpus.corpus import Corpus
from tui_reader.search import caps, querytext, stop
from tui_reader.search.completion import Completer
from tui_reader.search.highlight import fold, match_spans, stem
from tui_reader.search.schema import DEFAULT_FIELD

_WORD = re.compile(r"(?<![:\w~*])([^\W\d_][\w-]{2,})(?![\w:~*])")
# Identifiers are matched whole, not spelled: "doi:10.5555/goedel.2019" has no word to correct.
_VERBATIM = re.compile(r"(?<![\w\"])(?:doi|arxiv|kind|type|tag|is):(?:\"[^\"]*\"|\S+)", re.IGNORECASE)


def suggest(text: str, s: WhooshSearcher, completer: Completer, corpus: Corpus) -> str | None:
    """The text with each unknown word replaced by its likeliest correction, or None. Title words
    first (readable as typed); an abstract stem is shown as its commonest readable form. At most
    caps.MAX_SUGGESTED_WORDS unknown words of caps.MAX_SUGGESTED_CHARS or fewer are corrected
    (~0.1 s each at 87k papers), and none once the search's deadline has passed."""
    reader = s.reader()
    title_words = reader.corrector("tw")
    stems = reader.corrector(DEFAULT_FIELD)
    changed = False
    tried = 0

    verbatim = [m.span() for m in _VERBATIM.finditer(text)]

    def fix(m: re.Match[str]) -> str:
        nonlocal changed, tried
        word = m.group(1)
        if any(a <= m.start() < b for a, b in verbatim):
            return word
        if word.lower() in querytext.OPERATORS or len(word) > caps.MAX_SUGGESTED_CHARS:
            return word
        if tried >= caps.MAX_SUGGESTED_WORDS or stop.passed():
            return word
        stemmed = stem(word)
        if reader.doc_frequency(DEFAULT_FIELD, stemmed):
            return word
        tried += 1
        # A word cut short ("neu") means its commonest completion; else the closest spelling.
        # A candidate must itself search something: never a stop word ("not") or an operator.
        candidates = [
            *completer.vocabulary.complete(fold(word), 3),
            *title_words.suggest(fold(word), limit=5, maxdist=2, prefix=1),
        ]
        found = next((str(c) for c in candidates if _searchable(str(c), reader)), None)
        if found is None:
            near = stems.suggest(stemmed, limit=3, maxdist=2, prefix=1)
            found = next((_surface(t, s, completer, corpus) for t in near if t), None)
        if found and found != word.lower():
            changed = True
            return found
        return word

    suggestion = _WORD.sub(fix, text)
    return suggestion if changed else None


def _searchable(word: str, reader: IndexReader) -> bool:
    return word.lower() not in querytext.OPERATORS and bool(reader.doc_frequency(DEFAULT_FIELD, stem(word)))


def _surface(term: str, s: WhooshSearcher, completer: Completer, corpus: Corpus) -> str:
    """A readable word for an abstract stem: its commonest title word, or its form in a paper."""
    words = completer.vocabulary.complete(term, 1)
    if words:
        return str(words[0])
    for hit in s.search(query.Term(DEFAULT_FIELD, term), limit=1):
        row = corpus.index_of.get(hit["id"])
        if row is not None:
            text = corpus.abstract(row)
            for a, b in match_spans(text, frozenset([term])):
                return text[a:b].lower()
    return term
