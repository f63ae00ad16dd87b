"""w3's self-check: a sample index written by Whoosh's writer and by the bulk builder, in memory,
what differs between the two as Whoosh reads them, then how score.py's answers differ from
Whoosh's searcher on it (score.difference).

The sample is small -- 16 papers in the project's schema; the whole self-check, both builds, this
comparison and score.difference's searches, takes ~35 ms -- but takes every path of the build's
block layout: blocks of 4 postings so that lists span several blocks, two ranges so that lists
are stitched, long position lists so that blocks are compressed, a long paper whose length byte
is lossy, fields left out.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import whoosh
from whoosh.codec.whoosh3 import W3Codec
from whoosh.filedb.filestore import RamStorage

from tui_reader import paths
from tui_reader.atomic import atomic_write_bytes
from tui_reader.search.fast import fastcheck, health
from tui_reader.search.fast.codec import NpCodec

BLOCK = 4  # postings per block in the sample


class _Memory(RamStorage):
    """RamStorage whose writers keep their temporary runs in memory too: Whoosh's default is a
    folder in the system's temp dir named after the index ("MAIN.tmp", one folder shared by every
    process on the machine), and a random name leaked an empty folder per check."""

    def temp_storage(self, name: str | None = None) -> Any:
        return RamStorage()


WORDS = ["graph", "neural", "network", "model", "vision", "kernel", "tensor", "robust", "grammar", "gradient"]


# A one-shot command line search turns this on (cli.py): the verdict is kept in the cache, for
# the code it was reached with (every file of Whoosh and of tui_reader.search, by size and time,
# and the Python), so the next process with the same code skips the ~40 ms check. The reader,
# which checks once per session in its index worker, and the tests, which patch code at run
# time, always check.
REMEMBER = False
VERDICT_FILE = "self-check.json"


def run() -> str | None:
    """What differs, or None: the fast paths are Whoosh's own answers."""
    key = _code_key() if REMEMBER else None
    if key is not None:
        known = _remembered(key)
        if known is not None:
            return known[0]
    problem = _run()
    if key is not None:
        with contextlib.suppress(OSError):
            atomic_write_bytes(_verdict_path(), json.dumps({"key": key, "problem": problem}).encode())
    return problem


def remember() -> None:
    """Keep the verdict in the cache folder for this code (a one-shot command line search, which
    would otherwise run the check each time)."""
    global REMEMBER
    REMEMBER = True


def _run() -> str | None:
    theirs, ours = sample_indexes()
    return difference(theirs, ours) or fastcheck.difference(theirs) or fastcheck.difference(array_sample())


def status() -> health.Health:
    """The gate before any fast path: the fast paths' health, the self-check run on first use."""
    return health.decide(run)


def _verdict_path() -> Path:
    return paths.cache_dir() / VERDICT_FILE


def _remembered(key: str) -> tuple[str | None] | None:
    """(the verdict,) kept for this code, or None."""
    try:
        data = json.loads(_verdict_path().read_bytes())
    except (OSError, ValueError):
        return None
    problem = data.get("problem") if isinstance(data, dict) and data.get("key") == key else False
    return (problem,) if problem is None or isinstance(problem, str) else None


