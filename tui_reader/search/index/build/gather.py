"""One range's postings gathered in flat arrays, sorted once, and written out as a run file.

Per document and field the fused analyzer's tokens (analysis.py ``tokens``: exactly the field
analyzer's) are mapped to term numbers through the range's vocabulary (a dict, looked up in C)
and appended, with their positions, to typed arrays; other fields (ids, years, keywords) give
Whoosh's own ``field.index`` items. At the end of the range one stable sort by term gives every
term's postings in docnum order (runs.py writes them); merge.py encodes them across ranges.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
from whoosh import formats

from tui_reader.search.fast.codec import V_NONE, V_POSITIONS, V_RAW
from tui_reader.search.index.build import runs

Doc = dict[str, Any]
FORMATS = {formats.Existence: V_NONE, formats.Frequency: V_RAW, formats.Positions: V_POSITIONS}


def value_kind(fieldobj: Any) -> int | None:
    """How NpCodec stores the field's posting values (codec.V_*), or None if the bulk build
    does not reproduce its format (a boost, another format)."""
    fmt = fieldobj.format
    kind = FORMATS.get(type(fmt))
    return kind if kind is not None and fmt.field_boost == 1.0 else None


class _Vocab(dict[Any, int]):
    """term -> its number in the range, numbered as first seen."""

    def __missing__(self, term: Any) -> int:
        number = self[term] = len(self)
        return number


class Words:
    """A fused field's words numbered for a worker's whole life (every range): word -> the
    number of the token the chain keeps for it (-1: dropped), ``texts`` the tokens by number.
    One lookup per word of a document (no stemming, no second vocabulary)."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer
        self.table: dict[str, int] = {}
        self.numbers: dict[str, int] = {}  # token text -> number
        self.texts: list[bytes] = []

    def new(self, word: str) -> int:
        text = self.analyzer.kept_text(word)
        number = -1
        if text is not None:
            number = self.numbers.get(text, -1)
            if number < 0:
                number = self.numbers[text] = len(self.texts)
                self.texts.append(text.encode("utf-8"))
        self.table[word] = number
        return number

    def numbered(self, value: str) -> tuple[list[int], int]:
        """The numbers of the value's kept tokens, and the first one's position."""
        words = self.analyzer.words(value)
        table = self.table
        found = list(map(table.get, words))
        if None in found:  # new words, numbered in a fixed order; then every word looked up in C
            for word in sorted(set(words).difference(table)):
                self.new(word)
            found = list(map(table.__getitem__, words))
        ids = cast("list[int]", found)
        if -1 not in ids:
            return ids, 0
        first = 0
        while first < len(ids) and ids[first] < 0:
            first += 1
        return [i for i in ids if i >= 0], first


@dataclass(slots=True)
class _Field:
    kind: int
    tokens: Callable[[str], tuple[list[str], list[int]]] | None  # the fused analyzer's
    index: Callable[[Any], Any]  # field.index: (btext, freq, weight, vbytes) items
    scorable: bool
    words: Words | None = None  # a consecutive fused analyzer's numbering (shared by ranges)
    vocab: _Vocab = field(default_factory=_Vocab)
    firsts: array = field(default_factory=lambda: array("I"))  # words: each document's first position
    memo: dict[Any, list[Any]] = field(default_factory=dict)  # not fused: value -> its items
    terms: array = field(default_factory=lambda: array("I"))  # a term number per token / posting
    positions: array = field(default_factory=lambda: array("I"))  # fused, Positions: per token
    per_doc: array = field(default_factory=lambda: array("I"))  # fused: tokens per document
    docs: array = field(default_factory=lambda: array("I"))  # not fused: per posting
    freqs: array = field(default_factory=lambda: array("I"))
    weights: array = field(default_factory=lambda: array("f"))
    lengths: array = field(default_factory=lambda: array("I"))  # per document


def _fused(fieldobj: Any) -> Callable[[str], tuple[list[str], list[int]]] | None:
    tokens = getattr(fieldobj.analyzer, "tokens", None)
    return tokens if value_kind(fieldobj) in (V_RAW, V_POSITIONS) else None


MEMO = 50_000  # values remembered per field not fused (years, sources, kinds repeat; ids do not)


WORDS = 2_000_000  # words a worker remembers (~150 bytes each): a new range starts afresh past it


def numberings(schema: Any) -> dict[str, Words]:
    """A Words per field whose fused analyzer is consecutive: give them to every Gatherer of a
    worker, so each word is analysed once per worker."""
    return {
        n: Words(schema[n].analyzer)
        for n in schema.names()
        if _fused(schema[n]) is not None and getattr(schema[n].analyzer, "consecutive", False)
    }


def renewed(schema: Any, words: dict[str, Words], limit: int = WORDS) -> dict[str, Words]:
    """``words``, or fresh numberings if they hold more than ``limit`` words: called between
    ranges (a range's term numbers refer to its Words until it is written), so a worker's
    memory does not grow with a collection's vocabulary (the whole arXiv has millions of
    distinct tokens: formulas, numbers, names)."""
    return numberings(schema) if sum(len(w.table) for w in words.values()) > limit else words


