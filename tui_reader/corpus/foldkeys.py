"""Fold key -> the first paper that has it, once a second file comes (corpus.py), without a dict
of every earlier paper's keys (issue 21: ~600 MB at 2.7M papers).

The keys of the papers listed when the second file came are kept as one sorted uint64 array of
(32-bit hash << 32 | paper); a look-up reads the records of the papers under its hash again and
compares the strings, so a collision never joins two works. Keys registered later (the new
files' records) go in a dict, after those: the answers a dict filled in the same order gave.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

import numpy as np

from tui_reader.corpus.folding import identity_of

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

LOW = 0xFFFF_FFFF
# Papers listed when a second file comes from which their keys are kept as hashes, not a dict
# (a dict look-up costs ~0.1 us, a hashed one ~3 us: a second file of 87k rows loses ~1 s)
ARRAY_FROM = 200_000


class FoldKeys:
    """The mapping corpus.py reads: ``k in keys``, ``keys[k]``, ``get``, ``setdefault``."""

    def __init__(self, corpus: Corpus, files: int) -> None:
        self._corpus = corpus
        self._files = files  # the records of the files before the second one came: hashed
        packed = array("Q")
        for i in range(len(corpus._at)):
            for k in _keys_of(corpus, i, self._files):
                packed.append((hash(k) & LOW) << 32 | i)
        self._packed = np.frombuffer(packed, np.uint64).copy() if packed else np.zeros(0, np.uint64)
        del packed
        self._packed.sort()  # by hash, then paper: the first paper of a key first
        self._later: dict[str, int] = {}

    def get(self, k: str, default: int | None = None) -> int | None:
        h = np.uint64((hash(k) & LOW) << 32)
        at = int(np.searchsorted(self._packed, h))
        end = int(np.searchsorted(self._packed, h + np.uint64(LOW), "right"))
        for j in range(at, end):
            i = int(self._packed[j]) & LOW
            if k in _keys_of(self._corpus, i, self._files):
                return i
        return self._later.get(k, default)

    def setdefault(self, k: str, i: int) -> int:
        found = self.get(k)
        if found is None:
            self._later[k] = found = i
        return found

    def __contains__(self, k: object) -> bool:
        return isinstance(k, str) and self.get(k) is not None

    def __getitem__(self, k: str) -> int:
        found = self.get(k)
        if found is None:
            raise KeyError(k)
        return found

    def __bool__(self) -> bool:
        return bool(self._packed.size or self._later)


def _keys_of(corpus: Corpus, i: int, files: int) -> list[str]:
    """Paper i's fold keys from its records of the first ``files`` files (records are only ever
    added to a paper, from the files after those: these are the ones it had then)."""
    out: list[str] = []
    for loc in corpus._locs(i):
        if loc >> 32 < files:
            out += identity_of(corpus.files[loc >> 32], loc & LOW).fold_keys()
    return out


def fold_keys(corpus: Corpus, f: int) -> FoldKeys | dict[str, int]:
    """File f, a second one, comes: the fold keys of every paper so far (their rows read once),
    as hashes from ARRAY_FROM papers, else a dict."""
    if len(corpus._at) >= ARRAY_FROM:
        return FoldKeys(corpus, f)
    keys: dict[str, int] = {}
    for i in range(len(corpus._at)):
        for k in _keys_of(corpus, i, f):
            keys.setdefault(k, i)
    return keys
