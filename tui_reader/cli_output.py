"""Standard output for the subcommands: a write that fails is an error the command reports.

Python turns a failed write into an ``OSError`` from wherever the print was (a traceback), or, when
the output was still buffered at exit, into an "Exception ignored" line and exit 120; with
standard output closed, ``print`` writes nowhere and the command "succeeds". Here each of those is
an ``OutputError`` that ``main`` reports in one line with a non-zero exit. A broken pipe (``| head``)
is left as it is: the reader of the pipe has all it wanted.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, TextIO

from tui_reader.corpus.text import json_escapes, safe_json

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Hit, SearchResult


class OutputError(Exception):
    """The command's output could not be written; the message says why."""


class _Checked:
    """A text stream whose write errors (but a broken pipe) are ``OutputError``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(_reason(exc)) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(_reason(exc)) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _reason(exc: OSError) -> str:
    return f"cannot write the output: {(exc.strerror or str(exc)).lower()}"


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def reserve_standard_fds() -> list[int]:
    """Point closed standard descriptors (0, 1, 2) at /dev/null, so that no file the program opens
    later (an index segment, the bookmarks) takes their number and receives what a worker or a
    library writes there. The descriptors that were closed."""
    closed = [fd for fd in (0, 1, 2) if not _is_open(fd)]
    for fd in closed:
        devnull = os.open(os.devnull, os.O_RDWR)
        if devnull != fd:
            os.dup2(devnull, fd)
            os.close(devnull)
    return closed


@contextmanager
def checked_stdout(closed: bool = False) -> Iterator[None]:
    """Within: ``sys.stdout`` raises ``OutputError`` on a failed write, and at the end everything
    is flushed (so the error shows here, not at exit). ``closed``: standard output was closed when
    the program started: refused before the command does anything."""
    if closed or sys.stdout is None:
        raise OutputError("cannot write the output: standard output is closed")
    stream = sys.stdout
    sys.stdout = _Checked(stream)
    try:
        try:
            yield
        finally:  # also after --help's SystemExit: its text must reach the output, or say why
            sys.stdout.flush()
    except OutputError:
        discard_stdout()
        raise
    finally:
        sys.stdout = stream


def discard_stdout() -> None:
    """Send what is still buffered for standard output to /dev/null: the interpreter's flush at
    exit must not fail a second time (and print "Exception ignored")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


# -- search --json, a hit at a time ------------------------------------------------------------
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _indented(value: object, depth: int) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``'s text, ``depth`` levels in: json
    indents in pure Python (4 s for 87k hits); here the C encoder writes each leaf and this the
    layout around it. Its caller adds safe_json's escapes (json_escapes)."""
    if isinstance(value, str):
        return str(encode_basestring(value))
    if not isinstance(value, dict | list) or not value:
        return _ENCODE(value)
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, list):
        items = [_indented(v, depth + 1) for v in value]
        return "[" + inner + ("," + inner).join(items) + "\n" + "  " * depth + "]"
    items = [encode_basestring(str(k)) + ": " + _indented(v, depth + 1) for k, v in value.items()]
    return "{" + inner + ("," + inner).join(items) + "\n" + "  " * depth + "}"


def write_search_json(query: str, result: SearchResult, hits: Iterable[dict[str, object]]) -> None:
    """The answer as one JSON object (``safe_json(..., indent=2)``'s text exactly: exact, and no
    control character reaches the terminal), written a hit at a time: 87k hits with their
    abstracts are 140 MB of JSON, never held whole."""
    head = safe_json(
        {
            "query": query,
            "total": result.total,
            "total_exact": result.exact,
            "stopped": result.stopped,
            "took_ms": round(result.took_ms, 2),
            "suggestion": result.suggestion,
            "notice": result.notice,
        },
        indent=2,
    )
    out = sys.stdout
    out.write(head[: -len("\n}")] + ',\n  "hits": [')
    sep = "\n    "
    for hit in hits:
        out.write(sep + json_escapes(_indented(hit, 2)))
        sep = ",\n    "
    out.write("]\n}\n" if sep == "\n    " else "\n  ]\n}\n")


def hit_fields(corpus: Corpus, found: Hit, terms: frozenset[str]) -> dict[str, object]:
    """One hit as `search --json` writes it: the shape every command that lists papers shares."""
    from tui_reader.search import snippet

    paper = corpus.paper(found.row)
    text, _spans = snippet(paper.abstract, terms)
    return {
        "id": paper.id,
        "title": paper.title,
        "score": round(found.score, 4),
        "venue": paper.venue,
        "year": paper.year,
        "snippet": text,
        "abstract": paper.abstract,
        "sources": paper.sources,
    }
