"""The manifest's pieces (persistent.py writes it beside the index): each file's signature as
the corpus read it, and a signature per paper (a build in a child writes them too)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tui_reader.corpus.corpus import Corpus


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
