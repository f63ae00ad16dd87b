"""What each record of a file comes to (a row, skipped, malformed, failed), in the file's order,
worked out in worker processes for a large JSON Lines file.

Normalising a record (text, LaTeX, names, identity) is ~0.1-0.3 ms of Python, so the arXiv
snapshot's 2.7M records are minutes on one core. A file past PARALLEL_BYTES is read and split by
the loading process, its records normalised in batches by ``workers()`` processes (spawned: the
reader has threads), and the answers consumed in the file's order, so the rows, ids, warnings and
streaming to the list are exactly what one process gives (``tests/corpus/test_outcomes.py``). A
worker that dies leaves its batches to the loading process.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from tui_reader.corpus.formats import Record
    from tui_reader.corpus.paper import Paper

logger = logging.getLogger("tui_reader.corpus")
PARALLEL_BYTES = 32 * 2**20  # a JSON Lines file this large (on disk) is normalised by workers
BATCH = 2_000  # records a worker normalises at a time
FIRST = 256  # the first batch, normalised and passed on here before any worker starts (STREAM_ROWS)
WORKERS_ENV = "TUI_READER_PARSE_WORKERS"  # 0 or 1: one process (tests, measuring)

# (kind, ...): ("row", blob, id, title, generated) | ("reuse", j) | ("malformed", where)
# | ("failed", what) | ("skipped",)
Outcome = tuple[object, ...]
Keyed = Iterator[tuple[bytes, Outcome]]


def encode(paper: Paper) -> bytes:
    """A paper as the parse cache keeps it: one JSON row."""
    row: list[object] = [
        paper.id,
        paper.title,
        paper.abstract,
        paper.authors,
        paper.venue,
        paper.year,
        paper.url,
        paper.title_generated,
    ]
    extra = paper.extra()
    if extra:
        row.append(extra)
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def failure(n: int, payload: object, exc: Exception) -> str:
    where = (
        f"line {payload[0]}" if isinstance(payload, tuple) and isinstance(payload[0], int) else f"record {n}"
    )
    why = "nested too deeply" if isinstance(exc, RecursionError) else exc.__class__.__name__
    return f"{where}: {why}"


def build(path: Path, payload: object) -> Paper | None:
    """formats.build, imported when a file is first read (a start from the cache reads none)."""
    from tui_reader.corpus.formats import build as built

    return built(path, payload)


def outcome(path: Path, n: int, payload: object) -> Outcome:
    """Record ``n`` (from 1) of ``path``: one bad record never stops the file."""
    from tui_reader.corpus.formats import MalformedRecord

    try:
        paper = build(path, payload)
        if paper is None:
            return ("skipped",)
        return ("row", encode(paper), paper.id, paper.title, paper.title_generated)
    except MalformedRecord as exc:
        return ("malformed", exc.where)
    except Exception as exc:  # nested too deeply, ...
        return ("failed", failure(n, payload, exc))


def _batch(path: Path, items: list[tuple[int, object]]) -> list[Outcome]:
    return [outcome(path, n, payload) for n, payload in items]


def prepare(given: Iterable[str | Path]) -> None:
    """Start multiprocessing's resource tracker now, while stderr is the process's own: once
    Textual captures stderr (its fileno() is -1) starting it raises, and workers could not start.
    Only where a given file (or one at the top of a given folder) is large enough for workers:
    a reader on the seeds starts no extra process."""
    if not any(_large(Path(p)) for p in given):
        return
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()


def _large(path: Path) -> bool:
    with contextlib.suppress(OSError):
        if path.is_dir():
            return any(e.is_file() and e.stat().st_size >= PARALLEL_BYTES for e in os.scandir(path))
        return path.stat().st_size >= PARALLEL_BYTES
    return False


def workers(path: Path) -> int:
    """Processes to normalise ``path`` with (1: this one)."""
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given.isdigit():
        return max(1, int(given))
    try:
        large = path.stat().st_size >= PARALLEL_BYTES
    except OSError:
        large = False
    return min(os.cpu_count() or 1, 4) if large else 1


Stream = Iterable["Record"]


@dataclass(slots=True)
class _Batch:
    keys: list[bytes] = field(default_factory=list)
    reused: list[int | None] = field(default_factory=list)  # the earlier row of each, or None
    items: list[tuple[int, object]] = field(default_factory=list)  # (record number, payload) to build
    future: Future[list[Outcome]] | None = None  # None: built by this process when its turn comes


def outcomes(path: Path, stream: Stream, reuse: dict[bytes, int], procs: int) -> Keyed:
    """(key, outcome) for each record of ``stream``, in order; a record whose raw bytes an earlier
    parse saw is ("reuse", its row then)."""
    pool = _pool(path, procs) if procs > 1 else None
    if pool is not None:
        with pool:
            yield from _parallel(path, stream, reuse, pool, procs)
        return
    for n, (key, payload) in enumerate(stream, 1):
        j = reuse.get(key)
        yield key, (("reuse", j) if j is not None else outcome(path, n, payload))


def _pool(path: Path, procs: int) -> ProcessPoolExecutor | None:
    """Worker processes, or None (one process) where they cannot start (a stderr whose fileno()
    is -1 stops multiprocessing's resource tracker: see ``prepare``)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(max_workers=procs, mp_context=multiprocessing.get_context("spawn"))
    except (OSError, ValueError) as exc:
        logger.warning("parsing %s in one process: the workers cannot start (%r)", path, exc)
        return None


def _parallel(
    path: Path, stream: Stream, reuse: dict[bytes, int], pool: ProcessPoolExecutor, procs: int
) -> Keyed:
    from concurrent.futures.process import BrokenProcessPool

    pending: deque[_Batch] = deque()
    working = True  # False once the workers cannot start or have died: this process builds the rest
    for number, batch in enumerate(_batches(stream, reuse)):
        if not number:  # the first rows, on screen before more is read or any worker starts
            yield from _drain(path, batch)
            continue
        if batch.items and working:
            try:
                batch.future = pool.submit(_batch, path, batch.items)
            except (BrokenProcessPool, OSError, ValueError) as exc:  # ValueError: a bad fd to pass
                logger.warning("parsing %s in one process: the workers did not start (%r)", path, exc)
                working = False
        pending.append(batch)
        while len(pending) > 2 * procs:
            yield from _drain(path, pending.popleft())
    while pending:
        yield from _drain(path, pending.popleft())


def _drain(path: Path, batch: _Batch) -> Keyed:
    from concurrent.futures.process import BrokenProcessPool

    try:
        built = batch.future.result() if batch.future is not None else _batch(path, batch.items)
    except BrokenProcessPool:  # a worker died: this process does the batch
        built = _batch(path, batch.items)
    fresh = iter(built)
    for key, j in zip(batch.keys, batch.reused, strict=True):
        yield key, (("reuse", j) if j is not None else next(fresh))


def _batches(stream: Stream, reuse: dict[bytes, int]) -> Iterator[_Batch]:
    batch = _Batch()
    for n, (key, payload) in enumerate(stream, 1):
        j = reuse.get(key)
        batch.keys.append(key)
        batch.reused.append(j)
        if j is None:
            batch.items.append((n, payload))
        if len(batch.keys) >= (BATCH if n > FIRST else FIRST):
            yield batch
            batch = _Batch()
    if batch.keys:
        yield batch
