"""A first parse ends holding the columns it stored as a relaunch holds them: read from the
meta's memory map, not the heap copies the parse grew (~0.5 GB at 2.7M papers)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tui_reader.corpus import outcomes, parse_cache
from tui_reader.corpus.meta import FileData


def _write(path: Path, n: int) -> None:
    lines = [
        json.dumps(
            {"title": f"Paper \u00e9 {i}", "abstract": f"Abstract {i} on graphs.", "year": 2000 + i % 20}
        )
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _strings(data: FileData) -> tuple[object, ...]:
    return list(data.ids), list(data.titles), bytes(data.generated), bytes(data.keys), data.paper(7).title


def test_a_first_parse_reads_its_columns_back_from_the_meta(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    path = tmp_path / "papers.jsonl"
    _write(path, 300)
    in_memory = parse_cache.load_file(path, use_cache=False, write_cache=False)
    first = parse_cache.load_file(path)
    assert isinstance(in_memory.ids.blob.obj, bytearray)  # type: ignore[attr-defined]  # the builder's
    assert isinstance(first.ids.blob.obj, np.ndarray)  # type: ignore[attr-defined]  # the meta's map
    assert isinstance(first.titles.blob.obj, np.ndarray)  # type: ignore[attr-defined]
    assert first.lookup is not None and first.lookup.candidates(first.ids[5]) == [5]
    again = parse_cache.load_file(path)  # a relaunch: the cached meta
    assert _strings(first) == _strings(in_memory) == _strings(again)


def test_a_meta_that_does_not_read_back_keeps_the_parsed_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    monkeypatch.setattr(parse_cache, "from_meta", lambda *args: None)  # e.g. cut short on disk
    path = tmp_path / "papers.jsonl"
    _write(path, 50)
    data = parse_cache.load_file(path)
    assert isinstance(data.ids.blob.obj, bytearray)  # type: ignore[attr-defined]
    assert list(data.ids)[:2] == list(parse_cache.load_file(path, use_cache=False).ids)[:2]
