"""The manifest's pieces (persistent.py writes it beside the index): each file's signature as
the corpus read it, and a signature per paper (a build in a child writes them too)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from tui_reader.corpus.hexids import hex_values

if TYPE_CHECKING:
    from pathlib import Path

    from tui_reader.corpus.corpus import Corpus

Sigs = npt.NDArray[np.uint64]
Changes = tuple[list[str], list[str], list[str]]
RUN = 1 << 16  # papers' entries encoded (or compared) at a time
LAYOUT = 2  # "docs" written last: status() reads only what comes before


def json_object(raw: bytes) -> dict | None:
    try:
        data = json.loads(raw)
    except ValueError:  # "docs" was not last (an older manifest, or an id named docs)
        return None
    return data if isinstance(data, dict) else None


def read_head(path: Path) -> dict | None:
    """The manifest without its "docs" (written last), from the file's first MiB rather than
    all of it (34 MB at 1M papers); None when the head is not there whole. A ',"docs":' inside
    a nested object would leave invalid JSON here, so None, never a wrong head."""
    with path.open("rb") as f:
        first = f.read(1 << 20)
    cut = first.find(b',"docs":')
    return json_object(first[:cut] + b"}") if cut > 0 else None


def read_signatures(corpus: Corpus) -> dict[str, list[int]]:
    """Each file's (size, mtime) as of the content the corpus read, not as of now: a file
    rewritten after it was read must leave the index stale (parse_cache.load_file)."""
    return {str(data.path): list(data.signature) for data in corpus.files}


def doc_sig(corpus: Corpus, i: int) -> str:
    """Changes when anything indexed about paper i changes (its record, title or sources)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(corpus.record_key(i))
    h.update(corpus.titles[i].encode("utf-8", "surrogatepass"))
    h.update("\0".join(corpus.sources(i)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def signatures(corpus: Corpus) -> Sigs:
    """Every paper's doc_sig as a 64-bit number, in corpus order: 8 bytes a paper, not a dict of
    two strings a paper (~170 bytes: ~0.45 GB at 2.7M, and an update held two of them)."""
    n = len(corpus)
    return np.fromiter((int(doc_sig(corpus, i), 16) for i in range(n)), np.uint64, n)


def docs_json(ids: Sequence[str], sigs: Sigs) -> bytes:
    """``json.dumps(dict(zip(ids, hex sigs)), separators=(",", ":"))`` byte for byte (ids are
    unique)."""
    return b"".join(docs_parts(ids, sigs))


def docs_parts(ids: Sequence[str], sigs: Sigs) -> Iterator[bytes]:
    """``docs_json`` a run of papers at a time, made as it is written (joined, the docs of 2.7M
    papers took ~0.3 GB in copies)."""
    yield b"{"
    for start in range(0, len(ids), RUN):
        pairs = zip(ids[start : start + RUN], sigs[start : start + RUN].tolist(), strict=True)
        yield (b"," if start else b"") + ",".join(
            f'{json.dumps(pid)}:"{sig:016x}"' for pid, sig in pairs
        ).encode()
    yield b"}"


def compare(old: dict[str, str], ids: Sequence[str], sigs: Sigs) -> tuple[list[str], list[str], list[str]]:
    """(removed, added, changed) ids between the manifest's ``old`` docs and the corpus's papers,
    in the orders a dict of the new ones gave; ``old`` is emptied as it goes (no second dict)."""
    added: list[str] = []
    changed: list[str] = []
    for start in range(0, len(ids), RUN):
        for pid, sig in zip(ids[start : start + RUN], sigs[start : start + RUN].tolist(), strict=True):
            was = old.pop(pid, None)
            if was is None:
                added.append(pid)
            elif was != f"{sig:016x}":
                changed.append(pid)
    return list(old), added, changed


def changes(path: Path, ids: Sequence[str], sigs: Sigs) -> Changes:
    """``compare`` with the "docs" of the manifest at ``path``: as arrays when every id there
    and here is the same number of plain ASCII characters (the reader's ids: 12 hex digits), so
    an update at 2.7M papers holds no dict of them (~0.5 GB); else through the dict."""
    try:
        fast = _fast(_old_docs(path.read_bytes()), ids, sigs)  # the file's bytes go before the comparing
    except OSError:
        fast = None
    if fast is not None:
        return fast
    old = (load(path, docs=True) or {}).get("docs")
    return compare(old if isinstance(old, dict) else {}, ids, sigs)


_QUOTE, _COLON, _COMMA, _CLOSE = (ord(c) for c in '":,}')


def _changes_fixed(raw: bytes, ids: Sequence[str], sigs: Sigs) -> Changes | None:
    """The arrays' way, or None when the docs are not entries of one width without escapes."""
    return _fast(_old_docs(raw), ids, sigs)


def _fast(
    old_docs: tuple[npt.NDArray[np.bytes_], Sigs] | None, ids: Sequence[str], sigs: Sigs
) -> Changes | None:
    new = _plain(ids, old_docs[0].itemsize) if old_docs is not None else None
    return None if old_docs is None or new is None else _diff(*old_docs, new, sigs)


def _old_docs(raw: bytes) -> tuple[npt.NDArray[np.bytes_], Sigs] | None:
    """The docs' ids (a copy, fixed width) and signatures, if written as plain entries."""
    cut = raw.rfind(b',"docs":')
    head = json_object(raw[:cut] + b"}") if cut > 0 and raw.endswith(b"}}") else None
    if head is None or head.get("layout") != LAYOUT:
        return None
    body = memoryview(raw)[cut + 8 : -1]
    if len(body) < 3 or bytes(body[:2]) != b'{"':
        return None
    width = bytes(body[:80]).find(b'":"') - 2  # '{', then '"', the id, '":"', 16 digits, '"', ',' or '}'
    old = _entries(body, width) if width > 0 else None
    return None if old is None else (old[0].copy(), old[1])


def _diff(
    old_ids: npt.NDArray[np.bytes_], old_sigs: Sigs, new: npt.NDArray[np.bytes_], sigs: Sigs
) -> Changes | None:
    """(removed, added, changed) in compare's orders; ids of hex digits compared as numbers."""
    width = old_ids.itemsize
    old_keys, new_keys = _numbers(old_ids), _numbers(new)
    if old_keys is not None and new_keys is not None:
        del old_ids, new
        made = _diff_keys(old_keys, old_sigs, new_keys, sigs)
        return None if made is None else tuple([f"{k:0{width}x}" for k in part] for part in made)  # type: ignore[return-value]
    made = _diff_keys(old_ids, old_sigs, new, sigs)
    return None if made is None else (_strs(old_ids[made[0]]), _strs(new[made[1]]), _strs(new[made[2]]))


def _diff_keys(
    old: npt.NDArray[Any], old_sigs: Sigs, new: npt.NDArray[Any], sigs: Sigs
) -> tuple[Any, Any, Any] | None:
    """Which old entries are gone, which new ones are added and which changed, as the values
    (numbers) or the places (bytes) to name them by; None if an old id comes twice."""
    order = np.argsort(old, kind="stable")
    ranked = old[order]
    if ranked.size > 1 and bool((ranked[1:] == ranked[:-1]).any()):
        return None  # an id twice: the dict's rule (the last value, the first place) applies
    at = np.searchsorted(ranked, new).clip(0, max(ranked.size - 1, 0))
    found = ranked[at] == new if ranked.size else np.zeros(new.size, np.bool_)
    del ranked
    was = order[at]
    del order, at
    kept = np.zeros(old.size, np.bool_)
    kept[was[found]] = True
    changed = found & (old_sigs[was] != sigs) if old.size else found
    if old.dtype == np.uint64:
        return old[~kept].tolist(), new[~found].tolist(), new[changed].tolist()
    return ~kept, ~found, changed


def _numbers(ids: npt.NDArray[np.bytes_]) -> Sigs | None:
    """Ids of at most 16 lowercase hex digits as their values (exact: formatted back with the
    width, they are the ids again); None for any other."""
    width = ids.itemsize
    return hex_values(ids.view(np.uint8), width) if width <= 16 and ids.size else None


def _entries(body: memoryview, width: int) -> tuple[npt.NDArray[np.bytes_], Sigs] | None:
    step = width + 22
    if width < 1 or (len(body) - 1) % step:
        return None
    rows = np.frombuffer(body, np.uint8, offset=1).reshape(-1, step)
    ends = rows[:, step - 1]
    for column, mark in (
        (0, _QUOTE),
        (width + 1, _QUOTE),
        (width + 2, _COLON),
        (width + 3, _QUOTE),
        (width + 20, _QUOTE),
    ):
        if not (rows[:, column] == mark).all():
            return None
    if not ((ends[:-1] == _COMMA).all() and ends[-1] == _CLOSE and _printable(rows[:, 1 : width + 1])):
        return None
    values = hex_values(rows[:, width + 4 : width + 20], 16)
    fields = np.dtype({"names": ["id"], "formats": [f"S{width}"], "offsets": [1], "itemsize": step})
    return None if values is None else (rows.reshape(-1).view(fields)["id"], values)  # no copy


def _plain(ids: Sequence[str], width: int) -> npt.NDArray[np.bytes_] | None:
    """The ids as one fixed-width array, if each is ``width`` plain ASCII characters (as
    json.dumps writes them, unescaped); a run at a time (no string per paper held at once)."""
    out = np.empty((len(ids), width), np.uint8)
    for start in range(0, len(ids), RUN):
        run = ids[start : start + RUN]
        joined = "".join(run)
        if any(len(pid) != width for pid in run) or not joined.isascii():
            return None
        out[start : start + len(run)] = np.frombuffer(joined.encode("ascii"), np.uint8).reshape(-1, width)
    return out.reshape(-1).view(f"S{width}") if _printable(out) else None


# the bytes json.dumps writes as they are: no control character, '"', '\\' or non-ASCII
_PLAIN = np.zeros(256, np.bool_)
_PLAIN[0x20:0x7F] = True
_PLAIN[[_QUOTE, ord("\\")]] = False


def _printable(raw: npt.NDArray[np.uint8]) -> bool:
    return all(bool(_PLAIN[raw[start : start + RUN]].all()) for start in range(0, raw.shape[0], RUN))


def _strs(values: npt.NDArray[np.bytes_]) -> list[str]:
    return [v.decode("ascii") for v in values.tolist()]


def load(path: Path, docs: bool) -> dict | None:
    """The manifest at ``path``; without ``docs`` (3 MB at 87k papers) the head alone, which a
    manifest of this layout writes before them."""
    try:
        head = None if docs else read_head(path)
        if head is not None and head.get("layout") == LAYOUT:
            return head
        raw = path.read_bytes()
        if not docs:
            cut = raw.rfind(b',"docs":')
            head = json_object(raw[:cut] + b"}") if cut > 0 else None
            if head is not None and head.get("layout") == LAYOUT:
                return head
        data = json.loads(raw)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def encode(head: dict[str, object], ids: Sequence[str], sigs: Sigs) -> bytes:
    """The manifest's bytes: ``head`` then every paper's signature as "docs", last."""
    return b"".join(encode_parts(head, ids, sigs))


def encode_parts(head: dict[str, object], ids: Sequence[str], sigs: Sigs) -> Iterator[bytes]:
    """``encode`` in parts, for atomic_write_parts."""
    yield json.dumps(head, separators=(",", ":"))[:-1].encode() + b',"docs":'
    yield from docs_parts(ids, sigs)
    yield b"}"
