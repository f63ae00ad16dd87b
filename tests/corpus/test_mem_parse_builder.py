"""The first parse grows ids and titles as StrBuilders, keys as one bytearray (issue 21: lists of
str and of 12-byte keys peaked at 2.3 GB at 2.7M). The builder reads as the list it replaced, also
while it grows, and a parse gives the same data and the same meta file as the lists gave."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_reader.corpus import outcomes, parse_cache
from tui_reader.corpus.meta import MAGIC, FileData
from tui_reader.corpus.strcol import StrBuilder, StrColumn

FORMATS = Path(__file__).parent.parent / "fixtures" / "formats"

texts = st.text(st.characters(exclude_categories=()), max_size=12)  # surrogates too
steps = st.lists(
    st.one_of(
        st.tuples(st.just("add"), texts),
        st.tuples(st.just("get"), st.integers(-40, 40)),
        st.tuples(
            st.just("cut"), st.integers(-40, 40), st.integers(-40, 40), st.sampled_from([None, 1, 2, -1])
        ),
        st.tuples(st.just("iter")),
    ),
    max_size=60,
)


@given(steps)
@settings(max_examples=300, deadline=None)
def test_builder_reads_as_the_list_while_it_grows(ops: list[tuple[object, ...]]) -> None:
    """Surrogates, empty strings, any text: int reads (IndexError alike), slices and iteration
    between appends give the list's answers; the column it becomes too."""
    built, listed = StrBuilder(), []
    for op in ops:
        if op[0] == "add":
            built.append(str(op[1]))
            listed.append(str(op[1]))
        elif op[0] == "get":
            i = int(op[1])  # type: ignore[call-overload]
            if -len(listed) <= i < len(listed):
                assert built[i] == listed[i]
            else:
                with pytest.raises(IndexError):
                    built[i]
        elif op[0] == "cut":
            cut = slice(*op[1:])
            assert built[cut] == listed[cut]  # type: ignore[index]
        else:
            assert list(built) == listed
        assert len(built) == len(listed)
    assert built == listed
    column = built.column()
    assert isinstance(column, StrColumn) and column == listed and list(column) == listed
    assert bytes(column.blob) == bytes(StrColumn.of(listed).blob)
    assert list(column.offsets()) == list(StrColumn.of(listed).offsets())


def test_a_column_handed_over_is_readable_and_the_builder_too() -> None:
    built = StrBuilder()
    for s in ["a", "", "\ud800", "é" * 3]:
        built.append(s)
    column = built.column()
    assert built[1:] == column[1:] == ["", "\ud800", "ééé"]
    with pytest.raises(BufferError):  # the blob is the column's now: it can no longer grow
        built.append("more")


def _lines() -> list[str]:
    out = FORMATS.joinpath("arxiv-snapshot.jsonl").read_text("utf-8").splitlines()
    for i in range(700):
        title = ["Graphs \u00e9t\u00e9", "", "Lone \ud83d half", "\u4e2d\u6587 title"][i % 4]
        record: dict[str, object] = {"abstract": f"Abstract {i} about graphs."}
        if title:
            record["title"] = f"{title} {i % 50}"  # repeats: generated titles are made unique later
        if i % 3:
            record["url"] = f"https://example.org/{i % 600}"
        out.append(json.dumps(record))
    out.insert(40, "not json")
    return out


def _state(data: FileData) -> tuple[object, ...]:
    meta = parse_cache.meta_path(data.path).read_bytes()
    head_end = len(MAGIC) + 8 + int.from_bytes(meta[len(MAGIC) : len(MAGIC) + 8], "little")
    rows_name = data.rows.path.name if data.rows.path else ""
    rows = data.rows.path.read_bytes() if data.rows.path else b""
    meta = meta[:head_end].replace(rows_name.encode(), b"R" * len(rows_name)) + meta[head_end:]
    return (
        list(data.ids),
        list(data.titles),
        bytes(data.generated),
        bytes(data.keys),
        data.warnings,
        meta,
        rows,
    )


def _loads(path: Path, seen: list[object]) -> list[tuple[object, ...]]:
    """The file parsed, grown (rows reused from the first parse) and cut, each one's state."""
    lines = _lines()
    out = []
    for k, chosen in enumerate([lines[:500], lines, lines[:300] + lines[350:]]):
        path.write_text("\n".join(chosen) + "\n", "utf-8")
        os.utime(path, (k + 1, k + 1))

        def on_rows(data: FileData) -> None:
            n = len(data)
            seen.append((n, data.ids[n - 1], data.titles[n // 2], data.titles[n // 3 : n]))

        out.append(_state(parse_cache.load_file(path, on_rows=on_rows)))
    return out


def test_a_parse_gives_what_the_lists_gave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same ids, titles, flags, keys, warnings, meta and rows files as lists of str grown by
    the parse, read while it grows (on_rows) as they were, the reuse path included."""
    monkeypatch.setenv(outcomes.WORKERS_ENV, "1")
    monkeypatch.setattr(parse_cache, "STREAM_ROWS", 16)
    monkeypatch.setattr(parse_cache, "STREAM_SECONDS", 0.0)
    now_seen: list[object] = []
    now = _loads(tmp_path / "papers.jsonl", now_seen)
    shutil.rmtree(parse_cache.meta_path(tmp_path / "papers.jsonl").parent)
    monkeypatch.setattr(parse_cache, "StrBuilder", list)  # the parse as it was: lists of str
    old_seen: list[object] = []
    old = _loads(tmp_path / "papers.jsonl", old_seen)
    assert len(now_seen) > 20 and now_seen == old_seen
    assert now == old
    ids, titles = list(now[1][0]), "".join(now[1][1])  # type: ignore[call-overload, arg-type]
    assert len(ids) > 600 and "\u4e2d" in titles and "\u00e9" in titles
