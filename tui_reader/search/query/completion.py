"""Completions of the word being typed: what lets type-ahead show papers before a word is done.

They are only ever OR'ed with the word as typed (see Searcher._typing_query), so they add papers
to what the typed words match and never remove any. The candidates come from a vocabulary read
once: every stem of every paper on a small collection, title words on a large one (reading 350k
abstract stems at 87k costs a second and 100 MB; title words are the words people type first).
Either way a completion is searched in the field the word was typed in, over whole papers.
"""

from __future__ import annotations

from whoosh import query
from whoosh.reading import IndexReader

from tui_reader.search.highlight import fold, stem
from tui_reader.search.query.terms import TYPEAHEAD_COMPLETIONS, Vocabulary, top_terms

SMALL_CORPUS = 20_000  # up to this many papers, the vocabulary is every stem of every paper
COMPLETION_POSTINGS = 12_000  # postings the completions of a word may add to a keystroke
_STEMMED = {"content", "title"}
_FOLDED = {"authors", "venue", "sources"}


class Completer:
    def __init__(self, reader: IndexReader, small_corpus: int | None = None) -> None:
        limit = SMALL_CORPUS if small_corpus is None else small_corpus
        self.small = reader.doc_count() <= limit
        self.vocabulary = Vocabulary(reader, "content" if self.small else "tw")

    def complete(
        self, reader: IndexReader, fieldname: str, typed: str, as_typed: object
    ) -> list[query.Query]:
        """Terms to OR with ``Term(fieldname, as_typed)``: the typed word's most frequent
        completions, added while their postings stay under COMPLETION_POSTINGS."""
        folded = fold(typed)
        if fieldname in _STEMMED:
            vocabulary = self.vocabulary
            words = vocabulary.complete(folded, TYPEAHEAD_COMPLETIONS)
            if not words:  # "modeli": the vocabulary holds stems ("model") shorter than it
                words = vocabulary.complete(stem(folded), TYPEAHEAD_COMPLETIONS)
            candidates = [w if self.small else stem(w) for w in words]
        elif fieldname in _FOLDED:
            candidates = top_terms(reader, fieldname, folded, TYPEAHEAD_COMPLETIONS)
        else:
            return []
        chosen: list[query.Query] = []
        budget = COMPLETION_POSTINGS
        for term in dict.fromkeys(candidates):
            if term == as_typed:
                continue
            df = reader.doc_frequency(fieldname, term)
            if df and df <= budget:
                chosen.append(query.Term(fieldname, term))
                budget -= df
            elif df and not chosen and fieldname == "content":
                # The likeliest word is too common to score over whole papers on a keystroke
                # ("lea" -> "learn", in half of them): its title postings, a fraction, stand in.
                # It adds papers all the same; finishing the word searches it everywhere.
                df = reader.doc_frequency("title", term)
                if df:
                    chosen.append(query.Term("title", term))
                    budget -= df
        return chosen
