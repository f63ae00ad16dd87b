"""The runs merged and encoded: a slice of one field's terms across every range, written as
NpCodec posting lists (listwriter.encode_lists), byte for byte what Whoosh's writer writes.

A task is a field and a span of its terms [lo, hi); the builder cuts each field into spans of
about SLICE postings (``tasks``) so a worker's memory holds one span, and deals them to the
workers, who write their chunks side by side; the parent copies the chunks into the segment in
term order and adds each term's info (bulk.py). The ranges' postings of a term are put back in
docnum order by one stable sort per span.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO

import numpy as np
from whoosh.util.numeric import length_to_byte

from tui_reader.search.fast.codec import V_POSITIONS
from tui_reader.search.fast.listwriter import Lists, encode_lists
from tui_reader.search.fast.pieces import PieceJoiner
from tui_reader.search.index.build.runs import Run

SLICE = 400_000  # postings per task: its terms held at once (ids: one posting each)
BATCH = 100_000  # postings encoded at once: ~40 int64 arrays of each (and of their positions)
_BYTES = np.array([length_to_byte(n) for n in range(1 << 16)], np.uint8)


@dataclass(frozen=True, slots=True)
class Task:
    number: int
    field: str
    lo: bytes | None  # the span's first term (None: from the field's first)
    hi: bytes | None  # the term after it (None: to the field's last)
    limit: int = BATCH  # postings encoded at once (encode)


def tasks(runs: list[Run], slice_postings: int | None = None) -> list[Task]:
    """Every field's terms in spans of about ``slice_postings`` postings, in term order; the
    cuts are taken from the largest run, weighted by its document counts."""
    limit = slice_postings or SLICE
    names = sorted({n for r in runs for n in r.table["kinds"]})
    out: list[Task] = []
    for name in names:
        total = sum(int(r.starts(name, -1)[0]) for r in runs if r.size(name))
        if not total:
            continue
        biggest = max(runs, key=lambda r: r.size(name))
        starts = biggest.starts(name).astype(np.int64)
        spans = max(1, -(-total // limit))
        cuts: list[bytes | None] = [None]
        for s in range(1, spans):
            at = int(np.searchsorted(starts, starts[-1] * s // spans, side="right"))
            cut = biggest.terms(name, at, at + 1) if at < biggest.size(name) else []
            if cut and cut[0] != cuts[-1] and (cuts[-1] is None or cut[0] > cuts[-1]):
                cuts.append(cut[0])
        cuts.append(None)
        for lo, hi in pairwise(cuts):
            out.append(Task(len(out), name, lo, hi, slice_postings or BATCH))
    return out


def length_bytes(runs: list[Run], name: str, total: int) -> np.ndarray:
    """The field's length byte per document of the collection (0: no length)."""
    out = np.zeros(total, np.uint8)
    for r in runs:
        if r.has(name, "lengths"):
            lengths = r.array(name, "lengths")
            big = lengths >= _BYTES.size
            part = _BYTES[np.minimum(lengths, _BYTES.size - 1)]
            if big.any():
                part[big] = [length_to_byte(int(n)) for n in lengths[big]]
            out[r.base : r.base + r.count] = part
    return out


@dataclass(slots=True)
class _Part:
    """One run's share of a task: its terms a.. (their ranks in the task), where they start."""

    run: Run
    a: int
    ranks: np.ndarray  # int64, ascending
    starts: np.ndarray  # int64: each term's first posting in the run, then the end


def encode(
    runs: list[Run], task: Task, lengths: np.ndarray, path: Path, blocklimit: int
) -> tuple[list[bytes], bytes]:
    """Write the task's posting lists to ``path``; return its terms and their infos
    (listwriter.TERMINFO_DTYPE records, extents from the chunk's start). The terms are encoded
    in batches of about ``task.limit`` postings, a term with more in pieces of whole blocks
    (pieces.PieceJoiner): a worker holds one batch, whatever the collection's size."""
    with contextlib.ExitStack() as stack:
        for r in runs:
            if r.size(task.field):
                stack.enter_context(r.opened())
        return _encode(runs, task, lengths, path, blocklimit)


