"""The loaded corpus: files merged in order, duplicates folded into one paper listing every source.

Columnar on purpose: ids and titles are lists (all the list pane needs); a full Paper is built on
demand from its file's row cache. 87k papers cost ~20 MB here instead of ~400 MB of objects.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tui_reader import paths
from tui_reader.corpus.formats import discover, shown
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.parse_cache import FileData, Rows, load_file, sweep
from tui_reader.corpus.text import clean_label
from tui_reader.corpus.titles import uniquify


class Corpus:
    def __init__(self, files: list[FileData], roots: list[Path], warnings: list[str]) -> None:
        self.files = files
        self.roots = roots
        # Every warning is one line fit for a terminal, whatever file name or message it quotes.
        self.warnings = [clean_label(w) for w in warnings]
        self.ids: list[str] = []
        self.titles: list[str] = []
        self._loc: list[tuple[int, int]] = []
        self._extra_sources: dict[int, list[str]] = {}
        self.index_of: dict[str, int] = {}
        self.derived: dict[str, object] = {}  # built from the papers on demand (columns.py)
        self._merge()

    def _merge(self) -> None:
        """First occurrence fixes the order; a real title beats a generated one."""
        generated_rows: list[int] = []
        for f, data in enumerate(self.files):
            name = data.source
            for r, pid in enumerate(data.ids):
                at = self.index_of.get(pid)
                if at is None:
                    self.index_of[pid] = len(self.ids)
                    self.ids.append(pid)
                    self.titles.append(data.titles[r])
                    self._loc.append((f, r))
                    continue
                sources = self._extra_sources.setdefault(at, [self.files[self._loc[at][0]].source])
                if name not in sources:
                    sources.append(name)
                f0, r0 = self._loc[at]
                if self.files[f0].generated[r0] and not data.generated[r]:
                    self._loc[at] = (f, r)
                    self.titles[at] = data.titles[r]
        for i, (f, r) in enumerate(self._loc):
            if self.files[f].generated[r]:
                generated_rows.append(i)
        taken = {
            self.titles[i].casefold() for i, (f, r) in enumerate(self._loc) if not self.files[f].generated[r]
        }
        unique = uniquify([self.titles[i] for i in generated_rows], taken)
        for i, title in zip(generated_rows, unique, strict=True):
            self.titles[i] = title

    def __len__(self) -> int:
        return len(self.ids)

    def sources(self, i: int) -> list[str]:
        extra = self._extra_sources.get(i)
        return list(extra) if extra else [self.files[self._loc[i][0]].source]

    def paper(self, i: int) -> Paper:
        f, r = self._loc[i]
        paper = self.files[f].paper(r)
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
        f, r = self._loc[i]
        return self.files[f].keys[r * 12 : (r + 1) * 12]

    def row(self, i: int) -> tuple[object, ...]:
        """Paper i's stored fields as its file keeps them (id, title, abstract, authors, venue,
        year, url, title_generated): cheaper than ``paper(i)`` when only some are needed."""
        f, r = self._loc[i]
        return self.files[f].rows.get(r)

    def abstract(self, i: int) -> str:
        f, r = self._loc[i]
        return str(self.files[f].rows.get(r)[2])

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


def load_corpus(
    inputs: Sequence[str | os.PathLike[str]] = (),
    progress: Callable[[int, int, Path], None] | None = None,
    use_cache: bool = True,
) -> Corpus:
    """Load files and folders (none: the bundled seeds). Raises CorpusError for a missing path."""
    roots = resolve_roots(inputs)
    warnings: list[str] = []
    found = discover(roots, warnings)
    if use_cache:
        sweep()
    loaded: list[FileData] = []
    cache_error = ""
    for n, path in enumerate(found):
        if progress:
            progress(n, len(found), path)
        try:
            data = load_file(path, use_cache=use_cache, write_cache=not cache_error)
        except Exception as exc:  # a bug or a case nobody foresaw: this file only, named
            why = f"{exc.__class__.__name__}: {exc}"[:200]
            data = FileData(
                path, [], [], bytearray(), Rows([]), [f"{shown(path)}: could not be read ({why})"]
            )
        cache_error = cache_error or data.cache_error
        loaded.append(data)
    warnings += [w for data in loaded for w in data.warnings]
    if cache_error:
        warnings.append(f"cannot write the parse cache ({cache_error}); reading without it")
    if not found:
        warnings.append("no corpus files found in " + ", ".join(map(shown, roots)))
    return Corpus(loaded, roots, warnings)
