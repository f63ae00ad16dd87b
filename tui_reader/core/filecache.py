"""Parsed files on disk: titles and ids in a small index, full rows read on demand.

Startup at 87k papers must not unpickle 120 MB of abstracts, so each source file gets a cache of
JSON rows (one per paper) plus a compact meta file (ids, titles, byte offsets, record keys). The
list pane needs only titles; an abstract is one ``pread`` away. When a source file changes, records
whose raw bytes are unchanged reuse their normalised row, so appending 100 papers to an 87k file
normalises 100 papers, not 87k.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import secrets
import threading
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from . import paths
from .atomic import atomic_write_bytes
from .loaders import LOADER_VERSION, build, file_signature, read_text, records
from .paper import Paper

Row = tuple  # (id, title, abstract, authors, venue, year, url, title_generated)


def _encode(paper: Paper) -> bytes:
    return json.dumps(
        [paper.id, paper.title, paper.abstract, paper.authors, paper.venue, paper.year, paper.url,
         paper.title_generated],
        ensure_ascii=False, separators=(",", ":"),
    ).encode("utf-8", "surrogatepass")


class Rows:
    """Encoded rows, in memory or in a file read with pread (thread-safe, no shared seek)."""

    def __init__(self, blobs: list[bytes] | None = None, path: Path | None = None,
                 offsets: array | None = None) -> None:
        self._blobs = blobs
        self._path = path
        self._offsets = offsets
        self._fd: int | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._blobs) if self._blobs is not None else len(self._offsets or ()) - 1

    def raw(self, i: int) -> bytes:
        if self._blobs is not None:
            return self._blobs[i]
        assert self._offsets is not None and self._path is not None
        if self._fd is None:
            with self._lock:
                if self._fd is None:
                    self._fd = os.open(self._path, os.O_RDONLY)
        start, end = self._offsets[i], self._offsets[i + 1]
        return os.pread(self._fd, end - start, start)

    def get(self, i: int) -> Row:
        return tuple(json.loads(self.raw(i)))

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


@dataclass(slots=True)
class FileData:
    path: Path
    ids: list[str]
    titles: list[str]
    generated: bytearray
    rows: Rows
    warnings: list[str] = field(default_factory=list)
    keys: bytes = b""

    def __len__(self) -> int:
        return len(self.ids)

    def paper(self, i: int) -> Paper:
        pid, title, abstract, authors, venue, year, url, generated = self.rows.get(i)
        return Paper(pid, title, abstract, authors, venue, year, url, [self.path.name], generated)


def _meta_path(path: Path) -> Path:
    digest = hashlib.sha1(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return paths.cache_dir() / "parsed" / f"{digest}.meta"


def _read_meta(meta_path: Path) -> dict | None:
    try:
        with open(meta_path, "rb") as fh:
            meta = pickle.load(fh)
        if isinstance(meta, dict) and meta.get("version") == LOADER_VERSION:
            return meta
    except Exception:  # missing, truncated or foreign: parse again
        pass
    return None


def _from_meta(path: Path, meta: dict) -> FileData | None:
    rows_path = _meta_path(path).with_name(meta["rows"])
    if not rows_path.exists():
        return None
    rows = Rows(path=rows_path, offsets=meta["offsets"])
    return FileData(path, meta["ids"], meta["titles"], meta["generated"], rows,
                    list(meta["warnings"]), meta["keys"])


def load_file(path: Path, use_cache: bool = True) -> FileData:
    """One source file, through the cache when its size and mtime are unchanged."""
    try:
        signature = file_signature(path)
    except OSError as exc:
        return FileData(path, [], [], bytearray(), Rows([]),
                        [f"{path}: cannot read ({exc.strerror or exc})"])
    meta_path = _meta_path(path)
    old = _read_meta(meta_path) if use_cache else None
    if old and old["path"] == str(path) and old["signature"] == signature:
        cached = _from_meta(path, old)
        if cached:
            return cached
    previous = _from_meta(path, old) if old else None
    data = _parse(path, previous)
    if previous:
        previous.rows.close()
    if use_cache and data.ids:
        with contextlib.suppress(OSError):
            _store(data, meta_path, signature, old)
    return data


def _parse(path: Path, previous: FileData | None) -> FileData:
    warnings: list[str] = []
    text = read_text(path, warnings)
    data = FileData(path, [], [], bytearray(), Rows([]), warnings)
    if text is None:
        return data
    if not text.strip():
        warnings.append(f"{path}: file is empty")
        return data
    reuse: dict[bytes, int] = {}
    if previous and previous.keys:
        k = previous.keys
        reuse = {k[i * 12:(i + 1) * 12]: i for i in range(len(k) // 12)}
    blobs: list[bytes] = []
    keys: list[bytes] = []
    skipped = 0
    for key, payload in records(path, text, warnings):
        j = reuse.get(key)
        if j is not None and previous is not None:
            blobs.append(previous.rows.raw(j))
            data.ids.append(previous.ids[j])
            data.titles.append(previous.titles[j])
            data.generated.append(previous.generated[j])
        else:
            paper = build(path, payload)
            if paper is None:
                skipped += 1
                continue
            blobs.append(_encode(paper))
            data.ids.append(paper.id)
            data.titles.append(paper.title)
            data.generated.append(paper.title_generated)
        keys.append(key)
    if skipped:
        warnings.append(f"{path}: skipped {skipped} record(s) without an abstract")
    if not data.ids and not warnings:
        warnings.append(f"{path}: no papers found")
    data.rows = Rows(blobs)
    data.keys = b"".join(keys)
    return data


def _store(data: FileData, meta_path: Path, signature: tuple[int, int], old: dict | None) -> None:
    """Rows file first under a fresh name, then the meta that points at it: never half-written."""
    blobs = [data.rows.raw(i) for i in range(len(data.rows))]
    offsets = array("Q", [0])
    total = 0
    for blob in blobs:
        total += len(blob) + 1
        offsets.append(total)
    rows_name = f"{meta_path.stem}.{secrets.token_hex(4)}.rows"
    atomic_write_bytes(meta_path.with_name(rows_name), b"\n".join(blobs) + b"\n")
    meta = {
        "version": LOADER_VERSION, "path": str(data.path), "signature": signature,
        "ids": data.ids, "titles": data.titles, "generated": data.generated,
        "warnings": data.warnings, "keys": data.keys, "offsets": offsets, "rows": rows_name,
    }
    atomic_write_bytes(meta_path, pickle.dumps(meta, protocol=pickle.HIGHEST_PROTOCOL))
    if old and old.get("rows") != rows_name:
        with contextlib.suppress(OSError):
            meta_path.with_name(old["rows"]).unlink()
