"""Streaming a load: the papers read so far are there to list and read while the files are
parsed, and the corpus it ends with is the one a plain load gives (ids, order, folded
duplicates, generated titles made unique)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from tui_reader import paths
from tui_reader.corpus import merged, parse_cache
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.titles import uniquify


def _abstract(n: int) -> str:
    return f"Paper number {n} studies topic {n % 7} with method {n * 13 % 11}. It reports result {n}."


def _records(numbers: list[int], titled: bool = True) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for n in numbers:
        record: dict[str, object] = {"abstract": _abstract(n), "authors": f"Author {n}", "year": 2020 + n % 5}
        if titled and n % 9:
            record["title"] = f"Title of paper {n}"
        out.append(record)
    return out


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in records)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text, "utf-8")
    return path


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """Three files: duplicates within a file and across files, title-less papers whose
    generated titles must be made unique, and a real title arriving for a paper first seen
    without one."""
    folder = tmp_path / "papers"
    folder.mkdir()
    _write(folder / "a.jsonl", _records([*range(0, 120), 5, 17, 17]))
    _write(folder / "b.jsonl.gz", _records([*range(100, 220), 3]))
    # c: papers 0-39 again, untitled (no effect), then 9 and 18 again, titled this time
    untitled = _records(list(range(0, 40)), titled=False)
    titled_again = [{"abstract": _abstract(n), "title": f"The real title of {n}"} for n in (9, 18)]
    _write(folder / "c.jsonl", untitled + titled_again + _records(list(range(300, 330)), titled=False))
    return folder


def _reference(corpus: Corpus) -> tuple[list[str], list[str], list[list[str]]]:
    """The merge as it was before streaming: every row of every file in one pass. Records fold
    by the abstract they share (their old id, kept as an alias: in this collection that is the
    identity rule too); a paper keeps its first record's id."""
    ids: list[str] = []
    titles: list[str] = []
    loc: list[tuple[int, int]] = []
    sources: dict[int, list[str]] = {}
    index_of: dict[str, int] = {}
    for f, data in enumerate(corpus.files):
        for r, pid in enumerate(data.ids):
            old = (data.paper(r).aliases or [pid])[0]
            at = index_of.get(old)
            if at is None:
                index_of[old] = len(ids)
                ids.append(pid)
                titles.append(data.titles[r])
                loc.append((f, r))
                continue
            listed = sources.setdefault(at, [corpus.files[loc[at][0]].source])
            if data.source not in listed:
                listed.append(data.source)
            f0, r0 = loc[at]
            if corpus.files[f0].generated[r0] and not data.generated[r]:
                loc[at] = (f, r)
                titles[at] = data.titles[r]
    generated = [i for i, (f, r) in enumerate(loc) if corpus.files[f].generated[r]]
    taken = {titles[i].casefold() for i, (f, r) in enumerate(loc) if not corpus.files[f].generated[r]}
    for i, title in zip(generated, uniquify([titles[i] for i in generated], taken), strict=True):
        titles[i] = title
    return ids, titles, [sources.get(i, [corpus.files[loc[i][0]].source]) for i in range(len(ids))]


def _state(corpus: Corpus) -> tuple[list[str], list[str], list[dict[str, object]]]:
    return corpus.ids, corpus.titles, [p.to_dict() for p in corpus]


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch every 8 rows, whatever the time: a small collection streams in many."""
    monkeypatch.setattr(parse_cache, "STREAM_ROWS", 8)
    monkeypatch.setattr(parse_cache, "STREAM_SECONDS", 0.0)


def test_streamed_load_ends_as_a_plain_load(collection: Path, small_batches: None) -> None:
    batches: list[tuple[int, list[str], list[str]]] = []

    def on_batch(corpus: Corpus, count: int) -> None:
        # every paper below count is complete: its row reads, its id and title are listed
        papers = [corpus.paper(i) for i in range(count)]
        assert [p.id for p in papers] == corpus.ids[:count]
        batches.append((count, corpus.ids[:count], [p.abstract for p in papers]))

    streamed = load_corpus([collection], on_batch=on_batch)
    plain = load_corpus([collection], use_cache=False)
    cached = load_corpus([collection])  # from the parse cache the streamed load wrote
    assert _state(streamed) == _state(plain) == _state(cached)
    ids, titles, sources = _reference(streamed)
    assert streamed.ids == ids and streamed.titles == titles
    assert [streamed.sources(i) for i in range(len(streamed))] == sources
    assert any(len(s) > 1 for s in sources) and len(set(titles)) == len(titles)
    assert "The real title of 9" in streamed.titles  # a real title replaced a generated one

    counts = [count for count, _, _ in batches]
    assert len(batches) > 10 and counts == sorted(counts) and counts[-1] == len(streamed)
    assert counts[0] < 40  # the first papers come long before the first file is done
    for count, seen_ids, abstracts in batches:  # what was listed stays listed, in place
        assert seen_ids == streamed.ids[:count]
        assert abstracts == [streamed.paper(i).abstract for i in range(count)]


def test_a_cached_collection_reports_file_by_file(
    collection: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(merged, "REPLAY", False)  # merged afresh, from the parse caches
    load_corpus([collection])
    counts: list[int] = []
    corpus = load_corpus([collection], on_batch=lambda c, n: counts.append(n))
    assert counts == sorted(counts) and len(counts) == 3 and counts[-1] == len(corpus)


def test_a_cached_file_merged_after_another_is_told_as_it_merges(
    collection: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large file after another is merged a CHUNK of rows at a time (at 2.7M ~40 s): the
    reader is told as it goes, each count's papers there to read and kept as they are listed."""
    monkeypatch.setattr(merged, "REPLAY", False)
    monkeypatch.setattr("tui_reader.corpus.corpus.CHUNK", 16)
    load_corpus([collection])
    seen: list[tuple[int, list[str]]] = []

    def on_batch(corpus: Corpus, count: int) -> None:
        seen.append((count, list(corpus.ids[:count])))
        assert all(corpus.paper(i).abstract for i in range(count))

    corpus = load_corpus([collection], on_batch=on_batch)
    counts = [n for n, _ in seen]
    assert len(counts) > 3 and counts == sorted(counts) and counts[-1] == len(corpus)
    assert len(set(counts)) > 3  # within the second and third files too, not only between them
    ids = list(corpus.ids)
    assert all(listed == ids[:n] for n, listed in seen)
    assert _state(corpus) == _state(load_corpus([collection], use_cache=False))


