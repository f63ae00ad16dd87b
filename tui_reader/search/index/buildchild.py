"""The build process isolated.py starts: the collection loaded again from the parse cache,
checked against the caller's, and built into the staging folder (index and manifest).

Run as ``python -m tui_reader.search.index.buildchild``; one pickled isolated.Request on stdin,
pickled messages on stdout (isolated.py's protocol). SIGTERM cancels the build: it stops as a
cancelled in-process build does (its workers ended, their folder removed), and the process exits.
It dies with its parent (the bulk build workers' watch).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import traceback
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from tui_reader.search.index import isolated


class Cancelled(BaseException):
    """SIGTERM: the caller is cancelling (not an Exception: nothing on the way may swallow it)."""


def _cancel(signum: int, frame: object) -> NoReturn:
    raise Cancelled


def _sender(out: BinaryIO) -> Any:
    def send(*msg: Any) -> None:
        pickle.dump(msg, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    return send


def _build(request: isolated.Request, send: Any) -> None:
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.manifest import read_signatures
    from tui_reader.search.index.persistent import SearchIndex

    send("progress", 0, request["count"], "indexing")
    corpus = load_corpus(request["roots"])
    if (
        corpus.key != request["key"]
        or len(corpus) != request["count"]
        or (read_signatures(corpus) != request["files"])
    ):
        raise RuntimeError("the collection changed since the reader read it")

    def progress(done: int, total: int, phase: str) -> None:
        send("progress", done, total, phase)

    SearchIndex(corpus, root=Path(request["base"])).fill(Path(request["staging"]), request["procs"], progress)


def main() -> None:
    from tui_reader.search.index.build.worker import die_with_parent

    parent = os.environ.get(isolated.PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else os.getppid())
    signal.signal(signal.SIGTERM, _cancel)
    send = _sender(sys.stdout.buffer)
    sys.stdout = sys.stderr  # a stray print must not garble the messages
    try:
        _build(pickle.load(sys.stdin.buffer), send)
    except Cancelled:
        sys.exit(1)
    except OSError as exc:  # a full disk, an unwritable cache: the caller says which
        send("oserror", exc.errno, exc.strerror or str(exc), str(exc.filename or ""))
        sys.exit(1)
    except Exception as exc:
        traceback.print_exc()
        send("error", f"{exc.__class__.__name__}: {exc}"[:300])
        sys.exit(1)
    send("done")


if __name__ == "__main__":
    main()
