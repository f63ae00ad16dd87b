"""The bulk segment's term table with a few bytes per term: the file Whoosh's OrderedHashWriter
writes, byte for byte, without its (hash, position) tuple per term (~120 bytes each in the
parent: ~500 MB at 2.7M papers, most of them ids).

Whoosh's table (whoosh.filedb.filetables): each key and value written in order, then 256 hash
tables of 2n slots filled by linear probing in insertion order, a directory, the extras and the
index of key positions. Here the hashes and positions are kept in arrays per bucket and the
tables are filled the same way (a loop per term, as Whoosh's is) at close.
"""

from __future__ import annotations

import struct
from array import array
from typing import Any

import numpy as np
from whoosh.filedb.filetables import OrderedHashWriter

POINTER = np.dtype([("hash", ">u4"), ("pos", ">i8")])  # filetables._pointer, "!Iq"
_LENGTHS = struct.Struct("!ii")  # filetables._lengths: key and value lengths before each pair


class CompactTable(OrderedHashWriter):
    """Takes over an OrderedHashWriter no key was added to (its header is written already)."""

    def __init__(self, writer: Any) -> None:
        if writer.index.array or any(writer.buckets):
            raise ValueError("the term table has keys already")
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
