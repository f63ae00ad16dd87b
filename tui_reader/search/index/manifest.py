"""The manifest's pieces (persistent.py writes it beside the index): each file's signature as
the corpus read it, and a signature per paper (a build in a child writes them too)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pathlib import Path

    from tui_reader.corpus.corpus import Corpus

Sigs = npt.NDArray[np.uint64]
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
    """``json.dumps(dict(zip(ids, hex sigs)), separators=(",", ":"))`` byte for byte, written a
    run of papers at a time (ids are unique)."""
    runs = []
    for start in range(0, len(ids), RUN):
        pairs = zip(ids[start : start + RUN], sigs[start : start + RUN].tolist(), strict=True)
        runs.append(",".join(f'{json.dumps(pid)}:"{sig:016x}"' for pid, sig in pairs).encode())
    return b"{" + b",".join(runs) + b"}"


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
    opening = json.dumps(head, separators=(",", ":"))[:-1].encode()
    return b"".join((opening, b',"docs":', docs_json(ids, sigs), b"}"))
