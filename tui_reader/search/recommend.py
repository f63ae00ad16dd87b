"""Recommendations you can steer: a linear model trained on the papers a user keeps, ranking the rest.

The known-good baseline is arxiv-sanity's per-tag linear SVM over tf-idf; this is the same idea
in numpy, on the index's own numbers. A paper is the vector of its "content" terms (title twice,
authors, abstract, keywords: what a plain word searches), each weighted as Whoosh's BM25F weighs
it (idf, saturated term frequency, the paper's length): ``x = idf * tf (K1 + 1) / (tf + norm)``.

Training: positives are the papers kept (a tag's, or every bookmark); negatives the papers marked
"not interested" plus a fixed-seed sample of the rest (SAMPLE papers). The training papers' terms
come from the content analyzer over their text (the index stores no term vectors), their lengths
from the index, so they are the values its postings hold. The model is an L2-regularised logistic
regression with balanced classes, fitted by accelerated gradient descent (STEPS full-batch steps
on a sparse matrix, a few ms): no scikit-learn, which would add ~40 MB for one linear fit.

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
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tui_reader.errors import IndexDamaged
from tui_reader.search.index.schema import document  # not on the public front (the lead: add?)

if TYPE_CHECKING:
    from tui_reader.search.searcher import Searcher

FIELD = "content"
MIN_POSITIVES = 3
SAMPLE = 400  # background papers taken as negatives (fixed seed)
SEED = 20
STEPS = 300
L2 = 0.3  # strong, as arxiv-sanity's C=0.01 is at its feature scale: robust with 3 positives
TERMS_UP = 200
TERMS_DOWN = 50
MIN_DF = 2  # a term in one paper only ranks nothing else
B, K1 = 0.75, 1.2  # Whoosh's BM25F defaults, as the index scores
BECAUSE = 3
_WORD = re.compile(r"\w+(?:\.\w+)*")

Progress = Callable[[int, int, str], None]
logger = logging.getLogger("tui_reader.search")


class Cancelled(Exception):
    """A newer request replaced this one."""


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
        sample = _sample(s, set(pos) | set(neg))
        out.sampled = len(sample)
        model = _train(s, corpus, pos, neg, sample, cancelled)
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


def _sample(s: Any, taken: set[int]) -> list[int]:
    """SAMPLE live documents, the same ones for the same index (a fixed seed), none of ``taken``."""
    reader = s.reader()
    count = reader.doc_count_all()
    rng = np.random.default_rng(SEED)
    wanted = min(count, SAMPLE + len(taken))
    drawn = rng.choice(count, size=wanted, replace=False) if count else []
    kept = [int(d) for d in drawn if int(d) not in taken and not reader.is_deleted(int(d))]
    return kept[:SAMPLE]


@dataclass(slots=True)
class _Model:
    terms: list[str]
    weights: np.ndarray  # float64, one per term
    idf: np.ndarray
    avgfl: float


def _text(s: Any, corpus: Any, docnum: int) -> str | None:
    """The document's content text as the index analysed it (schema.document)."""
    row = corpus.index_of.get(s.stored_fields(docnum).get("id"))
    if row is None:
        return None
    return str(document(corpus, row)[FIELD])


@dataclass(slots=True)
class _Rows:
    """The training papers as a sparse matrix of term frequencies (row, column, tf)."""

    vocab: dict[str, int] = field(default_factory=dict)
    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    tfs: list[float] = field(default_factory=list)
    norms: list[float] = field(default_factory=list)  # BM25F's length part, per paper
    y: list[float] = field(default_factory=list)
    c: list[float] = field(default_factory=list)  # sample weights


def _rows(s: Any, corpus: Any, docs: list[tuple[int, float, float]], cancelled: Callable[[], bool]) -> _Rows:
    analyzer = s.schema[FIELD].analyzer
    reader = s.reader()
    avgfl = s.avg_field_length(FIELD) or 1.0
    out = _Rows()
    for docnum, label, weight in docs:
        if cancelled():
            raise Cancelled
        text = _text(s, corpus, docnum)
        if text is None:
            continue
        n = len(out.y)
        for term, tf in Counter(t.text for t in analyzer(text)).items():
            out.rows.append(n)
            out.cols.append(out.vocab.setdefault(term, len(out.vocab)))
            out.tfs.append(float(tf))
        length = reader.doc_field_length(docnum, FIELD, 1)
        out.norms.append(K1 * ((1 - B) + B * length / avgfl))
        out.y.append(label)
        out.c.append(weight)
    return out


