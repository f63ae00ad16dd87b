"""Opening a collection's index for searching, rebuilt once if Whoosh finds it damaged: the one
place the reader, `tui-reader search`, `export` and `index` get a searcher from.

Damage the manifest cannot see shows in two places: when the searcher first reads the word lists
(``Searcher`` raises IndexDamaged) and in the middle of a search. Either way the index is rebuilt
from the collection, once; damage found again after that is reported, not rebuilt in a loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tui_reader.errors import IndexDamaged
from tui_reader.search.index.persistent import Progress, SearchIndex, UpdateReport
from tui_reader.search.searcher import Searcher

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

T = TypeVar("T")
Tell = Callable[[str, str], None]  # (state: "building", "updating" or "rebuilding"; why)


@dataclass
class Opened:
    index: SearchIndex
    searcher: Searcher
    report: UpdateReport  # its reason says "...; rebuilt it" after a rebuild
    rebuilt: bool = False  # rebuilt for damage: found again, it is reported, not rebuilt again
    status: str = "fresh"  # what the index was before it was opened: fresh, stale, missing, ...


def _quiet(state: str, why: str) -> None:
    pass


def open_searcher(
    corpus: Corpus,
    *,
    rebuild: bool = False,
    warm: bool = True,
    wait: bool = False,
    progress: Progress | None = None,
    tell: Tell = _quiet,
    as_is: bool = False,
) -> Opened:
    """The index opened, updated or built, and a searcher on it. ``tell`` hears what is about to
    take time; ``wait`` waits for another process's build instead of searching its old index.
    ``as_is`` (one answer): a fresh index is searched as it is, without ensure(), which would find
    it fresh again under the build lock after sweeping what killed builds left (the next update
    or the reader sweeps): at 1M that was a second read of the manifest."""
    index = SearchIndex(corpus)
    status = "missing" if rebuild else index.status()
    if status != "fresh":
        tell("updating" if status == "stale" else "building", "")
    if as_is and status == "fresh":
        report = UpdateReport("unchanged")
    else:
        report = index.ensure(progress=progress, rebuild=rebuild, wait=wait)
    try:
        return Opened(index, Searcher(index, warm=warm), report, rebuilt=rebuild, status=status)
    except IndexDamaged as exc:
        if rebuild:
            raise
        index.close()
        return _rebuilt(corpus, exc, warm, progress, tell)


def answered(
    corpus: Corpus,
    ask: Callable[[Searcher], T],
    *,
    warm: bool = False,
    progress: Progress | None = None,
    tell: Tell = _quiet,
) -> tuple[T, Opened]:
    """``ask`` run on the collection's searcher; if Whoosh finds the files damaged while it runs,
    the index is rebuilt once and ``ask`` runs again."""
    opened = open_searcher(corpus, warm=warm, progress=progress, tell=tell, as_is=True)
    try:
        return ask(opened.searcher), opened
    except IndexDamaged as exc:
        if opened.rebuilt:
            raise
        opened.index.close()
        again = _rebuilt(corpus, exc, warm, progress, tell)
        return ask(again.searcher), again


def _rebuilt(corpus: Corpus, exc: IndexDamaged, warm: bool, progress: Progress | None, tell: Tell) -> Opened:
    tell("rebuilding", f"{exc}; rebuilding it")
    index = SearchIndex(corpus)
    report = index.ensure(progress=progress, rebuild=True)
    report.reason = f"{exc}; rebuilt it"
    return Opened(index, Searcher(index, warm=warm), report, rebuilt=True)
