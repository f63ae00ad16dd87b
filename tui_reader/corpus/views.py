"""The corpus's ids, titles and id -> paper lookup as views over its files' columns (issue 21).

A paper is a record's place (``Corpus._at``); its id and title are that record's, read from the
file's columns when asked, but for the few a merge changed (a renamed id, a generated title made
unique). ``IdIndex`` finds a paper by id through sorted 64-bit hashes (the file's own, from the
parse cache, when the corpus is one file) and a dict of the papers added since it was last built.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, Mapping, Sequence
from itertools import compress
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, overload

import numpy as np
import numpy.typing as npt

from tui_reader.corpus.hexids import isin_ids
from tui_reader.corpus.idruns import GrowingLookup
from tui_reader.corpus.strcol import U32, U64, IdLookup, StrColumn, hashes_of, same_strings

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus
    from tui_reader.corpus.parse_cache import FileData

T = TypeVar("T")
ROW = 0xFFFF_FFFF
BULK = 4096  # rows of a parsed file appended at once from which the hashes find them, not a dict
# Look-ups through the hashes (~2 us each) after which a process keeps every id in a dict
# (~2.3 s to make at 2.7M, in whichever search crosses it): high enough that a day of
# searches' hits (20-100 a search) does not, low enough that a caller looking up every
# paper one by one loses at most ~0.4 s before the dict (H-E saw 20,000 cause a 2.3 s
# type-ahead keystroke in bench.scale's run at 2.7M)
MISSES = 200_000


def plain(c: Corpus) -> bool:
    """Papers are the rows of one file in its order, under their own ids and titles."""
    return (
        len(c.files) == 1
        and len(c._at) == len(c.files[0])
        and not (c._renamed or c._titled or c._more or c._id_at)
        and bool(np.array_equal(np.frombuffer(c._at[:], np.uint64), np.arange(len(c._at))))
    )  # _at[:]: a copy (no buffer of _at held while numpy lets the loading thread append to it)


class _Papers(Sequence[str]):
    """A read-only sequence of one string per paper (slicing and iteration as a list's)."""

    __slots__ = ("_corpus", "_plain")

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._plain: tuple[tuple[int, ...], bool] = ((), False)

    def _one(self, i: int) -> str:
        raise NotImplementedError

    def _column(self, data: FileData) -> Sequence[str]:
        raise NotImplementedError

    def _is_plain(self) -> bool:
        """Whether the corpus is one file's rows as they are (then its column is read directly);
        remembered until the corpus changes."""
        c = self._corpus
        state = (len(c._at), len(c.files), len(c._renamed), len(c._titled), len(c._more), len(c._id_at))
        if self._plain[0] != state:
            self._plain = (state, plain(c))
        return self._plain[1]

    def __len__(self) -> int:
        return len(self._corpus._at)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step == 1 and self._is_plain():
                return list(self._column(self._corpus.files[0])[start:stop])
            if step == 1:
                return list(self._runs(start, stop))
            return [self._one(k) for k in range(start, stop, step)]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("paper index out of range")
        return self._one(i)

    def __iter__(self) -> Iterator[str]:
        if self._is_plain():
            return iter(self._column(self._corpus.files[0]))
        return self._runs()

    def _overrides(self) -> list[int]:
        raise NotImplementedError

    def _locs(self, start: int, stop: int) -> npt.NDArray[np.uint64]:
        return np.frombuffer(self._corpus._at[start:stop], np.uint64)  # a copy: the loader appends

    def _runs(self, begin: int = 0, end: int | None = None, step: int = 1 << 14) -> Iterator[str]:
        """Papers in order, a run of one file's consecutive rows decoded at once (a corpus of one
        file with a few records folded is nearly all runs), the others one by one."""
        c = self._corpus
        changed = np.array(sorted(self._overrides()), np.int64)
        end = len(self) if end is None else end
        for start in range(begin, end, step):
            stop = min(start + step, end)
            locs = self._locs(start, stop)
            first = int(locs[0])
            touched = np.searchsorted(changed, stop) > np.searchsorted(changed, start)
            if touched or not np.array_equal(locs, np.arange(first, first + stop - start, dtype=np.uint64)):
                yield from (self._one(i) for i in range(start, stop))
                continue
            column = self._column(c.files[first >> 32])
            row = first & ROW
            yield from column[row : row + stop - start]

    def __eq__(self, other: object) -> bool:
        return same_strings(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self)) if len(self) <= 20 else f"<{len(self)} {type(self).__name__}>"


