"""Run files read by pread (issue 21): slices, terms and ``find`` answer as the whole arrays do."""

from __future__ import annotations

from bisect import bisect_left
from pathlib import Path

import numpy as np
import pytest

from tui_reader.search.index.build.runs import FENCE, Columns, Run, RunWriter


def _written(tmp_path: Path, terms: list[bytes]) -> Run:
    rng = np.random.default_rng(7)
    df = rng.integers(1, 4, len(terms)).astype(np.int64)
    postings = int(df.sum())
    cols = Columns(
        df,
        rng.integers(0, 1000, postings).astype(np.uint32),
        np.ones(postings, np.uint32),
        positions=rng.integers(0, 50, postings).astype(np.uint32),
    )
    writer = RunWriter(tmp_path / "run", 0, 1000)
    writer.field("abstract", 4, terms, cols)
    none = np.zeros(0, np.uint32)
    writer.field("empty", 4, [], Columns(np.zeros(0, np.int64), none, none))
    writer.close()
    return Run(writer.table)


# Sorted, with NUL bytes, shared prefixes, a term that is a prefix of the next, multi-byte UTF-8.
WORDS = {f"w{i:05d}".encode() for i in range(0, 3 * FENCE + 7)}
TERMS = sorted(WORDS | {b"a", b"a\x00", b"a\x00b", "é".encode()})


def test_find_answers_as_bisect_over_every_term(tmp_path: Path) -> None:
    run = _written(tmp_path, TERMS)
    probes = [b"", b"\x00", b"zzz", *TERMS, *(t + b"\x00" for t in TERMS), *(t[:-1] for t in TERMS)]
    for term in probes:
        assert run.find("abstract", term) == bisect_left(TERMS, term), term
    assert run.find("abstract", None) == 0
    assert run.find("abstract", None, end=True) == len(TERMS)
    assert run.find("empty", b"w", end=True) == 0


def test_terms_and_slices_are_the_arrays(tmp_path: Path) -> None:
    run = _written(tmp_path, TERMS)
    n = len(TERMS)
    for lo, hi in [(0, n), (0, 1), (FENCE - 1, FENCE + 1), (n - 1, n), (5, 5), (9, 3)]:
        assert run.terms("abstract", lo, hi) == TERMS[lo:hi]
    starts = run.starts("abstract")
    assert starts.size == n + 1 and int(starts[-1]) == int(run.array("abstract", "df").sum())
    with run.opened():
        for a, b in [(0, None), (3, 10), (-1, None), (n - 2, n + 5), (7, 2)]:
            assert np.array_equal(run.starts("abstract", a, b), starts[a:b])
    assert run.read("empty", "docs").size == 0


def test_a_short_run_file_is_an_error_not_zeros(tmp_path: Path) -> None:
    run = _written(tmp_path, TERMS)
    path = Path(run.table["path"])
    path.write_bytes(path.read_bytes()[:-24])  # the empty field's 16 bytes and 8 of the positions
    with pytest.raises(EOFError):
        run.read("abstract", "positions")
