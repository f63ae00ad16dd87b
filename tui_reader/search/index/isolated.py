"""A cold build in a process of its own, so the reader's memory stays the size of its own data.

The bulk build's parent side (stored fields per paper, a document per paper, the stitch) peaks at
~1 GB at 2.7M papers, and CPython's heap does not give that back: built in the reader, the reader
stayed at 1.83 GB. Here a child (``buildchild.py``, a plain subprocess as the bulk build's own
workers are: nothing forks the app's threads and no resource tracker is involved) loads the same
collection from the parse cache, checks it is the same one, and fills the staging folder (index
and manifest); the caller swaps it in. Progress comes back over its stdout. Cancelling (the
caller's progress raises) stops it with SIGTERM (it cleans up as a cancelled build does), then
SIGKILL; what a killed child leaves (its workers' ``<key>.bulk-*`` folder) is removed here.
A child that fails raises ChildFailed with its last words; the caller builds in-process.

Protocol: parent to child on stdin, one pickled request (``Request``); child to parent on stdout,
pickled tuples: ("progress", done, total, phase), ("done",), ("oserror", errno, text, filename),
("error", text).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypedDict

from tui_reader.search.index import spawn
from tui_reader.search.index.manifest import read_signatures

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

logger = logging.getLogger("tui_reader.search")
Progress = Callable[[int, int, str], None]
Messages = queue.Queue[tuple[Any, ...]]
CHILD_PAPERS = 50_000  # smaller collections build in seconds and little memory: in-process
CHILD_ENV = "TUI_READER_BUILD_CHILD"  # "1": every cold build in a child, "0": none (tests, measuring)
PARENT_ENV = spawn.PARENT_ENV  # the pid the child dies with
STOP_SECONDS = 20.0  # a cancelled child's time to clean up before it is killed
HEARTBEAT_SECONDS = 0.5  # the caller's progress is called at least this often (it may cancel)


class ChildFailed(RuntimeError):
    """The build process could not start, failed or stopped: build in this process instead."""


class Request(TypedDict):
    roots: list[str]
    key: str
    count: int
    files: dict[str, list[int]]  # each file's signature as the caller's corpus read it
    base: str
    staging: str
    procs: int


def python() -> str:
    """The interpreter for the build process (tests swap it for one that fails)."""
    return sys.executable


def wanted(corpus: Corpus, asked: bool) -> bool:
    """Whether a cold build of ``corpus`` runs in a child: when the caller asks (the reader) and
    the collection is large and read from the parse cache (the child reads it again from
    there in a second, not by parsing), unless CHILD_ENV says otherwise."""
    given = os.environ.get(CHILD_ENV, "").strip()
    if given in ("0", "1"):
        return given == "1"
    return asked and len(corpus) >= CHILD_PAPERS and cached(corpus)


def cached(corpus: Corpus) -> bool:
    """Every file's rows are in the parse cache (not only in this process's memory)."""
    return bool(corpus.files) and all(
        not data.cache_error and data.rows.path is not None and not data.rows.in_memory
        for data in corpus.files
    )


def request(corpus: Corpus, base: Path, staging: Path, procs: int) -> Request:
    """What the child needs to load the caller's collection again and build it into ``staging``."""
    roots = [str(r) for r in corpus.roots]
    return Request(
        roots=roots,
        key=corpus.key,
        count=len(corpus),
        files=read_signatures(corpus),
        base=str(base),
        staging=str(staging),
        procs=procs,
    )


def build_or_here(asked: Request, progress: Progress | None, here: Callable[[], None]) -> str:
    """The build in a child; if that fails, ``here()`` (the in-process build, as before a child
    existed) and why, for the caller to say; "" when the child built it."""
    try:
        build(asked, progress)
        return ""
    except ChildFailed as exc:
        logger.warning("building the index in the reader's process: %s", exc)
        staging = Path(asked["staging"])
        shutil.rmtree(staging)
        staging.mkdir()
        here()
        return f"{exc}; indexed in the reader's process instead"


def build(request: Request, progress: Progress | None) -> None:
    """Fill ``request["staging"]`` in a child; raises ChildFailed, OSError (the child's: a full
    disk), or whatever ``progress`` raises (the child stopped and cleaned up first)."""
    base = Path(request["base"])
    bulk_before = _bulk_folders(base, request["key"])
    with tempfile.TemporaryFile(dir=base) as err:  # unnamed: nothing to leave behind
        proc = _start(err)
        messages: Messages = queue.Queue()
        reader = threading.Thread(target=_read, args=(proc, messages), daemon=True, name="tui-reader-build")
        reader.start()
        try:
            _send(proc, request)
            _follow(messages, progress, lambda: _last_words(proc, err))
        except BaseException:
            _stop(proc)
            _remove(_bulk_folders(base, request["key"]) - bulk_before)
            raise
        finally:
            _reap(proc)


def _start(err: IO[bytes]) -> subprocess.Popen[bytes]:
    try:
        return spawn.start(python(), "tui_reader.search.index.buildchild", err, without=(CHILD_ENV,))
    except OSError as exc:
        raise ChildFailed(f"could not start the indexing process ({exc})") from exc


def _send(proc: subprocess.Popen[bytes], request: Request) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError, OSError):  # it died at once: its exit tells why
        pickle.dump(request, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        proc.stdin.close()


def _read(proc: subprocess.Popen[bytes], messages: Messages) -> None:
    assert proc.stdout is not None
    try:
        while True:
            messages.put(pickle.load(proc.stdout))
    except Exception:  # EOF (or a garbled message): the process ended
        messages.put(("exit",))


def _follow(
    messages: queue.Queue[tuple[Any, ...]], progress: Progress | None, why: Callable[[], str]
) -> None:
    """Relay the child's progress until it is done; its failure raised here."""
    last: tuple[int, int, str] | None = None
    while True:
        try:
            msg = messages.get(timeout=HEARTBEAT_SECONDS)
        except queue.Empty:
            if progress and last is not None:
                progress(*last)  # may raise: the caller cancels
            continue
        kind = msg[0]
        if kind == "progress":
            last = (msg[1], msg[2], msg[3])
            if progress:
                progress(*last)
        elif kind == "done":
            return
        elif kind == "oserror":
            raise OSError(msg[1], msg[2], *([msg[3]] if msg[3] else []))
        elif kind == "error":
            raise ChildFailed(f"the indexing process failed: {msg[1]}")
        else:
            raise ChildFailed(f"the indexing process stopped: {why()}")


def _last_words(proc: subprocess.Popen[bytes], err: IO[bytes]) -> str:
    """The child's last line on stderr, or its exit code (a signal: killed, perhaps for memory)."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)
    code = proc.poll()
    with contextlib.suppress(OSError):
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
        if lines:
            return lines[-1][:300]
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the child cancels its build and removes its files), then SIGKILL."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(OSError):
        proc.terminate()
    try:
        proc.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        _stop(proc)
    for pipe in (proc.stdin, proc.stdout):
        with contextlib.suppress(Exception):
            pipe.close()  # type: ignore[union-attr]


def _bulk_folders(base: Path, key: str) -> set[Path]:
    """The bulk build's working folders of this collection (leftovers.py names them)."""
    return set(base.glob(f"{key}.bulk-*"))


def _remove(folders: set[Path]) -> None:
    """What a killed child's build left (the caller holds the build lock: nobody else's)."""
    deadline = time.monotonic() + 5
    for folder in folders:
        while folder.exists() and time.monotonic() < deadline:  # its workers may still be dying
            shutil.rmtree(folder, ignore_errors=True)
