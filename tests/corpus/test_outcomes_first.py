"""The first rows of a large file come before more of it is read or any worker is asked for
anything (corpus/outcomes.py): the first batch is normalised here and passed on at once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_reader.corpus import outcomes


def test_the_first_batch_comes_before_the_rest_is_read_or_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outcomes, "FIRST", 7)
    monkeypatch.setattr(outcomes, "BATCH", 5)
    path = tmp_path / "big.jsonl"
    pulled = [0]

    def stream() -> Iterator[tuple[bytes, object]]:
        for n in range(1, 60):
            pulled[0] += 1
            record = {"title": f"Paper {n}", "abstract": f"Abstract {n}."}
            yield n.to_bytes(12, "big"), (n, json.dumps(record))  # as jsonfmt.stream_jsonl gives it

    made = outcomes.outcomes(path, stream(), {}, procs=2)
    first = [next(made) for _ in range(outcomes.FIRST)]
    assert pulled[0] == outcomes.FIRST  # the first batch only
    assert [o[1][0] for o in first] == ["row"] * outcomes.FIRST
    rest = list(made)  # the others from the workers, in order
    assert len(first) + len(rest) == 59
    titles = [json.loads(o[1][1])[1] for o in first + rest]  # type: ignore[arg-type]
    assert titles == [f"Paper {n}" for n in range(1, 60)]
