"""Recommendations you can steer: a linear model trained on the papers a user keeps, ranking the rest.

The known-good baseline is arxiv-sanity's per-tag linear SVM over tf-idf; this is the same idea
in numpy, on the index's own numbers. A paper is the vector of its "content" terms (title twice,
authors, abstract, keywords: what a plain word searches), each weighted as Whoosh's BM25F weighs
it (idf, saturated term frequency, the paper's length): ``x = idf * tf (K1 + 1) / (tf + norm)``.

Training (recommend_train.py): positives are the papers kept (a tag's, or every bookmark);
negatives the papers marked "not interested" plus a fixed-seed sample of the rest; an L2
logistic regression with balanced classes, fitted in numpy.

Ranking: the TERMS_UP terms with the largest positive weights and the TERMS_DOWN most negative
(a "not interested" paper's terms push papers like it down) are read from their postings, and
``w * x`` is added into one score per paper. A paper's score is exactly the model's over those
terms (the other terms, of smaller weight, are left out; the intercept is the same for all).
"because" names the three terms that add most to a paper's score, read from those postings: they
are terms of that paper, shown as the word the paper spells. A paper kept or marked not
interested never comes back.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tui_reader.errors import IndexDamaged
from tui_reader.search.index.schema import document  # not on the public front (the lead: add?)
from tui_reader.search.recommend_train import FIELD, K1, B, Cancelled, Model, sample, train

__all__ = ["MIN_POSITIVES", "Cancelled", "Pick", "Recommendations", "needs_text", "recommend", "unread_first"]

if TYPE_CHECKING:
    from tui_reader.search.searcher import Searcher

MIN_POSITIVES = 3
TERMS_UP = 200
TERMS_DOWN = 50
BECAUSE = 3
_WORD = re.compile(r"\w+(?:\.\w+)*")

Progress = Callable[[int, int, str], None]
logger = logging.getLogger("tui_reader.search")


@dataclass(frozen=True, slots=True)
class Pick:
    row: int
    id: str
    score: float
    because: tuple[str, ...]  # the words that weigh most for it, as the paper spells them
    terms: tuple[str, ...]  # the same, as index terms


@dataclass(slots=True)
class Recommendations:
    picks: list[Pick] = field(default_factory=list)
    positives: int = 0  # kept papers found in this collection
    missing: int = 0  # kept papers this collection does not hold
    negatives: int = 0  # "not interested" papers found here
    sampled: int = 0
    total: int = 0  # papers holding a positive-weight term (the ranking's length)
    terms: int = 0  # terms ranked over
    train_ms: float = 0.0
    rank_ms: float = 0.0

    @property
    def short_by(self) -> int:
        """How many more kept papers it needs (0: enough)."""
        return max(0, MIN_POSITIVES - self.positives)


def needs_text(label: str, found: int, missing: int = 0) -> str:
    """What the recommender needs, in one sentence (fewer than MIN_POSITIVES kept papers)."""
    more = MIN_POSITIVES - found
    elsewhere = f" ({missing} more in other collections)" if missing else ""
    return (
        f"Recommendations need at least {MIN_POSITIVES} papers in {label} in this collection; "
        f"{found} {'is' if found == 1 else 'are'} here{elsewhere}: bookmark or tag {more} more."
    )


def unread_first(picks: Sequence[Pick], read: Collection[str]) -> list[Pick]:
    """The ranking with the papers not read yet first, each part by score."""
    return [p for p in picks if p.id not in read] + [p for p in picks if p.id in read]


# -- the engine ---------------------------------------------------------------------------------
def recommend(
    searcher: Searcher,
    positives: Iterable[str],
    negatives: Iterable[str] = (),
    *,
    limit: int = 100,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Recommendations:
    """The ``limit`` best papers for a model of ``positives`` against ``negatives`` and a
    sample; empty (``short_by`` > 0) with fewer than MIN_POSITIVES positives here. Raises
    Cancelled when ``cancelled()`` turns true, IndexDamaged when the index does not read."""
    try:
        return _recommend(searcher, list(positives), list(negatives), limit, progress, cancelled)
    except (Cancelled, IndexDamaged):
        raise
    except Exception as exc:  # Whoosh failing to read its own files: rebuild, as a search does
        raise IndexDamaged(f"the search index is damaged ({exc!r})") from exc


def _recommend(
    searcher: Searcher,
    positives: list[str],
    negatives: list[str],
    limit: int,
    progress: Progress | None,
    cancelled: Callable[[], bool],
) -> Recommendations:
    tell = progress or (lambda done, total, phase: None)
    corpus = searcher.corpus
    with searcher.index.searcher() as s:
        started = time.perf_counter()
        pos = _docnums(s, positives)
        neg = _docnums(s, negatives)
        neg = [d for d in neg if d not in set(pos)]
        out = Recommendations(positives=len(pos), negatives=len(neg))
        out.missing = len(set(positives)) - len(pos)
        if len(pos) < MIN_POSITIVES:
            return out
        tell(0, 0, "training")
        background = sample(s, set(pos) | set(neg))
        out.sampled = len(background)
        model = train(s, corpus, pos, neg, background, cancelled)
        out.train_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        never = set(pos) | set(neg)
        out.picks, out.total, out.terms = _rank(s, corpus, model, never, limit, cancelled, tell)
        out.rank_ms = (time.perf_counter() - started) * 1000
        tell(out.terms, out.terms, "ranked")
        return out


def _docnums(s: Any, ids: Iterable[str]) -> list[int]:
    found = []
    for pid in dict.fromkeys(ids):
        docnum = s.document_number(id=pid)
        if docnum is not None:
            found.append(docnum)
    return found


# -- ranking ------------------------------------------------------------------------------------
def _chosen(model: Model) -> list[int]:
    order = np.argsort(-model.weights, kind="stable")
    up = [int(i) for i in order[:TERMS_UP] if model.weights[i] > 0]
    down = [int(i) for i in order[::-1][:TERMS_DOWN] if model.weights[i] < 0]
    return up + down


def _rank(
    s: Any,
    corpus: Any,
    model: Model,
    never: set[int],
    limit: int,
    cancelled: Callable[[], bool],
    tell: Progress,
) -> tuple[list[Pick], int, int]:
    reader = s.reader()
    count = reader.doc_count_all()
    scores = np.zeros(count)
    matched = np.zeros(count, dtype=bool)  # holds a positive-weight term: the weighted OR's match
    read: list[tuple[int, np.ndarray, np.ndarray]] = []  # (term, docnums, w * x) per term
    leaves = list(reader.leaf_readers())
    chosen = _chosen(model)
    for n, col in enumerate(chosen):
        if cancelled():
            raise Cancelled
        if not n % 25:
            tell(n, len(chosen), "ranking")
        term, w = model.terms[col], model.weights[col]
        parts = [_weighted(leaf, base, term, model.idf[col], model.avgfl) for leaf, base in leaves]
        ids = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        add = w * (np.concatenate([p[1] for p in parts]) if parts else np.zeros(0))
        scores[ids] += add  # a term's docnums are distinct
        if w > 0:
            matched[ids] = True
        read.append((col, ids, add))
    for leaf, base in leaves:
        if leaf.has_deletions():
            matched[[base + d for d in leaf.all_deleted()]] = False
    matched[list(never)] = False
    total = int(np.count_nonzero(matched))
    top = _top(np.where(matched, scores, -np.inf), min(limit, total))
    return _picks(s, corpus, model, top, scores, read), total, len(read)


def _weighted(leaf: Any, base: int, term: str, idf: float, avgfl: float) -> tuple[np.ndarray, np.ndarray]:
    """A term's docnums in one segment (plus ``base``) and its BM25F weight ``x`` in each."""
    ids, tfs = _postings(leaf, term)
    if not len(ids):
        return np.zeros(0, np.int64), np.zeros(0)
    lengths = _lengths(leaf)
    norm = K1 * ((1 - B) + B * lengths[ids] / avgfl)
    return ids + base, idf * (tfs * (K1 + 1)) / (tfs + norm)


