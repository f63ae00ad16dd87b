"""One term's posting list written in pieces (the bulk build's merge, a word in most papers):
blocks encoded by ``listwriter.encode_lists`` a piece at a time, joined as Whoosh writes one list."""

from __future__ import annotations

from typing import BinaryIO

import numpy as np

from tui_reader.search.fast.codec import COUNT, DIRECTORY, LAST, MAGIC
from tui_reader.search.fast.columns import directory


class PieceJoiner:
    """One term's posting list written a piece at a time: each piece a whole number of blocks
    (``encode_lists`` of that term's postings from some index on), the pieces' blocks one after
    another as ``join_lists`` joins them, so a term in millions of papers is encoded with the
    memory of one piece. The blocks are Whoosh's (blocks never refer to earlier ones); the
    term's info sums the pieces' (``add``), weights in float64 as ``_infos`` sums them."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.start = out.tell()
        out.write(MAGIC)
        self._entries: list[np.ndarray] = []
        self._body = 0  # block bytes written after the magic
        self._info: np.ndarray | None = None
        self._weight = 0.0

    def add(self, buf: np.ndarray, info: np.ndarray, weight: float, final: bool) -> None:
        """A piece's list (``encode_lists``'s bytes and info for it alone) and its weights' sum."""
        raw = buf.tobytes()
        d = directory(raw).copy()
        body = bytearray(raw[len(MAGIC) : len(raw) - COUNT.size - len(d) * DIRECTORY.itemsize])
        if not final:
            body[int(d["offset"][-1]) - len(MAGIC) - 1] &= 0xFF ^ LAST  # flags: HEAD's last byte
            d["flags"][-1] &= 0xFF ^ LAST
        d["offset"] += self._body
        self.out.write(body)
        self._entries.append(d)
        self._body += len(body)
        self._weight += weight
        self._info = info.copy() if self._info is None else _summed(self._info, info)

    def finish(self) -> np.ndarray:
        """Write the directory; the term's info (TERMINFO_DTYPE, its offset from ``out``'s start)."""
        assert self._info is not None
        entries = np.concatenate(self._entries)
        self.out.write(entries.tobytes())
        self.out.write(COUNT.pack(entries.size))
        info = self._info
        info["weight"] = self._weight
        info["offset"] = self.start
        info["length"] = self.out.tell() - self.start
        return info


def _summed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The info of a list whose postings are a's then b's (weight and extent set by the caller)."""
    out = a.copy()
    out["df"] = a["df"] + b["df"]
    mins = [int(m) for m in (a["minlen"][0], b["minlen"][0]) if m]
    out["minlen"] = min(mins) if mins else 0
    out["maxlen"] = np.maximum(a["maxlen"], b["maxlen"])
    out["maxweight"] = np.maximum(a["maxweight"], b["maxweight"])
    out["maxid"] = b["maxid"]
    return out
