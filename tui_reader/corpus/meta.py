"""The parse cache's meta file: a file's ids, titles, row offsets and record keys (issue 21).

Layout 2 is a small pickled header and then flat arrays: ids and titles as UTF-8 blobs with
offsets, the ids' sorted hashes (strcol.IdLookup), the row offsets and record keys. A large one
is memory-mapped, so opening 2.7M papers builds no Python object per paper. A meta of the old
layout (one pickle of lists) is still read (parse_cache writes it again in the new one).
"""

from __future__ import annotations

import mmap
import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tui_reader.atomic import atomic_write_parts, open_regular
from tui_reader.corpus.formats import LOADER_VERSION, source_name
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.rows import Rows
from tui_reader.corpus.strcol import Buffer, IdLookup, StrBuilder, StrColumn, section

Meta = dict[str, Any]


@dataclass(slots=True)
class FileData:
    """One file's papers: ids and titles are StrBuilders while it is parsed (empty lists for a
    file that cannot be read), StrColumns once it is (``compact``), with ``lookup`` (rows by id)."""

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
        """A parsed file's strings as columns (a reader may hold either: the same strings); a
        builder's are handed over as they are, no second copy of them."""
        self.ids = _column(self.ids)
        self.titles = _column(self.titles)
        if self.lookup is None:
            self.lookup = IdLookup.of(self.ids)

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


def _column(strings: Sequence[str]) -> StrColumn:
    if isinstance(strings, StrColumn):
        return strings
    return strings.column() if isinstance(strings, StrBuilder) else StrColumn.of(strings)


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


def read_meta(meta_path: Path, any_version: bool = False) -> Meta | None:
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


def from_meta(path: Path, meta_path: Path, meta: Meta) -> FileData | None:
    """The file's data as its meta (either layout) keeps it; None if the meta is unusable."""
    rows_path = meta_path.with_name(meta["rows"])
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


def write_meta(data: FileData, meta_path: Path, signature: tuple[int, int], rows_name: str) -> None:
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
    # views, not copies: the meta is written from one buffer, ``out`` (~140 bytes a paper)
    blobs = [
        memoryview(
            np.ascontiguousarray(
                np.frombuffer(arrays[n], np.uint8) if SECTIONS[n] == "u1" else arrays[n], SECTIONS[n]
            ).data
        ).cast("B")
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
    parts: list[bytes | memoryview] = [MAGIC + len(head).to_bytes(8, "little") + head]
    at = len(parts[0])
    for blob, (offset, _) in zip(blobs, sections.values(), strict=True):
        parts += [bytes(offset - at), blob]  # padding to the section's 8-byte boundary, then it
        at = offset + len(blob)
    atomic_write_parts(meta_path, parts)  # the sections' own buffers: no copy of the whole meta
