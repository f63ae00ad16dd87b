"""Parsed files on disk: titles and ids in a small index, full rows read on demand.

Startup at 87k papers must not unpickle 120 MB of abstracts, so each source file gets a cache of
JSON rows (one per paper) plus a compact meta file (ids, titles, byte offsets, record keys). The
list pane needs only titles; an abstract is one ``pread`` away. When a source file changes, records
whose raw bytes are unchanged reuse their normalised row, so appending 100 papers to an 87k file
normalises 100 papers, not 87k.

The meta file (layout 2, issue 21) is a small pickled header and then flat arrays: ids and titles
as UTF-8 blobs with offsets, the ids' sorted hashes (strcol.IdLookup), the row offsets and record
keys. A large one is memory-mapped, so opening 2.7M papers builds no Python object per paper; a
meta of the old layout (one pickle of lists) is read and written again in the new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import pickle
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tui_reader import paths
from tui_reader.atomic import atomic_write_bytes, open_regular, remove_leftovers
from tui_reader.corpus.formats import (
    LOADER_VERSION,
    Record,
    file_signature,
    is_jsonl,
    read_text,
    records,
    shown,
    source_name,
    stream_jsonl,
)
from tui_reader.corpus.formats.common import counted
from tui_reader.corpus.outcomes import outcomes, workers
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.rows import CacheWriteError, Row, Rows, RowSink, reason
from tui_reader.corpus.strcol import Buffer, IdLookup, StrColumn, section

__all__ = ["FileData", "Row", "Rows", "load_file", "sweep"]

Meta = dict[str, Any]
OnRows = Callable[["FileData"], None]

STREAM_ROWS = 256  # rows parsed between looks at the clock, while on_rows wants batches
STREAM_SECONDS = 0.25  # the least time between two calls of on_rows


@dataclass(slots=True)
class FileData:
    """One file's papers: ids and titles are lists while it is parsed, StrColumns once it is
    (``compact``), with ``lookup`` (its rows by id) beside them."""

    path: Path
    ids: Sequence[str]
    titles: Sequence[str]
    generated: Buffer
    rows: Rows
    warnings: list[str] = field(default_factory=list)
    keys: Buffer = b""
    cache_error: str = ""  # why the parse cache could not be written (not stored in it)
    signature: tuple[int, int] = (-1, -1)  # (size, mtime) of the content read (see load_file)
    lookup: IdLookup | None = None  # set with the columns: the file parsed whole

    def __len__(self) -> int:
        return len(self.ids)

    def key(self, r: int) -> bytes:
        return bytes(self.keys[r * 12 : (r + 1) * 12])

    def has_generated(self) -> bool:
        return bool(len(self.generated)) and bool(np.frombuffer(self.generated, np.uint8).any())

    def compact(self) -> None:
        """The lists of a parsed file as columns (a reader may hold either: the same strings)."""
        if self.lookup is None:
            self.lookup = IdLookup.of(self.ids)
        if not isinstance(self.ids, StrColumn):
            self.ids = StrColumn.of(self.ids)
        if not isinstance(self.titles, StrColumn):
            self.titles = StrColumn.of(self.titles)

    @property
    def source(self) -> str:
        """The file's name as papers list it (controls made visible)."""
        return source_name(self.path)

    def paper(self, i: int) -> Paper:
        row = self.rows.get(i)
        pid, title, abstract, authors, venue, year, url, generated = row[:8]
        paper = Paper(pid, title, abstract, authors, venue, year, url, [self.source], generated)
        if len(row) > 8:
            paper.set_extra(row[8])
        return paper


