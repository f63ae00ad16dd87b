"""Bookmark snapshots: the paper each bookmark keeps, in 256 content-addressed packs beside the
list (bookmarks.json.snapshots/XX.json), so a change writes only the packs it adds to."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from tui_reader.atomic import atomic_write_bytes, new_file_mode, open_regular, real_path
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label, clean_text
from tui_reader.library.jsonstore import (
    StoreNotSaved,
    set_aside,
)

PACKS = ".snapshots"  # bookmarks.json.snapshots/: the snapshot packs
# The snapshot's fields: what a citation needs. Text fields are one line; the abstract keeps lines.
SNAPSHOT_TEXT = ("title", "venue", "url", "doi", "arxiv", "kind")
SNAPSHOT_LISTS = ("authors", "keywords")
SNAPSHOT = ("title", "authors", "year", "venue", "url", "doi", "arxiv", "keywords", "kind", "abstract")
RECORD = "record"  # Paper.record (RECORD.md): kept whole, so an export from a snapshot has every field


def snapshot_dict(paper: Paper) -> dict[str, object]:
    """The paper's citation fields as the file keeps them (only those set)."""
    out: dict[str, object] = {}
    for key in SNAPSHOT:
        value = getattr(paper, key)
        if value or (key == "year" and value is not None):
            out[key] = list(value) if isinstance(value, list) else value
    if paper.record:
        out[RECORD] = json.loads(json.dumps(paper.record))  # a copy, plain JSON
    return out


def _clean_record(value: object, verbatim: bool = False) -> object:
    """A record read back: its text made safe as the importers made it, "custom" verbatim."""
    if isinstance(value, str):
        return value if verbatim else clean_text(value)
    if isinstance(value, list):
        return [_clean_record(v, verbatim) for v in value]
    if isinstance(value, dict):
        return {k: _clean_record(v, verbatim or k == "custom") for k, v in value.items()}
    return value


def read_snapshot(raw: dict[str, object], pid: str) -> tuple[Paper, dict[str, object]]:
    """A snapshot read from the file: its fields made safe, and what it holds that is not one
    (or not of the right type), kept verbatim."""
    known: dict[str, object] = {}
    other: dict[str, object] = {}
    for key, value in raw.items():
        if key in SNAPSHOT_TEXT and isinstance(value, str):
            known[key] = clean_label(value)
        elif key == "abstract" and isinstance(value, str):
            known[key] = clean_text(value)
        elif key in SNAPSHOT_LISTS and isinstance(value, list) and all(isinstance(v, str) for v in value):
            known[key] = [clean_label(v) for v in value]
        elif key == "year" and isinstance(value, int) and not isinstance(value, bool):
            known[key] = value
        elif key == RECORD and isinstance(value, dict):
            known[key] = _clean_record(value)
        else:
            other[key] = value
    paper = Paper(id=pid, title="", abstract="")
    for key, value in known.items():
        setattr(paper, key, value)
    return paper, other


def digest(snapshot: dict[str, object]) -> str:
    """A snapshot's name in the packs: the hash of its content (same content, same name)."""
    data = json.dumps(snapshot, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Packs:
    """The snapshots of a version-3 store, beside its file: ``NAME.snapshots/XX.json`` holds
    ``{"version": 1, "snapshots": {digest: snapshot}}`` for the digests starting with XX. A pack
    is read when one of its snapshots is first asked for; writes happen under the store's lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read: dict[str, dict[str, object]] = {}

    @property
    def folder(self) -> Path:
        target = real_path(self.path)
        return target.with_name(target.name + PACKS)

    def _pack(self, prefix: str) -> dict[str, object]:
        pack = self._read.get(prefix)
        if pack is None:
            pack = self._read[prefix] = self._load(self.folder / f"{prefix}.json")
        return pack

    @staticmethod
    def _load(path: Path, to_write: bool = False) -> dict[str, object]:
        """A pack's snapshots; missing or damaged: none (a refresh takes them again). Before a
        damaged pack is written over, it is set aside byte for byte (``XX.json.corrupt-DATE``)."""
        try:
            with open_regular(path) as fh:
                data = json.loads(fh.read().decode("utf-8"))
            found = data.get("snapshots") if isinstance(data, dict) else None
            if not isinstance(found, dict):
                raise ValueError("not a snapshot pack")
            return found
        except OSError:
            return {}
        except (ValueError, UnicodeDecodeError, RecursionError):
            if to_write:
                set_aside(path)  # an OSError here: the write fails, nothing is lost
            return {}

    def get(self, name: str) -> dict[str, object] | None:
        found = self._pack(name[:2]).get(name)
        return found if isinstance(found, dict) else None

    def put(self, snapshots: Mapping[str, dict[str, object]], not_saved: type[StoreNotSaved]) -> None:
        """Add snapshots (call with the store's lock held): each pack they fall in is read as it
        is on disk now and written atomically with them; packs they do not touch are not. A
        write that fails raises ``not_saved``: the list is then not written either."""
        try:
            self._put(snapshots)
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.folder.rmdir()  # made for this write, and left empty: gone again
            reason = (exc.strerror or str(exc)).lower()
            raise not_saved(
                f"could not save bookmarks: {reason} ({clean_label(str(self.path))}); the file is unchanged"
            ) from exc

    def drop(self, names: set[str]) -> None:
        """Forget snapshots no bookmark names (a removed bookmark's, a refreshed one's old):
        only their packs are rewritten. Housekeeping: a pack that cannot be written keeps them."""
        by_pack: dict[str, set[str]] = {}
        for name in names:
            by_pack.setdefault(name[:2], set()).add(name)
        mode = new_file_mode(real_path(self.path))
        for prefix, drop in sorted(by_pack.items()):
            path = self.folder / f"{prefix}.json"
            pack = self._load(path, to_write=True)
            if not drop & pack.keys():
                continue
            for name in drop:
                pack.pop(name, None)
            with contextlib.suppress(OSError):
                self._write(path, pack, mode)
            self._read[prefix] = pack

    @staticmethod
    def _write(path: Path, pack: dict[str, object], mode: int) -> None:
        data = json.dumps({"version": 1, "snapshots": pack}, ensure_ascii=False, separators=(",", ":"))
        atomic_write_bytes(path, (data + "\n").encode("utf-8", "surrogatepass"), mode=mode)

    def _put(self, snapshots: Mapping[str, dict[str, object]]) -> None:
        by_pack: dict[str, dict[str, dict[str, object]]] = {}
        for name, snap in snapshots.items():
            by_pack.setdefault(name[:2], {})[name] = snap
        mode = new_file_mode(real_path(self.path))  # as private as the list
        for prefix, new in sorted(by_pack.items()):
            path = self.folder / f"{prefix}.json"
            pack = self._load(path, to_write=True)
            if all(name in pack for name in new):
                continue
            pack.update(new)
            self._write(path, pack, mode)
            self._read[prefix] = pack
