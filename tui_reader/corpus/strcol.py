"""Per-paper strings and the id lookup without a Python object per paper (issue 21).

At 2.7M papers a list of str costs ~60-140 bytes a string and a dict id -> row ~100 bytes an
entry: most of the reader's memory. Here a file's ids (or titles) are one UTF-8 blob and an
offsets array, decoded one string at a time, and an id is found through a sorted array of 64-bit
hashes (then compared as a string, so a hash collision never confuses two papers). Both are
written into the parse cache and memory-mapped from it: a start reads no per-paper Python.
"""

from __future__ import annotations

import bisect
import hashlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
Buffer = bytes | bytearray | memoryview


def _decode(raw: Buffer) -> str:
    return str(raw, "utf-8", "surrogatepass")


def id_hash(pid: str) -> int:
    """The 64-bit hash an id is filed under (stable across processes: it is stored)."""
    digest = hashlib.blake2b(pid.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def hashes_of(strings: Iterable[str]) -> U64:
    return np.fromiter((id_hash(s) for s in strings), np.uint64)


class _Strings(Sequence[str]):
    """Reads of strings kept as one UTF-8 blob and n+1 offsets (``_blob``, ``_ends``)."""

    __slots__ = ("_blob", "_ends")
    _blob: Buffer
    _ends: Sequence[int]

    def __len__(self) -> int:
        return len(self._ends) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            return self._run(start, stop)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("column index out of range")
        return _decode(self._blob[self._ends[i] : self._ends[i + 1]])

    def _run(self, start: int, stop: int) -> list[str]:
        """Strings start..stop, the bytes decoded once when they are ASCII (the usual title)."""
        if start >= stop:
            return []
        ends = self._ends
        base = ends[start]
        raw = self._blob[base : ends[stop]]
        text = _decode(raw)
        if len(text) == len(raw):  # ASCII: byte offsets are character offsets
            return [text[ends[k] - base : ends[k + 1] - base] for k in range(start, stop)]
        return [_decode(self._blob[ends[k] : ends[k + 1]]) for k in range(start, stop)]

    def __iter__(self) -> Iterator[str]:
        step = 20_000
        for start in range(0, len(self), step):
            yield from self._run(start, min(start + step, len(self)))

    def __eq__(self, other: object) -> bool:
        return same_strings(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} strings)"


class StrColumn(_Strings):
    """Strings as one UTF-8 blob and n+1 offsets: ``column[i]`` decodes one, a slice or an
    iteration decodes a run at once; compares equal to a list of the same strings."""

    __slots__ = ()
    _blob: memoryview

    def __init__(self, blob: Buffer, ends: Sequence[int]) -> None:
        self._blob = memoryview(blob)
        self._ends = ends  # n+1 byte offsets into blob

    @classmethod
    def of(cls, strings: Iterable[str]) -> StrColumn:
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        ends = np.zeros(len(encoded) + 1, np.uint64)
        np.cumsum(np.fromiter(map(len, encoded), np.uint64, len(encoded)), out=ends[1:])
        return cls(b"".join(encoded), ends.data.cast("B").cast("Q"))

    @property
    def blob(self) -> memoryview:
        return self._blob

    def width(self) -> int | None:
        """The byte length every string has, when they all have one and are ASCII (ids)."""
        ends = self.offsets()
        if not len(self):
            return None
        lengths = np.diff(ends)
        first = int(lengths[0])
        if first == 0 or not bool((lengths == first).all()):
            return None
        return first if bool((np.frombuffer(self._blob, np.uint8) < 128).all()) else None

    def offsets(self) -> U64:
        return np.frombuffer(self._ends, np.uint64)  # type: ignore[call-overload, no-any-return]


class StrBuilder(_Strings):
    """A StrColumn being filled (a file's ids or titles while it is parsed): no str object per
    string kept, readable while it grows. Reads copy their bytes out of the bytearray (a
    memoryview of it would forbid it to grow); ``column()`` hands the blob over, no copy."""

    __slots__ = ()
    _blob: bytearray
    _ends: array[int]

    def __init__(self) -> None:
        self._blob = bytearray()
        self._ends = array("Q", [0])

    def append(self, s: str) -> None:
        self._blob += s.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._blob))  # after the bytes: a reader never sees a short string

    def column(self) -> StrColumn:
        """The strings so far as a StrColumn over the same buffers (no more appends then)."""
        return StrColumn(self._blob, memoryview(self._ends))


def same_strings(column: Sequence[str], other: object) -> bool:
    """A string column's ``==``: equal to any sequence (a list, another column) holding the same
    strings, as the lists these columns replaced were."""
    if isinstance(other, Sequence) and not isinstance(other, str | bytes):
        return len(column) == len(other) and all(a == b for a, b in zip(column, other, strict=True))
    return NotImplemented  # type: ignore[no-any-return]


class IdLookup:
    """Rows by id: sorted 64-bit hashes and the row of each (rows of one hash in row order)."""

    __slots__ = ("_by_row", "_h", "_r", "hashes", "rows")

    def __init__(self, hashes: U64, rows: U32) -> None:
        self.hashes = hashes
        self.rows = rows
        self._by_row: U64 | None = None
        self._h: Sequence[int] = np.ascontiguousarray(hashes, np.uint64).data.cast("B").cast("Q")
        self._r: Sequence[int] = np.ascontiguousarray(rows, np.uint32).data.cast("B").cast("I")

    @classmethod
    def of_hashes(cls, hashes: U64) -> IdLookup:
        order = np.argsort(hashes, kind="stable")
        return cls(hashes[order], order.astype(np.uint32))

    @classmethod
    def of(cls, ids: Iterable[str]) -> IdLookup:
        return cls.of_hashes(hashes_of(ids))

    def __len__(self) -> int:
        return int(self.hashes.size)

    def candidates(self, pid: str) -> list[int]:
        """Rows whose id may be ``pid`` (same hash): the caller compares the strings."""
        h = id_hash(pid)
        hashes, rows = self._h, self._r
        at = bisect.bisect_left(hashes, h)  # on Python ints: no numpy call per look-up
        found: list[int] = []
        while at < len(hashes) and hashes[at] == h:
            found.append(rows[at])
            at += 1
        return found

    def by_row(self) -> U64:
        """Each row's hash, in row order."""
        if self._by_row is None:
            out = np.empty(self.hashes.size, np.uint64)
            out[self.rows] = self.hashes
            self._by_row = out
        return self._by_row

    def repeated(self) -> U32:
        """Rows sharing their hash with an earlier row (maybe a repeated id: compare)."""
        same = self.hashes[1:] == self.hashes[:-1]
        return self.rows[1:][same]  # type: ignore[no-any-return]

    def among(self, hashes: U64) -> npt.NDArray[np.bool_]:
        """Which of ``hashes`` this lookup holds."""
        if not self.hashes.size or not hashes.size:
            return np.zeros(hashes.size, np.bool_)
        at = np.searchsorted(self.hashes, hashes).clip(0, self.hashes.size - 1)
        return self.hashes[at] == hashes  # type: ignore[no-any-return]


def section(buffer: Any, dtype: npt.DTypeLike, offset: int, count: int) -> Any:
    """A typed array over part of a buffer (a memory map or bytes), no copy."""
    return np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
