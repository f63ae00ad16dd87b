"""One versioned JSON document in one file, shared safely by every reader that opens it.

Every change is read-merge-write under an exclusive lock (``atomic.file_lock``) and written
atomically, so two running readers lose nothing: each applies its change to what is on disk now.
A file that does not parse, or whose shape is wrong, is moved aside byte for byte and the user is
told; a file from a newer version, or one that cannot be read or locked, is left alone and the
store turns read-only. Top-level keys this version does not know are written back unchanged.
A file from an older version is upgraded on the first write, and a byte-for-byte copy of it is
kept beside it (``NAME.v1.bak``, never overwritten), so going back to the old reader loses nothing.

The stores built on it (bookmarks, read state, arrivals, history, session) each own one top-level
key and check its shape; this module knows nothing about what they keep.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

from tui_reader.atomic import (
    NotRegularFile,
    atomic_write_bytes,
    file_lock,
    new_file_mode,
    open_regular,
    real_path,
    remove_leftovers,
)
from tui_reader.corpus.text import clean_label, safe_json

Doc = dict[str, object]
T = TypeVar("T")

MAX_FILE_BYTES = 64 * 2**20
_GENERATION = re.compile(r'\A\{\s*"version":\s*\d+,\s*"generation":\s*"([0-9a-f]{32})"')


class Encoded(str):
    """A list item already written as JSON (by safe_json): a ``lines`` store writes it as it is."""


def listed_lines(raw: bytes | None, key: str, count: int) -> list[str] | None:
    """The ``count`` items of ``key``'s list as a ``lines`` store wrote them, one a line, or None
    when the file is not laid out so (written by hand, or by another tool)."""
    if raw is None:
        return None
    text = raw.decode("utf-8", "surrogatepass")
    opening = f"{safe_json(key)}: [\n"
    start = text.find(opening)
    if start < 0:
        return None
    lines = text[start + len(opening) :].split("\n", count)[:count]
    if len(lines) != count:
        return None
    out = [line[:-1] if line.endswith(",") else line for line in lines]
    if not all(line.startswith("{") and line.endswith("}") for line in out):
        return None
    return out


class ReadOnlyStore(Exception):
    """A store cannot be saved: its file is from a newer tui-reader, cannot be read, or its folder
    cannot be written. The message says which, in words fit for the user."""


class StoreNotSaved(ReadOnlyStore):
    """Writing failed (a full disk, ...); the file on disk is unchanged."""


class _Read(NamedTuple):
    doc: Doc
    problem: str  # non-empty: must not be written, and this is why
    raw: bytes | None  # the bytes on disk (None: no file)


class JsonStore:
    """A ``{"version": N, ...}`` document. ``check`` raises ValueError when a document that parsed
    is not one of this store's (its key holds the wrong type): such a file is set aside as corrupt.
    ``kind`` names the store in messages ("read state": "the read state is read-only"; with
    ``plural``, "bookmarks": "bookmarks are read-only"). ``upgrade(doc, old_version)`` brings an
    older document up to ``version`` before a change is applied. Write failures raise
    ``not_saved`` (a StoreNotSaved)."""

    def __init__(
        self,
        path: Path,
        kind: str,
        check: Callable[[Doc], None],
        version: int = 1,
        indent: int | None = 1,
        *,
        plural: bool = False,
        upgrade: Callable[[Doc, int], None] | None = None,
        not_saved: type[StoreNotSaved] = StoreNotSaved,
        max_bytes: int | None = None,
        generations: bool = False,
        lines: bool = False,
    ) -> None:
        self.path = path
        # generations: every write stamps a fresh random "generation" right after "version", so
        # a change can tell from the file's first bytes that it is still the document it last
        # read or wrote, and reuse it (``update(reuse=True)``) instead of parsing it again.
        self.generations = generations
        self.lines = lines  # written one list item a line (compact, and fast: json's C encoder)
        self.generation = ""  # the stamp of the document last read or written ("": none)
        self.reused = False  # the last update worked on the document kept, not a fresh read
        self._last: Doc | None = None
        self.raw: bytes | None = None  # the bytes of the document last read (None: kept or none)
        self.max_bytes = max_bytes or MAX_FILE_BYTES  # a larger file is not read (nor written)
        self.kind = kind
        self.version = version
        self.indent = indent
        self._check = check
        self._upgrade = upgrade
        self._not_saved = not_saved
        self.subject = kind if plural else f"the {kind}"  # "could not save <subject>"
        self._is = "are" if plural else "is"
        self._empty = f"no {kind}" if plural else f"an empty {kind}"
        self.read_only = False
        self.problem = ""  # why it is read-only
        self.warnings: list[str] = []

    @property
    def shown(self) -> str:
        return clean_label(str(self.path))

    def warn(self, message: str) -> None:
        """Add a warning for the user, once, made safe for the terminal."""
        message = clean_label(message)
        if message not in self.warnings:
            self.warnings.append(message)

    # -- reading ----------------------------------------------------------------------------
    def load(self) -> Doc:
        """The document as it is on disk now ({} when there is none). Never raises OSError: a file
        that cannot be read or locked makes the store read-only, and a warning says why."""
        target = real_path(self.path)
        try:
            with file_lock(target):
                doc, problem, _raw = self._read(target)
                # temp files of writes that were killed (a live writer would hold the lock)
                remove_leftovers(target.parent, [f".{glob.escape(target.name)}.*.tmp"], min_age=0)
        except OSError as exc:  # no lock file can be made there (a read-only folder): read anyway
            doc, problem, _raw = self._read(target)
            cannot = f"cannot write in {clean_label(str(target.parent))} ({exc.strerror or exc})"
            problem = problem or cannot
            self.warn(f"{cannot}; {self.subject} can be read but not saved")
        self.read_only, self.problem = bool(problem), problem
        self._remember(doc, problem)
        return doc

    def _remember(self, doc: Doc, problem: str) -> None:
        stamp = doc.get("generation")
        fit = self.generations and not problem and doc.get("version") == self.version
        self.generation = stamp if fit and isinstance(stamp, str) else ""
        self._last = doc if self.generation else None

    def _still(self, target: Path) -> bool:
        """Is the file on disk still the document kept (its generation, read from its head)?"""
        if not self.generation or self._last is None:
            return False
        try:
            with open_regular(target) as fh:
                head = fh.read(256).decode("utf-8", "replace")
        except OSError:
            return False
        found = _GENERATION.match(head)
        return found is not None and found.group(1) == self.generation

    def _read(self, target: Path) -> _Read:
        """The document, why it must not be written, and its bytes. Call with the lock held."""
        found = self._read_file(target)
        self.raw = found.raw
        return found

    def _read_file(self, target: Path) -> _Read:
        try:
            with open_regular(target) as fh:
                raw = fh.read(self.max_bytes + 1)
        except FileNotFoundError:
            return _Read({}, "", None)
        except OSError as exc:
            problem = (
                f"{self.shown} is {exc.strerror}"
                if isinstance(exc, NotRegularFile)
                else f"cannot read {self.shown} ({exc.strerror or exc})"
            )
            self.warn(f"{problem}; {self.subject} {self._is} read-only")
            return _Read({}, problem, None)
        if len(raw) > self.max_bytes:
            problem = f"{self.shown} is larger than {self.max_bytes // 2**20} MiB"
            self.warn(f"{problem}; not reading it, {self.subject} {self._is} read-only")
            return _Read({}, problem, None)
        try:
            data = json.loads(raw.decode("utf-8"))
            version = data.get("version") if isinstance(data, dict) else None
            if not isinstance(version, int) or isinstance(version, bool):
                raise ValueError("not a versioned file")
            if version > self.version:  # a newer shape: read what we can, never write it
                problem = f"{self.shown} is from a newer tui-reader (version {version}); not changing it"
                self.warn(problem)
                try:
                    self._check(data)
                except ValueError:
                    return _Read({}, problem, raw)
                return _Read(data, problem, raw)
            self._check(data)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return self._corrupt(target, exc)
        return _Read(data, "", raw)

    def _corrupt(self, target: Path, exc: BaseException) -> _Read:
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc.__class__.__name__
        try:
            backup = set_aside(target)
        except OSError as err:
            problem = f"{self.shown} is corrupt ({why}) and cannot be set aside ({err.strerror or err})"
            self.warn(f"{problem}; {self.subject} {self._is} read-only")
            return _Read({}, problem, None)
        self.warn(
            f"{self.shown} was corrupt ({why}); kept as {clean_label(backup.name)}, "
            f"starting with {self._empty}"
        )
        return _Read({}, "", None)

    # -- changes ----------------------------------------------------------------------------
    def update(
        self,
        apply: Callable[[Doc], T],
        *,
        write: Callable[[T], bool] | None = None,
        reuse: bool = False,
        after: Callable[[], None] | None = None,
    ) -> T:
        """Read-merge-write: ``apply`` changes the document as it is on disk now (under the lock),
        and what it returns is returned. ``write(result)`` False: nothing changed, nothing is
        written. Raises ReadOnlyStore (or StoreNotSaved) with a message fit for the user when it
        cannot be saved; the file is then unchanged. ``reuse``: when the file is still the
        document last read or written (its generation), ``apply`` gets that one (``reused``).
        ``after()`` runs once the document is written, the lock still held (housekeeping)."""
        try:
            return self._update(apply, write, reuse, after)
        except BaseException:
            self._remember({}, "failed")  # what we kept may hold the change that failed
            raise

    def _update(
        self,
        apply: Callable[[Doc], T],
        write: Callable[[T], bool] | None,
        reuse: bool,
        after: Callable[[], None] | None,
    ) -> T:
        target = real_path(self.path)
        try:
            with file_lock(target):
                self.reused = reuse and self._still(target)
                if self.reused and self._last is not None:
                    doc, problem, raw = self._last, "", None
                else:
                    doc, problem, raw = self._read(target)
                self.read_only, self.problem = bool(problem), problem
                if problem:
                    raise ReadOnlyStore(f"could not save {self.subject}: {problem}")
                version = doc.get("version")
                old = version if isinstance(version, int) and version < self.version else None
                if raw is not None and old is not None and self._upgrade is not None:
                    self._upgrade(doc, old)
                result = apply(doc)
                if write is not None and not write(result):
                    return result
                kept = self._keep_old(target, old, raw) if raw is not None and old is not None else None
                try:
                    self._write(target, doc)
                    self._remember(doc, "")
                    if after is not None:
                        after()
                except StoreNotSaved:
                    if kept is not None:  # not upgraded after all: no copy to explain
                        with contextlib.suppress(OSError):
                            kept.unlink()
                    raise
                return result
        except OSError as exc:  # only the lock: _read and _write raise no OSError
            self.read_only = True
            raise ReadOnlyStore(
                f"could not save {self.subject}: cannot write in {clean_label(str(target.parent))} "
                f"({exc.strerror or exc})"
            ) from exc

    def _keep_old(self, target: Path, old: int, raw: bytes) -> Path | None:
        """Before the first write in the new version: the old file, byte for byte, beside it (the
        copy made now, or None). A copy already there (an earlier upgrade) is never overwritten."""
        backup = target.with_name(f"{target.name}.v{old}.bak")
        if os.path.lexists(backup) and not backup.is_dir():
            return None
        try:
            atomic_write_bytes(backup, raw, mode=new_file_mode(target))  # as private as the file
            return backup
        except OSError as exc:
            raise self._not_saved(
                f"could not save {self.subject}: cannot keep a copy of the version-{old} file "
                f"({(exc.strerror or str(exc)).lower()}); the file is unchanged"
            ) from exc

    def _write(self, target: Path, doc: Doc) -> None:
        stamp = {"generation": secrets.token_hex(16)} if self.generations else {}
        doc.update(stamp)
        payload = {"version": self.version, **stamp}
        payload.update((k, v) for k, v in doc.items() if k not in payload)
        doc["version"] = self.version
        try:
            data = (self._dumps(payload) + "\n").encode("utf-8")
        except (ValueError, RecursionError) as exc:  # kept data too deep to write back
            raise self._not_saved(
                f"could not save {self.subject}: {self.shown} holds data this version cannot write "
                f"back ({exc.__class__.__name__}); the file is unchanged"
            ) from exc
        try:
            atomic_write_bytes(target, data)
        except OSError as exc:
            reason = (exc.strerror or str(exc)).lower()
            raise self._not_saved(
                f"could not save {self.subject}: {reason} ({clean_label(str(target))}); the file is unchanged"
            ) from exc

    def _dumps(self, payload: Doc) -> str:
        if not self.lines:
            return safe_json(payload, indent=self.indent)
        parts = []
        for key, value in payload.items():
            if isinstance(value, list) and value:
                body = ",\n".join(item if isinstance(item, Encoded) else safe_json(item) for item in value)
                parts.append(f"{safe_json(key)}: [\n{body}\n]")
            else:
                parts.append(f"{safe_json(key)}: {safe_json(value)}")
        return "{" + ",\n".join(parts) + "}"


def set_aside(target: Path) -> Path:
    """Move a corrupt file out of the way (``NAME.corrupt-DATE``), bytes intact."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = target.with_name(f"{target.name}.corrupt-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = target.with_name(f"{target.name}.corrupt-{stamp}-{n}")
    os.replace(target, backup)
    return backup


def dict_of(doc: Doc, key: str) -> dict[str, object]:
    """``doc[key]`` as a dict, created when missing; ValueError when it is something else."""
    value = doc.setdefault(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{key!r} is not an object")
    return value


def list_of(doc: Doc, key: str) -> list[object]:
    """``doc[key]`` as a list, created when missing; ValueError when it is something else."""
    value = doc.setdefault(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{key!r} is not a list")
    return value


def expect(doc: Doc, key: str, kind: type) -> None:
    """A check: ``doc[key]``, when present, is of ``kind``."""
    if key in doc and not isinstance(doc[key], kind):
        raise ValueError(f"{key!r} is not a {kind.__name__}")
