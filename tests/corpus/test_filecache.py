"""The parse cache: a second load is the same corpus, and an edited file is read again."""

from __future__ import annotations

import os
from pathlib import Path

from support import SEED_FILES

from tui_reader import paths
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus

NEW_PARAGRAPH = "Zygomorphic flibbertigibbet quantisation makes sparse transformers faster."


def snapshot(corpus: Corpus) -> list[dict[str, object]]:
    return [p.to_dict() for p in corpus]


def bump_mtime(path: Path, seconds: int = 10) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def test_cache_lives_in_the_isolated_cache_dir(isolated_env: Path) -> None:
    assert paths.cache_dir().is_relative_to(isolated_env)
    load_corpus()
    metas = list((paths.cache_dir() / "parsed").glob("*.meta"))
    rows = list((paths.cache_dir() / "parsed").glob("*.rows"))
    assert len(metas) == 2 and len(rows) == 2


def test_second_load_gives_identical_papers() -> None:
    first = load_corpus()
    second = load_corpus()
    assert second.ids == first.ids and second.titles == first.titles
    assert snapshot(second) == snapshot(first)
    assert snapshot(second) == snapshot(load_corpus(use_cache=False))
    assert second.abstract(5) == first.paper(5).abstract


def test_cache_is_really_used_while_size_and_mtime_are_unchanged(seed_copy: Path) -> None:
    """Documents the cache key: (path, size, mtime). A same-size edit with the old mtime is not
    seen, which proves the second load came from the cache."""
    path = seed_copy / SEED_FILES[0].name
    load_corpus([seed_copy])
    st = path.stat()
    text = path.read_text("utf-8")
    assert "graph neural networks" in text
    path.write_text(text.replace("graph neural networks", "graph neural netwerks", 1), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    cached = load_corpus([seed_copy])
    assert any("graph neural networks" in p.abstract for p in cached)
    assert not any("netwerks" in p.abstract for p in cached)


def test_edited_file_is_picked_up(seed_copy: Path) -> None:
    path = seed_copy / SEED_FILES[0].name
    before = load_corpus([seed_copy])
    text = path.read_text("utf-8")
    path.write_text(text.replace("graph neural networks", "graph neural nets", 1), "utf-8")
    bump_mtime(path)
    after = load_corpus([seed_copy])
    assert len(after) == len(before)
    assert any("graph neural nets (GNNs)" in p.abstract for p in after)
    assert not any("graph neural networks (GNNs)" in p.abstract for p in after)
    assert len(set(after.ids) ^ set(before.ids)) == 2  # one id out, one in
    # Records reused from the cache are exactly what a fresh parse gives.
    assert snapshot(after) == snapshot(load_corpus([seed_copy], use_cache=False))


def test_appended_paragraph_is_picked_up_and_the_rest_reused(seed_copy: Path) -> None:
    path = seed_copy / SEED_FILES[0].name
    before = load_corpus([seed_copy])
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n\n" + NEW_PARAGRAPH + "\n")
    bump_mtime(path)
    after = load_corpus([seed_copy])
    assert len(after) == len(before) + 1
    assert set(before.ids) < set(after.ids)
    assert [p.abstract for p in after if NEW_PARAGRAPH in p.abstract] == [NEW_PARAGRAPH]
    assert snapshot(after) == snapshot(load_corpus([seed_copy], use_cache=False))
    # ... and the cache written for the edited file serves the next load unchanged.
    assert snapshot(load_corpus([seed_copy])) == snapshot(after)


def test_removed_paragraph_is_dropped(seed_copy: Path) -> None:
    path = seed_copy / SEED_FILES[1].name
    before = load_corpus([seed_copy])
    header, _, body = path.read_text("utf-8").partition("\n")
    paragraphs = [p for p in body.split("\n\n") if p.strip()]
    path.write_text(header + "\n\n" + "\n\n".join(paragraphs[:-1]) + "\n", "utf-8")
    bump_mtime(path)
    after = load_corpus([seed_copy])
    assert len(after) == len(before) - 1
    assert snapshot(after) == snapshot(load_corpus([seed_copy], use_cache=False))


def test_corrupt_cache_files_are_ignored() -> None:
    expected = snapshot(load_corpus())
    for meta in (paths.cache_dir() / "parsed").glob("*.meta"):
        meta.write_bytes(b"\x80garbage not a pickle")
    assert snapshot(load_corpus()) == expected
    for rows in (paths.cache_dir() / "parsed").glob("*.rows"):
        rows.unlink()
    assert snapshot(load_corpus()) == expected


def test_use_cache_false_writes_nothing() -> None:
    load_corpus(use_cache=False)
    assert not (paths.cache_dir() / "parsed").exists()


def test_warnings_survive_a_cached_load(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("Header\n\nCaf\u00e9 abstract.\n".encode("cp1252"))
    first = load_corpus([path])
    second = load_corpus([path])
    assert first.warnings == second.warnings and len(second.warnings) == 1
    assert snapshot(first) == snapshot(second)