def _postings(leaf: Any, term: str) -> tuple[np.ndarray, np.ndarray]:
    """A term's docnums and frequencies in one segment: a block at a time by the fast paths when
    their self-check passed, else (or if they fail) by Whoosh's own matcher, a posting at a time
    (the same numbers, ~2x slower)."""
    if (FIELD, term) not in leaf:
        return np.zeros(0, np.int64), np.zeros(0)
    if _fast():
        try:
            from tui_reader.search.fast import bm25  # not on the public front (the lead: add?)

            ids, weights, _ = bm25.postings(leaf, FIELD, term.encode("utf-8"))
            return np.array(ids, dtype=np.int64), np.array(weights, dtype=np.float64)
        except Exception:
            logger.exception("reading %r a block at a time failed; Whoosh's matcher reads it", term)
    m = leaf.postings(FIELD, term)
    active, ident, weight, step = m.is_active, m.id, m.weight, m.next
    found, tf = [], []
    while active():
        found.append(ident())
        tf.append(weight())
        step()
    return np.array(found, dtype=np.int64), np.array(tf, dtype=np.float64)


def _fast() -> bool:
    """The fast paths' gate (their self-check, run on first use): on, or not importable."""
    try:
        from tui_reader.search.fast import selfcheck

        return bool(selfcheck.status().ok)
    except Exception:  # moved or failing: Whoosh's own matcher reads the same postings
        return False