def _train(
    s: Any, corpus: Any, pos: list[int], neg: list[int], sample: list[int], cancelled: Callable[[], bool]
) -> _Model:
    # balanced: the positives weigh half, the background half; each explicit negative as a positive
    each, share = 0.5 / len(pos), 0.5 / max(1, len(sample))
    docs = [(d, 1.0, each) for d in pos] + [(d, 0.0, each) for d in neg] + [(d, 0.0, share) for d in sample]
    got = _rows(s, corpus, docs, cancelled)
    r, k, freq = np.array(got.rows, dtype=np.int64), np.array(got.cols, dtype=np.int64), np.array(got.tfs)
    terms = list(got.vocab)
    # a term of one background paper only weighs next to nothing: not looked up (half the work)
    chosen = np.bincount(k, minlength=len(terms)) >= 2
    explicit = np.array(got.y) > 0.5
    explicit[: len(pos) + len(neg)] = True
    chosen[k[explicit[r]]] = True
    reader = s.reader()
    df = np.zeros(len(terms))
    for col in np.flatnonzero(chosen):
        df[col] = reader.doc_frequency(FIELD, terms[col])
    # Whoosh's idf (scoring.WeightingModel.idf), as BM25F takes it, from the same df
    idf = np.log(s.doc_count_all() / (df + 1)) + 1
    x = idf[k] * (freq * (K1 + 1)) / (freq + np.array(got.norms)[r])
    keep = df[k] >= MIN_DF
    weights = _fit(r[keep], k[keep], x[keep], np.array(got.y), np.array(got.c), len(terms))
    return _Model(terms, weights, idf, s.avg_field_length(FIELD) or 1.0)


def _fit(r: np.ndarray, k: np.ndarray, x: np.ndarray, y: np.ndarray, c: np.ndarray, dims: int) -> np.ndarray:
    """Weighted L2 logistic regression on a sparse (row, col, value) matrix, with an intercept:
    Nesterov's accelerated gradient with the step 1/L, L bounded by a power iteration."""
    n = len(y)
    c = c / c.sum()

    def mul(w: np.ndarray) -> np.ndarray:  # X @ w
        return np.bincount(r, weights=x * w[k], minlength=n)

    def tmul(g: np.ndarray) -> np.ndarray:  # X.T @ g
        return np.bincount(k, weights=x * g[r], minlength=dims)

    v = np.ones(dims) / np.sqrt(max(dims, 1))
    top = 1.0
    for _ in range(20):  # the largest eigenvalue of X.T C X (C: the sample weights)
        u = tmul(c * mul(v))
        top = float(np.linalg.norm(u)) or 1.0
        v = u / top
    step = 1.0 / (0.25 * top * 1.1 + 0.25 + L2)  # the intercept's part is at most 1/4
    sign = 2 * y - 1
    w = np.zeros(dims)
    b = 0.0
    w_prev, b_prev = w, b
    for t in range(1, STEPS + 1):
        mom = (t - 1) / (t + 2)
        wv, bv = w + mom * (w - w_prev), b + mom * (b - b_prev)
        margin = sign * (mul(wv) + bv)
        g = -c * sign / (1 + np.exp(np.clip(margin, -30, 30)))  # d loss / d score
        w_prev, b_prev = w, b
        w = wv - step * (tmul(g) + L2 * wv)
        b = bv - step * float(g.sum())
    return w


# -- ranking ------------------------------------------------------------------------------------
def _chosen(model: _Model) -> list[int]:
    order = np.argsort(-model.weights, kind="stable")
    up = [int(i) for i in order[:TERMS_UP] if model.weights[i] > 0]
    down = [int(i) for i in order[::-1][:TERMS_DOWN] if model.weights[i] < 0]
    return up + down


def _rank(
    s: Any,
    corpus: Any,
    model: _Model,
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
    s: Any, corpus: Any, model: _Model, top: list[int], scores: np.ndarray, read: list[tuple[int, Any, Any]]
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
