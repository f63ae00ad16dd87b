"""Opening the index without copying it: Whoosh's segment files read in place from a memory map.

Whoosh maps a compound segment (``.seg``), then wraps each file inside it in a ``BufferFile``,
whose ``BytesIO(buf)`` copies the file: opening an 87k index copied its 107 MB of postings and
29 MB of terms into the heap (0.25 s, and every page of the map touched as well), so the
process held the index twice. Here the segment is mapped once and each file inside it is a
window on the map; the pages a search reads are all that come into memory, and the operating
system may drop them again.

The files behave as Whoosh's do (its ``StructFile`` reading methods over a position of their
own); only ``read``/``seek``/``tell`` and ``read_pickle`` are reimplemented, on the window.
Beside w3.py, the other module that knows Whoosh's file layer.
"""

from __future__ import annotations

import contextlib
import mmap
import pickle
import struct
from io import BytesIO
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import BufferFile, StructFile

COMPOUND_EXT = ".seg"  # W3Segment.COMPOUND_EXT
_INT = struct.Struct("!i")  # whoosh.system.unpack_int
_PICKLE_WINDOW = 256  # bytes a block's info pickle fits in (a larger one widens the window)


class MappedStorage(FileStorage):
    """A FileStorage whose compound segments are read from a memory map, without a copy.

    ``supports_mmap=False`` makes Whoosh's CompoundStorage ask the segment's own file for each
    file inside it (``subset``) instead of copying it out of its own map."""

    def __init__(self, path: str, readonly: bool = False) -> None:
        super().__init__(path, supports_mmap=False, readonly=readonly)

    def open_file(self, name: str, **kwargs: Any) -> StructFile:
        f = super().open_file(name, **kwargs)
        if not name.endswith(COMPOUND_EXT):
            return f
        try:
            return _SegmentFile(f, name)
        except (OSError, ValueError):  # cannot be mapped (an empty file, no address space)
            return f


class _SegmentFile(StructFile):
    """A compound segment file, mapped once; ``subset`` gives a window on the map."""

    def __init__(self, f: StructFile, name: str) -> None:
        super().__init__(f.file, name=name, onclose=f.onclose)
        self._map = mmap.mmap(f.file.fileno(), 0, access=mmap.ACCESS_READ)

    def subset(self, offset: int, length: int, name: str | None = None) -> StructFile:
        return MappedFile(memoryview(self._map)[offset : offset + length], name=name or self._name)

    def close(self) -> None:
        with contextlib.suppress(BufferError):  # windows still open: the map goes with the last
            self._map.close()
        super().close()


class _Window:
    """A read-only, seekable file over a buffer, with no copy of it."""

    __slots__ = ("buf", "pos", "size")

    def __init__(self, buf: memoryview) -> None:
        self.buf = buf
        self.pos = 0
        self.size = len(buf)

    def read(self, n: int | None = -1) -> bytes:
        start = self.pos
        end = self.size if n is None or n < 0 else min(start + n, self.size)
        self.pos = max(start, end)
        return bytes(self.buf[start:end])

    def readline(self, limit: int | None = -1) -> bytes:
        start = self.pos
        end = self.size if limit is None or limit < 0 else min(start + limit, self.size)
        chunk = bytes(self.buf[start:end])
        cut = chunk.find(b"\n")
        if cut >= 0:
            chunk = chunk[: cut + 1]
        self.pos = start + len(chunk)
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        base = 0 if whence == 0 else self.pos if whence == 1 else self.size
        self.pos = max(0, base + offset)
        return self.pos

    def tell(self) -> int:
        return self.pos

    def __iter__(self) -> Any:
        return iter(self.readline, b"")

    def close(self) -> None:
        self.buf = memoryview(b"")
        self.size = self.pos = 0


class MappedFile(BufferFile):
    """Whoosh's BufferFile over a window of the map, minus its copy of the window."""

    def __init__(self, buf: memoryview, name: str | None = None, onclose: Any = None) -> None:
        self._buf = buf
        self._name = name
        self.onclose = onclose
        self.is_real = False
        self.is_closed = False
        self.file = window = _Window(buf)
        # the calls Whoosh makes per posting block go straight to the window
        self.read = window.read
        self.seek = window.seek
        self.tell = window.tell

    def read_int(self) -> int:
        window = self.file
        at = window.pos
        if at + 4 > window.size:
            return super().read_int()  # raises as Whoosh's would, on a short read
        window.pos = at + 4
        return _INT.unpack_from(self._buf, at)[0]

    def read_pickle(self) -> Any:
        """pickle.load from the position, through a small copied window (a pickle says where it
        ends only once read: the window widens until it holds one)."""
        window, start = self.file, self.file.pos
        size = _PICKLE_WINDOW
        while True:
            chunk = BytesIO(self._buf[start : start + size])
            try:
                obj = pickle.load(chunk)
            except Exception:
                if start + size >= window.size:
                    raise
                size *= 8
                continue
            window.pos = start + chunk.tell()
            return obj

    def close(self) -> None:
        if self.is_closed:
            raise Exception("This file is already closed")  # as StructFile.close says it
        if self.onclose:
            self.onclose(self)
        self.file.close()
        self._buf = memoryview(b"")
        self.is_closed = True