def _encode(
    runs: list[Run], task: Task, lengths: np.ndarray, path: Path, blocklimit: int
) -> tuple[list[bytes], bytes]:
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
    parts, df = [], np.zeros(len(terms), np.int64)
    for (r, a, b), words in zip(spans, slices, strict=True):
        mapped = np.fromiter(map(rank.__getitem__, words), np.int64, len(words))
        starts = r.starts(name, a, b + 1).astype(np.int64)
        df[mapped] += np.diff(starts)
        parts.append(_Part(r, a, mapped, starts))
    del rank, slices
    piece = max(blocklimit, task.limit // blocklimit * blocklimit)
    infos = []
    with open(path, "wb") as out:
        for t0, t1 in _batches(df, task.limit):
            if t1 - t0 == 1 and df[t0] > piece:
                infos.append(_pieces(out, parts, name, kind, t0, int(df[t0]), piece, lengths, blocklimit))
                continue
            lists, _ = _gathered(parts, name, kind, t0, t1, 0, int(df[t0:t1].sum()), lengths)
            buf, info = encode_lists(lists, blocklimit)
            info["offset"] += out.tell()
            out.write(buf.tobytes())
            infos.append(info)
    return terms, b"".join(info.tobytes() for info in infos)  # concatenate would make them native-endian


def _batches(df: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive terms [t0, t1) of at most ``limit`` postings together (a bigger term alone)."""
    ends = np.cumsum(df)
    out, t0 = [], 0
    while t0 < df.size:
        base = int(ends[t0 - 1]) if t0 else 0
        t1 = max(t0 + 1, int(np.searchsorted(ends, base + limit, side="right")))
        out.append((t0, t1))
        t0 = t1
    return out


def _pieces(
    out: BinaryIO,
    parts: list[_Part],
    name: str,
    kind: int,
    t: int,
    df: int,
    piece: int,
    lengths: np.ndarray,
    blocklimit: int,
) -> np.ndarray:
    """One term's list, ``piece`` postings (whole blocks) encoded at a time."""
    joiner = PieceJoiner(out)
    for first in range(0, df, piece):
        stop = min(first + piece, df)
        lists, weight = _gathered(parts, name, kind, t, t + 1, first, stop, lengths)
        buf, info = encode_lists(lists, blocklimit)
        joiner.add(buf, info, weight, stop == df)
    return joiner.finish()


def _gathered(
    parts: list[_Part],
    name: str,
    kind: int,
    t0: int,
    t1: int,
    first: int,
    stop: int,
    lengths: np.ndarray,
) -> tuple[Lists, float]:
    """Terms t0..t1-1's postings from every run, postings first..stop-1 of them (counted in the
    runs' order, which is docnum order for one term), in term then docnum order; and the sum
    of their weights."""
    pieces: dict[str, list[np.ndarray]] = {k: [] for k in ("ranks", "docs", "counts", "weights", "positions")}
    seen = 0  # postings of the batch in the runs before this one
    for part in parts:
        i0, i1 = np.searchsorted(part.ranks, (t0, t1))
        if i1 <= i0:
            continue
        p0, p1 = int(part.starts[i0]), int(part.starts[i1])
        q0, q1 = p0 + max(0, first - seen), p0 + min(p1 - p0, stop - seen)
        seen += p1 - p0
        if q1 <= q0:
            continue
        r = part.run
        df = np.diff(part.starts[i0 : i1 + 1])
        pieces["ranks"].append(np.repeat(part.ranks[i0:i1], df)[q0 - p0 : q1 - p0])
        pieces["docs"].append(r.read(name, "docs", q0, q1))
        counts = r.read(name, "counts", p0, q1)
        pieces["counts"].append(counts[q0 - p0 :])
        weights = r.read(name, "weights", q0, q1) if r.has(name, "weights") else counts[q0 - p0 :]
        pieces["weights"].append(np.asarray(weights, np.float32))
        if kind == V_POSITIONS:
            first_at = int(r.read(name, "pos_at", part.a + i0, part.a + i0 + 1)[0])
            at = first_at + int(counts[: q0 - p0].sum(dtype=np.int64))
            size = int(counts[q0 - p0 :].sum(dtype=np.int64))
            pieces["positions"].append(r.read(name, "positions", at, at + size))
    ranks, docs, counts, weights = (np.concatenate(pieces[k]) for k in ("ranks", "docs", "counts", "weights"))
    positions = np.concatenate(pieces["positions"]) if kind == V_POSITIONS else None
    if len(pieces["docs"]) > 1 and t1 - t0 > 1:  # the runs' postings of each term in docnum order
        by = np.argsort(ranks, kind="stable")
        ranks, docs, weights = ranks[by], docs[by], weights[by]
        if positions is not None:
            positions = _moved(positions, counts, by)
        counts = counts[by]
    df = np.bincount(ranks - t0, minlength=t1 - t0)
    weight = float(weights.sum(dtype=np.float64))
    return Lists(df, docs, weights, lengths[docs], kind, counts, positions), weight


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
