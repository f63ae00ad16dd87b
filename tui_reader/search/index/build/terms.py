"""The bulk segment's term table with a few bytes per term: the file Whoosh's OrderedHashWriter
writes, byte for byte, without its (hash, position) tuple per term (~120 bytes each in the
parent: ~500 MB at 2.7M papers, most of them ids).

Whoosh's table (whoosh.filedb.filetables): each key and value written in order, then 256 hash
tables of 2n slots filled by linear probing in insertion order, a directory, the extras and the
index of key positions. Here the hashes and positions are kept in arrays per bucket and the
tables are filled the same way (a loop per term, as Whoosh's is) at close.
"""

from __future__ import annotations

import operator
import struct
from array import array
from hashlib import md5
from typing import Any

import numpy as np
from whoosh.filedb.filetables import OrderedHashWriter, md5_hash

from tui_reader.search.fast import w3

POINTER = np.dtype([("hash", ">u4"), ("pos", ">i8")])  # filetables._pointer, "!Iq"
_LENGTHS = struct.Struct("!ii")  # filetables._lengths: key and value lengths before each pair
MANY = 16_384  # terms add_many writes at a time
_LIMITS = {"B": 2**8, "H": 2**16, "i": 2**31, "I": 2**32}  # GrowableArray's typecodes and their bounds


class CompactTable(OrderedHashWriter):
    """Takes over an OrderedHashWriter no key was added to (its header is written already)."""

    def __init__(self, writer: Any) -> None:
        if writer.index.array or any(writer.buckets):
            raise ValueError("the term table has keys already")
        if writer.hashfn is not md5_hash:  # what an OrderedHashWriter always uses: add_many's
            raise ValueError("the term table hashes its keys with another function")
        self.__dict__.update(writer.__dict__)
        self.buckets: list[list[Any]] = [[] for _ in range(256)]  # unused: the arrays hold them
        self._hashes = [array("I") for _ in range(256)]
        self._positions = [array("q") for _ in range(256)]
        self.lastkey: bytes = writer.lastkey

    def add(self, key: bytes, value: bytes) -> None:
        if key <= self.lastkey:
            raise ValueError(f"Keys must increase: {self.lastkey!r}..{key!r}")
        dbfile = self.dbfile
        pos = dbfile.tell()
        self.index.append(pos)
        dbfile.write(_LENGTHS.pack(len(key), len(value)))
        dbfile.write(key)
        dbfile.write(value)
        h = self.hashfn(key)
        self._hashes[h & 255].append(h)
        self._positions[h & 255].append(pos)
        self.lastkey = key

    def add_many(self, prefix: bytes, terms: list[bytes], values: bytes, size: int) -> None:
        """``add(prefix + term, value)`` for each term in turn (``values``: ``size`` bytes each), a
        merge task's terms a MANY at a time: the same bytes, positions and hashes, no calls per
        term, and the bytes of at most MANY terms made at once (a task has up to 400k ids)."""
        if len(values) != size * len(terms):
            raise ValueError(f"{len(values)} bytes of values for {len(terms)} terms of {size}")
        for lo in range(0, len(terms), MANY):
            self._add_run(prefix, terms[lo : lo + MANY], values[lo * size : (lo + MANY) * size], size)

    def _add_run(self, prefix: bytes, terms: list[bytes], values: bytes, size: int) -> None:
        keys = [prefix + t for t in terms]
        if keys[0] <= self.lastkey or not all(map(operator.lt, keys, keys[1:])):
            raise ValueError(f"Keys must increase: {self.lastkey!r}..{keys[0]!r} ..")
        dbfile = self.dbfile
        start = dbfile.tell()
        sizes = list(map(len, keys))
        parts: list[bytes] = [b""] * (3 * len(keys))
        parts[0::3] = [_LENGTHS.pack(n, size) for n in sizes]
        parts[1::3] = keys
        parts[2::3] = [values[i : i + size] for i in range(0, len(values), size)]
        dbfile.write(b"".join(parts))
        ends = np.cumsum(np.asarray(sizes, np.int64) + (_LENGTHS.size + size))
        positions = start + np.concatenate(([0], ends[:-1]))
        self._index_extend(positions)
        hashes = np.asarray(self._hashed(keys), np.uint32)
        buckets = hashes & 255
        order = np.argsort(buckets, kind="stable")  # each bucket's keys in the order added
        edges = np.searchsorted(buckets[order], np.arange(257))
        hashes, positions = hashes[order], positions[order]
        for b in np.flatnonzero(np.diff(edges)).tolist():
            lo, hi = edges[b], edges[b + 1]
            self._hashes[b].frombytes(hashes[lo:hi].astype(np.uint32).tobytes())
            self._positions[b].frombytes(positions[lo:hi].astype(np.int64).tobytes())
        self.lastkey = keys[-1]

    @staticmethod
    def _hashed(keys: list[bytes]) -> list[int]:
        """md5_hash of each key: its low 32 bits are the digest's last 4 bytes."""
        return [int.from_bytes(md5(k, usedforsecurity=False).digest()[12:], "big") for k in keys]

    def _index_extend(self, positions: np.ndarray) -> None:
        """GrowableArray.extend: widened once to the type its appends would end in (positions ascend)."""
        index = self.index
        if isinstance(index.array, array) and int(positions[-1]) >= _LIMITS.get(index.array.typecode, 2**63):
            w3.widen(index, int(positions[-1]))
        index.array.extend(positions.tolist())

    def _write_hashes(self) -> None:
        """HashWriter._write_hashes from the arrays: the same slots, the same bytes."""
        dbfile = self.dbfile
        for hashes, positions in zip(self._hashes, self._positions, strict=True):
            pos = dbfile.tell()
            numslots = 2 * len(hashes)
            self.directory.append((pos, numslots))
            table = np.zeros(numslots, POINTER)
            if numslots:
                slots = _probed(hashes, numslots)
                table["hash"][slots] = hashes
                table["pos"][slots] = positions
            dbfile.write(table.tobytes())
        self._hashes = self._positions = []


def _probed(hashes: array, numslots: int) -> list[int]:
    """Each entry's slot, filled in order: (hash >> 8) % numslots, then the next free one."""
    taken = bytearray(numslots)
    out = []
    for h in hashes:
        slot = (h >> 8) % numslots
        while taken[slot]:
            slot = (slot + 1) % numslots
        taken[slot] = 1
        out.append(slot)
    return out
