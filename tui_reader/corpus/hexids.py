"""Fixed-width ids compared in numpy (issue 21): lowercase hex ids as their exact 64-bit values,
others as bytes. The corpus's id checks and the index's manifest compare 2.7M ids so, with no
Python string or dict of them."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from tui_reader.corpus.strcol import U64

_NIBBLE = np.full(256, 255, np.uint8)
_NIBBLE[np.frombuffer(b"0123456789abcdef", np.uint8)] = np.arange(16, dtype=np.uint8)


def isin_ids(theirs: npt.NDArray[np.uint8], ours: npt.NDArray[np.uint8], width: int) -> npt.NDArray[np.bool_]:
    """Which of ``theirs`` (strings of ``width`` bytes, end to end) are among ``ours``: as exact
    64-bit integers when both are lowercase hex of at most 16 digits (the ids), else as bytes."""
    if width <= 16:
        ka, kb = hex_values(theirs, width), hex_values(ours, width)
        if ka is not None and kb is not None:
            return _among(ka, kb)
    return _among(theirs.view(f"S{width}"), ours.view(f"S{width}"))


CHUNK = 1 << 16  # ids turned into integers at once (a 2.7M whole as one needs ~700 MB of temporaries)


def hex_values(raw: npt.NDArray[np.uint8], width: int) -> U64 | None:
    """Strings of ``width`` (<= 16) lowercase hex digits, end to end or one a row, as their exact
    values, a chunk at a time; None if one is not hex (the index's manifest reads ids so too)."""
    rows = raw.reshape(-1, width)
    shifts = np.arange(width - 1, -1, -1, dtype=np.uint64) * np.uint64(4)
    out = np.empty(rows.shape[0], np.uint64)
    for start in range(0, rows.shape[0], CHUNK):
        nibbles = _NIBBLE[rows[start : start + CHUNK]]
        if (nibbles == 255).any():
            return None
        out[start : start + CHUNK] = (nibbles.astype(np.uint64) << shifts).sum(axis=1, dtype=np.uint64)
    return out


def _among(theirs: npt.NDArray[Any], ours: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """np.isin by sorting ours once (np.isin hashes: several times slower here)."""
    if not ours.size:
        return np.zeros(theirs.size, np.bool_)
    ours = np.sort(ours)
    at = np.searchsorted(ours, theirs).clip(0, ours.size - 1)
    return ours[at] == theirs  # type: ignore[no-any-return]
