"""Between the bulk builder and its worker processes: pickles over pipes, and part files.

Parent to worker, on the worker's stdin: a header ``(pickled schema, folder, block limit)``,
then chunks of ``(docnum, document)`` until None; then ``("runs", run paths, total)`` and merge
tasks ``("task", merge.Task)`` until None. Worker to parent, on its stdout: ``("added", n)`` per
chunk; ``("done", path)`` once a range's run file (``part-BASE.pst``, runs.py) and its table
(``.terms``) are written (the parent writes the per-document data meanwhile); ``("chunk", number,
path, terms, infos)`` per merge task (its lists in ``chunk-N.pst``); ``("error", traceback)`` if
it fails.
"""

from __future__ import annotations

import contextlib
import pickle
import queue
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from tui_reader.search.index import spawn

Doc = dict[str, Any]
Header = tuple[bytes, str, int]  # pickled schema, folder for run and chunk files, block limit

_STOP = object()  # tells a feeder thread to end
PARENT_ENV = spawn.PARENT_ENV  # the pid a worker ends with (worker.die_with_parent)


class BulkFailed(RuntimeError):
    """A worker process could not start or stopped: use Whoosh's writer (slower, in-process)."""


def python() -> str:
    """The interpreter for worker processes (tests swap it for one that fails)."""
    return sys.executable


def part_path(folder: str | Path, base: int) -> Path:
    """Where the postings of the range starting at ``base`` go (then ``.terms``, its table)."""
    return Path(folder) / f"part-{base}.pst"


def chunk_path(folder: str | Path, number: int) -> Path:
    """Where merge task ``number`` writes its posting lists."""
    return Path(folder) / f"chunk-{number}.pst"


# -- the worker's side --------------------------------------------------------------------------
class Pipe:
    """A worker's ends: the header and chunks from stdin, messages to stdout."""

    def __init__(self, inbox: BinaryIO | None = None, outbox: BinaryIO | None = None) -> None:
        self.inbox = inbox or sys.stdin.buffer
        self.outbox = outbox or sys.stdout.buffer

    def header(self) -> Header:
        return pickle.load(self.inbox)

    def chunks(self) -> Iterator[Any]:
        """What the parent sends until a None: chunks of documents, then merge tasks."""
        while (chunk := pickle.load(self.inbox)) is not None:
            yield chunk

    def send(self, *msg: Any) -> None:
        pickle.dump(msg, self.outbox, protocol=pickle.HIGHEST_PROTOCOL)
        self.outbox.flush()


# -- the parent's side --------------------------------------------------------------------------
class Child:
    """One worker process, a thread that feeds it and one that reads its messages into the
    shared queue. A plain subprocess, not multiprocessing: nothing forks the app's threads, and
    the caller's main module is never re-imported. The feeder keeps a few chunks queued so the
    parent goes on preparing documents while a worker's pipe is full (workers never wait)."""

    def __init__(self, k: int, header: Header, messages: queue.Queue[Any], tmp: Path) -> None:
        self.errfile = tmp / f"worker{k}.err"
        try:
            with open(self.errfile, "wb") as err:
                self.proc = spawn.start(python(), "tui_reader.search.index.build.worker", err)
        except OSError as exc:
            raise BulkFailed(f"could not start an indexing process ({exc})") from exc
        self.k = k
        self.broken = False
        self._outgoing: queue.Queue[Any] = queue.Queue(maxsize=3)
        self.reader = threading.Thread(
            target=self._read, args=(messages,), daemon=True, name=f"tui-reader-index-{k}"
        )
        self.feeder = threading.Thread(target=self._feed, daemon=True, name=f"tui-reader-feed-{k}")
        self.reader.start()
        self.feeder.start()
        self.send(header)

    def send(self, obj: Any) -> None:
        while True:
            if self.broken:
                raise BulkFailed(f"an indexing process stopped: {self.error()}")
            try:
                self._outgoing.put(obj, timeout=0.2)
                return
            except queue.Full:
                continue

    def _feed(self) -> None:
        assert self.proc.stdin is not None
        try:
            while (obj := self._outgoing.get()) is not _STOP:
                pickle.dump(obj, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):  # the worker ended (or was stopped)
            self.broken = True

    def _read(self, messages: queue.Queue[Any]) -> None:
        assert self.proc.stdout is not None
        try:
            while True:
                messages.put(pickle.load(self.proc.stdout))
        except Exception:  # EOF: the process ended; the parent checks how
            messages.put(("exit", self.k))

    def error(self) -> str:
        try:
            text = self.errfile.read_text("utf-8", "replace").strip()
        except OSError:
            text = ""
        code = self.proc.poll()
        return text.splitlines()[-1] if text else f"exit code {code}"

    def stop(self) -> None:
        with contextlib.suppress(queue.Full):
            self._outgoing.put_nowait(_STOP)
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                pipe.close()  # type: ignore[union-attr]
