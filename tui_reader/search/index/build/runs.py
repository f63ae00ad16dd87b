"""Run files: one range's postings, sorted by term, as flat arrays a merge reads by slices.

A run file is the arrays one after another (``tofile``); its table (pickled beside it, ``.terms``)
says where each is. Per field: the terms (their UTF-8 bytes joined, and offsets), each term's
document count, where its postings and its positions start, and per posting its docnum, count
(frequency), weight (fields Whoosh's ``field.index`` fed; otherwise the count) and, for a ``Positions`` field,
the positions of every posting in turn; per document of the range, each scorable field's length.
merge.py maps slices of them (``np.memmap``), so a merge never holds a whole run.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
from bisect import bisect_left
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
    """A run file read through its table: arrays mapped, slices of them read."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.base: int = table["base"]
        self.count: int = table["count"]
        self._map: mmap.mmap | None = None

    @contextlib.contextmanager
    def mapped(self) -> Iterator[None]:
        """The file mapped once for the many reads of a merge task: an ``np.memmap`` per read
        (a system call each) cost a 2.7M build minutes over its 180 runs. The mapping goes when
        the task's arrays do, so a worker never holds every run."""
        if self._map is not None:
            yield
            return
        with open(self.table["path"], "rb") as fh:
            if os.fstat(fh.fileno()).st_size:
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield
        finally:
            self._map = None

    def has(self, name: str, what: str) -> bool:
        return (name, what) in self.table["arrays"]

    def array(self, name: str, what: str) -> np.ndarray:
        offset, dtype, size = self.table["arrays"][name, what]
        if not size:
            return np.zeros(0, dtype)
        if self._map is not None:
            return np.frombuffer(self._map, dtype, size, offset)
        return np.memmap(self.table["path"], dtype, "r", offset, (size,))

    def terms(self, name: str, lo: int, hi: int) -> list[bytes]:
        if not self.has(name, "blob"):
            return []
        offsets = self.array(name, "offsets")[lo : hi + 1].astype(np.int64)
        if hi <= lo:
            return []
        blob = bytes(self.array(name, "blob")[offsets[0] : offsets[-1]])
        edges = (offsets - offsets[0]).tolist()
        return [blob[a:b] for a, b in pairwise(edges)]

    def size(self, name: str) -> int:
        return self.table["arrays"][name, "df"][2] if self.has(name, "df") else 0

    def find(self, name: str, term: bytes | None, end: bool = False) -> int:
        """How many of the field's terms sort before ``term``; None: the start, or with
        ``end`` the end."""
        n = self.size(name)
        if term is None or not n:
            return n if end else 0
        offsets, blob = self.array(name, "offsets"), self.array(name, "blob")
        keys = _Keys(offsets, blob, n)
        return bisect_left(keys, term)

    def starts(self, name: str) -> np.ndarray:
        """Each term's first posting, then the total: mapped from the file, so a merge over
        hundreds of runs holds none of them (a cache of them grew with the collection)."""
        return self.array(name, "starts")


class _Keys:
    """A run's terms as a sequence for bisect (only the few it looks at are read)."""

    def __init__(self, offsets: np.ndarray, blob: np.ndarray, n: int) -> None:
        self.offsets, self.blob, self.n = offsets, blob, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> bytes:
        return bytes(self.blob[int(self.offsets[i]) : int(self.offsets[i + 1])])
