"""The seed text format: the collection's name on the first line, then one abstract per
blank-line-separated paragraph (no titles or authors; the name doubles as the venue)."""

from __future__ import annotations

import re
from pathlib import Path

from tui_reader.corpus.formats.common import Record, key, make_paper, source_name
from tui_reader.corpus.paper import Paper


def records(text: str) -> list[Record]:
    """One record per paragraph; its key covers the header so renaming the collection re-reads it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    header, _, body = text.lstrip("\n").partition("\n")
    header = header.strip()
    return [
        (key(f"{header}\n{para}".encode("utf-8", "surrogatepass")), (header, para))
        for para in re.split(r"\n[ \t]*\n", body)
        if para.strip()
    ]


def is_payload(payload: object) -> bool:
    return isinstance(payload, tuple) and isinstance(payload[0], str)


def build(path: Path, payload: tuple[str, str]) -> Paper | None:
    header, para = payload
    return make_paper(para, source_name(path), venue=header or None)
