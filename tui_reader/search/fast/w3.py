"""The one module that touches Whoosh's private parts: its W3 codec's files and objects.

The fast paths -- the bulk build (index/build/) and block-at-a-time scoring (score.py,
phrase.py) -- read and write segments below Whoosh's public API, through the small accessors
here. They are checked on first use (selfcheck.py; health.py holds the verdict): a tiny index
written by Whoosh's writer and by the bulk builder must read the same and score the same. If
not, the fast paths switch off for the process (Whoosh's writer builds and its searcher
answers: the same results, slower) and the reader is told once (``health.take_notice``).
The query language's cap on prefix, wildcard and fuzzy words (caps.py) overrides how Whoosh
expands them, so it is here too (``Capped``).
"""

from __future__ import annotations

import heapq
import logging
import pickle
import struct
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate, compress
from operator import itemgetter, methodcaller
from typing import Any

import numpy as np
from whoosh import columns, formats, scoring
from whoosh.codec import whoosh3
from whoosh.matching.wrappers import FilterMatcher
from whoosh.system import pack_ushort
from whoosh.util.numeric import _length_byte_cache, byte_to_length

from tui_reader.search import stop

logger = logging.getLogger("tui_reader.search")


# -- reading: scoring a block at a time -----------------------------------------------------------
_LENGTH = [1] + [byte_to_length(b) for b in range(1, 256)]  # a missing length counts as 1


def bm25f_params(weighting: Any) -> tuple[float, float] | None:
    """(B, K1) of a plain BM25F (no per-field B): the only weighting score.py reproduces."""
    plain = type(weighting) is scoring.BM25F and not weighting._field_B
    return (weighting.B, weighting.K1) if plain else None


def expansions(q: Any, reader: Any) -> Iterator[bytes]:
    """A multi-term query's words in one segment, lazily, as its matcher expands them."""
    return q._btexts(reader)


def doc_lengths(reader: Any, fieldname: str) -> list[int]:
    """Each document's length in the field as ``doc_field_length(docnum, field, 1)`` gives it,
    for docnums 0..doc_count_all() (one more than there are)."""
    count = reader.doc_count_all()
    column = reader._perdoc._cached_reader(f"_{fieldname}_len", whoosh3.LENGTHS_COLUMN)
    raw = _length_bytes(column) if column is not None else bytes(count)
    lengths = [_LENGTH[x] for x in raw]
    return lengths + [1] * (count + 1 - len(lengths))


def with_field(reader: Any, fieldname: str) -> list[int] | None:
    """The documents with something in the field (a length byte, so a posting), deletions left
    to the caller; None when the field keeps no lengths (not scorable)."""
    if not reader.schema[fieldname].scorable:
        return None
    column = reader._perdoc._cached_reader(f"_{fieldname}_len", whoosh3.LENGTHS_COLUMN)
    raw = _length_bytes(column) if column is not None else b""
    return list(compress(range(len(raw)), raw))


def field_docs(reader: Any, fieldname: str) -> np.ndarray | None:
    """with_field as a sorted int64 array (the array segments' Every)."""
    if not reader.schema[fieldname].scorable:
        return None
    column = reader._perdoc._cached_reader(f"_{fieldname}_len", whoosh3.LENGTHS_COLUMN)
    raw = _length_bytes(column) if column is not None else b""
    try:
        lengths = np.frombuffer(raw, np.uint8)
    except (TypeError, ValueError):
        lengths = np.array(list(raw), np.uint8)
    return np.flatnonzero(lengths).astype(np.int64)


def _length_bytes(column: Any) -> bytes | Any:
    """A lengths column's bytes, one per document, as ``column.load()`` gives them (0 past the
    last one written), read in one slice: ``load()`` makes three Python calls per document
    (0.12 s per field at 87k papers, the whole cost of the first search after opening)."""
    plain = (
        type(column) is columns.NumericColumn.Reader
        and column._typecode == "B"
        and column._fixedlen == 1
        and hasattr(column._dbfile, "get")
    )
    if not plain:
        return column.load()
    count = column._doccount
    raw = column._dbfile.get(column._basepos, min(column._count, count))
    return raw + bytes(count - len(raw))


