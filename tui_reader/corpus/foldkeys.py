"""Fold key -> the first paper that has it, once a second file comes (corpus.py), without a dict
of every paper's keys (issue 21: ~600 MB at 2.7M papers listed before the second file, ~1 GB
when a large file comes after a small one).

The keys of the papers listed when the second file came are kept, from ARRAY_FROM papers, as one
sorted uint64 array of (32-bit hash << 32 | paper); a look-up reads the records of the papers
under its hash again and compares the strings. Keys registered later go in a dict, and every
FLUSH of them into a sorted run of (64-bit hash, paper, the record that gave the key), runs of
like size merged (a handful at 2.7M). A hash hit is checked against the record's own keys, in the
order the keys were registered, so a collision never joins two works and every answer is the one
a dict filled in the same order gave.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from tui_reader.corpus.folding import identities, identity_of
from tui_reader.corpus.idruns import interleaved

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

LOW = 0xFFFF_FFFF
ALL = 0xFFFF_FFFF_FFFF_FFFF
# Papers listed when a second file comes from which their keys are kept as hashes, not a dict
# (a dict look-up costs ~0.1 us, a hashed one ~3 us: a second file of 87k rows loses ~1 s)
ARRAY_FROM = 200_000
# Keys registered after that which a dict holds before they go into a sorted run (~150 bytes a
# key in the dict, 20 in a run)
FLUSH = 1 << 15


@dataclass
class _Run:
    """Keys registered one after another: sorted by hash, in registration order within one."""

    hashes: npt.NDArray[np.uint64]
    papers: npt.NDArray[np.uint32]
    locs: npt.NDArray[np.uint64]  # the record (file << 32 | row) whose identity gave the key

    def then(self, newer: _Run) -> _Run:
        """The two runs as one, this (older) one's entries first within a hash."""
        pairs = ((self.hashes, newer.hashes), (self.papers, newer.papers), (self.locs, newer.locs))
        return _Run(*interleaved(self.hashes, newer.hashes, pairs))


class FoldKeys:
    """What corpus.py reads and fills: ``get`` a key's paper, ``found`` for a batch of keys at
    once, ``register``/``register_many`` the keys of records as they are merged."""

    def __init__(self, corpus: Corpus, files: int) -> None:
        self._corpus = corpus
        self._files = files  # the records of the files before the second one came: hashed
        self._packed = np.zeros(0, np.uint64)
        self._runs: list[_Run] = []
        self._later: dict[str, tuple[int, int]] = {}  # key -> (paper, record), newest keys
        if len(corpus._at) >= ARRAY_FROM:
            self._pack()
            return
        entries = [
            (k, i, loc)
            for i in range(len(corpus._at))
            for loc in corpus._locs(i)
            if loc >> 32 < files
            for k in _keys_at(corpus, loc)
        ]
        self.register_many(entries)

    def _pack(self) -> None:
        corpus, packed = self._corpus, array("Q")
        for i, keys in _every_keys(corpus, self._files):
            for k in keys:
                packed.append((hash(k) & LOW) << 32 | i)
        self._packed = np.frombuffer(packed, np.uint64).copy() if packed else self._packed
        del packed
        self._packed.sort()  # by hash, then paper: the first paper of a key first

    # -- look-ups --------------------------------------------------------------------------
    def get(self, k: str, default: int | None = None) -> int | None:
        found = self._in_packed(k)
        if found is None:
            found = self._in_runs(k)
        if found is None:
            entry = self._later.get(k)
            found = None if entry is None else entry[0]
        return default if found is None else found

    def _in_packed(self, k: str) -> int | None:
        if not self._packed.size:
            return None
        h = np.uint64((hash(k) & LOW) << 32)
        at = int(np.searchsorted(self._packed, h))
        end = int(np.searchsorted(self._packed, h + np.uint64(LOW), "right"))
        for j in range(at, end):
            i = int(self._packed[j]) & LOW
            if k in _keys_of(self._corpus, i, self._files):
                return i
        return None

    def _in_runs(self, k: str) -> int | None:
        h = np.uint64(hash(k) & ALL)
        for run in self._runs:
            at = int(np.searchsorted(run.hashes, h))
            end = int(np.searchsorted(run.hashes, h, "right"))
            for j in range(at, end):
                if k in _keys_at(self._corpus, int(run.locs[j])):
                    return int(run.papers[j])
        return None

    def found(self, keys: Sequence[str]) -> list[int | None]:
        """``get`` for each of ``keys``: the hashes looked up at once, only a hit's strings read."""
        hit = self._hits(keys)
        later = self._later
        return [
            self.get(k) if h else later[k][0] if k in later else None for k, h in zip(keys, hit, strict=True)
        ]

    def _hits(self, keys: Sequence[str]) -> npt.NDArray[np.bool_]:
        """Which keys' hashes a packed entry or a run holds (then the strings are compared)."""
        hit = np.zeros(len(keys), np.bool_)
        if not keys or not (self._packed.size or self._runs):
            return hit
        hashes = np.fromiter((hash(k) & ALL for k in keys), np.uint64, len(keys))
        if self._packed.size:
            low = (hashes & np.uint64(LOW)) << np.uint64(32)
            at = _positions(self._packed, low, np.argsort(low))
            hit |= (self._packed[at] & ~np.uint64(LOW)) == low
        if self._runs:
            order = np.argsort(hashes)
            for run in self._runs:
                at = _positions(run.hashes, hashes, order)
                hit |= run.hashes[at] == hashes
        return hit

    # -- registering ------------------------------------------------------------------------
    def register(self, keys: Sequence[str], i: int, loc: int) -> None:
        """Record ``loc`` of paper i has these keys: each one no paper has yet is paper i's."""
        self.register_many([(k, i, loc) for k in keys])

    def register_many(self, entries: Sequence[tuple[str, int, int]]) -> None:
        """(key, paper, record) in the order they come: the first paper of a key keeps it."""
        later = self._later
        for (k, i, loc), found in zip(entries, self.found([e[0] for e in entries]), strict=True):
            if found is None and k not in later:
                later[k] = (i, loc)
        if len(later) >= FLUSH:
            self._flush()

    def _flush(self) -> None:
        """The dict's keys into a run, runs of like size merged (a few runs however many keys)."""
        later, self._later = self._later, {}
        hashes = np.fromiter((hash(k) & ALL for k in later), np.uint64, len(later))
        papers = np.fromiter((e[0] for e in later.values()), np.uint32, len(later))
        locs = np.fromiter((e[1] for e in later.values()), np.uint64, len(later))
        del later
        order = np.argsort(hashes, kind="stable")
        self._runs.append(_Run(hashes[order], papers[order], locs[order]))
        while len(self._runs) > 1 and self._runs[-2].hashes.size <= 2 * self._runs[-1].hashes.size:
            newer = self._runs.pop()
            self._runs[-1] = self._runs[-1].then(newer)

    def __bool__(self) -> bool:
        return bool(self._packed.size or self._runs or self._later)

    def __len__(self) -> int:
        """Keys held (a packed paper's keys counted once each; a test's measure of the mapping)."""
        return int(self._packed.size) + sum(r.hashes.size for r in self._runs) + len(self._later)