class Gatherer:
    """One range's share: the postings of documents base..base+count-1."""

    def __init__(self, schema: Any, base: int, words: dict[str, Words] | None = None) -> None:
        self.base = base
        self.count = 0
        self.fields: dict[str, _Field] = {}
        words = numberings(schema) if words is None else words
        for name in schema.names():
            f = schema[name]
            kind = value_kind(f)
            if f.indexed and kind is not None:
                self.fields[name] = _Field(kind, _fused(f), f.index, f.scorable, words.get(name))

    def add(self, docnum: int, doc: Doc) -> None:
        if docnum != self.base + self.count:
            raise ValueError(f"document {docnum} out of order (expected {self.base + self.count})")
        local = self.count
        self.count += 1
        for name, g in self.fields.items():
            value = doc.get(name)
            length = 0
            if value is None:
                pass
            elif g.words is not None and isinstance(value, str):
                ids, first = g.words.numbered(value)
                length = len(ids)
                g.terms.extend(ids)
                g.firsts.append(first)
            elif g.tokens is not None and isinstance(value, str):
                words, positions = g.tokens(value)
                length = len(words)
                g.terms.extend(map(g.vocab.__getitem__, words))
                if g.kind == V_POSITIONS:
                    g.positions.extend(positions)
            else:
                length = self._add_items(g, local, value)
            if g.tokens is not None:
                g.per_doc.append(length if value is None or isinstance(value, str) else 0)
                if value is None and g.words is not None:
                    g.firsts.append(0)
            g.lengths.append(length if g.scorable else 0)

    def _add_items(self, g: _Field, local: int, value: Any) -> int:
        """Whoosh's own items for a value the fused path does not take."""
        if g.tokens is not None:
            raise ValueError("a fused field's value is not text")
        length = 0
        items = g.memo.get(value) if isinstance(value, (str, int)) else None
        if items is None:
            items = list(g.index(value))
            if isinstance(value, (str, int)):
                if len(g.memo) >= MEMO:
                    g.memo.clear()
                g.memo[value] = items
        for btext, freq, weight, _vbytes in items:
            g.terms.append(g.vocab[btext])
            g.docs.append(local)
            g.freqs.append(freq)
            g.weights.append(weight)
            length += freq
        return length

    def write(self, path: Path) -> runs.Table:
        """Sort each field's postings by term and write the range's run file."""
        out = runs.RunWriter(path, self.base, self.count)
        try:
            for name in sorted(self.fields):
                g = self.fields.pop(name)  # free each field's arrays once it is written
                out.field(name, g.kind, *_sorted(g, self.base))
                out.lengths(name, np.frombuffer(g.lengths, np.uint32) if g.scorable else None)
        finally:
            out.close()
        return out.table

    def lengths(self) -> dict[str, np.ndarray]:
        """Each scorable field's length per document of the range."""
        return {n: np.frombuffer(g.lengths, np.uint32).copy() for n, g in self.fields.items() if g.scorable}


def _ranked(g: _Field) -> tuple[list[bytes], np.ndarray]:
    """The range's terms in order (UTF-8 bytes), and each token's or posting's rank among them."""
    numbers = np.frombuffer(g.terms, np.uint32) if len(g.terms) else np.zeros(0, np.uint32)
    if g.words is not None:
        texts = g.words.texts
        present = np.flatnonzero(np.bincount(numbers, minlength=len(texts)))  # np.unique sorts: 4x slower
        keys = [texts[n] for n in present.tolist()]
    else:
        present = None
        words = list(g.vocab)
        keys = [w.encode("utf-8") for w in words] if g.tokens is not None else words
    order = sorted(range(len(keys)), key=keys.__getitem__)
    size = len(g.words.texts) if g.words is not None else len(keys)
    rank = np.zeros(size, np.uint32)
    at = np.asarray(order, np.int64)
    rank[present[at] if present is not None else at] = np.arange(len(keys), dtype=np.uint32)
    return [keys[i] for i in order], rank[numbers]


def _sorted(g: _Field, base: int) -> tuple[list[bytes], runs.Columns]:
    """The range's terms in order (UTF-8 bytes), and its postings sorted by term, then docnum."""
    terms, tids = _ranked(g)
    if g.tokens is None:
        docs = np.frombuffer(g.docs, np.uint32).astype(np.int64)
        by = np.argsort(tids, kind="stable")
        cols = runs.Columns(
            np.bincount(tids, minlength=len(terms)),
            docs[by] + base,
            np.frombuffer(g.freqs, np.uint32)[by],
            np.frombuffer(g.weights, np.float32)[by],
        )
        return terms, cols
    per_doc = np.frombuffer(g.per_doc, np.uint32)
    docs = np.repeat(np.arange(per_doc.size, dtype=np.int64), per_doc)
    by = np.argsort(tids, kind="stable")
    tids, docs = tids[by], docs[by]
    new = np.ones(tids.size, bool)
    new[1:] = (tids[1:] != tids[:-1]) | (docs[1:] != docs[:-1])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, tids.size)).astype(np.uint32)
    positions = None
    if g.kind == V_POSITIONS and g.words is not None:  # each document's from its first on
        firsts = np.frombuffer(g.firsts, np.uint32).astype(np.int64)
        starts_doc = np.concatenate(([0], np.cumsum(per_doc.astype(np.int64))[:-1]))
        flat = np.arange(int(per_doc.sum()), dtype=np.int64) + np.repeat(firsts - starts_doc, per_doc)
        positions = flat[by].astype(np.uint32)
    elif g.kind == V_POSITIONS:
        positions = np.frombuffer(g.positions, np.uint32)[by]
    cols = runs.Columns(
        np.bincount(tids[starts], minlength=len(terms)), docs[starts] + base, counts, None, positions
    )
    return terms, cols
