"""Run files: one range's postings, sorted by term, as flat arrays a merge reads by slices.

A run file is the arrays one after another (``tofile``); its table (pickled beside it, ``.terms``)
says where each is. Per field: the terms (their UTF-8 bytes joined, and offsets), each term's
document count, where its postings and its positions start, and per posting its docnum, count
(frequency), weight (fields Whoosh's ``field.index`` fed; otherwise the count) and, for a ``Positions`` field,
the positions of every posting in turn; per document of the range, each scorable field's length.
merge.py reads the slices a task needs (``Run.read``), so a merge never holds a whole run.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

Table = dict[str, Any]  # path, base, count, arrays: {(field, what): (offset, dtype, size)}, kinds


@dataclass(frozen=True, slots=True)
class Columns:
    """A field's postings, sorted by term then docnum."""

    df: np.ndarray  # postings per term
    docs: np.ndarray  # docnums
    counts: np.ndarray  # frequencies
    weights: np.ndarray | None = None  # float32; None: the counts
    positions: np.ndarray | None = None  # Positions fields: every posting's, in turn


class RunWriter:
    def __init__(self, path: Path, base: int, count: int) -> None:
        self._out = open(path, "wb")  # noqa: SIM115 (closed by close())
        self.table: Table = {"path": str(path), "base": base, "count": count, "arrays": {}, "kinds": {}}

    def _put(self, name: str, what: str, values: np.ndarray) -> None:
        self.table["arrays"][name, what] = (self._out.tell(), values.dtype.str, values.size)
        values.tofile(self._out)

    def field(self, name: str, kind: int, terms: list[bytes], cols: Columns) -> None:
        self.table["kinds"][name] = kind
        sizes = np.fromiter(map(len, terms), np.int64, len(terms))
        self._put(name, "blob", np.frombuffer(b"".join(terms), np.uint8))
        self._put(name, "offsets", np.concatenate(([0], np.cumsum(sizes))).astype(np.uint64))
        self._put(name, "df", cols.df.astype(np.uint32))
        self._put(
            name, "starts", np.concatenate(([0], np.cumsum(cols.df, dtype=np.uint64))).astype(np.uint64)
        )
        self._put(name, "docs", cols.docs.astype(np.uint32))
        self._put(name, "counts", cols.counts.astype(np.uint32))
        if cols.weights is not None:
            self._put(name, "weights", cols.weights.astype(np.float32))
        if cols.positions is not None:
            ends = np.cumsum(cols.counts.astype(np.int64))
            at = (
                np.concatenate(([0], ends[np.cumsum(cols.df.astype(np.int64)) - 1])) if cols.df.size else ends
            )
            self._put(name, "pos_at", at.astype(np.uint64))  # positions before each term, then all
            self._put(name, "positions", cols.positions.astype(np.uint32))

    def lengths(self, name: str, lengths: np.ndarray | None) -> None:
        if lengths is not None:
            self._put(name, "lengths", lengths.astype(np.uint32))

    def close(self) -> None:
        self._out.close()


def write_table(table: Table) -> None:
    with open(f"{table['path']}.terms", "wb") as fh:
        pickle.dump(table, fh, protocol=pickle.HIGHEST_PROTOCOL)


def read_table(path: str | Path) -> Table:
    with open(f"{path}.terms", "rb") as fh:
        return pickle.load(fh)


class Run:
    """A run file read through its table, each slice by ``pread`` into a fresh array.

    Never mapped: this kernel's page cache holds large folios and a fault maps a whole one, so
    a merge's scattered slices of 180 mapped runs counted over 1.2 GB of file pages in its
    workers (1,000 random byte reads of a cached 3.4 GB mapping: 1.58 GB resident, with or
    without MADV_RANDOM). A read holds only what it asked for."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.base: int = table["base"]
        self.count: int = table["count"]
        self._fh: Any = None  # the open file of ``opened``
        self._fences: dict[str, list[bytes]] = {}  # every FENCE-th term, per field
        self._found: tuple[str, bytes, int] | None = None

    @contextlib.contextmanager
    def opened(self) -> Iterator[None]:
        """The file kept open for the many reads of a merge task (else one open per read)."""
        if self._fh is not None:
            yield
            return
        with open(self.table["path"], "rb", buffering=0) as fh:
            self._fh = fh
            try:
                yield
            finally:
                self._fh = None

    def has(self, name: str, what: str) -> bool:
        return (name, what) in self.table["arrays"]

    def read(self, name: str, what: str, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Elements [lo, hi) of an array (clipped to it, as a slice is)."""
        offset, dtype, size = self.table["arrays"][name, what]
        lo, hi, _ = slice(lo, hi).indices(size)
        out = np.empty(max(0, hi - lo), dtype)
        if out.size:
            if self._fh is None:
                with open(self.table["path"], "rb", buffering=0) as fh:
                    _pread(fh.fileno(), out, offset + lo * out.itemsize)
            else:
                _pread(self._fh.fileno(), out, offset + lo * out.itemsize)
        return out

    def array(self, name: str, what: str) -> np.ndarray:
        return self.read(name, what)

    def terms(self, name: str, lo: int, hi: int) -> list[bytes]:
        if hi <= lo or not self.has(name, "blob"):
            return []
        offsets = self.read(name, "offsets", lo, hi + 1).astype(np.int64)
        blob = self.read(name, "blob", int(offsets[0]), int(offsets[-1])).tobytes()
        edges = (offsets - offsets[0]).tolist()
        return [blob[a:b] for a, b in pairwise(edges)]

    def size(self, name: str) -> int:
        return self.table["arrays"][name, "df"][2] if self.has(name, "df") else 0

    def find(self, name: str, term: bytes | None, end: bool = False) -> int:
        """How many of the field's terms sort before ``term``; None: the start, or with
        ``end`` the end. The fences say which FENCE terms to read; a task's ``hi`` is the next
        task's ``lo``, so the last answer is kept."""
        n = self.size(name)
        if term is None or not n:
            return n if end else 0
        if self._found is not None and self._found[:2] == (name, term):
            return self._found[2]
        fences = self._fences.get(name)
        if fences is None:
            fences = self._fences[name] = self._fenced(name, n)
        j = bisect_right(fences, term)
        if j == 0:
            at = 0
        else:
            lo = (j - 1) * FENCE
            at = lo + bisect_left(self.terms(name, lo, min(n, j * FENCE)), term)
        self._found = (name, term, at)
        return at

    def _fenced(self, name: str, n: int) -> list[bytes]:
        offsets = self.read(name, "offsets")
        blob = self.read(name, "blob").tobytes()
        edges = offsets.astype(np.int64).tolist()
        return [blob[edges[i] : edges[i + 1]] for i in range(0, n, FENCE)]

    def starts(self, name: str, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Each term's first posting, then the total (elements [lo, hi) of them)."""
        return self.read(name, "starts", lo, hi)


FENCE = 256  # terms per fence of ``Run.find``: a find reads one window of them


def _pread(fd: int, out: np.ndarray, offset: int) -> None:
    view = out.data.cast("B")
    done = 0
    while done < len(view):
        got = os.preadv(fd, [view[done:]], offset + done)
        if not got:
            raise EOFError(f"run file ends {len(view) - done} bytes short at {offset + done}")
        done += got