class PaperIds(_Papers):
    __slots__ = ()

    def _one(self, i: int) -> str:
        c = self._corpus
        new = c._renamed.get(i)
        if new is not None:
            return new
        loc = c.id_loc(i)
        return c.files[loc >> 32].ids[loc & ROW]

    def _column(self, data: FileData) -> Sequence[str]:
        return data.ids

    def _overrides(self) -> list[int]:
        return [*self._corpus._renamed, *self._corpus._id_at]

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and pid in self._corpus.index_of


class PaperTitles(_Papers):
    __slots__ = ()

    def _one(self, i: int) -> str:
        c = self._corpus
        made = c._titled.get(i)
        if made is not None:
            return made
        loc = c._at[i]
        return c.files[loc >> 32].titles[loc & ROW]

    def _column(self, data: FileData) -> Sequence[str]:
        return data.titles

    def _overrides(self) -> list[int]:
        return list(self._corpus._titled)


NONE = 0xFFFF_FFFF  # a file row that is no paper under its own id (folded, renamed, not merged yet)


class _Filed(NamedTuple):
    data: FileData
    paper_of: U32 | None  # row -> paper (None: the one file as it is)
    lookup: IdLookup | GrowingLookup  # rows by id: the parse cache's, or the rows parsed so far


class IdIndex(Mapping[str, int]):
    """id -> paper. A large parsed file's papers are found through its own lookup (its rows by
    id hash, from the parse cache) and which paper each row became (none: one file as it is);
    the other papers (small files, a file still being parsed, renamed ids) through a dict."""

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._recent: dict[str, int] = {}
        self._files: dict[int, _Filed] = {}  # file -> (its data, row -> paper, rows by id)
        self._misses = 0  # look-ups the dict did not answer: past MISSES, every id goes in it

    # -- filling (Corpus.grow) ----------------------------------------------------------------
    def added(self, n: int, f: int, data: FileData, start: int, stop: int) -> None:
        """Rows start..stop of file f became papers n, n+1, ... (their ids none of the corpus's)."""
        if len(data) < BULK or self._misses > MISSES:  # (past MISSES: every id in the dict)
            self._recent.update(zip(data.ids[start:stop], range(n, n + stop - start), strict=True))
            return
        _, paper_of, lookup = self._files.get(f, (data, None, None))
        if data.lookup is not None:
            lookup, size = data.lookup, len(data)
        else:  # still being parsed: its rows so far by hash (a dict of them: ~350 MB at 2.7M)
            if not isinstance(lookup, GrowingLookup):
                lookup = GrowingLookup()
                lookup.add(data.ids[:start], 0)
            lookup.add(data.ids[start:stop], start)
            size = stop if paper_of is None else paper_of.size if paper_of.size >= stop else 2 * stop
        if paper_of is None or paper_of.size != size:
            before = paper_of if paper_of is not None else np.arange(n if f in self._files else 0)
            paper_of = np.full(size, NONE, np.uint32)
            paper_of[: before.size] = before[:size]
        paper_of[start:stop] = np.arange(n, n + stop - start, dtype=np.uint32)
        self._files[f] = _Filed(data, paper_of, lookup)

    def put(self, pid: str, i: int) -> None:
        self._recent[pid] = i

    def freeze(self) -> None:
        """Every file in: each large parsed file's papers found through its lookup (one file as
        it is needs nothing more), the dict keeping only the rest."""
        c = self._corpus
        large = {f: d.lookup for f, d in enumerate(c.files) if d.lookup is not None and len(d) >= BULK}
        if not large or self._misses > MISSES:
            return
        if plain(c):
            self._files = {0: _Filed(c.files[0], None, large[0])}
            self._recent = {}
            return
        n = len(c._at)
        locs = np.frombuffer(c._at, np.uint64).copy()
        for i, loc in c._id_at.items():
            locs[i] = loc
        own = np.ones(n, np.bool_)  # papers under their record's id
        own[list(c._renamed)] = False
        files, rows = locs >> np.uint64(32), (locs & np.uint64(ROW)).astype(np.int64)
        filed = np.zeros(n, np.bool_)
        for f, lookup in large.items():
            chosen = own & (files == f)
            paper_of = np.full(len(c.files[f]), NONE, np.uint32)
            paper_of[rows[chosen]] = chosen.nonzero()[0]
            self._files[f] = _Filed(c.files[f], paper_of, lookup)
            filed |= chosen
        self._recent = {pid: i for pid, i in self._recent.items() if not filed[i]}

    def _whole(self) -> None:
        """A caller looking every paper up one by one (facets, a store's ids): a dict of every
        id, as before issue 21, for this process (the hashes' look-up costs ~2 µs, a dict's 0.1)."""
        if self._files:
            whole = dict(zip(self._corpus.ids, range(len(self._corpus)), strict=True))
            self._recent, self._files = whole, {}

    def keys(self) -> _Keys:
        return _Keys(self)

    def absent(self, given: Iterable[Any]) -> set[Any]:
        """What of ``given`` no paper has as its id, all at once: each large file's ids that are
        papers' and the given ones compared as fixed-width bytes in numpy (a store of 2.7M visited
        ids checked at start, with one file or several; no copy of it as a set), else one look-up
        each."""
        columns = self._columns()
        if columns is None:
            rest = set(given) - self._recent.keys()
            return {x for x in rest if not isinstance(x, str) or self.get(x) is None}
        recent = self._recent
        pending = [x for x in given if x not in recent]
        lengths = np.fromiter(map(_ascii_len, pending), np.int64, len(pending))
        left = np.ones(len(pending), np.bool_)  # an id outside the dict is one of these files' ids
        for width, ours in columns:
            alike = left & (lengths == width)
            if alike.any():
                joined = "".join(compress(pending, alike.tolist())).encode("ascii")
                found = isin_ids(np.frombuffer(joined, np.uint8), ours, width)
                left[np.flatnonzero(alike)[found]] = False
        return set(compress(pending, left.tolist()))

    def _columns(self) -> list[tuple[int, npt.NDArray[np.uint8]]] | None:
        """Per large file, the width and bytes of its rows' ids that are papers' (a row folded
        into another paper, or renamed, is none), when every such file's ids are fixed-width
        ASCII: then an id is a paper's exactly when the dict or one of these has it."""
        if self._misses > MISSES:
            return None
        n = len(self._corpus._at)
        out = []
        for data, paper_of, lookup in self._files.values():
            width = data.ids.width() if isinstance(data.ids, StrColumn) else None
            if width is None or isinstance(lookup, GrowingLookup):
                return None
            assert isinstance(data.ids, StrColumn)
            ours = np.frombuffer(data.ids.blob, np.uint8)
            if paper_of is not None:
                ours = ours.reshape(-1, width)[paper_of < n].reshape(-1)
            out.append((width, ours))
        return out

    def hashes_held(self, hashes: U64) -> npt.NDArray[np.bool_]:
        """Which of these id hashes some paper's id may have (compare the strings)."""
        held = np.zeros(hashes.size, np.bool_)
        for filed in self._files.values():
            held |= filed.lookup.among(hashes)
        if self._recent:
            held |= np.isin(hashes, hashes_of(self._recent))
        return held

    # -- the mapping ---------------------------------------------------------------------------
    @overload
    def get(self, pid: str, /) -> int | None: ...
    @overload
    def get(self, pid: str, default: int | T, /) -> int | T: ...
    def get(self, pid: str, default: object = None, /) -> object:
        found = self._recent.get(pid)
        if found is not None or not self._files:
            return default if found is None else found
        self._misses += 1
        if self._misses > MISSES:
            self._whole()
            found = self._recent.get(pid)
            return default if found is None else found
        found = self._filed(pid)
        return default if found is None else found

    def _filed(self, pid: str) -> int | None:
        n = len(self._corpus._at)
        for data, paper_of, lookup in list(self._files.values()):
            for r in lookup.candidates(pid):
                paper = r if paper_of is None else int(paper_of[r])
                if paper < n and data.ids[r] == pid:
                    return paper
        return None

    def held(self, ids: Sequence[str]) -> list[bool]:
        """``pid in self`` for each of ``ids``, their hashes looked up at once and only a hit's
        strings compared: a parse asks it of every row (not a miss each, nor a dict of all)."""
        recent = self._recent
        if not self._files:
            return [pid in recent for pid in ids]
        hashes = hashes_of(ids)
        maybe = np.zeros(hashes.size, np.bool_)
        for filed in self._files.values():
            maybe |= filed.lookup.among(hashes)
        pairs = zip(ids, maybe.tolist(), strict=True)
        return [pid in recent or (m and self._filed(pid) is not None) for pid, m in pairs]

    def __getitem__(self, pid: str) -> int:
        found = self.get(pid)
        if found is None:
            raise KeyError(pid)
        return found

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and self.get(pid) is not None

    def __len__(self) -> int:
        return len(self._corpus)

    def __iter__(self) -> Iterator[str]:
        return iter(self._corpus.ids)


def _ascii_len(x: object) -> int:
    return len(x) if isinstance(x, str) and x.isascii() else -1  # -1: no fixed-width id


class _Keys(KeysView[str]):
    """The ids as a set: taking them from a set of ids is IdIndex.absent, not a look-up each."""

    _mapping: IdIndex

    def __rsub__(self, other: Iterable[Any]) -> set[Any]:
        return self._mapping.absent(other)

    def isdisjoint(self, other: Iterable[Any]) -> bool:
        given = set(other)
        return len(self._mapping.absent(given)) == len(given)
