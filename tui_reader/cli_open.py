"""The command line's side of opening the index: progress and problems on stderr, around
search.open_searcher and search.answered (the one "rebuild once if damaged")."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tui_reader.corpus.text import clean_label

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.search import Opened, Searcher

T = TypeVar("T")
NOISY = 2000  # papers from which a build's or an update's progress is printed


def progress_printer(label: str) -> Callable[[int, int, str], None]:
    tty = sys.stderr.isatty()
    last = [-1]

    def show(done: int, total: int, phase: str) -> None:
        if not total:
            print(f"tui-reader: {phase}…", file=sys.stderr)
            return
        pct = 100 * done // max(total, 1)
        if tty:
            filled = pct * 30 // 100
            bar = "#" * filled + "-" * (30 - filled)
            sys.stderr.write(f"\r{label} [{bar}] {pct:3d}% {done:,}/{total:,} {phase:<10}")
            if done >= total and phase == "finishing":
                sys.stderr.write("\n")
            sys.stderr.flush()
        elif pct // 10 != last[0] // 10:
            print(f"{label}: {pct}% ({done:,}/{total:,}) {phase}", file=sys.stderr)
        last[0] = pct

    return show


def told(state: str, why: str) -> None:
    """What is about to take time, when it is a problem (the index found damaged)."""
    if why:
        print(f"tui-reader: {clean_label(why)}", file=sys.stderr)


def said(opened: Opened) -> Opened:
    if opened.report.reason:
        print(f"tui-reader: {clean_label(opened.report.reason)}", file=sys.stderr)
    return opened


def _progress(corpus: Corpus, quiet: bool) -> Callable[[int, int, str], None] | None:
    return progress_printer("indexing") if not quiet and len(corpus) >= NOISY else None


def open_searcher(corpus: Corpus, rebuild: bool = False, quiet: bool = False, warm: bool = True) -> Searcher:
    """A searcher on the collection's index, updated or built (rebuilt once if damaged).
    ``warm=False`` (one search): what it would read ahead is read only if that search needs it."""
    from tui_reader.search import open_searcher as opening

    progress = _progress(corpus, quiet)
    return said(opening(corpus, rebuild=rebuild, warm=warm, progress=progress, tell=told)).searcher


def answered(corpus: Corpus, ask: Callable[[Searcher], T], quiet: bool = False) -> T:
    """``ask`` on a one-shot searcher; files found damaged while it runs are rebuilt once."""
    from tui_reader.search import answered as answering

    answer, opened = answering(corpus, ask, progress=_progress(corpus, quiet), tell=told)
    said(opened)
    return answer
