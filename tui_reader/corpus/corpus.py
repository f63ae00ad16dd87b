"""The loaded corpus: files merged in order, the records of one work folded into one paper listing
every source (identity.py says which records are one work).

Columnar: ids and titles are read-only sequences over the files' columns (views.py), a Paper is
built on demand from its file's rows; a paper costs ~8 bytes here (its record's place).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from tui_reader.corpus import merged
from tui_reader.corpus.folding import build_aliases, identities, repeated
from tui_reader.corpus.folding import identity_of as _identity
from tui_reader.corpus.folding import other_id as _other_id
from tui_reader.corpus.foldkeys import FoldKeys, fold_keys
from tui_reader.corpus.identity import Identity, conflict, merge, same_work
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.parse_cache import FileData
from tui_reader.corpus.text import clean_label
from tui_reader.corpus.titles import uniquify
from tui_reader.corpus.views import ROW, IdIndex, PaperIds, PaperTitles

CHUNK = 1 << 14  # rows whose identities are read at once, once a second file comes
MANY = 8  # records of one paper from which their identities are kept while the corpus loads


class Corpus:
    def __init__(self, files: list[FileData], roots: list[Path], warnings: list[str]) -> None:
        self.files: list[FileData] = []
        self.roots = roots
        self.warnings: list[str] = []
        self._at = array("Q")  # paper i is row (_at[i] & ROW) of files[_at[i] >> 32]: one write moves it
        self._id_at: dict[int, int] = {}  # papers whose id is another record's than _at's (a fold)
        self._renamed: dict[int, str] = {}  # papers given a new id: their records' id was taken
        self._titled: dict[int, str] = {}  # generated titles made unique
        self._merged: list[int] = []  # per file: its rows merged so far
        self._extra_sources: dict[int, list[str]] = {}
        self._more: dict[int, list[int]] = {}  # paper i's other records (same encoding as _at)
        self._dups: dict[str, list[int]] = {}  # papers given a new id: their records' id was taken
        self._keys: FoldKeys | None = None  # fold keys -> paper, once a second file comes
        self._aliases: dict[str, int] | None = None  # old ids -> paper, built when first asked
        self.decided: list[array[int]] = []  # per file: (row, paper or -1) of each row not bulk (merged.py)
        self.replayed = False  # merged as a journal said, not afresh
        self._kept: dict[int, dict[tuple[int, str, str], tuple[int, Identity]]] = {}  # _kinds, while loading
        self.ids: PaperIds = PaperIds(self)
        self.titles: PaperTitles = PaperTitles(self)
        self.index_of: IdIndex = IdIndex(self)
        self.derived: dict[str, object] = {}  # built from the papers on demand (columns.py)
        for f, data in enumerate(files):
            self.grow(f, data)
        self.finish(warnings)

    # -- filling: load_corpus grows a corpus file by file, batch by batch -----------------------
    def grow(self, f: int, data: FileData, told: Callable[[int], object] | None = None) -> int:
        """Merge the rows of file ``f`` (``data``, maybe still being parsed) not merged yet;
        returns how many papers the corpus lists now. First occurrence fixes the order; a
        real title beats a generated one. Papers already listed keep their rows (the list on
        screen only ever grows), so a reader may show rows below that count while this runs.

        Records of one work fold into one paper (identity.same_work): within a file when their
        ids agree, across files also when a DOI, arXiv id, title-author-year or abstract does.
        The usual batch (nothing seen before) is one bulk append."""
        if f == len(self.files):
            self.files.append(data)
            self._merged.append(0)
            self.decided.append(array("q"))
        elif len(data) >= self._merged[f]:  # the file parsed again (the cache filled up): same rows
            self.files[f] = data
        else:
            return len(self._at)  # not yet as far as the rows already listed
        start, stop = self._merged[f], len(data)
        if start >= stop:
            return len(self._at)
        self._aliases = None
        if f > 0 and self._keys is None:
            self._keys = fold_keys(self, f)  # a second file comes: every paper's keys so far
        slow = [start + p for p in sorted(repeated(self, data, start, stop))]
        step = stop - start if self._keys is None else CHUNK  # identities a chunk at a time
        for lo in range(start, stop, step):
            hi = min(lo + step, stop)
            self._merge(f, data, lo, hi, slow[bisect_left(slow, lo) : bisect_left(slow, hi)])
            if told is not None and hi < stop:  # a large file after another: ~40 s at 2.7M
                told(len(self._at))
        self._merged[f] = stop
        return len(self._at)

    def _merge(self, f: int, data: FileData, start: int, stop: int, repeated: list[int]) -> None:
        """Rows start..stop of file f: in bulk, but for those that may fold into a paper."""
        idents = identities(data, start, stop) if self._keys is not None else None
        keys = [ident.fold_keys() for ident in idents] if idents else None  # each row's, once
        done, count = 0, stop - start
        slow = {r - start for r in repeated} | self._shared(f, keys)
        for p in [*sorted(slow), count]:
            self._append(f, start + done, start + p, data, keys[done:p] if keys else None)
            if p < count:
                at = self._add(f, start + p, data, idents[p] if idents else None)
                self.decided[f].extend((start + p, at))
            done = p + 1

    def replay(self, f: int, data: FileData, ops: merged.Ops) -> None:
        """File f (the next one, whole) merged as the journal says: the rows between its ops in
        bulk, each op's row folded into its paper or added as a new one, as ``_merge`` did.
        Raises ValueError for a decision naming a paper not listed yet (a journal not this one's)."""
        assert f == len(self.files)
        self.files.append(data)
        self._merged.append(len(data))
        self.decided.append(array("q"))  # no journal is written of a replay
        done = 0
        for r, at in ops.tolist():
            self._append(f, done, r, data, None)
            if at >= len(self._at):
                raise ValueError("the journal folds into a paper not listed yet")
            if at >= 0:
                self._fold(at, f, r, data)
            else:
                self._new(f, r, data, None)
            done = r + 1
        self._append(f, done, len(data), data, None)

    def _shared(self, f: int, keys_of: list[list[str]] | None) -> set[int]:
        """The rows (of these fold keys, a list a row) with a key another file's paper has."""
        keys = self._keys
        if not keys or not keys_of:
            return set()
        flat = [(p, k) for p, row_keys in enumerate(keys_of) for k in row_keys]
        found = keys.found([k for _, k in flat])
        return {p for (p, _), i in zip(flat, found, strict=True) if i is not None and self._elsewhere(i, f)}

    def _append(self, f: int, start: int, stop: int, data: FileData, keys_of: list[list[str]] | None) -> None:
        """Rows start..stop of file f, all papers not listed yet (``keys_of``: their fold keys)."""
        if start < stop:
            n = len(self._at)
            self._at.frombytes(np.arange((f << 32) + start, (f << 32) + stop, dtype=np.uint64).tobytes())
            self.index_of.added(n, f, data, start, stop)
            if self._keys is not None and keys_of:
                loc = (f << 32) + start - n
                entries = [(k, i, loc + i) for i, row_keys in enumerate(keys_of, n) for k in row_keys]
                self._keys.register_many(entries)

    def _register(self, i: int, ident: Identity, loc: int) -> None:
        if self._keys is not None:
            self._keys.register(ident.fold_keys(), i, loc)

    def _elsewhere(self, i: int, f: int) -> bool:
        """Paper i has a record from a file other than f (fold keys only join files)."""
        return any(loc >> 32 != f for loc in self._locs(i))

    def _add(self, f: int, r: int, data: FileData, ident: Identity | None) -> int:
        """One record that may be a work listed already: folded into it (its paper returned),
        or a new paper (under a new id when its own is taken by another work: -1 returned)."""
        pid = data.ids[r]
        ident = ident or _identity(data, r)
        candidates = [self.index_of[pid]] if pid in self.index_of else []
        candidates += self._dups.get(pid, [])
        if self._keys is not None:
            found = self._keys.found(ident.fold_keys())
            candidates += [i for i in found if i is not None and self._elsewhere(i, f)]
        for at in dict.fromkeys(candidates):
            if self._fits(at, f, ident):
                self._fold(at, f, r, data)
                self._register(at, ident, (f << 32) + r)
                return at
        self._new(f, r, data, ident)
        return -1

    def _new(self, f: int, r: int, data: FileData, ident: Identity | None) -> None:
        """Row r of file f as a new paper, under a new id when its own is taken."""
        n, pid = len(self._at), data.ids[r]
        new = pid
        if pid in self.index_of:
            new = _other_id(pid, ident or _identity(data, r), self.index_of)
            self._dups.setdefault(pid, []).append(n)
            self._renamed[n] = new
        self._at.append((f << 32) + r)
        self.index_of.put(new, n)
        if ident is not None:
            self._register(n, ident, (f << 32) + r)

    def _fits(self, at: int, f: int, ident: Identity) -> bool:
        """Whether a record of file f is the work paper ``at`` is: one of its records the same
        work, none certainly another (a different DOI, or another citation key in file f)."""
        theirs = [(file == f, other) for file, other in self._kinds(at)]
        if any(conflict(other, ident, same) for same, other in theirs):
            return False
        return any(same_work(other, ident, same) for same, other in theirs)

    def _kinds(self, at: int) -> Iterable[tuple[int, Identity]]:
        """Paper at's records as (file, identity): read again for a paper of a few records; for
        one of MANY, each distinct pair once, kept while loading (a work in hundreds of records
        read and compared them all for each new one: 1,000 copies of one paper in each of two
        files were 2M reads, 6.6 s; 5,000 would have been minutes)."""
        locs = self._locs(at)
        if len(locs) < MANY:
            return [(loc >> 32, _identity(self.files[loc >> 32], loc & ROW)) for loc in locs]
        kinds = self._kept.get(at)
        if kinds is None:
            kinds = self._kept[at] = {}
            for loc in locs:
                self._keep(kinds, loc)
        return kinds.values()

    def _keep(self, kinds: dict[tuple[int, str, str], tuple[int, Identity]], loc: int) -> None:
        ident = _identity(self.files[loc >> 32], loc & ROW)
        kinds.setdefault((loc >> 32, ident.to_json(), ident.key), (loc >> 32, ident))

    def _fold(self, at: int, f: int, r: int, data: FileData) -> None:
        first, r0 = self._loc(at)
        sources = self._extra_sources.setdefault(at, [first.source])
        if data.source not in sources:
            sources.append(data.source)
        more = self._more.setdefault(at, [])
        kinds = self._kept.get(at)
        if kinds is not None:  # its records' kinds kept (_kinds): this one's too
            self._keep(kinds, (f << 32) + r)
        if first.generated[r0] and not data.generated[r]:  # a real title beats a generated one
            more.insert(0, self._at[at])
            self._id_at.setdefault(at, self._at[at])  # the paper keeps its id
            self._at[at] = (f << 32) + r
            self._titled.pop(at, None)
        else:
            more.append((f << 32) + r)

    def finish(self, warnings: list[str]) -> None:
        """Every file is in: generated titles made unique, the warnings set."""
        # Every warning is one line fit for a terminal, whatever file name or message it quotes.
        self.warnings = [clean_label(w) for w in warnings]
        self.index_of.freeze()
        self._kept.clear()
        self._keys = None  # for merging only: ~190 MB at 2.7M papers after a small file
        if not any(data.has_generated() for data in self.files):
            return
        files, at = self.files, self._at
        generated = [i for i in range(len(at)) if files[at[i] >> 32].generated[at[i] & ROW]]
        if not generated:
            return
        made = set(generated)
        taken = {t.casefold() for i, t in enumerate(self.titles) if i not in made}
        unique = uniquify([self.titles[i] for i in generated], taken)
        for i, title in zip(generated, unique, strict=True):
            if title != self.titles[i]:
                self._titled[i] = title

    def __len__(self) -> int:
        return len(self._at)

    def id_loc(self, i: int) -> int:
        """The record (file << 32 | row) paper i's id comes from."""
        return self._id_at.get(i, self._at[i])

    def _loc(self, i: int) -> tuple[FileData, int]:
        at = self._at[i]
        return self.files[at >> 32], at & ROW

    def _locs(self, i: int) -> list[int]:
        """Paper i's records (file << 32 | row), the one it shows first."""
        return [self._at[i], *self._more.get(i, ())]

    def records(self, i: int) -> list[tuple[FileData, int]]:
        """The file rows of every record folded into paper i, the first one first."""
        return [(self.files[loc >> 32], loc & ROW) for loc in self._locs(i)]

    def files_of(self, i: int) -> list[int]:
        """Which files (indexes into ``files``) paper i's records come from."""
        return [loc >> 32 for loc in self._locs(i)]

    def sources(self, i: int) -> list[str]:
        extra = self._extra_sources.get(i)
        return list(extra) if extra else [self.files[self._at[i] >> 32].source]

    def paper(self, i: int) -> Paper:
        """Paper i, its records merged (the first one's fields, each empty one filled from the
        others: identity.merge)."""
        data, r = self._loc(i)
        paper = data.paper(r)
        paper.id = self.ids[i]
        if i in self._more:
            merge(paper, [d.paper(rr) for d, rr in self.records(i)[1:]])
        taken = self.index_of  # an id another paper lists under is no alias of this one
        paper.aliases = [a for a in paper.aliases if a != paper.id and taken.get(a, i) == i]
        paper.title = self.titles[i]
        paper.sources = self.sources(i)
        return paper

    def get(self, pid: str) -> Paper | None:
        """The paper of an id, or of an id it was known by before (see ``resolve``)."""
        i = self.index_of.get(pid)
        if i is None and self._aliases is not None:
            i = self._aliases.get(pid)
        return None if i is None else self.paper(i)

    def resolve(self, pid: str) -> int | None:
        """The paper an id names: a current id, or an alias (the id a paper had before issue 18,
        or the id of a record folded into it). An old id that named several works (they shared
        an abstract) resolves to the first, the one the user saw. The first alias lookup reads
        every row once (~0.4 s at 87k papers): call it from a worker."""
        i = self.index_of.get(pid)
        if i is not None:
            return i
        return self.aliases().get(pid)

    def aliases(self) -> dict[str, int]:
        """Old ids -> paper index (built on first use, kept until the corpus grows)."""
        if self._aliases is None:
            self._aliases = build_aliases(self)
        return self._aliases

    def __iter__(self) -> Iterator[Paper]:
        return (self.paper(i) for i in range(len(self._at)))

    def record_key(self, i: int) -> bytes:
        """Hash of the raw source records behind paper i (changes when one of its entries does)."""
        records = self.records(i)
        if len(records) == 1:
            data, r = records[0]
            return data.key(r)
        h = hashlib.blake2b(digest_size=12)
        for data, r in records:
            h.update(data.key(r))
        return h.digest()

    def row(self, i: int) -> tuple[object, ...]:
        """Paper i's stored fields as its file keeps them (id, title, abstract, authors, venue,
        year, url, title_generated): cheaper than ``paper(i)`` when only some are needed. A paper
        of several records gives its merged fields."""
        if i not in self._more:
            data, r = self._loc(i)
            return data.rows.get(r)
        p = self.paper(i)
        return (p.id, p.title, p.abstract, p.authors, p.venue, p.year, p.url, p.title_generated, p.extra())

    def rows(self, start: int, stop: int) -> list[tuple[object, ...]]:
        """``row(i)`` for papers start..stop-1, each run of consecutive rows of a file in one read
        (an index build reads every paper: a read and a lock each were a tenth of it at 2.7M)."""
        at = np.frombuffer(self._at[start:stop], np.uint64)  # a copy: _at may grow meanwhile
        if not len(at):
            return []
        cuts = np.flatnonzero((np.diff(at) != 1) | (np.diff(at >> np.uint64(32)) != 0)) + 1
        out: list[tuple[object, ...]] = []
        for lo, hi in itertools.pairwise([0, *cuts.tolist(), len(at)]):
            first = int(at[lo])
            blobs = self.files[first >> 32].rows.raw_range(first & ROW, (first & ROW) + hi - lo)
            out += [tuple(json.loads(blob)) for blob in blobs]
        for i in range(start, stop):
            if i in self._more:  # a paper of several records: its merged fields
                out[i - start] = self.row(i)
        return out

    def abstract(self, i: int) -> str:
        for data, r in self.records(i):
            text = str(data.rows.get(r)[2])
            if text:
                return text
        return ""

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