def test_a_replayed_collection_reports_once_whole(collection: Path, small_batches: None) -> None:
    """Replayed from its journal, the collection is told once it is all in (a replay that
    stopped midway merges afresh, and the reader must not have listed the papers of the first)."""
    first = load_corpus([collection])
    counts: list[int] = []
    corpus = load_corpus([collection], on_batch=lambda c, n: counts.append(n))
    assert corpus.replayed and not first.replayed
    assert counts == [len(corpus)] == [len(first)]


def test_an_exception_from_on_batch_stops_the_load_and_leaves_no_temp_file(
    collection: Path, small_batches: None
) -> None:
    class Closing(Exception):
        pass

    def on_batch(corpus: Corpus, count: int) -> None:
        if count > 50:
            raise Closing

    with pytest.raises(Closing):
        load_corpus([collection], on_batch=on_batch)
    parsed = paths.cache_dir() / "parsed"
    assert not list(parsed.glob(".parse-*")), "a temp rows file was left behind"
    assert _state(load_corpus([collection])) == _state(load_corpus([collection], use_cache=False))


def test_a_cut_file_keeps_what_was_read_as_a_plain_load_does(collection: Path, small_batches: None) -> None:
    whole = (collection / "b.jsonl.gz").read_bytes()
    (collection / "b.jsonl.gz").write_bytes(whole[: len(whole) * 2 // 3])  # a cut gzip stream
    counts: list[int] = []
    streamed = load_corpus([collection], on_batch=lambda c, n: counts.append(n))
    plain = load_corpus([collection], use_cache=False)
    assert _state(streamed) == _state(plain)
    assert streamed.warnings == plain.warnings and any("cut short" in w for w in streamed.warnings)
    assert counts and counts == sorted(counts) and counts[-1] == len(streamed)


def test_a_file_failing_midway_is_left_out_as_a_plain_load_leaves_it(
    collection: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure nobody foresaw (here: the reading of b's lines raising midway, injected) drops
    that file, streamed papers and all, and names it; the others load."""
    real = parse_cache.stream_jsonl

    def failing(path: Path, warnings: list[str]):  # type: ignore[no-untyped-def]
        for n, record in enumerate(real(path, warnings)):
            if path.name == "b.jsonl.gz" and n == 60:
                raise RuntimeError("the disk went away")
            yield record

    monkeypatch.setattr(parse_cache, "stream_jsonl", failing)
    counts: list[int] = []
    streamed = load_corpus([collection], on_batch=lambda c, n: counts.append(n))
    assert max(counts) > len(streamed)  # b's first papers were listed while it was read
    plain = load_corpus([collection], use_cache=False)
    assert _state(streamed) == _state(plain)
    assert [f.source for f in streamed.files] == ["a.jsonl", "b.jsonl.gz", "c.jsonl"]
    assert len(streamed.files[1]) == 0
    assert any(
        "b.jsonl.gz: could not be read (RuntimeError: the disk went away)" in w for w in streamed.warnings
    )
    assert not list((paths.cache_dir() / "parsed").glob(".parse-*"))


def test_papers_listed_while_loading_read_on_after_the_cache_file_moves(
    collection: Path, small_batches: None
) -> None:
    """A reader holding the growing corpus reads rows from the temp file, then (same objects)
    from the cache file it was renamed to."""
    held: list[Corpus] = []
    load_corpus([collection], on_batch=lambda c, n: held.append(c) if not held else None)
    (growing,) = held
    rows = [data.rows for data in growing.files]
    assert all(r.path is not None and r.path.parent == paths.cache_dir() / "parsed" for r in rows)
    assert all(not r.path.name.startswith(".parse-") and r.path.exists() for r in rows if r.path)
    assert growing.paper(len(growing) - 1).abstract
    assert os.listdir(paths.cache_dir() / "parsed")


def test_reading_titles_holds_no_buffer_of_the_growing_corpus(collection: Path) -> None:
    """The reader reads titles and ids (in its UI thread) while the loading thread appends
    papers: a view of the corpus's paper array held meanwhile would make the append raise
    BufferError and fail the load (numpy lets other threads run inside its loops)."""
    corpus = load_corpus([collection])
    for column in (corpus.titles, corpus.ids):
        runs = column._runs()
        assert next(runs)  # a run under way, as a slice being read in the other thread
        corpus._at.append(corpus._at[0])  # what the loader does
        corpus._at.pop()
        assert column._is_plain() is False
        corpus._at.append(corpus._at[0])
        corpus._at.pop()
