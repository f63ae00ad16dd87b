"""Stopping a search: a deadline, and a newer search that replaces an older one.

A search runs under a ``Deadline`` (``watching``): its long loops -- a posting block at a time in
score.py and phrase.py, a match at a time in Whoosh's collector (``CheckedCollector``), a word at
a time in "did you mean" -- call ``check()``, which raises ``Stopped`` once the time is up or a
newer search (or ``Searcher.cancel``) has replaced this one. The searcher then answers with what
it has, says so in a notice and marks the count as a lower bound: a search never hangs, and a
newer search never waits for an older one for longer than one of those steps.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from whoosh.collectors import Collector, WrappingCollector

CHECK_EVERY = 256  # matches between two checks in Whoosh's collector (~1 ms of its scoring)


class Stopped(Exception):
    """The search was stopped: ``reason`` is "time" (its deadline passed) or "replaced"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Deadline:
    """When a search must stop: ``seconds`` from now (None: no time limit), or as soon as
    ``replaced()`` says a newer search took over."""

    __slots__ = ("at", "replaced", "seconds")

    def __init__(self, seconds: float | None, replaced: Callable[[], bool] = lambda: False) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds
        self.replaced = replaced

    def check(self) -> None:
        if self.replaced():
            raise Stopped("replaced")
        if self.at is not None and time.monotonic() > self.at:
            raise Stopped("time")

    def passed(self) -> bool:
        """Whether the search should stop (for loops that end quietly rather than raise)."""
        try:
            self.check()
        except Stopped:
            return True
        return False


_local = threading.local()


@contextlib.contextmanager
def watching(deadline: Deadline) -> Iterator[Deadline]:
    """Run the block under ``deadline``: ``check()`` in this thread consults it."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = deadline
    try:
        yield deadline
    finally:
        _local.deadline = previous


def check() -> None:
    """Raise Stopped if the search running in this thread must stop; nothing outside a search."""
    deadline = getattr(_local, "deadline", None)
    if deadline is not None:
        deadline.check()


def passed() -> bool:
    deadline = getattr(_local, "deadline", None)
    return deadline is not None and deadline.passed()


class CheckedCollector(WrappingCollector):
    """Whoosh's collector with ``check()`` every CHECK_EVERY matches, and, given a ``budget``
    (type-ahead's), stopping quietly after that many seconds (``cut``). Either way its child
    keeps the best matches seen so far, as with Whoosh's TimeLimitCollector."""

    def __init__(
        self,
        child: Collector,
        budget: float = 0.0,
        allow: frozenset[int] | None = None,
        deny: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(child)
        self.budget = budget
        self.until: float | None = None
        self.cut = False
        # is: filters, skipped before the child sees them, as Whoosh's FilterCollector does
        self.allow, self.deny = allow, deny

    def prepare(self, top_searcher: Any, q: Any, context: Any) -> None:
        super().prepare(top_searcher, q, context)
        self.until = time.monotonic() + self.budget if self.budget else None

    def collect_matches(self) -> None:
        child, until = self.child, self.until
        collect = child.collect
        allow, deny, offset = self.allow, self.deny, self.offset
        for n, sub_docnum in enumerate(child.matches()):
            if not n % CHECK_EVERY:
                check()
                if until is not None and time.monotonic() > until:
                    self.cut = True
            if self.cut:
                return
            if (allow is not None and offset + sub_docnum not in allow) or (
                deny and offset + sub_docnum in deny
            ):
                continue
            collect(sub_docnum)
