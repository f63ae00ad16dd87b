"""The recommender's model (recommend.py): the training papers as BM25F term weights, and a
weighted L2 logistic regression fitted on them in numpy.

A paper is the vector of its "content" terms, each weighted as Whoosh's BM25F weighs it:
``x = idf * tf (K1 + 1) / (tf + norm)``, with Whoosh's idf and the paper's length as the index
keeps it, so that the ranking's postings give the same numbers. The terms come from the content
analyzer over the paper's text as the index analysed it (the index stores no term vectors).
Positives weigh half the loss, the background sample the other half, each explicit negative as
much as a positive. Accelerated gradient descent, STEPS full-batch steps on a sparse matrix
(a few ms): no scikit-learn, which would add ~40 MB for one linear fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tui_reader.search.index.schema import document  # not on the public front (the lead: add?)

FIELD = "content"
SAMPLE = 400  # background papers taken as negatives (fixed seed)
SEED = 20
STEPS = 300
L2 = 0.3  # strong, as arxiv-sanity's C=0.01 is at its feature scale: robust with 3 positives
MIN_DF = 2  # a term in one paper only ranks nothing else
B, K1 = 0.75, 1.2  # Whoosh's BM25F defaults, as the index scores


class Cancelled(Exception):
    """A newer request replaced this one."""


def sample(s: Any, taken: set[int]) -> list[int]:
    """SAMPLE live documents, the same ones for the same index (a fixed seed), none of ``taken``."""
    reader = s.reader()
    count = reader.doc_count_all()
    rng = np.random.default_rng(SEED)
    wanted = min(count, SAMPLE + len(taken))
    drawn = rng.choice(count, size=wanted, replace=False) if count else []
    kept = [int(d) for d in drawn if int(d) not in taken and not reader.is_deleted(int(d))]
    return kept[:SAMPLE]


@dataclass(slots=True)
class Model:
    terms: list[str]
    weights: np.ndarray  # float64, one per term
    idf: np.ndarray
    avgfl: float


def text_of(s: Any, corpus: Any, docnum: int) -> str | None:
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
        text = text_of(s, corpus, docnum)
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


def train(
    s: Any, corpus: Any, pos: list[int], neg: list[int], sample: list[int], cancelled: Callable[[], bool]
) -> Model:
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
    return Model(terms, weights, idf, s.avg_field_length(FIELD) or 1.0)


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
