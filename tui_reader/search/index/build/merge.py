"""The runs merged and encoded: a slice of one field's terms across every range, written as
NpCodec posting lists (listwriter.encode_lists), byte for byte what Whoosh's writer writes.

A task is a field and a span of its terms [lo, hi); the builder cuts each field into spans of
about SLICE postings (``tasks``) so a worker's memory holds one span, and deals them to the
workers, who write their chunks side by side; the parent copies the chunks into the segment in
term order and adds each term's info (bulk.py). The ranges' postings of a term are put back in
docnum order by one stable sort per span.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from whoosh.util.numeric import length_to_byte

from tui_reader.search.fast.codec import V_POSITIONS
from tui_reader.search.fast.listwriter import Lists, encode_lists
from tui_reader.search.index.build.runs import Run

SLICE = 400_000  # postings per task: ~40 int64 arrays of each, and the span's terms (ids: one posting each)
_BYTES = np.array([length_to_byte(n) for n in range(1 << 16)], np.uint8)


@dataclass(frozen=True, slots=True)
class Task:
    number: int
    field: str
    lo: bytes | None  # the span's first term (None: from the field's first)
    hi: bytes | None  # the term after it (None: to the field's last)


def tasks(runs: list[Run], slice_postings: int | None = None) -> list[Task]:
    """Every field's terms in spans of about ``slice_postings`` postings, in term order; the
    cuts are taken from the largest run, weighted by its document counts."""
    limit = slice_postings or SLICE
    names = sorted({n for r in runs for n in r.table["kinds"]})
    out: list[Task] = []
    for name in names:
        total = sum(int(r.starts(name)[-1]) for r in runs if r.size(name))
        if not total:
            continue
        biggest = max(runs, key=lambda r: r.size(name))
        starts = biggest.starts(name)
        spans = max(1, -(-total // limit))
        cuts: list[bytes | None] = [None]
        for s in range(1, spans):
            at = int(np.searchsorted(starts, starts[-1] * s // spans, side="right"))
            cut = biggest.terms(name, at, at + 1) if at < biggest.size(name) else []
            if cut and cut[0] != cuts[-1] and (cuts[-1] is None or cut[0] > cuts[-1]):
                cuts.append(cut[0])
        cuts.append(None)
        for lo, hi in pairwise(cuts):
            out.append(Task(len(out), name, lo, hi))
    return out


def length_bytes(runs: list[Run], name: str, total: int) -> np.ndarray:
    """The field's length byte per document of the collection (0: no length)."""
    out = np.zeros(total, np.uint8)
    for r in runs:
        if r.has(name, "lengths"):
            lengths = np.asarray(r.array(name, "lengths"))
            big = lengths >= _BYTES.size
            part = _BYTES[np.minimum(lengths, _BYTES.size - 1)]
            if big.any():
                part[big] = [length_to_byte(int(n)) for n in lengths[big]]
            out[r.base : r.base + r.count] = part
    return out


def encode(
    runs: list[Run], task: Task, lengths: np.ndarray, path: Path, blocklimit: int
) -> tuple[list[bytes], bytes]:
    """Write the task's posting lists to ``path``; return its terms and their infos
    (listwriter.TERMINFO_DTYPE records, extents from the chunk's start)."""
    name = task.field
    spans, slices = [], []
    for r in runs:
        if not r.size(name):
            continue
        a, b = r.find(name, task.lo), r.find(name, task.hi, end=True)
        if b > a:
            spans.append((r, a, b))
            slices.append(r.terms(name, a, b))
    terms = sorted(set().union(*slices)) if len(slices) > 1 else (slices[0] if slices else [])
    if not terms:
        path.write_bytes(b"")
        return [], b""
    rank = {t: i for i, t in enumerate(terms)}
    kind = spans[0][0].table["kinds"][name]
    parts: dict[str, list[np.ndarray]] = {
        "ranks": [],
        "docs": [],
        "counts": [],
        "weights": [],
        "positions": [],
    }
    for (r, a, b), words in zip(spans, slices, strict=True):
        starts = r.starts(name)
        p0, p1 = int(starts[a]), int(starts[b])
        df = np.diff(starts[a : b + 1])
        mapped = np.fromiter(map(rank.__getitem__, words), np.int64, len(words))
        parts["ranks"].append(np.repeat(mapped, df))
        parts["docs"].append(np.asarray(r.array(name, "docs")[p0:p1]))
        counts = np.asarray(r.array(name, "counts")[p0:p1])
        parts["counts"].append(counts)
        weights = r.array(name, "weights")[p0:p1] if r.has(name, "weights") else counts
        parts["weights"].append(np.asarray(weights, np.float32))
        if kind == V_POSITIONS:
            at = r.array(name, "pos_at")
            parts["positions"].append(np.asarray(r.array(name, "positions")[int(at[a]) : int(at[b])]))
    ranks, docs, counts, weights = (np.concatenate(parts[k]) for k in ("ranks", "docs", "counts", "weights"))
    positions = np.concatenate(parts["positions"]) if kind == V_POSITIONS else None
    if len(spans) > 1:  # the ranges' postings of each term back in docnum order
        by = np.argsort(ranks, kind="stable")
        ranks, docs, weights = ranks[by], docs[by], weights[by]
        if positions is not None:
            positions = _moved(positions, counts, by)
        counts = counts[by]
    lists = Lists(
        np.bincount(ranks, minlength=len(terms)), docs, weights, lengths[docs], kind, counts, positions
    )
    out, infos = encode_lists(lists, blocklimit)
    out.tofile(path)
    return terms, infos.tobytes()


def _moved(positions: np.ndarray, counts: np.ndarray, by: np.ndarray) -> np.ndarray:
    """Each posting's positions, the postings taken in the order ``by``."""
    c = counts.astype(np.int64)
    old = np.concatenate(([0], np.cumsum(c)[:-1]))
    new_counts = c[by]
    new = np.concatenate(([0], np.cumsum(new_counts)[:-1]))
    index = np.repeat(old[by] - new, new_counts) + np.arange(int(new_counts.sum()))
    return positions[index]


class Lengths:
    """Each field's length bytes for the whole collection, read from the runs when first asked."""

    def __init__(self, ranges: list[Run], total: int) -> None:
        self.ranges, self.total = ranges, total
        self._name: str | None = None
        self._bytes = np.zeros(0, np.uint8)

    def of(self, name: str) -> np.ndarray:
        if name != self._name:  # tasks come field by field: one field's held at a time
            self._name, self._bytes = name, length_bytes(self.ranges, name, self.total)
        return self._bytes