def _positions(
    table: npt.NDArray[np.uint64], queries: npt.NDArray[np.uint64], order: npt.NDArray[np.intp]
) -> npt.NDArray[np.intp]:
    """``searchsorted`` of the queries in the table, clipped to it, in the queries' own order.
    They are searched sorted (``order``: their argsort), so that each search starts where the
    one before ended: ~4x faster than in any order, on tables of millions."""
    at = np.empty(queries.size, np.intp)
    at[order] = np.searchsorted(table, queries[order])
    return at.clip(0, table.size - 1)


def _every_keys(corpus: Corpus, files: int, step: int = 1 << 14) -> Iterator[tuple[int, list[str]]]:
    """(paper, _keys_of it) for every paper in order: a run of one file's consecutive rows,
    each a paper of one record, read at once (the usual large file: all of it)."""
    at = np.frombuffer(corpus._at, np.uint64)
    for start in range(0, at.size, step):
        locs = at[start : start + step]
        first, n = int(locs[0]), locs.size
        alone = not any(i in corpus._more for i in range(start, start + n)) if corpus._more else True
        run = np.array_equal(locs, np.arange(first, first + n, dtype=np.uint64))
        if alone and run and first >> 32 < files:
            idents = identities(corpus.files[first >> 32], first & LOW, (first & LOW) + n)
            yield from ((i, ident.fold_keys()) for i, ident in enumerate(idents, start))
        else:
            yield from ((i, _keys_of(corpus, i, files)) for i in range(start, start + n))


def _keys_at(corpus: Corpus, loc: int) -> list[str]:
    return identity_of(corpus.files[loc >> 32], loc & LOW).fold_keys()


def _keys_of(corpus: Corpus, i: int, files: int) -> list[str]:
    """Paper i's fold keys from its records of the first ``files`` files (records are only ever
    added to a paper, from the files after those: these are the ones it had then)."""
    out: list[str] = []
    for loc in corpus._locs(i):
        if loc >> 32 < files:
            out += _keys_at(corpus, loc)
    return out


def fold_keys(corpus: Corpus, f: int) -> FoldKeys:
    """File f, a second one, comes: the fold keys of every paper so far (their rows read once)."""
    return FoldKeys(corpus, f)
