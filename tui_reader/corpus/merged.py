"""A collection's merge, kept: which rows of its files folded into which paper, so that a
relaunch, and each one-shot CLI search, replays it instead of reading every record's identity
again (issue 21: 34 s for a folder of a 2.7M file and two small ones, every time).

The journal holds, per file, only the rows the merge did not append in bulk, each with what the
merge decided: the paper it folded into, or -1 (a new paper). Replaying runs the corpus's own
appends and folds with those decisions, so the corpus is the one the merge built. It is used
only when it was written for these very files: their paths in this order, each source's size
and mtime, each parse cache's meta file (inode, size, mtime: a new parse writes a new one), and
this folding code (a hash of its sources). Anything else merges afresh and writes a new one.
A journal that is unreadable or does not fit its files is a cache miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from tui_reader import paths
from tui_reader.atomic import atomic_write_parts, open_regular, remove_leftovers
from tui_reader.corpus.formats import file_signature
from tui_reader.corpus.parse_cache import FileData, meta_path

MAGIC = b"tui-reader merge journal\n"
VERSION = 1
KEEP = 16  # journals kept (one per collection of several files), the least recently used removed
REPLAY = True  # tests of the merge itself switch replays off
# The modules whose code decides a merge: a change to any of them makes every journal stale.
_DECIDERS = (
    *("corpus.py", "loading.py", "folding.py", "foldkeys.py", "identity.py", "views.py", "merged.py"),
    *("idruns.py", "strcol.py", "hexids.py", "meta.py", "parse_cache.py"),
)

Ops = npt.NDArray[np.int64]  # per file: (row, paper it folded into or -1), rows ascending
Stamp = list[object]


class Journal(NamedTuple):
    stamps: list[Stamp]  # per file, as ``stamp_of`` gave them when its merge read the file
    ops: list[Ops]


@cache
def code_key() -> str:
    """Empty where the sources cannot be read (an install without them): then no journal is kept."""
    here = Path(__file__).parent
    h = hashlib.sha1(str(VERSION).encode())
    try:
        for name in _DECIDERS:
            h.update((here / name).read_bytes())
    except OSError:
        return ""
    return h.hexdigest()[:20]


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def stamp(path: Path) -> Stamp:
    """What must be unchanged for a journal to hold for this file: the source's signature and
    its parse cache's meta file (None for either that is not there)."""
    try:
        signature: list[int] | None = list(file_signature(path))
    except OSError:
        signature = None
    return [str(path), signature, _stat(meta_path(path))]


def stamp_of(data: FileData) -> Stamp:
    """``stamp`` of the content a load read (its signature, taken before reading it), with its
    rows: a merge's journal is stamped with what the merge saw, not what is there later."""
    return [str(data.path), list(data.signature), _stat(meta_path(data.path)), len(data)]


def _journal_path(found: Sequence[Path]) -> Path:
    joined = "\n".join(str(p) for p in found).encode("utf-8", "surrogateescape")
    return paths.cache_dir() / "merged" / f"{hashlib.sha1(joined).hexdigest()[:20]}.journal"


def read(found: Sequence[Path]) -> Journal | None:
    """The journal of these files, if it holds for them as they are now."""
    if not REPLAY or len(found) < 2 or not code_key():
        return None
    try:
        with open_regular(_journal_path(found)) as fh:  # never a FIFO's wait
            return _parse(fh.read(), [stamp(p) for p in found])
    except Exception:  # unreadable, garbled or hostile (deep nesting, huge numbers): a cache miss
        return None


def _parse(raw: bytes, now: list[Stamp]) -> Journal | None:
    if not raw.startswith(MAGIC):
        return None
    head_end = raw.index(b"\n", len(MAGIC))
    head = json.loads(raw[len(MAGIC) : head_end])
    body = raw[head_end + 1 :]
    stamps = head["files"]
    if head["version"] != VERSION or head["code"] != code_key() or [s[:3] for s in stamps] != now:
        return None
    if hashlib.blake2b(body, digest_size=16).hexdigest() != head["digest"]:
        return None
    ops = np.frombuffer(body, "<i8").reshape(-1, 2)
    counts = [int(c) for c in head["counts"]]
    if sum(counts) != len(ops) or min(counts, default=0) < 0 or len(counts) != len(stamps):
        return None
    bounds = np.cumsum([0, *counts])
    return Journal(stamps, [ops[a:b] for a, b in itertools.pairwise(bounds.tolist())])


def fits(journal: Journal, f: int, data: FileData) -> bool:
    """File f as its merge read it (stamp and rows), its ops' rows ascending within it, each
    decision a paper or -1 (the paper's own bound is checked as it replays: it depends on the
    papers listed by then)."""
    if data.cache_error or stamp_of(data) != journal.stamps[f]:
        return False
    ops, rows = journal.ops[f], len(data)
    r, at = ops[:, 0], ops[:, 1]
    return bool(not ops.size or (r[0] >= 0 and r[-1] < rows and (r[1:] > r[:-1]).all() and (at >= -1).all()))


def write(found: Sequence[Path], stamps: list[Stamp], ops: Sequence[Ops]) -> None:
    """Keep the merge just made of the files as ``stamps`` says it read them (``stamp_of``);
    nothing if one is not that now (changed, or parsed again by another reader, meanwhile)."""
    if not REPLAY or len(found) < 2 or not code_key() or len(stamps) != len(found):
        return
    if any(s[1] is None or s[:3] != stamp(p) for s, p in zip(stamps, found, strict=True)):
        return
    body = b"".join(np.ascontiguousarray(o, "<i8").tobytes() for o in ops)
    head = {
        "version": VERSION,
        "code": code_key(),
        "files": stamps,
        "counts": [len(o) for o in ops],
        "digest": hashlib.blake2b(body, digest_size=16).hexdigest(),
    }
    path = _journal_path(found)
    with contextlib.suppress(OSError):
        atomic_write_parts(path, (MAGIC, json.dumps(head).encode(), b"\n", body))
        _prune(path.parent)


def touch(found: Sequence[Path]) -> None:
    """A journal just replayed is the most recently used (``_prune`` keeps the newest)."""
    with contextlib.suppress(OSError):
        os.utime(_journal_path(found))


def _prune(folder: Path) -> None:
    remove_leftovers(folder, [".*.tmp"])
    journals = sorted(folder.glob("*.journal"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in journals[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
