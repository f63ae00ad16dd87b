"""Loading a collection: its files found, each read through its parse cache, merged into one
corpus as they stream in, or replayed from the merge journal of an unchanged collection."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tui_reader import paths
from tui_reader.corpus import merged, parse_cache
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats import discover, shown
from tui_reader.corpus.parse_cache import FileData, Rows, load_file, sweep


def resolve_roots(inputs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    return [_resolve(Path(p)) for p in inputs] or [paths.seeds_dir().resolve()]


def _resolve(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop: discover() names it
        return path.expanduser().absolute()


Progress = Callable[[int, int, Path], None]  # (file number, files, path) as each file begins


class _Relayed(Exception):
    """An exception of on_batch's, on its way through the handler for a file's exceptions."""

    def __init__(self, exc: Exception) -> None:
        super().__init__(str(exc))
        self.exc = exc


def load_corpus(
    inputs: Sequence[str | os.PathLike[str]] = (),
    progress: Progress | None = None,
    use_cache: bool = True,
    on_batch: Callable[[Corpus, int], None] | None = None,
) -> Corpus:
    """Load files and folders (none: the bundled seeds). Raises CorpusError for a missing path.

    ``on_batch(corpus, count)`` is called as papers are read (every ``STREAM_SECONDS`` or so,
    from this thread) with the corpus being filled: its first ``count`` papers are there to
    list and read (``ids``, ``titles``, ``paper(i)``), and keep their place and id: a record of
    the same work read later may still fill in a field, add a source or give a real title for a
    generated one (and generated titles are made unique at the end). The corpus returned is
    that same one, complete, unless a file failed in a way nobody foresaw: then a new one,
    without that file. An exception raised by ``on_batch`` stops the load and is raised here (a
    parse under way leaves no temp file).

    Several files merged before and unchanged since are merged as their journal says
    (merged.py), not by reading every record's identity again."""
    roots = resolve_roots(inputs)
    warnings: list[str] = []
    found = discover(roots, warnings)
    if use_cache:
        sweep()
    journal = merged.read(found) if use_cache else None
    corpus = _replayed(found, roots, journal, progress) if journal is not None else None
    stamps: list[merged.Stamp] | None = None  # what each file was as it was merged (its journal's)
    if corpus is not None:
        merged.touch(found)
        loaded, cache_error, whole = corpus.files, "", True
        if on_batch is not None:
            on_batch(corpus, len(corpus))
    else:
        corpus, loaded, cache_error, whole, stamps = _merged(found, roots, progress, use_cache, on_batch)
    warnings += [w for data in loaded for w in data.warnings]
    if cache_error:
        warnings.append(f"cannot write the parse cache ({cache_error}); reading without it")
    if not found:
        warnings.append("no corpus files found in " + ", ".join(map(shown, roots)))
    if not whole:
        return Corpus(loaded, roots, warnings)
    corpus.finish(warnings)
    if use_cache and not cache_error and stamps is not None:
        merged.write(found, stamps, [np.frombuffer(ops, np.int64).reshape(-1, 2) for ops in corpus.decided])
    corpus.decided = []  # written (or not to be): the journal's, not the reader's
    return corpus


def _replayed(
    found: list[Path], roots: list[Path], journal: merged.Journal, progress: Progress | None
) -> Corpus | None:
    """The files from their parse caches, merged as the journal says; None when one of them is
    not the one the journal was written for (changed since it was read: merged afresh)."""
    corpus = Corpus([], roots, [])
    for f, path in enumerate(found):
        if progress:
            progress(f, len(found), path)
        if not _replay_file(corpus, f, path, journal):
            corpus.close()
            return None
    corpus.replayed = True
    return corpus


def _replay_file(corpus: Corpus, f: int, path: Path, journal: merged.Journal) -> bool:
    try:
        data = load_file(path)  # a cache hit: the journal's stamps were just checked
    except Exception:  # the merge afresh names it
        return False
    if not merged.fits(journal, f, data):
        data.rows.close()  # changed since the journal was read
        return False
    try:
        corpus.replay(f, data, journal.ops[f])
    except ValueError:  # a journal that does not fit these files after all
        return False
    return True


def _merged(
    found: list[Path],
    roots: list[Path],
    progress: Progress | None,
    use_cache: bool,
    on_batch: Callable[[Corpus, int], None] | None,
) -> tuple[Corpus, list[FileData], str, bool, list[merged.Stamp] | None]:
    """Each file loaded (parsed where its cache does not hold it) and merged as it streams in:
    the corpus, the files, the cache's error, False when a file failed midway, and each file's
    stamp as it was read (None when a file could not be: no journal for that)."""
    corpus = Corpus([], roots, [])
    loaded: list[FileData] = []
    stamps: list[merged.Stamp] | None = []
    cache_error = ""
    whole = True  # False: a file failed midway; the papers streamed from it are not kept
    told = [-math.inf]

    def tell(count: int, now: bool = False) -> None:
        if on_batch is not None and (now or time.monotonic() - told[0] >= parse_cache.STREAM_SECONDS):
            told[0] = time.monotonic()
            try:
                on_batch(corpus, count)
            except Exception as exc:  # not a file's fault: it stops the load (see below)
                raise _Relayed(exc) from exc

    try:
        for n, path in enumerate(found):
            if progress:
                progress(n, len(found), path)
            f = len(corpus.files)

            def on_rows(data: FileData, f: int = f) -> None:
                tell(corpus.grow(f, data), now=True)  # load_file paces these

            try:
                data = load_file(path, use_cache=use_cache, write_cache=not cache_error, on_rows=on_rows)
            except _Relayed:
                raise
            except Exception as exc:  # a bug or a case nobody foresaw: this file only, named
                why = f"{exc.__class__.__name__}: {exc}"[:200]
                data = FileData(
                    path, [], [], bytearray(), Rows([]), [f"{shown(path)}: could not be read ({why})"]
                )
                whole = whole and f == len(corpus.files)  # nothing of it was streamed yet
                stamps = None
            if stamps is not None:
                stamps.append(merged.stamp_of(data))
            cache_error = cache_error or data.cache_error
            loaded.append(data)
            if whole:
                tell(corpus.grow(f, data, told=tell))  # a cached file merged: told as it goes
    except _Relayed as relayed:  # on_batch raised (the reader is closing): stop, with that
        raise relayed.exc from None
    return corpus, loaded, cache_error, whole, stamps
