"""What the corpus reads to fold records (corpus.py): a row's identity, an id for a second work."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tui_reader.corpus.identity import Identity
from tui_reader.corpus.parse_cache import FileData
from tui_reader.corpus.views import BULK

if TYPE_CHECKING:
    from tui_reader.corpus.corpus import Corpus

_IDENTITY = '"identity":"'  # Paper.extra() writes it last
_CITE = '"citation-key":"'
_DECODER = json.JSONDecoder()


def identity_of(data: FileData, r: int, raw: bytes | None = None) -> Identity:
    """Row r's identity as the parse cache keeps it (``raw``: the row, read already). Only the
    two values are decoded, not the row (a second file reads every earlier row's identity
    once: 87k rows). A key pattern outside a string is always the key (a quote inside a JSON
    string is escaped); anything unexpected reads the whole row."""
    text = (data.rows.raw(r) if raw is None else raw).decode("utf-8", "surrogatepass")
    at, cite = text.rfind(_IDENTITY), text.find(_CITE)
    try:
        found = _DECODER.raw_decode(text, at + len(_IDENTITY) - 1)[0] if at >= 0 else None
        key = _DECODER.raw_decode(text, cite + len(_CITE) - 1)[0] if cite >= 0 else ""
    except ValueError:
        return _identity_of_row(data, r)
    return Identity.from_json(found or "", key if isinstance(key, str) else "")


READ = 512  # rows read at once (~0.7 MB: more leaves the heap that much larger for good)


def identities(data: FileData, start: int, stop: int) -> list[Identity]:
    """identity_of for rows start..stop, read a few hundred at once."""
    out: list[Identity] = []
    for lo in range(start, stop, READ):
        hi = min(lo + READ, stop)
        out += (
            identity_of(data, r, raw)
            for r, raw in zip(range(lo, hi), data.rows.raw_range(lo, hi), strict=True)
        )
    return out


def _identity_of_row(data: FileData, r: int) -> Identity:
    row = data.rows.get(r)
    extra = row[8] if len(row) > 8 and isinstance(row[8], dict) else {}
    record = extra.get("record")
    key = record.get("citation-key") if isinstance(record, dict) else ""
    return Identity.from_json(extra.get("identity"), str(key or ""))


def other_id(pid: str, ident: Identity, taken: Mapping[str, int]) -> str:
    """An id for a second work whose records carry an id taken by another (two citation keys
    with one title, author and year): derived from its key, or its place, so it is stable."""
    n = 0
    while True:
        salt = f"{ident.key}\0{n}" if ident.key else f"\0{n}"
        new = hashlib.sha1(f"{pid}\0{salt}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
        if new not in taken:
            return new
        n += 1


def build_aliases(corpus: Corpus) -> dict[str, int]:
    """Every old id (and folded record's id) no paper lists under -> its paper: one pass over
    the rows, first paper first (an old id that named several works names the first)."""
    built: dict[str, int] = {}
    for i in range(len(corpus)):
        for data, r in corpus.records(i):
            row = data.rows.get(r)
            extra = row[8] if len(row) > 8 and isinstance(row[8], dict) else {}
            olds = extra.get("aliases")
            if not isinstance(olds, list):  # the usual alias, the abstract's hash, goes unwritten
                olds = [Identity.from_json(extra.get("identity")).text]
            for alias in [data.ids[r], *olds]:
                if alias and alias not in corpus.index_of:
                    built.setdefault(str(alias), i)
    return built


def repeated(corpus: Corpus, data: FileData, start: int, stop: int) -> set[int]:
    """The rows of a batch (``start``..``stop``, counted from start) whose id is seen before in
    it or in the corpus. A whole file parsed (its lookup) is checked through the hashes."""
    whole = data.lookup is not None and start == 0 and stop == len(data) >= BULK
    return repeated_rows(corpus, data) if whole else repeated_ids(corpus, data.ids[start:stop])


def repeated_ids(corpus: Corpus, ids: Sequence[str]) -> set[int]:
    """Rows whose id an earlier row of the batch, or a paper, has already."""
    held = corpus.index_of.held(ids)
    if len(set(ids)) == len(ids) and not any(held):
        return set()
    first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))  # id -> its row
    slow = set(range(len(ids))).difference(first.values())
    slow.update(row for row in first.values() if held[row])
    return slow


def repeated_rows(corpus: Corpus, data: FileData) -> set[int]:
    """repeated_ids for a whole file, from its lookup: only rows whose hash repeats one of
    the file or of a paper are compared as strings."""
    assert data.lookup is not None
    maybe = {int(r) for r in data.lookup.repeated()}
    if len(corpus):
        held = corpus.index_of.hashes_held(data.lookup.by_row())
        maybe.update(int(r) for r in held.nonzero()[0])
    if not maybe:
        return set()
    for r in list(maybe):  # the first row of a repeated hash too: compared with the others
        maybe.update(data.lookup.candidates(data.ids[r]))
    seen: dict[str, int] = {}
    slow: set[int] = set()
    for r in sorted(maybe):
        pid = data.ids[r]
        if pid in seen or pid in corpus.index_of:
            slow.add(r)
        seen.setdefault(pid, r)
    return slow
