"""Rows by id for a file still being parsed (issue 21): what its parse cache's ``IdLookup``
gives once the parse ends, without a dict of every id meanwhile (~350 MB at 2.7M rows, which
put a first launch on a collection of several files at 2.7M over 1 GB).

Rows come in chunks as the parse goes; each chunk's id hashes become a sorted run, and runs of
like size are merged (a handful however many rows), 12 bytes a row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from tui_reader.corpus.strcol import U32, U64, hashes_of, id_hash


class GrowingLookup:
    """``IdLookup``'s ``candidates`` and ``among`` over the rows added so far."""

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: list[tuple[U64, U32]] = []  # (sorted hashes, their rows), older rows first

    def add(self, ids: Sequence[str], start: int) -> None:
        """Rows start, start+1, ... have these ids."""
        if not ids:
            return
        hashes = hashes_of(ids)
        order = np.argsort(hashes, kind="stable")
        self._runs.append((hashes[order], (order + start).astype(np.uint32)))
        while len(self._runs) > 1 and self._runs[-2][0].size <= 2 * self._runs[-1][0].size:
            newer = self._runs.pop()
            self._runs[-1] = _merged(self._runs[-1], newer)

    def __len__(self) -> int:
        return sum(int(h.size) for h, _ in self._runs)

    def candidates(self, pid: str) -> list[int]:
        """Rows whose id may be ``pid`` (same hash): the caller compares the strings."""
        h = np.uint64(id_hash(pid))
        found: list[int] = []
        for hashes, rows in self._runs:
            at, end = np.searchsorted(hashes, h), np.searchsorted(hashes, h, "right")
            found += rows[at:end].tolist()
        return found

    def among(self, hashes: U64) -> npt.NDArray[np.bool_]:
        """Which of ``hashes`` some added row has."""
        held = np.zeros(hashes.size, np.bool_)
        for ours, _ in self._runs:
            at = np.searchsorted(ours, hashes).clip(0, ours.size - 1)
            held |= ours[at] == hashes
        return held


def _merged(older: tuple[U64, U32], newer: tuple[U64, U32]) -> tuple[U64, U32]:
    hashes, rows = interleaved(older[0], newer[0], [(older[0], newer[0]), (older[1], newer[1])])
    return hashes, rows


def interleaved(
    older: U64, newer: U64, columns: Sequence[tuple[npt.NDArray[Any], npt.NDArray[Any]]]
) -> list[npt.NDArray[Any]]:
    """Two runs sorted by hash (``older``, ``newer``) as one, each (older, newer) pair of
    ``columns`` joined alike, the older run's entries first within a hash: the newer entries
    placed by where they fall, not sorted again (a sort's indexes cost ~3x the run at 2.7M)."""
    at = np.searchsorted(older, newer, "right") + np.arange(newer.size)
    mine = np.ones(older.size + newer.size, np.bool_)
    mine[at] = False
    out = []
    for theirs, ours in columns:
        both = np.empty(mine.size, theirs.dtype)
        both[mine], both[at] = theirs, ours
        out.append(both)
    return out