class Capped:
    """Mixin for a prefix, wildcard or fuzzy query: it expands, per segment as Whoosh expands
    it, to at most ``cap`` words, the segment's most frequent (the first alphabetically on a
    tie), listed in Whoosh's order. ``cut`` says that words were left out. Both Whoosh's
    matcher and score.py expand through it, so they answer the same query (caps.py)."""

    cap = 1000
    cut = False

    def _btexts(self, ixreader: Any) -> Iterator[bytes]:
        # expanded once per segment (score.py and highlighting ask again); copies share the list
        memo: list[tuple[Any, str, list[bytes]]] = self.__dict__.setdefault("_memo", [])
        key = repr(self)
        for reader, seen, words in memo:
            if reader is ixreader and seen == key:
                return iter(words)
        words = []
        for k, word in enumerate(super()._btexts(ixreader)):  # type: ignore[misc]
            if not k % 4096:
                stop.check()  # a wildcard scans the whole vocabulary: stoppable
            words.append(word)
        if len(words) > self.cap:
            self.cut = True
            field, df, counts = self.field(), ixreader.doc_frequency, []  # type: ignore[attr-defined]
            for k, word in enumerate(words):
                if not k % 4096:
                    stop.check()
                counts.append(df(field, word))
            words = sorted(
                words[i] for i in heapq.nlargest(self.cap, range(len(words)), key=counts.__getitem__)
            )
        memo.append((ixreader, key, words))
        return iter(words)


def blocks(m: Any, values: bool = False, wanted: list[int] | None = None) -> Iterator[tuple[Any, Any, Any]]:
    """(docnums, weights, values or None) a block at a time from a posting list; deletions are
    left to the caller. An inlined list (not W3's blocks) is read posting by posting.
    ``wanted`` (sorted docnums): blocks whose docnum range holds none of them are not decoded;
    a block's last docnum is in its header, read before its data."""
    if isinstance(m, FilterMatcher):
        m = m.child
    if type(m) is not whoosh3.W3LeafMatcher:
        yield _postings(m, values)
        return
    next_block, read_data, read_values = m._next_block, m._read_data, m._read_values
    previous = -1
    while m.is_active():
        if wanted is not None:
            last = m._maxid
            at = bisect_right(wanted, previous)
            previous = last
            if at == len(wanted):
                return  # past the last wanted docnum
            if wanted[at] > last:
                next_block()
                continue
        if m._data is None:
            read_data()
        data: Any = m._data
        ids = list(accumulate(data[0]))  # delta_decode, in C
        weights = data[1]
        if weights is None:
            weights = (1.0,) * len(ids)
        elif isinstance(weights, float):  # _read_weights stores it as a 32-bit float
            weights = (array("f", (weights,))[0],) * len(ids)
        vals: Any = None
        if values:
            read_values()
            vals = m._values
        yield ids, weights, vals
        next_block()


def _postings(m: Any, values: bool) -> tuple[list[int], list[float], list[bytes] | None]:
    ids, weights, vals = [], [], []
    while m.is_active():
        ids.append(m.id())
        weights.append(m.weight())
        if values:
            vals.append(m.value())
        m.next()
    return ids, weights, vals if values else None


def positions_decoder(fmt: Any) -> Callable[[bytes], list[int]]:
    """Positions.decode_positions, remembered per distinct value: most words occur once in a
    paper, so a phrase search decodes a few hundred distinct values, not one per paper."""
    if type(fmt) is not formats.Positions:
        return fmt.decoder("positions")
    memo: dict[bytes, list[int]] = {}

    def decode(value: bytes) -> list[int]:
        found = memo.get(value)
        if found is None:
            raw = value if value.endswith(b".") else value + b"."
            found = memo[value] = list(accumulate(pickle.loads(raw[4:])))
        return found

    return decode


def position_deltas(values: list[bytes]) -> list[list[int]]:
    """Positions.encode's values (a count, then a pickled list of deltas) decoded in one call:
    the pickles are joined as the items of one outer list."""
    if all(map(methodcaller("endswith", b"."), values)):
        bodies: Iterator[bytes] = map(itemgetter(slice(4, -1)), values)
    else:
        bodies = (v[4:-1] if v.endswith(b".") else v[4:] for v in values)
    return pickle.loads(b"\x80\x02](" + b"".join(bodies) + b"e.")


# -- writing: the bulk build's posting blocks and its segment -------------------------------------
_TERMINFO = struct.Struct("!BfIBBfII")  # W3TermInfo's header: flags, weight, doc count, length


