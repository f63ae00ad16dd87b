"""The project's posting codec: Whoosh's W3 codec with posting blocks numpy reads whole.

W3 pickles each block of 128 postings as a tuple and zlib-compresses it, so reading a posting
costs Python work (~0.2 µs) and a position list a ``pickle.loads`` each. Here a block is a fixed
header and little-endian arrays: docnum deltas (uint8/16/32), weights (none when all 1.0, uint16
when whole numbers, else float32), each posting's length byte, and for a ``Positions`` field the
position count per posting and the position deltas of all postings concatenated (the deltas W3's
value pickles hold). ``np.frombuffer`` and ``np.cumsum`` decode a whole block (``decode``).

Everything else is W3's: the term table, the per-document columns, the term info, the block
statistics (max weight, min and max length, max id) that Whoosh's ``limit=N`` skipping reads.
``NpLeafMatcher`` gives Whoosh's searcher the same ids, weights and values as W3's matcher
(``value()`` rebuilt in the format's own encoding on demand), so Whoosh stays the reference and
the fallback; a field whose values are not plain positions keeps them as raw bytes per posting.
"""

from __future__ import annotations

import pickle
import struct
from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np
from whoosh import formats
from whoosh.codec import whoosh3
from whoosh.matching import ListMatcher
from whoosh.system import pack_uint
from whoosh.util.numeric import byte_to_length, length_to_byte

