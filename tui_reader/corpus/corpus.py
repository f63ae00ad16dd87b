"""The loaded corpus: files merged in order, duplicates folded into one paper listing every source.

Columnar on purpose: ids and titles are lists (all the list pane needs); a full Paper is built on
demand from its file's row cache. 87k papers cost ~20 MB here instead of ~400 MB of objects.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tui_reader import paths
from tui_reader.corpus import parse_cache
from tui_reader.corpus.formats import discover, shown
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.parse_cache import FileData, Rows, load_file, sweep
from tui_reader.corpus.text import clean_label
from tui_reader.corpus.titles import uniquify

ROW = 0xFFFF_FFFF


class Corpus:
    def __init__(self, files: list[FileData], roots: list[Path], warnings: list[str]) -> None:
        self.files: list[FileData] = []
        self.roots = roots
        self.warnings: list[str] = []
        self.ids: list[str] = []
        self.titles: list[str] = []
        self._at = array("Q")  # paper i is row (_at[i] & ROW) of files[_at[i] >> 32]: one write moves it
        self._merged: list[int] = []  # per file: its rows merged so far
        self._extra_sources: dict[int, list[str]] = {}
        self.index_of: dict[str, int] = {}
        self.derived: dict[str, object] = {}  # built from the papers on demand (columns.py)
        for f, data in enumerate(files):
            self.grow(f, data)
        self.finish(warnings)

    # -- filling: load_corpus grows a corpus file by file, batch by batch -----------------------
    def grow(self, f: int, data: FileData) -> int:
        """Merge the rows of file ``f`` (``data``, maybe still being parsed) not merged yet;
        returns how many papers the corpus lists now. First occurrence fixes the order; a
        real title beats a generated one. Papers already listed keep their rows (the list on
        screen only ever grows), so a reader may show rows below that count while this runs."""
        if f == len(self.files):
            self.files.append(data)
            self._merged.append(0)
        elif len(data) >= self._merged[f]:  # the file parsed again (the cache filled up): same rows
            self.files[f] = data
        else:
            return len(self.ids)  # not yet as far as the rows already listed
        start, stop = self._merged[f], len(data)
        if start >= stop:
            return len(self.ids)
        ids, index_of = data.ids[start:stop], self.index_of
        unique = set(ids)
        if len(unique) == len(ids) and index_of.keys().isdisjoint(unique):  # the usual case
            self._append(f, start, stop, data)
        else:  # runs of new papers in bulk, each duplicate folded in where it stands
            first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))  # id -> its row
            again = set(range(len(ids))).difference(first.values())
            again.update(first[pid] for pid in first.keys() & index_of.keys())
            done = 0
            for p in [*sorted(again), len(ids)]:
                self._append(f, start + done, start + p, data)
                if p < len(ids):
                    self._add(f, start + p, data)
                done = p + 1
        self._merged[f] = stop
        return len(self.ids)

    def _append(self, f: int, start: int, stop: int, data: FileData) -> None:
        """Rows start..stop of file f, all papers not listed yet."""
        if start < stop:
            n = len(self.ids)
            self.index_of.update(zip(data.ids[start:stop], range(n, n + stop - start), strict=True))
            self.ids += data.ids[start:stop]
            self.titles += data.titles[start:stop]
            self._at.extend(range((f << 32) + start, (f << 32) + stop))

    def _add(self, f: int, r: int, data: FileData) -> None:
        pid = data.ids[r]
        at = self.index_of.get(pid)
        if at is None:
            self.index_of[pid] = len(self.ids)
            self.ids.append(pid)
            self.titles.append(data.titles[r])
            self._at.append((f << 32) + r)
            return
        first, r0 = self._loc(at)
        sources = self._extra_sources.setdefault(at, [first.source])
        if data.source not in sources:
            sources.append(data.source)
        if first.generated[r0] and not data.generated[r]:
            self._at[at] = (f << 32) + r
            self.titles[at] = data.titles[r]

    def finish(self, warnings: list[str]) -> None:
        """Every file is in: generated titles made unique, the warnings set."""
        # Every warning is one line fit for a terminal, whatever file name or message it quotes.
        self.warnings = [clean_label(w) for w in warnings]
        if not any(any(data.generated) for data in self.files):
            return
        files, at = self.files, self._at
        generated = [i for i in range(len(self.ids)) if files[at[i] >> 32].generated[at[i] & ROW]]
        if not generated:
            return
        made = set(generated)
        taken = {t.casefold() for i, t in enumerate(self.titles) if i not in made}
        unique = uniquify([self.titles[i] for i in generated], taken)
        for i, title in zip(generated, unique, strict=True):
            self.titles[i] = title

    def __len__(self) -> int:
        return len(self.ids)

    def _loc(self, i: int) -> tuple[FileData, int]:
        at = self._at[i]
        return self.files[at >> 32], at & ROW

    def sources(self, i: int) -> list[str]:
        extra = self._extra_sources.get(i)
        return list(extra) if extra else [self.files[self._at[i] >> 32].source]

    def paper(self, i: int) -> Paper:
        data, r = self._loc(i)
        paper = data.paper(r)
        paper.title = self.titles[i]
        paper.sources = self.sources(i)
        return paper

    def get(self, pid: str) -> Paper | None:
        i = self.index_of.get(pid)
        return None if i is None else self.paper(i)

    def __iter__(self) -> Iterator[Paper]:
        return (self.paper(i) for i in range(len(self.ids)))

    def record_key(self, i: int) -> bytes:
        """Hash of the raw source record behind paper i (changes when its file entry changes)."""
        data, r = self._loc(i)
        return data.keys[r * 12 : (r + 1) * 12]

    def row(self, i: int) -> tuple[object, ...]:
        """Paper i's stored fields as its file keeps them (id, title, abstract, authors, venue,
        year, url, title_generated): cheaper than ``paper(i)`` when only some are needed."""
        data, r = self._loc(i)
        return data.rows.get(r)

    def abstract(self, i: int) -> str:
        data, r = self._loc(i)
        return str(data.rows.get(r)[2])

    @property
    def key(self) -> str:
        """Identifies the collection (the roots the user opened), not its current contents."""
        joined = "\n".join(sorted(str(r) for r in self.roots))
        return hashlib.sha1(joined.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    def file_signatures(self) -> dict[str, list[int]]:
        out = {}
        for data in self.files:
            try:
                st = data.path.stat()
                out[str(data.path)] = [st.st_size, st.st_mtime_ns]
            except OSError:
                out[str(data.path)] = [-1, -1]
        return out

    def close(self) -> None:
        for data in self.files:
            data.rows.close()


def _resolve(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop: discover() names it
        return path.expanduser().absolute()


def resolve_roots(inputs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    return [_resolve(Path(p)) for p in inputs] or [paths.seeds_dir().resolve()]


class _Relayed(Exception):
    """An exception of on_batch's, on its way through the handler for a file's exceptions."""

    def __init__(self, exc: Exception) -> None:
        super().__init__(str(exc))
        self.exc = exc


def load_corpus(
    inputs: Sequence[str | os.PathLike[str]] = (),
    progress: Callable[[int, int, Path], None] | None = None,
    use_cache: bool = True,
    on_batch: Callable[[Corpus, int], None] | None = None,
) -> Corpus:
    """Load files and folders (none: the bundled seeds). Raises CorpusError for a missing path.

    ``on_batch(corpus, count)`` is called as papers are read (every ``STREAM_SECONDS`` or so,
    from this thread) with the corpus being filled: its first ``count`` papers are there to
    list and read (``ids``, ``titles``, ``paper(i)``), and stay as they are but for a generated
    title made unique at the end. The corpus returned is that same one, complete, unless a file
    failed in a way nobody foresaw: then a new one, without that file. An exception raised by
    ``on_batch`` stops the load and is raised here (a parse under way leaves no temp file)."""
    roots = resolve_roots(inputs)
    warnings: list[str] = []
    found = discover(roots, warnings)
    if use_cache:
        sweep()
    corpus = Corpus([], roots, [])
    loaded: list[FileData] = []
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
            cache_error = cache_error or data.cache_error
            loaded.append(data)
            if whole:
                tell(corpus.grow(f, data))
    except _Relayed as relayed:  # on_batch raised (the reader is closing): stop, with that
        raise relayed.exc from None
    warnings += [w for data in loaded for w in data.warnings]
    if cache_error:
        warnings.append(f"cannot write the parse cache ({cache_error}); reading without it")
    if not found:
        warnings.append("no corpus files found in " + ", ".join(map(shown, roots)))
    if not whole:
        return Corpus(loaded, roots, warnings)
    corpus.finish(warnings)
    return corpus