def writer_problem(writer: Any) -> str | None:
    """Why the bulk build cannot write this writer's segment, or None: it must be a W3 segment
    writer with nothing inlined, as the builder lays out blocks and term infos itself."""
    codec: Any = getattr(writer, "codec", None)
    fw, pdw = getattr(writer, "fieldwriter", None), getattr(writer, "perdocwriter", None)
    w3 = (
        isinstance(codec, whoosh3.W3Codec)
        and isinstance(fw, whoosh3.W3FieldWriter)
        and isinstance(pdw, whoosh3.W3PerDocWriter)
    )
    if not w3 or codec._inlinelimit > 1:
        return "not a Whoosh 3 segment writer"
    if not all(hasattr(fw, a) for a in ("_postfile", "_tindex", "_fieldmap")):
        return "unexpected W3FieldWriter internals"
    if whoosh3.W3TermInfo._struct.format != _TERMINFO.format:
        return "unexpected W3TermInfo layout"
    return None


def block_params(codec: Any) -> tuple[int, int]:
    """The codec's postings per block and zlib level, for the workers."""
    return codec._blocklimit, codec._compression


class Segment:
    """The segment a SegmentWriter is writing, taking posting lists as bytes (stitch.py)."""

    def __init__(self, writer: Any) -> None:
        fw = writer.fieldwriter
        self._writer = writer
        self._fieldmap = fw._fieldmap
        self.write: Callable[[bytes], Any] = fw._postfile.write  # posting bytes
        self.tell: Callable[[], int] = fw._postfile.tell
        self.add_term: Callable[[bytes, bytes], Any] = fw._tindex.add  # (term key, info)
        self.perdoc = writer.perdocwriter  # start_doc, add_field, add_column_value, finish_doc

    def swap_terms(self, make: Callable[[Any], Any]) -> None:
        """The term table's writer replaced by ``make(writer)`` before any term is added (the
        bulk build's compact table, build/terms.py: the same file, no tuple per term)."""
        fw = self._writer.fieldwriter
        fw._tindex = make(fw._tindex)
        self.add_term = fw._tindex.add
        self.add_terms: Callable[[bytes, list[bytes], bytes, int], Any] = fw._tindex.add_many

    def field_key(self, name: str) -> bytes:
        """The prefix of the field's term keys (numbering fields as start_field does)."""
        return pack_ushort(self._fieldmap.setdefault(name, len(self._fieldmap)))

    def finish(self, count: int) -> None:
        """``count`` documents were written: commit() then closes the segment as usual."""
        self._writer.docnum = count
        self._writer._added = True


LENGTH_BYTES = np.array(_length_byte_cache, np.int64)  # length_to_byte is bisect_left in it


class PerDoc:
    """A W3 segment's per-document writer given a range of documents at once (build/stitch.py):
    what start_doc, add_field and finish_doc leave in the writer and its column writers."""

    def __init__(self, pdw: Any) -> None:
        if not isinstance(pdw, whoosh3.W3PerDocWriter):
            raise TypeError("not a W3 per-document writer")
        self._pdw = pdw

    @property
    def count(self) -> int:
        """The documents written so far."""
        return int(self._pdw._doccount)

    def add_length(self, name: str, total: int) -> None:
        """A field's total length, and its length column on the first (add_field's order)."""
        pdw = self._pdw
        pdw._fieldlengths[name] += total
        column = whoosh3._lenfield(name)
        if not pdw._has_column(column):
            pdw._create_column(column, whoosh3.LENGTHS_COLUMN)

    def write_lengths(self, name: str, base: int, codes: bytes) -> None:
        """The length bytes of documents base.. (the column's fill before them, as add does)."""
        writer = self._pdw._get_column(whoosh3._lenfield(name))
        if writer._count < base:
            writer._dbfile.write(writer._defaultbytes * (base - writer._count))
        writer._dbfile.write(codes)
        writer._count = base + len(codes)

    def store(self, docnum: int, fields: dict[str, Any]) -> None:
        """A document's stored fields through the stored column's own writer."""
        self._pdw._colwriters["_stored"].add(docnum, fields)

    def written(self, count: int) -> None:
        """The range up to ``count`` is written (finish_doc's count)."""
        self._pdw._doccount = count


def widen(growable: Any, value: int) -> None:
    """A GrowableArray retyped once to hold ``value`` (its append would retype item by item)."""
    growable._retype(value)
