"""w3, the seam to Whoosh's internals: its self-check, and what happens when it or a fast path fails."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import whoosh.index
from whoosh import query

from tui_reader.corpus.loading import load_corpus
from tui_reader.search.fast import blocks_np, fastcheck, health, score, selfcheck, w3
from tui_reader.search.fast import selfcheck as check
from tui_reader.search.index.build import BulkBuild, BulkUnsupported, merge
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.index.schema import make_schema
from tui_reader.search.searcher import Searcher

TEXTS = [
    "graph neural",
    "graph OR vision",
    "graph NOT neural",
    '"language models"',
    "reinforc*",
    "title:learning",
]


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Each test starts unchecked, and leaves the next module to check again."""
    health.reset()
    yield
    health.reset()


def whooshs(searcher: Searcher, text: str) -> list[str]:
    q, _ = searcher.parse(text)
    with searcher.index.searcher() as s:
        return [hit["id"] for hit in s.search(q, limit=None)]


def assert_whooshs_answers(searcher: Searcher) -> list[str | None]:
    """Every text gets Whoosh's own papers, order and count; the notices they came with."""
    searcher.invalidate()
    notices = []
    for text in TEXTS:
        expected = whooshs(searcher, text)
        result = searcher.search(text, limit=10_000)
        assert [h.id for h in result.hits] == expected, text
        assert result.total == len(expected) and result.exact, text
        notices.append(result.notice)
    return notices


def test_the_self_check_passes_on_the_installed_whoosh() -> None:
    theirs, ours = check.sample_indexes()
    assert check.difference(theirs, ours) is None
    assert fastcheck.difference(theirs) is None
    assert selfcheck.status() == health.Health(ok=True, reason=None, errors=0)
    assert health.take_notice() is None


def test_the_sample_takes_the_paths_it_is_meant_to_check() -> None:
    """Several blocks and both ranges per common word, and a length past a byte."""
    theirs, _ = check.sample_indexes()
    with theirs.searcher() as s:
        r = s.reader()
        half = r.doc_count_all() // 2
        postings = list(r.postings("content", b"graph").all_ids())
        assert len(postings) > 2 * check.BLOCK and min(postings) < half <= max(postings)
        assert max(r.doc_field_length(d, "content") for d in range(r.doc_count_all())) > 255
        for q in [query.Phrase("content", ["neural", "network"]), query.Prefix("content", "gra")]:
            assert s.search(q).scored_length() > 0


def test_a_wrong_accessor_switches_the_fast_paths_off_with_one_notice(
    seed_searcher: Searcher, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = w3.doc_lengths
    monkeypatch.setattr(w3, "doc_lengths", lambda reader, field: [n + 1 for n in real(reader, field)])
    with caplog.at_level(logging.WARNING, logger="tui_reader.search"):
        notices = assert_whooshs_answers(seed_searcher)
    state = selfcheck.status()
    assert not state.ok and state.reason and "ranks differently" in state.reason
    told = [n for n in notices if n]
    assert len(told) == 1 and notices[0] == told[0]
    assert told[0].startswith("Fast search is off (Whoosh") and "only slower" in told[0]
    assert any("are off" in r.getMessage() for r in caplog.records)
    assert health.take_notice() is None
    with seed_searcher.index.searcher() as s:  # Whoosh's searcher answers, not score.py
        assert score.search(s, query.Term("content", "graph"), 10) is None


def test_a_wrong_stitch_makes_the_build_use_whooshs_writer(
    seed_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranges merged without their positions put back in docnum order: a term's postings in two
    ranges get each other's positions. The check sees it; builds go to Whoosh's writer;
    searches still agree."""
    monkeypatch.setattr(merge, "_moved", lambda positions, counts, by: positions)
    assert not selfcheck.status().ok and "postings" in (selfcheck.status().reason or "")
    writer = whoosh.index.create_in(str(tmp_path), make_schema()).writer()
    with pytest.raises(BulkUnsupported, match="fast paths off"):
        BulkBuild(writer, 1)
    writer.cancel()
    index = SearchIndex(load_corpus([seed_copy], use_cache=False), root=seed_copy / "index")
    assert index.ensure().action == "built"
    notices = assert_whooshs_answers(Searcher(index))
    assert len([n for n in notices if n]) == 1
    index.close()


def test_a_fast_path_error_is_logged_counted_and_whoosh_answers(
    seed_searcher: Searcher, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert selfcheck.status().ok  # checked with the real accessors: then one starts failing

    def broken(*args: object, **kwargs: object) -> Iterator[object]:
        raise RuntimeError("no blocks today")

    monkeypatch.setattr(w3, "blocks", broken)  # W3 segments' reader
    monkeypatch.setattr(blocks_np, "block_arrays", broken)  # array segments' (the bulk build's)
    with caplog.at_level(logging.ERROR, logger="tui_reader.search"):
        notices = assert_whooshs_answers(seed_searcher)
    failures = [r for r in caplog.records if r.name == "tui_reader.search" and r.levelno == logging.ERROR]
    assert len(failures) == len(TEXTS) and all(r.exc_info for r in failures)
    assert "Term('content', 'graph')" in failures[0].getMessage()  # the query, for the bug report
    assert selfcheck.status() == health.Health(ok=True, reason=None, errors=len(TEXTS))
    told = [n for n in notices if n]
    assert len(told) == 1 and notices[0] == told[0] and "RuntimeError: no blocks today" in told[0]


def test_a_damaged_index_is_counted_but_keeps_the_fast_paths_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Postings Whoosh cannot read either: the files' fault, not Whoosh's. The error is logged
    and counted, nobody is told about fast search, and Whoosh's own search raises (the
    searcher turns that into IndexDamaged and the index is rebuilt)."""
    ix = whoosh.index.create_in(str(tmp_path), make_schema())
    writer = ix.writer()
    for doc in check.sample_docs():
        writer.add_document(**doc)
    writer.commit()
    assert selfcheck.status().ok
    for f in tmp_path.glob("*.seg"):  # every posting list's header tag
        f.write_bytes(f.read_bytes().replace(b"W3Bl", b"XXXX"))
    ix = whoosh.index.open_dir(str(tmp_path))
    q = query.Term("content", "graph")
    with ix.searcher() as s, caplog.at_level(logging.WARNING, logger="tui_reader.search"):
        assert score.search(s, q, 10) is None
        with pytest.raises(Exception, match="Block tag"):
            s.search(q)
    assert selfcheck.status() == health.Health(ok=True, reason=None, errors=1)
    assert health.take_notice() is None
    assert any("damaged" in r.getMessage() for r in caplog.records)
    ix.close()


def test_the_self_check_leaves_no_temp_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every reader session runs it: each run left two empty folders in /tmp (Whoosh's writers
    put their sorting runs in a FileStorage there, even for a RAM index)."""
    import tempfile

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert selfcheck.run() is None
    assert list(temp.iterdir()) == []