def _code_key() -> str | None:
    """Identifies the code the check runs: Whoosh's and this package's files, the Python."""
    import tui_reader.search

    h = hashlib.sha256(f"{sys.version}\0{whoosh.versionstring()}".encode())
    for package in (whoosh, tui_reader.search):
        root = Path(package.__file__ or "").parent
        try:
            for f in sorted(root.rglob("*.py")):
                st = f.stat()
                h.update(f"{f.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        except OSError:
            return None
    return h.hexdigest()


def sample_docs(n: int = 16) -> list[dict[str, Any]]:
    """Papers as schema.document() makes them, from a fixed vocabulary (score.difference
    searches these words)."""
    w = WORDS
    docs = []
    for i in range(n):
        title = f"{w[i % 7]} {w[(3 * i + 1) % 10]} model" if i % 4 else f"neural network {w[i % 10]}"
        words = [w[(i * k + k * k) % 10] for k in range(1, 5 + i % 9)]
        if i % 3 == 0:
            words += ["graph", "neural", "network", "of", "the", "robust"]
        if i % 5 == 1:
            words += ["neural", "and", "network"]
        if i % 2 == 0:
            words += ["tensor", "of", "élan"] * (20 + i % 7)  # long position lists: compressed blocks
        if i == 7:
            words *= 24  # a length over 255: stored as a lossy byte
        authors = " ; ".join(["Ada Lovelace", "Émile Noether", "Wei Li"][: 1 + i % 3])
        doc: dict[str, Any] = {
            "id": f"p{i:03d}",
            "title": title,
            "content": f"{title}\n{title}\n{authors}\n{' '.join(words)}",
            "authors": authors,
            "venue": ["icml 2019", "neurips nips", ""][i % 3] or None,
            "sources": "arxiv openreview" if i % 2 else "arxiv",
            "tw": title,
        }
        if i % 6:
            doc["year"] = 2000 + i % 23
        docs.append(doc)
    return docs


def sample_indexes() -> tuple[Any, Any]:
    """The sample, in memory: (Whoosh's writer's index, the bulk builder's), one segment each."""
    from tui_reader.search.index.build.bulk import BulkBuild  # a remembered verdict needs no build
    from tui_reader.search.index.schema import make_schema

    docs = sample_docs()
    theirs = _Memory().create_index(make_schema())
    writer = theirs.writer(codec=W3Codec(blocklimit=BLOCK))
    for doc in docs:
        writer.add_document(**doc)
    writer.commit()
    ours = _Memory().create_index(make_schema())
    writer = ours.writer(codec=NpCodec(blocklimit=BLOCK))  # the bulk build writes NpCodec segments
    build = BulkBuild(writer, len(docs), procs=1, ranges=2)
    try:
        for i in build.order():
            build.add(i, docs[i])
        build.finish()
        writer.commit(merge=False)
    except BaseException:
        with contextlib.suppress(Exception):
            writer.cancel()
        raise
    finally:
        build.close()
    return theirs, ours


def array_sample() -> Any:
    """The sample written by Whoosh's writer through the array codec (codec.NpCodec), in two
    segments, a paper of the first deleted: score.py's numpy paths (npleaf.py) run on it."""
    from tui_reader.search.fast.codec import NpCodec as ArrayCodec
    from tui_reader.search.index.schema import make_schema

    docs = sample_docs()
    ix = _Memory().create_index(make_schema())
    for part in (docs[:10], docs[10:]):
        writer = ix.writer(codec=ArrayCodec(blocklimit=BLOCK))
        for doc in part:
            writer.add_document(**doc)
        writer.commit(merge=False)
    writer = ix.writer(codec=ArrayCodec(blocklimit=BLOCK))
    writer.delete_by_term("id", docs[4]["id"])
    writer.commit(merge=False)
    return ix


def difference(theirs: Any, ours: Any) -> str | None:
    """The first thing Whoosh reads differently in the two indexes, or None."""
    ra, rb = theirs.reader(), ours.reader()
    try:
        docs = ra.doc_count_all()
        if rb.doc_count_all() != docs or not rb.is_atomic():
            return "the bulk build's documents differ"
        terms = list(ra.all_terms())
        if list(rb.all_terms()) != terms:
            return "the bulk build's terms differ"
        for field, term in terms:
            ia, ib = ra.term_info(field, term), rb.term_info(field, term)
            if _stats(ia) != _stats(ib) or not math.isclose(ia.weight(), ib.weight(), rel_tol=1e-6):
                return f"the bulk build's statistics of {field}:{term!r} differ"
            if _postings(ra, field, term) != _postings(rb, field, term):
                return f"the bulk build's postings of {field}:{term!r} differ"
        for field in ra.schema.names():
            if ra.field_length(field) != rb.field_length(field) or any(
                ra.doc_field_length(d, field) != rb.doc_field_length(d, field) for d in range(docs)
            ):
                return f"the bulk build's lengths of {field} differ"
        if any(ra.stored_fields(d) != rb.stored_fields(d) for d in range(docs)):
            return "the bulk build's stored fields differ"
        return None
    finally:
        ra.close()
        rb.close()


def _stats(info: Any) -> tuple[Any, ...]:
    return (
        info.doc_frequency(),
        info.min_length(),
        info.max_length(),
        info.max_weight(),
        info.min_id(),
        info.max_id(),
    )


def _postings(reader: Any, field: str, term: bytes) -> list[tuple[Any, ...]]:
    m = reader.postings(field, term)
    out = []
    while m.is_active():
        out.append((m.id(), m.weight(), m.value()))
        m.next()
    return out
