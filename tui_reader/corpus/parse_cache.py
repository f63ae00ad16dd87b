"""Parsed files on disk: titles and ids in a small index, full rows read on demand.

Startup at 87k papers must not unpickle 120 MB of abstracts, so each source file gets a cache of
JSON rows (one per paper) plus a compact meta file (ids, titles, byte offsets, record keys). The
list pane needs only titles; an abstract is one ``pread`` away. When a source file changes, records
whose raw bytes are unchanged reuse their normalised row, so appending 100 papers to an 87k file
normalises 100 papers, not 87k.

The meta file's layout (flat arrays, memory-mapped: no Python object per paper) is meta.py's.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tui_reader import paths
from tui_reader.atomic import remove_leftovers
from tui_reader.corpus.formats import Record, file_signature, read_text, records, shown
from tui_reader.corpus.formats.common import counted
from tui_reader.corpus.meta import FileData, Meta, from_meta, read_meta, write_meta
from tui_reader.corpus.rows import CacheWriteError, Row, Rows, RowSink, reason
from tui_reader.corpus.strcol import StrBuilder

__all__ = ["FileData", "Row", "Rows", "load_file", "sweep"]

OnRows = Callable[["FileData"], None]

STREAM_ROWS = 256  # rows parsed between looks at the clock, while on_rows wants batches
STREAM_SECONDS = 0.25  # the least time between two calls of on_rows


def meta_path(path: Path) -> Path:
    digest = hashlib.sha1(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return paths.cache_dir() / "parsed" / f"{digest}.meta"


def load_file(
    path: Path, use_cache: bool = True, write_cache: bool = True, on_rows: OnRows | None = None
) -> FileData:
    """One source file, through the cache when its size and mtime are unchanged.

    The cache is an optimisation: if it cannot be written (a full disk, a cache folder that is a
    file), the file is read without it and ``cache_error`` says why; ``write_cache=False`` skips
    writing altogether (the caller saw that error for an earlier file).

    While a file is parsed, ``on_rows(data)`` is called every ``STREAM_SECONDS`` or so with the
    FileData being filled: every row it lists is readable (``data.paper(i)``), now and after.
    If the cache fills up mid-file, the file is parsed again in memory and ``on_rows`` gets a
    new FileData, counting from the start (the same papers in the same order).

    ``signature`` is that of the content read, taken before reading: a file rewritten while it
    was read (an auto-export) is read again if none of it was streamed yet, else it keeps the
    signature from before, so that the next load reads it again (never the signature of content
    that was not read: the index is stamped with it)."""
    try:
        signature = file_signature(path)
    except OSError as exc:
        problem = f"{shown(path)}: cannot read ({exc.strerror or exc})"
        return FileData(path, [], [], bytearray(), Rows([]), [problem])
    meta_file = meta_path(path)
    old = read_meta(meta_file) if use_cache else None
    if old and old["path"] == str(path) and old["signature"] == signature:
        cached = from_meta(path, meta_file, old)
        if cached:
            cached.signature = signature
            if "buffer" not in old:  # the old layout: written again in the new one
                with contextlib.suppress(OSError):
                    write_meta(cached, meta_file, signature, old["rows"])
            return cached
    previous = from_meta(path, meta_file, old) if old else None
    streamed = [False]

    def relay(data: FileData) -> None:
        streamed[0] = True
        assert on_rows is not None
        on_rows(data)

    try:
        for attempt in range(1, READ_ATTEMPTS + 1):
            folder = meta_file.parent if use_cache and write_cache else None
            data, sink = _read(path, previous, folder, relay if on_rows else None)
            after = _signature(path)
            if after == signature or after is None or streamed[0] or attempt == READ_ATTEMPTS:
                break
            sink.discard()  # rewritten while it was read: read the new content, unseen yet
            signature = after
    finally:
        if previous:
            previous.rows.close()
    data.signature = signature
    data.cache_error = sink.error
    try:
        if sink.path is not None and data.ids:
            try:
                _store(data, meta_file, signature, old)
                _mapped(data, meta_file)
                return data
            except OSError as exc:
                data.cache_error = reason(meta_file.parent, exc)
        rows = data.rows
        if rows.path is not None and not rows.in_memory:  # not stored: keep the rows in memory
            rows.to_memory()
            if rows.path != sink.path:  # moved into the cache before its meta failed to write
                with contextlib.suppress(OSError):
                    rows.path.unlink()
        sink.discard()
        return data
    finally:
        sink.release()


def _mapped(data: FileData, meta_path: Path) -> None:
    """The columns just stored, read back from the meta's memory map: a first parse then holds
    what a relaunch holds, not a heap copy of every id, title and key (~0.5 GB at 2.7M papers).
    Not compared string by string (that would read every page in): the meta was written from
    these bytes a moment ago and reads back as a relaunch reads it, its counts checked."""
    meta = read_meta(meta_path)
    back = from_meta(data.path, meta_path, meta) if meta else None
    if back is None:
        return
    back.rows.close()  # data.rows stays the reader of the rows file
    if len(back) == len(data) and len(back.keys) == len(data.keys) and back.lookup is not None:
        data.ids, data.titles, data.lookup = back.ids, back.titles, back.lookup
        data.generated, data.keys = back.generated, back.keys


READ_ATTEMPTS = 3  # reads of a file that keeps changing under us, before we settle for one


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        return file_signature(path)
    except OSError:
        return None


def _read(
    path: Path, previous: FileData | None, folder: Path | None, on_rows: OnRows | None
) -> tuple[FileData, RowSink]:
    """One parse into a sink in ``folder`` (None: in memory); again in memory if the cache
    fills up mid-file."""
    sink = RowSink(folder)
    try:
        return _parse(path, previous, sink, on_rows), sink
    except CacheWriteError as exc:  # the cache filled up mid-file: read it again, in memory
        sink.discard()
        sink = RowSink(None, error=exc.reason)
        return _parse(path, None, sink, on_rows), sink
    except BaseException:
        sink.discard()
        raise


def sweep(folder: Path | None = None) -> list[Path]:
    """Remove what killed or failed loads left in the parse cache: temp files no live process
    holds, and rows files no meta points at, once they are a minute old."""
    folder = folder or paths.cache_dir() / "parsed"
    removed = remove_leftovers(folder, [".parse-*.rows", ".*.tmp"])
    try:
        names = set(os.listdir(folder))
    except OSError:
        return removed
    rows_of: dict[str, list[str]] = {}
    for name in names:
        if name.endswith(".rows") and not name.startswith("."):
            rows_of.setdefault(name.split(".", 1)[0], []).append(name)
    for stem, rows in rows_of.items():
        if len(rows) == 1 and f"{stem}.meta" in names:
            continue  # the usual case, one rows file beside its meta: no need to read the meta
        meta = read_meta(folder / f"{stem}.meta", any_version=True)
        current = meta.get("rows") if meta else None
        removed += remove_leftovers(folder, [r for r in rows if r != current])
    return removed


def stream_jsonl(path: Path, warnings: list[str]) -> Iterable[Record]:
    """The JSON Lines reader, imported when a file is first read (not by a start from the cache)."""
    from tui_reader.corpus.formats.jsonfmt import stream_jsonl as stream

    return stream(path, warnings)


def _parse(path: Path, previous: FileData | None, sink: RowSink, on_rows: OnRows | None = None) -> FileData:
    from tui_reader.corpus.formats.jsonfmt import is_jsonl  # only to read a file
    from tui_reader.corpus.outcomes import outcomes, workers

    warnings: list[str] = []
    ids, titles = StrBuilder(), StrBuilder()  # no str per paper kept: 2.7M of them cost GBs
    generated = bytearray()
    data = FileData(path, ids, titles, generated, sink.rows, warnings)
    if is_jsonl(path):
        stream: Iterable[Record] = stream_jsonl(path, warnings)
    else:
        text = read_text(path, warnings)
        if text is None:
            return data
        if not text.strip():
            warnings.append(f"{shown(path)}: file is empty")
            return data
        stream = records(path, text, warnings)
    reuse: dict[bytes, int] = {}
    if previous and len(previous.keys):
        k = bytes(previous.keys)
        reuse = {k[i * 12 : (i + 1) * 12]: i for i in range(len(k) // 12)}
    keys = bytearray()  # 12 bytes a row
    skipped = 0
    failed: list[str] = []
    malformed: list[str] = []  # JSON lines that are not JSON objects, by line
    look_at = STREAM_ROWS  # rows parsed when the clock is next read
    told = -STREAM_SECONDS  # when on_rows was last called
    procs = workers(path) if is_jsonl(path) else 1
    for key, (kind, *what) in outcomes(path, stream, reuse, procs):
        if kind == "reuse" and previous is not None:
            j = int(what[0])  # type: ignore[call-overload]
            sink.add(previous.rows.raw(j))
            ids.append(previous.ids[j])
            titles.append(previous.titles[j])
            generated.append(previous.generated[j])
        elif kind == "row":
            blob, pid, title, made = what
            sink.add(blob)  # type: ignore[arg-type]
            ids.append(pid)  # type: ignore[arg-type]
            titles.append(title)  # type: ignore[arg-type]
            generated.append(made)  # type: ignore[arg-type]
        else:
            skipped += kind == "skipped"
            (malformed if kind == "malformed" else failed).extend(str(w) for w in what)
            continue
        keys += key
        if on_rows is not None and len(ids) >= look_at:
            look_at = len(ids) + STREAM_ROWS
            now = time.monotonic()
            if now - told >= STREAM_SECONDS:
                told = now
                sink.flush()
                on_rows(data)
    if failed:
        shown_failures = "; ".join(failed[:3]) + (" ..." if len(failed) > 3 else "")
        warnings.append(
            f"{shown(path)}: skipped {len(failed)} record(s) that could not be read ({shown_failures})"
        )
    if malformed:
        warnings.append(counted(path, malformed, "malformed line", "malformed lines"))
    if skipped:
        warnings.append(f"{shown(path)}: skipped {skipped} record(s) without an abstract")
    if not ids and not warnings:
        empty = is_jsonl(path) and not any(ids) and not keys and skipped == 0
        warnings.append(f"{shown(path)}: file is empty" if empty else f"{shown(path)}: no papers found")
    data.rows = sink.finish()  # the same Rows as all along, every row written
    data.keys = bytes(keys)
    del keys
    data.compact()
    return data


def _store(data: FileData, meta_path: Path, signature: tuple[int, int], old: Meta | None) -> None:
    """Rows file first under a fresh name, then the meta that points at it: never half-written."""
    rows_name = f"{meta_path.stem}.{secrets.token_hex(4)}.rows"
    rows_path = meta_path.with_name(rows_name)
    assert data.rows.path is not None and data.rows.offsets is not None  # streamed to a temp file
    os.replace(data.rows.path, rows_path)  # move it into place (the sink still holds its lock)
    data.rows.moved(rows_path)  # the same object: a reader holding it reads on
    data.rows.unpin()  # in place for good: its descriptor may close between reads (rows.py)
    write_meta(data, meta_path, signature, rows_name)
    if old and old.get("rows") != rows_name:
        with contextlib.suppress(OSError):
            meta_path.with_name(old["rows"]).unlink()
