"""Whether the fast paths are on: the self-check's verdict, fast-path errors, the one notice.

State of its own (it was module globals of w3.py) so that every fast path can ask it without
importing the self-check, which imports them: ``status()`` never runs the check, and
``selfcheck.status()`` is the gate that runs it on first use (the searcher and the index call
it before any fast path). Until a verdict, the fast paths count as on: only code that skipped
the gate (tests of one path) can reach them unchecked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import whoosh

logger = logging.getLogger("tui_reader.search")


@dataclass(frozen=True, slots=True)
class Health:
    ok: bool  # the fast paths are on
    reason: str | None = None  # why they are off
    errors: int = 0  # fast-path errors logged in this process


_lock = threading.RLock()
_local = threading.local()  # .checking: this thread runs the self-check
_verdict: str | bool | None = False  # False: not checked yet; None: fine; a str: what differs
_errors = 0
_notice: str | None = None  # waiting for the reader
_told = False  # a notice was given: there is only ever one
_SAME = "results are the same, only slower."


def status() -> Health:
    """Whether the fast paths are on, as far as is known: never runs the self-check (see the
    module's docstring). Within the check itself they count as on."""
    verdict = _verdict
    reason = verdict if isinstance(verdict, str) else None
    return Health(reason is None, reason, _errors)


def decide(run: Callable[[], str | None]) -> Health:
    """The verdict, running ``run`` (the self-check: what differs, or None) if there is none yet:
    once per process, other threads wait for it."""
    if _verdict is False and not getattr(_local, "checking", False):
        _check(run)
    return status()


def _check(run: Callable[[], str | None]) -> None:
    global _verdict
    with _lock:
        if _verdict is not False:
            return
        _local.checking = True
        try:
            problem = run()
        except Exception as exc:
            logger.exception("the fast paths' self-check failed")
            problem = f"its self-check raised {type(exc).__name__}: {exc}"
        finally:
            _local.checking = False
        _verdict = problem
        if problem is not None:
            logger.warning("fast search and bulk indexing are off: %s", problem)
            version = whoosh.versionstring()
            _tell(f"Fast search is off (Whoosh {version} differs: {problem}); {_SAME}")


def take_notice() -> str | None:
    """A sentence for the reader, once: after the fast paths switched off or first failed."""
    global _notice, _told
    if _notice is None:  # every search asks: no lock for the usual answer
        return None
    with _lock:
        text, _notice = _notice, None
        _told = _told or text is not None
        return text


def failed(exc: BaseException, q: Any, probe: Callable[[], object]) -> None:
    """A fast path raised on ``q``: log and count it. ``probe`` runs Whoosh's own path on the same
    files: if that fails too, the files are damaged (the caller's Whoosh path says so and the index
    is rebuilt) and nothing is told; else the fast path is at fault and the reader is told once."""
    global _errors
    logger.error("fast scoring failed on %r; Whoosh's searcher answers", q, exc_info=exc)
    with _lock:
        _errors += 1
        if _told or _notice is not None:
            return
    try:
        probe()
    except Exception as again:
        logger.warning("Whoosh cannot run %r either (%r): damaged files, not a fast-path fault", q, again)
        return
    with _lock:
        _tell(f"Fast search failed ({type(exc).__name__}: {exc}); Whoosh's own search answered: {_SAME}")


def _tell(text: str) -> None:
    global _notice
    if not _told and _notice is None:
        _notice = text


def reset() -> None:
    """Forget the verdict, errors and notices: the next use checks again (tests)."""
    global _verdict, _errors, _notice, _told
    with _lock:
        _verdict, _errors, _notice, _told = False, 0, None, False
