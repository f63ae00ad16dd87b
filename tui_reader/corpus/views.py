"""The corpus's ids, titles and id -> paper lookup as views over its files' columns (issue 21).

A paper is a record's place (``Corpus._at``); its id and title are that record's, read from the
file's columns when asked, but for the few a merge changed (a renamed id, a generated title made
unique). ``IdIndex`` finds a paper by id through sorted 64-bit hashes (the file's own, from the
parse cache, when the corpus is one file) and a dict of the papers added since it was last built.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar, overload

import numpy as np

from tui_reader.corpus.strcol import U64, IdLookup, id_hash

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.corpus.parse_cache import FileData

T = TypeVar("T")
ROW = 0xFFFF_FFFF
BULK = 4096  # rows of a parsed file appended at once from which the hashes find them, not a dict
RECENT = 50_000  # papers in the dict from which finishing files them under their hashes


class _Papers(Sequence[str]):
    """A read-only sequence of one string per paper (slicing and iteration as a list's)."""

    __slots__ = ("_corpus", "_plain")

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._plain: tuple[tuple[int, ...], bool] = ((), False)

    def _one(self, i: int) -> str:
        raise NotImplementedError

    def _column(self, data: FileData) -> Sequence[str]:
        raise NotImplementedError

    def _is_plain(self) -> bool:
        """Whether the corpus is one file's rows as they are (then its column is read directly);
        remembered until the corpus changes."""
        c = self._corpus
        state = (len(c._at), len(c.files), len(c._renamed), len(c._titled), len(c._more), len(c._id_at))
        if self._plain[0] != state:
            self._plain = (state, c.plain())
        return self._plain[1]

    def __len__(self) -> int:
        return len(self._corpus._at)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step == 1 and self._is_plain():
                return list(self._column(self._corpus.files[0])[start:stop])
            return [self._one(k) for k in range(start, stop, step)]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("paper index out of range")
        return self._one(i)

    def __iter__(self) -> Iterator[str]:
        n = len(self)
        if self._is_plain():
            return iter(self._column(self._corpus.files[0]))
        return (self._one(i) for i in range(n))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self)) if len(self) <= 20 else f"<{len(self)} {type(self).__name__}>"


class PaperIds(_Papers):
    __slots__ = ()

    def _one(self, i: int) -> str:
        c = self._corpus
        new = c._renamed.get(i)
        if new is not None:
            return new
        loc = c.id_loc(i)
        return c.files[loc >> 32].ids[loc & ROW]

    def _column(self, data: FileData) -> Sequence[str]:
        return data.ids

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and pid in self._corpus.index_of


class PaperTitles(_Papers):
    __slots__ = ()

    def _one(self, i: int) -> str:
        c = self._corpus
        made = c._titled.get(i)
        if made is not None:
            return made
        loc = c._at[i]
        return c.files[loc >> 32].titles[loc & ROW]

    def _column(self, data: FileData) -> Sequence[str]:
        return data.titles


@dataclass(slots=True)
class _Runs:
    """Runs of a parsed file's rows appended as papers, found through the file's own lookup
    until the corpus files them: rows[k]..stops[k] are papers papers[k]..."""

    data: FileData
    rows: list[int] = field(default_factory=list)
    stops: list[int] = field(default_factory=list)
    papers: list[int] = field(default_factory=list)

    def find(self, pid: str, ids: Sequence[str]) -> int | None:
        assert self.data.lookup is not None
        for r in self.data.lookup.candidates(pid):
            k = bisect.bisect_right(self.rows, r) - 1
            if k >= 0 and r < self.stops[k]:
                paper = self.papers[k] + r - self.rows[k]
                if ids[paper] == pid:
                    return paper
        return None


class IdIndex(Mapping[str, int]):
    """id -> paper: sorted hashes of the papers filed so far, runs of large parsed files appended
    since (their own lookups), and a dict of the other papers added since."""

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._filed: IdLookup | None = None
        self._recent: dict[str, int] = {}
        self._runs: dict[int, _Runs] = {}  # file -> its runs appended, not filed yet

    # -- filling (Corpus.grow) ----------------------------------------------------------------
    def added(self, n: int, f: int, data: FileData, start: int, stop: int) -> None:
        """Rows start..stop of file f became papers n, n+1, ... (their ids none of the corpus's)."""
        if data.lookup is not None and len(data) >= BULK:
            runs = self._runs.setdefault(f, _Runs(data))
            runs.data = data  # the file read again is the same rows (Corpus.grow)
            runs.rows.append(start)
            runs.stops.append(stop)
            runs.papers.append(n)
        else:
            self._recent.update(zip(data.ids[start:stop], range(n, n + stop - start), strict=True))

    def put(self, pid: str, i: int) -> None:
        self._recent[pid] = i

    def freeze(self, always: bool = False) -> None:
        """File every paper under its hash (the dict emptied), when worth it or ``always``."""
        if not (always or self._runs or len(self._recent) >= RECENT):
            return
        c = self._corpus
        one = c.files[0].lookup if c.files else None
        if one is not None and c.plain():
            self._filed = one  # one file as it is: its own lookup, nothing computed
        else:
            self._filed = IdLookup.of_hashes(self._hashes())
        self._recent = {}
        self._runs = {}

    def _hashes(self) -> U64:
        """Each paper's id hash: a file's own where it has them, else computed."""
        c = self._corpus
        n = len(c._at)
        locs = np.frombuffer(c._at, np.uint64).copy()
        for i, loc in c._id_at.items():
            locs[i] = loc
        out = np.zeros(n, np.uint64)
        files = locs >> np.uint64(32)
        rows = (locs & np.uint64(ROW)).astype(np.int64)
        order = np.argsort(files, kind="stable")
        bounds = np.searchsorted(files[order], np.arange(len(c.files) + 1, dtype=np.uint64))
        for f, data in enumerate(c.files):
            papers = order[bounds[f] : bounds[f + 1]]
            if not papers.size:
                continue
            if data.lookup is not None:
                out[papers] = data.lookup.by_row()[rows[papers]]
            else:
                out[papers] = [id_hash(data.ids[r]) for r in rows[papers]]
        for i, pid in c._renamed.items():
            out[i] = id_hash(pid)
        return out

    def hashes_held(self, hashes: U64) -> np.ndarray:
        """Which of these id hashes some paper's id may have (compare the strings)."""
        self.freeze(always=True)
        assert self._filed is not None
        return self._filed.among(hashes)

    # -- the mapping ---------------------------------------------------------------------------
    @overload
    def get(self, pid: str, /) -> int | None: ...
    @overload
    def get(self, pid: str, default: int | T, /) -> int | T: ...
    def get(self, pid: str, default: object = None, /) -> object:
        found = self._recent.get(pid)
        if found is not None:
            return found
        ids, n = self._corpus.ids, len(self._corpus)
        for runs in list(self._runs.values()):
            paper = runs.find(pid, ids)
            if paper is not None:
                return paper
        if self._filed is not None:
            for row in self._filed.candidates(pid):
                if row < n and ids[row] == pid:
                    return row
        return default

    def __getitem__(self, pid: str) -> int:
        found = self.get(pid)
        if found is None:
            raise KeyError(pid)
        return found

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and self.get(pid) is not None

    def __len__(self) -> int:
        return len(self._corpus)

    def __iter__(self) -> Iterator[str]:
        return iter(self._corpus.ids)
