"""A large JSON Lines file normalised by worker processes reads exactly as one process reads it:
the same rows, ids, titles, record keys, warnings and order (corpus/outcomes.py)."""

from __future__ import annotations

import concurrent.futures
import json
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from tui_reader.corpus import outcomes
from tui_reader.corpus.parse_cache import FileData, load_file


def _lines(n: int) -> list[str]:
    lines = []
    for i in range(n):
        if i % 17 == 5:
            lines.append("[1, 2, 3]")  # not an object: malformed
        elif i % 23 == 7:
            lines.append(json.dumps({"title": f"No abstract {i}"}))  # skipped
        elif i % 41 == 9:
            lines.append('{"abstract": ' + "[" * 5000 + "]" * 5000 + "}")  # nested too deeply: failed
        elif i % 13 == 3:
            lines.append(json.dumps({"title": "Same", "abstract": "The same abstract, twice over."}))
        else:
            lines.append(json.dumps({"title": f"Paper {i} on $O(n)$ {{\\'e}}", "abstract": f"Abstract {i}."}))
    return lines


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, procs: str, use_cache: bool = False) -> FileData:
    monkeypatch.setenv(outcomes.WORKERS_ENV, procs)
    return load_file(path, use_cache=use_cache, write_cache=use_cache)


def _same(a: FileData, b: FileData) -> None:
    assert a.ids == b.ids and a.titles == b.titles and a.generated == b.generated
    assert a.keys == b.keys and a.warnings == b.warnings
    assert [a.rows.raw(i) for i in range(len(a))] == [b.rows.raw(i) for i in range(len(b))]


def test_workers_read_a_file_as_one_process_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outcomes, "BATCH", 37)  # many batches, in flight at once, some all reused
    monkeypatch.setattr(outcomes, "FIRST", 11)
    path = tmp_path / "big.jsonl"
    path.write_text(
        "\n".join(_lines(600)) + "\n\xff\xfe not utf-8\n", encoding="utf-8", errors="surrogateescape"
    )
    one, two = _read(path, monkeypatch, "1"), _read(path, monkeypatch, "2")
    _same(one, two)
    assert len(one) > 400 and any("malformed" in w for w in one.warnings)
    assert any("nested too deeply" in w for w in one.warnings) and any(
        "without an abstract" in w for w in one.warnings
    )


def test_a_grown_file_reuses_its_rows_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outcomes, "BATCH", 29)
    monkeypatch.setattr(outcomes, "FIRST", 5)
    path = tmp_path / "grows.jsonl"
    lines = _lines(300)
    path.write_text("\n".join(lines[:200]) + "\n")
    _read(path, monkeypatch, "1", use_cache=True)
    path.write_text("\n".join(lines) + "\n")  # 100 more: the first 200 come back as "reuse"
    two = _read(path, monkeypatch, "2", use_cache=True)
    path.write_text("\n".join(lines[:200]) + "\n")
    _read(path, monkeypatch, "1", use_cache=True)
    path.write_text("\n".join(lines) + "\n")
    one = _read(path, monkeypatch, "1", use_cache=True)
    _same(one, two)
    assert all(not one.rows.raw(i).endswith(b"\n") for i in range(len(one)))  # no byte gained a parse


def test_a_batch_whose_worker_died_is_built_here(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    paper = {"title": "A study", "abstract": "We study the one thing this test needs: a paper."}
    payloads: list[tuple[int, object]] = [(1, (1, json.dumps(paper))), (2, (2, "[]"))]
    dead: Future[list[outcomes.Outcome]] = Future()
    dead.set_exception(BrokenProcessPool("a worker was killed"))
    batch = outcomes._Batch([b"k1", b"k0", b"k2"], [None, 4, None], payloads, dead)
    got = list(outcomes._drain(path, batch))
    assert [k for k, _ in got] == [b"k1", b"k0", b"k2"]
    assert got[0][1][0] == "row" and got[1][1] == ("reuse", 4) and got[2][1] == ("malformed", "line 2")


def test_only_a_large_file_is_given_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(outcomes.WORKERS_ENV, raising=False)
    small = tmp_path / "small.jsonl"
    small.write_text("{}\n")
    assert outcomes.workers(small) == 1
    monkeypatch.setattr(outcomes, "PARALLEL_BYTES", 2)
    assert outcomes.workers(small) >= 1 and outcomes.workers(small) == min(
        4, __import__("os").cpu_count() or 1
    )


def test_where_workers_cannot_start_one_process_reads_it_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under Textual stderr's fileno() is -1: multiprocessing cannot start its resource tracker
    (ValueError: bad value(s) in fds_to_keep), and the file is read in this process instead of
    being reported unreadable (the reader listed no papers)."""

    def cannot(*args: object, **kwargs: object) -> None:
        raise ValueError("bad value(s) in fds_to_keep")

    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(_lines(300)) + "\n")
    one = _read(path, monkeypatch, "1")
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", cannot)  # outcomes imports it when used
    _same(one, _read(path, monkeypatch, "2"))
