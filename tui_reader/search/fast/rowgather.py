"""Equal-sized runs of bytes gathered as rows: columns.py's sections of full blocks, no index array.

A section of every block (docnum deltas, weights, length bytes, position counts) starts at its
own byte offset, so gathering them by fancy index first builds an int64 index per item (arange,
repeat, add: three passes over 8 bytes an item, freshly allocated memory each time) before the
one pass that reads them. Full blocks hold the same number of postings, so their sections are
the same size: viewed as rows of a sliding window over the list's bytes, they are gathered by
one row index per block (a copy of each run), and written where they go as rows of a strided
view of the output (a row starting at each item: the blocks' places never overlap). ~3x fewer
passes over memory than the index arrays, the same values (at 2.7M papers a word in 1.4M of
them: 41 -> 11 ms without positions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided


def put_rows(raw: np.ndarray, offsets: np.ndarray, items: np.ndarray, dtype: np.dtype[Any],
             out: np.ndarray, starts: np.ndarray) -> np.ndarray:  # fmt: skip
    """Write ``items[b]`` values of ``dtype`` at byte ``offsets[b]`` of ``raw`` (uint8) into
    ``out[starts[b]:]`` for the blocks whose run is the longest (full blocks); a boolean mask
    of the blocks it wrote (the rest are the caller's)."""
    done = np.zeros(offsets.size, bool)
    if offsets.size < 2:
        return done
    size = int(items.max())
    full = np.flatnonzero(items == size)
    if full.size < 2 or size <= 0:
        return done
    at = starts[full]
    nbytes = size * dtype.itemsize
    if int(offsets[full].max()) + nbytes > raw.size or int(at.max()) + size > out.size:
        raise ValueError("a posting block runs past its list")
    window = as_strided(raw, (raw.size - nbytes + 1, nbytes), (1, 1), writeable=False)
    values = window[offsets[full]].view(dtype)  # (blocks, size)
    # the output as overlapping rows, one starting at each item: row at[b] is block b's place
    target = as_strided(out, (out.size - size + 1, size), (out.itemsize, out.itemsize))
    target[at] = values
    done[full] = True
    return done