MAGIC = b"TRn1"  # starts every posting list (W3's is b"W3Bl": each matcher refuses the other's)
# data bytes, count, first id, max id, max weight, min/max length byte, id delta width,
# weight kind, value kind, flags
HEAD = struct.Struct("<IIIIdBBBBBB")
POSHEAD = struct.Struct("<IBB")  # positions in the block, count width, delta width
RAWHEAD = struct.Struct("<IB")  # value bytes in the block, length width
# The directory after a list's last block, an entry a block, then the number of blocks (uint32):
# where the block's data starts (from the list's magic), its HEAD and its POSHEAD (zeros if none).
# A whole list is decoded from it with no Python per block (columns.py); the matcher walks HEADs.
DIRECTORY = np.dtype(
    [("offset", "<u4"), ("size", "<u4"), ("count", "<u4"), ("first", "<u4"), ("maxid", "<u4"),
     ("maxweight", "<f8"), ("minlen", "u1"), ("maxlen", "u1"), ("idw", "u1"), ("wkind", "u1"),
     ("vkind", "u1"), ("flags", "u1"), ("npos", "<u4"), ("cw", "u1"), ("dw", "u1")]
)  # fmt: skip
ENTRY = struct.Struct("<I" + HEAD.format[1:] + POSHEAD.format[1:])
COUNT = struct.Struct("<I")
LAST, HAS_LENGTHS = 1, 2
W_ONES, W_U16, W_F32 = 0, 1, 2
V_NONE, V_POSITIONS, V_RAW = 0, 1, 2
WIDTHS: dict[int, np.dtype[Any]] = {1: np.dtype("u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}


def width(values: np.ndarray) -> int:
    """The fewest bytes (1, 2, 4) that hold every value of a non-negative integer array."""
    top = int(values.max()) if values.size else 0
    return 1 if top < 1 << 8 else 2 if top < 1 << 16 else 4


def packed(values: np.ndarray, nbytes: int) -> bytes:
    return values.astype(WIDTHS[nbytes]).tobytes()


@dataclass(slots=True)
class Block:
    """One decoded block: numpy arrays, plus each posting's value rebuilt on demand."""

    ids: np.ndarray  # int64 docnums, ascending
    weights: np.ndarray  # float64 (float32 values, as W3 reads them)
    lengths: np.ndarray | None  # uint8 length bytes, None when the field stores no lengths
    vkind: int
    counts: np.ndarray | None = None  # positions per posting (V_POSITIONS)
    starts: np.ndarray | None = None  # first delta of each posting in ``deltas``, then the end
    deltas: np.ndarray | None = None  # position deltas as W3 encodes them, all postings
    raw: list[bytes] | None = None  # V_RAW: the values as given
    lists: tuple[list[int], list[int]] | None = None  # every posting's positions, and starts

    def positions(self, i: int) -> list[int]:
        """Posting i's positions: the block's are decoded at once on the first call."""
        if self.lists is None:
            assert self.deltas is not None and self.starts is not None and self.counts is not None
            running = np.cumsum(self.deltas)
            before = np.concatenate(([0], running))[self.starts[:-1]]
            self.lists = (running - np.repeat(before, self.counts)).tolist(), self.starts.tolist()
        flat, starts = self.lists
        return flat[starts[i] : starts[i + 1]]

    def value(self, i: int, fixedsize: int | None) -> bytes | None:
        if self.vkind == V_POSITIONS:
            assert self.deltas is not None and self.starts is not None
            deltas = self.deltas[self.starts[i] : self.starts[i + 1]].tolist()
            return pack_uint(len(deltas)) + pickle.dumps(deltas, 2)
        if self.vkind == V_RAW:
            assert self.raw is not None
            return self.raw[i]
        return None if fixedsize == 0 else b""


def decode(buf: Any, pos: int, head: tuple[Any, ...], raw: bool = True, positions: bool = True) -> Block:
    """The block whose data starts at ``buf[pos]`` (its header already unpacked); without
    ``positions`` a positions block's counts and deltas are left undecoded (None)."""
    _n, count, first, _mx, _mw, _mn, _ml, idw, wkind, vkind, flags = head
    ids = np.empty(count, np.int64)
    ids[0] = first
    if count > 1:
        ids[1:] = np.frombuffer(buf, WIDTHS[idw], count - 1, pos)
        pos += (count - 1) * idw
    np.cumsum(ids, out=ids)
    if wkind == W_ONES:
        weights = np.ones(count)
    elif wkind == W_U16:
        weights = np.frombuffer(buf, "<u2", count, pos).astype(np.float64)
        pos += 2 * count
    else:
        weights = np.frombuffer(buf, "<f4", count, pos).astype(np.float64)
        pos += 4 * count
    lengths = None
    if flags & HAS_LENGTHS:
        lengths = np.frombuffer(buf, np.uint8, count, pos)
        pos += count
    block = Block(ids, weights, lengths, vkind)
    if vkind == V_POSITIONS and positions:
        total, cw, dw = POSHEAD.unpack_from(buf, pos)
        pos += POSHEAD.size
        block.counts = np.frombuffer(buf, WIDTHS[cw], count, pos).astype(np.int64)
        pos += count * cw
        block.starts = np.zeros(count + 1, np.int64)
        np.cumsum(block.counts, out=block.starts[1:])
        block.deltas = np.frombuffer(buf, WIDTHS[dw], total, pos).astype(np.int64)
    elif vkind == V_RAW and raw:
        total, lw = RAWHEAD.unpack_from(buf, pos)
        pos += RAWHEAD.size
        sizes = np.frombuffer(buf, WIDTHS[lw], count, pos)
        pos += count * lw
        ends = np.cumsum(sizes).tolist()
        data = bytes(buf[pos : pos + total])
        block.raw = [data[s:e] for s, e in zip([0, *ends[:-1]], ends, strict=True)]
    return block


def encode_positions(values: list[bytes]) -> bytes | None:
    """A block's ``Positions`` values as counts and concatenated deltas, or None if any value
    is not the plain encoding (``pack_uint(n) + pickle`` of n non-negative int deltas)."""
    counts: list[int] = []
    flat: list[int] = []
    try:
        for v in values:
            deltas = pickle.loads(v[4:])
            if type(deltas) is not list or struct.unpack("!I", v[:4])[0] != len(deltas):
                return None
            counts.append(len(deltas))
            flat += deltas
        arr = np.array(flat, dtype=np.int64) if flat else np.zeros(0, np.int64)
    except (pickle.UnpicklingError, struct.error, TypeError, ValueError, OverflowError, EOFError):
        return None
    if arr.size and (arr.min() < 0 or arr.max() >= 1 << 32):
        return None
    return positions_part(np.array(counts, dtype=np.int64), arr)


def positions_part(counts: np.ndarray, deltas: np.ndarray) -> bytes:
    cw, dw = width(counts), width(deltas)
    return POSHEAD.pack(deltas.size, cw, dw) + packed(counts, cw) + packed(deltas, dw)


def encode_block(
    ids: np.ndarray,
    weights: np.ndarray,
    lengths: bytes,
    values: tuple[int, bytes],
    stats: tuple[float, int, int],
    last: bool,
) -> tuple[bytes, bytes, tuple[int, int, int]]:
    """A block's HEAD, data and POSHEAD: int64 docnums, float32 weights, length bytes, the
    values part (kind, bytes), and (max weight, min and max length byte)."""
    deltas = np.diff(ids)
    idw = width(deltas)
    wkind, wbytes = weights_kind(weights)
    flags = LAST if last else 0
    if any(lengths):
        flags |= HAS_LENGTHS
    else:
        lengths = b""
    vkind, vbytes = values
    data = b"".join((packed(deltas, idw), wbytes, lengths, vbytes))
    maxweight, minlen, maxlen = stats
    head = HEAD.pack(
        len(data), ids.size, int(ids[0]), int(ids[-1]), maxweight, minlen, maxlen, idw, wkind, vkind, flags
    )
    return head, data, POSHEAD.unpack_from(vbytes) if vkind == V_POSITIONS else (0, 0, 0)


def encode_raw(values: list[bytes]) -> bytes:
    sizes = np.array([len(v) for v in values], dtype=np.int64)
    lw = width(sizes)
    return RAWHEAD.pack(int(sizes.sum()), lw) + packed(sizes, lw) + b"".join(values)


class NpPostingsWriter(whoosh3.W3PostingsWriter):
    """W3's postings writer (blocks, term info, statistics) writing the array layout."""

    _terminfo: Any
    _maxweight: float
    _minlength: int | None
    _maxlength: int

    def start_postings(self, format_: Any, terminfo: Any) -> None:
        super().start_postings(format_, terminfo)
        self._directory: list[bytes] = []

    def finish_postings(self) -> Any:
        """W3's, with the directory after the last block (and no inlining: W3's own is broken,
        ``set_inline`` does not exist, and never reached with its inlinelimit of 1)."""
        terminfo = self._terminfo
        if self._ids:
            self._write_block(last=True)
        self._postfile.write(b"".join(self._directory) + COUNT.pack(len(self._directory)))
        terminfo.set_extent(self._startoffset, self._postfile.tell() - self._startoffset)
        self._terminfo = None
        return terminfo

    def _new_block(self) -> None:
        # W3's _new_block (ids are docnums here: never byte ids), and the lengths and values
        self._ids = array("I")
        self._weights = array("f")
        self._values: list[bytes] = []
        self._minlength = None
        self._maxlength = 0
        self._maxweight = 0
        self._lengths: list[int] = []
        self._vbytes: list[bytes] = []

    def add_posting(self, id_: int, weight: float, vbytes: bytes, length: int | None = None) -> None:
        if len(self._ids) >= self._blocklimit:
            self._write_block()
        self._ids.append(id_)
        self._weights.append(weight)
        self._vbytes.append(vbytes)
        self._lengths.append(length_to_byte(length) if length else 0)
        if weight > self._maxweight:
            self._maxweight = weight
        if length:
            if self._minlength is None or length < self._minlength:
                self._minlength = length
            if length > self._maxlength:
                self._maxlength = length

    def _write_block(self, last: bool = False) -> None:
        if not self._blockcount:
            self._postfile.write(MAGIC)
        self._terminfo.add_block(self)
        ids = np.frombuffer(self._ids, dtype=np.uint32).astype(np.int64)
        stats = float(self._maxweight), length_to_byte(self._minlength), length_to_byte(self._maxlength)
        weights = np.frombuffer(self._weights, dtype=np.float32)
        head, data, poshead = encode_block(
            ids, weights, bytes(self._lengths), self._values_part(), stats, last
        )
        self._postfile.write(head)
        offset = self._postfile.tell() - self._startoffset
        self._postfile.write(data)
        self._directory.append(ENTRY.pack(offset, *HEAD.unpack(head), *poshead))
        self._blockcount += 1
        self._new_block()

    def _values_part(self) -> tuple[int, bytes]:
        values = self._vbytes
        if not any(values):
            return V_NONE, b""
        if type(self._format) is formats.Positions:
            pos = encode_positions(values)
            if pos is not None:
                return V_POSITIONS, pos
        return V_RAW, encode_raw(values)


def weights_kind(w: np.ndarray) -> tuple[int, bytes]:
    """float32 weights: none when all 1.0, uint16 when whole numbers, else float32."""
    if bool((w == 1.0).all()):
        return W_ONES, b""
    if bool((w >= 0).all() and (w <= 65535).all() and (w == np.floor(w)).all()):
        return W_U16, w.astype("<u2").tobytes()
    return W_F32, w.astype("<f4").tobytes()


class NpLeafMatcher(whoosh3.W3LeafMatcher):
    """W3's leaf matcher over the array blocks: W3's block walking, skipping and quality, with
    each block decoded by numpy on first access."""

    _data: Block | None
    _values: list[bytes | None] | None

    def _read_header(self) -> None:
        magic = self._postfile.get(self._startoffset, len(MAGIC))
        if magic != MAGIC:
            raise ValueError(f"not a {MAGIC!r} posting list: {magic!r}")
        self._baseoffset = self._startoffset + len(MAGIC)

    def _goto(self, position: int) -> None:
        self._data = None
        self._ids = None
        self._weights = None
        self._values = None
        self._i = 0
        head = HEAD.unpack(self._postfile.get(position, HEAD.size))
        self._head = head
        self._lastblock = bool(head[10] & LAST)
        self._dataoffset = position + HEAD.size
        self._nextoffset = self._dataoffset + head[0]
        self._blocklength = head[1]
        self._maxid = head[3]
        self._maxweight = head[4]
        self._compression = 0
        self._minlength = byte_to_length(head[5])
        self._maxlength = byte_to_length(head[6])

    def _read_data(self) -> None:
        buf = self._postfile.get(self._dataoffset, self._head[0])
        self._data = decode(buf, 0, self._head)

    def list_bytes(self) -> bytes:
        """The whole posting list, magic to directory (for columns.read)."""
        length = self._length  # W3TermInfo.from_bytes leaves it a 1-tuple (unpack_int's)
        length = length[0] if isinstance(length, tuple) else length
        return self._postfile.get(self._startoffset, length)

    def block(self) -> Block:
        """The current block's arrays (for the fast paths)."""
        if self._data is None:
            self._read_data()
        assert self._data is not None
        return self._data

    def _read_ids(self) -> None:
        self._ids = self.block().ids.tolist()

    def _read_weights(self) -> None:
        self._weights = self.block().weights.tolist()

    def _read_values(self) -> None:
        block = self.block()
        self._values = [block.value(i, self._fixedsize) for i in range(self._blocklength)]

    def value(self) -> bytes | None:
        if self._values is not None:
            return self._values[self._i]
        return self.block().value(self._i, self._fixedsize)

    def value_as(self, astype: str) -> Any:
        block = self.block()
        if astype == "positions" and block.vkind == V_POSITIONS:
            return block.positions(self._i)
        return super().value_as(astype)


class NpSegment(whoosh3.W3Segment):
    """A segment written by ``NpCodec``: pickled in the TOC with its codec, so ``open_dir``
    reads each segment with the codec that wrote it (W3 and array segments can mix)."""


class NpCodec(whoosh3.W3Codec):
    """W3 with array posting blocks; vectors (byte ids) stay W3's."""

    def postings_writer(self, dbfile: Any, byteids: bool = False) -> Any:
        if byteids:
            return super().postings_writer(dbfile, byteids=True)
        return NpPostingsWriter(
            dbfile, blocklimit=self._blocklimit, byteids=False, compression=0, inlinelimit=self._inlinelimit
        )

    def postings_reader(
        self, dbfile: Any, terminfo: Any, format_: Any, term: Any = None, scorer: Any = None
    ) -> Any:
        if terminfo.is_inlined():
            ids, weights, values = terminfo.inlined_postings()
            return ListMatcher(ids, weights, values, format_, scorer=scorer, term=term, terminfo=terminfo)
        offset, length = terminfo.extent()
        return NpLeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)

    def new_segment(self, storage: Any, indexname: str) -> NpSegment:
        return NpSegment(self, indexname)