_length_cache: dict[int, tuple[Any, np.ndarray]] = {}


def _lengths(leaf: Any) -> np.ndarray:
    """Each document's content length as BM25F reads it (``doc_field_length(d, f, 1)``), once
    per segment reader (~0.1 s at 87k papers)."""
    kept = _length_cache.get(id(leaf))
    if kept is not None and kept[0] is leaf:
        return kept[1]
    length = leaf.doc_field_length
    count = leaf.doc_count_all() + 1
    lengths = np.array([length(d, FIELD, 1) for d in range(count)], dtype=np.float64)
    _length_cache.clear()  # one index open at a time: keep the newest only
    _length_cache[id(leaf)] = (leaf, lengths)
    return lengths


def _top(scores: np.ndarray, limit: int) -> list[int]:
    """The ``limit`` best documents, best first, the lower docnum first on a tie."""
    if limit <= 0:
        return []
    part = np.argpartition(-scores, limit - 1)[:limit] if limit < len(scores) else np.arange(len(scores))
    return sorted((int(d) for d in part), key=lambda d: (-scores[d], d))


def _picks(
    s: Any, corpus: Any, model: Model, top: list[int], scores: np.ndarray, read: list[tuple[int, Any, Any]]
) -> list[Pick]:
    if not top:
        return []
    wanted = np.array(top)
    parts = np.zeros((len(read), len(top)))  # each term's addition to each paper's score
    for n, (_col, ids, add) in enumerate(read):
        at = np.searchsorted(ids, wanted)
        inside = at < len(ids)
        hit = np.zeros(len(top), dtype=bool)
        hit[inside] = ids[at[inside]] == wanted[inside]
        parts[n, hit] = add[at[hit]]
    picks = []
    for j, docnum in enumerate(top):
        pid = s.stored_fields(docnum).get("id")
        row = corpus.index_of.get(pid)
        if row is None:
            continue
        best = [int(i) for i in np.argsort(-parts[:, j], kind="stable")[:BECAUSE] if parts[i, j] > 0]
        terms = tuple(model.terms[read[i][0]] for i in best)
        words = _spelled(s, str(document(corpus, row)[FIELD]), terms)
        picks.append(Pick(row, pid, float(scores[docnum]), words, terms))
    return picks


def _spelled(s: Any, text: str, terms: tuple[str, ...]) -> tuple[str, ...]:
    """Each index term as the paper spells it (its first word with that term), lowercased."""
    analyzer = s.schema[FIELD].analyzer
    if _terms_of.get("") is not analyzer or len(_terms_of) > 500_000:  # another index's, or too many
        _terms_of.clear()
        _terms_of[""] = analyzer
    want = set(terms)
    found: dict[str, str] = {}
    for word in dict.fromkeys(w.lower() for w in _WORD.findall(text)):
        term = _terms_of.get(word)
        if term is None:
            tokens = [t.text for t in analyzer(word)]
            term = _terms_of[word] = tokens[0] if len(tokens) == 1 else ""
        if term in want and term not in found:
            found[term] = word
            if len(found) == len(want):
                break
    return tuple(found.get(t, t) for t in terms)


_terms_of: dict[str, Any] = {}  # a word -> its one index term ("" none); "" -> the analyzer