def _meta_path(path: Path) -> Path:
    digest = hashlib.sha1(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return paths.cache_dir() / "parsed" / f"{digest}.meta"


MAGIC = b"tui-reader parse meta 2\n"
MAP_BYTES = 4 * 2**20  # a meta this large is memory-mapped (each map holds a descriptor), else read
# name: dtype of the flat arrays after the header, in this order
SECTIONS = {
    "ids": "u1",
    "id_ends": "<u8",
    "titles": "u1",
    "title_ends": "<u8",
    "hashes": "<u8",
    "hash_rows": "<u4",
    "generated": "u1",
    "keys": "u1",
    "offsets": "<u8",
}


def _read_meta(meta_path: Path, any_version: bool = False) -> Meta | None:
    """The meta's header (layout 2: with ``buffer``, the file's bytes or a map of them), or an old
    layout's whole pickle; None when missing, truncated, foreign or of another loader."""
    try:
        with open_regular(meta_path) as fh:
            meta = _header(fh)
        if isinstance(meta, dict) and (any_version or meta.get("version") == LOADER_VERSION):
            return meta
    except Exception:  # missing, truncated or foreign: parse again
        pass
    return None


def _header(fh: Any) -> object:
    head = fh.read(len(MAGIC) + 8)
    if not head.startswith(MAGIC):
        fh.seek(0)
        return pickle.load(fh)  # the old layout: ids and titles as lists
    meta = pickle.loads(fh.read(int.from_bytes(head[len(MAGIC) :], "little")))
    if not isinstance(meta, dict):
        return None
    size = os.fstat(fh.fileno()).st_size
    if size >= MAP_BYTES:
        meta["buffer"] = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    else:
        fh.seek(0)
        meta["buffer"] = fh.read()
    return meta


def _arrays(meta: Meta) -> dict[str, Any]:
    """The flat arrays of a layout-2 meta, over its buffer (ValueError if it is cut short)."""
    buffer = meta["buffer"]
    out: dict[str, Any] = {}
    for name, (offset, count) in meta["sections"].items():
        out[name] = section(buffer, SECTIONS[name], offset, count)
    return out


def _ends(array: Any) -> memoryview:
    return memoryview(array).cast("B").cast("Q")


def _from_meta(path: Path, meta: Meta) -> FileData | None:
    rows_path = _meta_path(path).with_name(meta["rows"])
    if not rows_path.exists():
        return None
    if "buffer" not in meta:  # the old layout
        rows = Rows(path=rows_path, offsets=meta["offsets"])
        data = FileData(path, meta["ids"], meta["titles"], meta["generated"], rows, list(meta["warnings"]))
        data.keys = meta["keys"]
        data.compact()
        return data
    try:
        a = _arrays(meta)
        n = int(meta["count"])
        ids, titles = StrColumn(a["ids"], _ends(a["id_ends"])), StrColumn(a["titles"], _ends(a["title_ends"]))
        if not len(ids) == len(titles) == len(a["generated"]) == len(a["hashes"]) == n:
            return None
        rows = Rows(path=rows_path, offsets=_ends(a["offsets"]))
        return FileData(
            path,
            ids,
            titles,
            memoryview(a["generated"]),
            rows,
            list(meta["warnings"]),
            memoryview(a["keys"]),
            lookup=IdLookup(a["hashes"], a["hash_rows"]),
        )
    except (ValueError, KeyError, TypeError):  # cut short or foreign: parse again
        return None


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
    meta_path = _meta_path(path)
    old = _read_meta(meta_path) if use_cache else None
    if old and old["path"] == str(path) and old["signature"] == signature:
        cached = _from_meta(path, old)
        if cached:
            cached.signature = signature
            if "buffer" not in old:  # the old layout: written again in the new one
                with contextlib.suppress(OSError):
                    _write_meta(cached, meta_path, signature, old["rows"])
            return cached
    previous = _from_meta(path, old) if old else None
    streamed = [False]

    def relay(data: FileData) -> None:
        streamed[0] = True
        assert on_rows is not None
        on_rows(data)

    try:
        for attempt in range(1, READ_ATTEMPTS + 1):
            folder = meta_path.parent if use_cache and write_cache else None
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
                _store(data, meta_path, signature, old)
                return data
            except OSError as exc:
                data.cache_error = reason(meta_path.parent, exc)
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
        meta = _read_meta(folder / f"{stem}.meta", any_version=True)
        current = meta.get("rows") if meta else None
        removed += remove_leftovers(folder, [r for r in rows if r != current])
    return removed


def _parse(path: Path, previous: FileData | None, sink: RowSink, on_rows: OnRows | None = None) -> FileData:
    warnings: list[str] = []
    ids: list[str] = []
    titles: list[str] = []
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
    keys: list[bytes] = []
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
        keys.append(key)
        if on_rows is not None and len(keys) >= look_at:
            look_at = len(keys) + STREAM_ROWS
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
    data.keys = b"".join(keys)
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
    _write_meta(data, meta_path, signature, rows_name)
    if old and old.get("rows") != rows_name:
        with contextlib.suppress(OSError):
            meta_path.with_name(old["rows"]).unlink()


def _write_meta(data: FileData, meta_path: Path, signature: tuple[int, int], rows_name: str) -> None:
    data.compact()
    assert isinstance(data.ids, StrColumn) and isinstance(data.titles, StrColumn) and data.lookup
    assert data.rows.offsets is not None
    arrays: dict[str, Any] = {
        "ids": data.ids.blob,
        "id_ends": data.ids.offsets(),
        "titles": data.titles.blob,
        "title_ends": data.titles.offsets(),
        "hashes": data.lookup.hashes,
        "hash_rows": data.lookup.rows,
        "generated": data.generated,
        "keys": data.keys,
        "offsets": np.asarray(data.rows.offsets, np.uint64),
    }
    blobs = [
        np.ascontiguousarray(
            np.frombuffer(arrays[n], np.uint8) if SECTIONS[n] == "u1" else arrays[n], SECTIONS[n]
        ).tobytes()
        for n in SECTIONS
    ]
    header = {
        "version": LOADER_VERSION,
        "path": str(data.path),
        "signature": signature,
        "warnings": data.warnings,
        "rows": rows_name,
        "count": len(data.ids),
    }
    # the header's size depends on the sections' offsets, which depend on it: pad it to a bound
    bound = {n: (2**62 + k, 2**62 - k) for k, n in enumerate(SECTIONS)}  # distinct: none memoised
    pad = len(pickle.dumps({**header, "sections": bound}, protocol=pickle.HIGHEST_PROTOCOL)) + 8
    start = -(-(len(MAGIC) + 8 + pad) // 8) * 8
    sections, at = {}, start
    for name, blob in zip(SECTIONS, blobs, strict=True):
        sections[name] = (at, len(blob) // np.dtype(SECTIONS[name]).itemsize)
        at = -(-(at + len(blob)) // 8) * 8
    head = pickle.dumps({**header, "sections": sections}, protocol=pickle.HIGHEST_PROTOCOL)
    out = bytearray(MAGIC + len(head).to_bytes(8, "little") + head)
    for blob, (offset, _) in zip(blobs, sections.values(), strict=True):
        out += bytes(offset - len(out)) + blob
    atomic_write_bytes(meta_path, bytes(out))
