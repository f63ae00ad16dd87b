"""The persistent Whoosh index: build, reopen, incremental updates, and rebuilding by itself."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
from support import SEED_FILES

from tui_reader import paths
from tui_reader.atomic import file_lock
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.errors import CacheUnusable, IndexDamaged
from tui_reader.search.index import build as build_package
from tui_reader.search.index import leftovers
from tui_reader.search.index import persistent as index_module
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher

NEW_PARAGRAPH = (
    "Zygomorphic flibbertigibbet quantisation makes sparse transformers faster on commodity hardware."
)


def open_index(folder: Path) -> tuple[Corpus, SearchIndex]:
    corpus = load_corpus([folder])
    return corpus, SearchIndex(corpus)


def doc_count(ix: SearchIndex) -> int:
    with ix.searcher() as s:
        return int(s.doc_count())


def hit_ids(ix: SearchIndex, query: str) -> set[str]:
    return {h.id for h in Searcher(ix).search(query).hits}


def append_paragraph(path: Path, paragraph: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n\n" + paragraph + "\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))


Built = tuple[Corpus, SearchIndex, Path]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A seed copy, its parse cache and a freshly built index, made once per module.

    Each test gets an exact copy at the same absolute path (paths and mtimes are what the
    manifest records), which is much cheaper than building the index for every test.
    """
    work = tmp_path_factory.mktemp("index-work")
    saved = tmp_path_factory.mktemp("index-pristine") / "tree"
    (work / "corpus").mkdir()
    for f in SEED_FILES:
        shutil.copy2(f, work / "corpus" / f.name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUI_READER_CACHE_DIR", str(work / "cache"))
        _, ix = open_index(work / "corpus")
        assert ix.status() == "missing"
        report = ix.ensure()
        assert report.action == "built" and report.added == 30
        ix.close()
    shutil.copytree(work, saved)
    return work, saved


@pytest.fixture
def built(pristine: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Built:
    work, saved = pristine
    shutil.rmtree(work)
    shutil.copytree(saved, work)
    monkeypatch.setenv("TUI_READER_CACHE_DIR", str(work / "cache"))
    corpus, ix = open_index(work / "corpus")
    assert ix.status() == "fresh"
    return corpus, ix, work / "corpus"


def test_build_from_scratch(seed_copy: Path) -> None:
    _, ix = open_index(seed_copy)
    assert ix.status() == "missing"
    report = ix.ensure()
    assert (report.action, report.added, report.reason) == ("built", 30, "")
    assert ix.status() == "fresh"
    assert doc_count(ix) == 30
    ix.close()


def test_build_creates_index_and_manifest_in_the_cache(built: Built) -> None:
    corpus, ix, _ = built
    assert ix.dir.is_relative_to(paths.cache_dir())
    assert doc_count(ix) == 30
    manifest = json.loads(ix.manifest_path.read_text("utf-8"))
    assert manifest["schema"] == index_module.SCHEMA_VERSION
    assert set(manifest["docs"]) == set(corpus.ids)
    assert set(manifest["files"]) == {str(f.path) for f in corpus.files}
    # no staging folder is left behind
    assert [p.name for p in ix.base.iterdir() if p.is_dir()] == [corpus.key]
    ix.close()


def test_reopening_an_unchanged_corpus_does_nothing(built: Built) -> None:
    _, ix, _ = built
    mtimes = {p.name: p.stat().st_mtime_ns for p in ix.dir.iterdir()}
    report = ix.ensure()
    assert (report.action, report.added, report.removed, report.changed) == ("unchanged", 0, 0, 0)
    assert {p.name: p.stat().st_mtime_ns for p in ix.dir.iterdir()} == mtimes
    assert doc_count(ix) == 30
    ix.close()


def test_appended_paragraph_is_added_incrementally(built: Built) -> None:
    _, _, folder = built
    append_paragraph(folder / SEED_FILES[0].name, NEW_PARAGRAPH)
    corpus, ix = open_index(folder)
    assert ix.status() == "stale"
    report = ix.ensure()
    assert (report.action, report.added, report.removed, report.changed) == ("updated", 1, 0, 0)
    assert doc_count(ix) == 31
    new_id = next(p.id for p in corpus if p.abstract == NEW_PARAGRAPH)
    assert hit_ids(ix, "flibbertigibbet") == {new_id}
    assert hit_ids(ix, "zygomorphic quantisation") == {new_id}
    ix.close()
    # the manifest moved on: the next open is a no-op
    assert open_index(folder)[1].ensure().action == "unchanged"


def test_removing_a_file_removes_only_its_own_papers(built: Built) -> None:
    old_corpus, _, folder = built
    (folder / SEED_FILES[0].name).unlink()
    corpus, ix = open_index(folder)
    only_in_gone = set(old_corpus.ids) - set(corpus.ids)
    assert len(corpus) == 19 and len(only_in_gone) == 11
    report = ix.ensure()
    # the 8 papers both files hold stay; they change (their sources lost a file)
    assert (report.action, report.removed, report.changed, report.added) == ("updated", 11, 8, 0)
    assert doc_count(ix) == 19
    assert old_corpus.ids[0] in only_in_gone  # the GNN paper
    assert hit_ids(ix, "graph neural networks") == set()
    audio = hit_ids(ix, "audio function calling")  # BFCL Audio is in both files
    assert audio and audio <= set(corpus.ids)
    assert hit_ids(ix, f"sources:{SEED_FILES[0].stem}") == set()
    assert hit_ids(ix, f"sources:{SEED_FILES[1].stem}") == set(corpus.ids)
    ix.close()


def test_edited_paragraph_replaces_the_old_document(built: Built) -> None:
    _, _, folder = built
    path = folder / SEED_FILES[1].name
    text = path.read_text("utf-8")
    assert text.count("Decentralized SGD is a fundamental algorithm") == 1
    path.write_text(
        text.replace(
            "Decentralized SGD is a fundamental algorithm", "Decentralized SGD is a quixotic algorithm"
        ),
        "utf-8",
    )
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
    _, ix = open_index(folder)
    report = ix.ensure()
    assert (report.action, report.added, report.removed) == ("updated", 1, 1)
    assert doc_count(ix) == 30
    assert len(hit_ids(ix, "quixotic")) == 1
    assert hit_ids(ix, '"fundamental algorithm"') == set()
    ix.close()


def test_schema_version_change_rebuilds(built: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, folder = built
    monkeypatch.setattr(index_module, "SCHEMA_VERSION", index_module.SCHEMA_VERSION + 100)
    _, ix = open_index(folder)
    assert ix.status() == "outdated"
    report = ix.ensure()
    assert report.action == "built" and report.added == 30
    assert "another version" in report.reason and "schema" in report.reason
    manifest = json.loads(ix.manifest_path.read_text("utf-8"))
    assert manifest["schema"] == index_module.SCHEMA_VERSION
    assert len(hit_ids(ix, "graph")) == 3
    ix.close()
    assert open_index(folder)[1].ensure().action == "unchanged"


def test_an_index_from_before_the_layered_packages_rebuilds_with_a_notice(built: Built) -> None:
    _, _, folder = built
    _, ix = open_index(folder)
    manifest = json.loads(ix.manifest_path.read_text("utf-8"))
    manifest["schema"] = 8  # what the flat tui_reader/core/ layout wrote
    ix.manifest_path.write_text(json.dumps(manifest), "utf-8")
    assert ix.status() == "outdated"
    report = ix.ensure()
    assert report.action == "built"
    assert f"schema 8 -> {index_module.SCHEMA_VERSION}" in report.reason
    assert len(hit_ids(ix, "graph")) == 3
    ix.close()


def test_rebuild_on_request(built: Built) -> None:
    _, ix, _ = built
    report = ix.ensure(rebuild=True)
    assert report.action == "built" and report.reason == "rebuild requested"
    assert doc_count(ix) == 30
    ix.close()


def _corrupt(folder: Path, mode: str) -> None:
    files = [p for p in folder.iterdir() if p.is_file() and p.name != "manifest.json"]
    toc = [p for p in files if p.suffix == ".toc"]
    segments = [p for p in files if p.suffix == ".seg"]
    assert toc and segments
    if mode == "toc deleted":
        for p in toc:
            p.unlink()
    elif mode == "everything but the manifest deleted":
        for p in files:
            p.unlink()
    elif mode == "manifest garbled":
        (folder / "manifest.json").write_bytes(b"\xff\x00{not json")
    elif mode == "manifest deleted":
        (folder / "manifest.json").unlink()
    elif mode == "toc truncated":
        for p in toc:
            p.write_bytes(b"")
    elif mode == "toc garbled":
        for p in toc:
            p.write_bytes(b"x" * p.stat().st_size)
    elif mode == "segments truncated":
        for p in segments:
            p.write_bytes(b"")
    elif mode == "segments garbled":
        for p in segments:
            p.write_bytes(b"x" * p.stat().st_size)
    elif mode == "segments deleted":
        for p in segments:
            p.unlink()
    elif mode.startswith("segment middle overwritten"):
        # random bytes between the first and last 4 KiB (which the manifest hashes), size kept
        for p in segments:
            st = p.stat()
            data = bytearray(p.read_bytes())
            rng = random.Random(13)
            data[4096:-4096] = bytes(rng.randrange(256) for _ in range(len(data) - 8192))
            p.write_bytes(bytes(data))
            if mode.endswith("times kept"):  # the one sign left is gone: only reading finds it
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif mode == "posting blocks garbled, times kept":  # opens and lists words; searches fail
        for p in segments:
            st = p.stat()
            data = p.read_bytes()  # the posting lists' tags, outside the hashed head and tail
            middle = data[4096:-4096].replace(b"W3Bl", b"XXXX").replace(b"TRn1", b"XXXX")
            p.write_bytes(data[:4096] + middle + data[-4096:])
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    else:  # pragma: no cover
        raise AssertionError(mode)


@pytest.mark.parametrize(
    "mode",
    [
        "toc deleted",
        "everything but the manifest deleted",
        "manifest garbled",
        "manifest deleted",
        "toc truncated",
        "toc garbled",
        "segments truncated",
        "segments garbled",
        "segments deleted",
        "segment middle overwritten",
    ],
)
def test_damaged_index_rebuilds_by_itself(built: Built, mode: str) -> None:
    _, old, folder = built
    _corrupt(old.dir, mode)
    _, ix = open_index(folder)
    report = ix.ensure()
    assert report.action == "built"
    assert doc_count(ix) == 30
    result = Searcher(ix).search("graph neural networks")
    assert result.notice is None and result.total == 1
    ix.close()


def test_damaged_index_with_changed_files_rebuilds(built: Built) -> None:
    """When the files changed too, the failed incremental update falls back to a build."""
    _, old, folder = built
    _corrupt(old.dir, "segments garbled")
    append_paragraph(folder / SEED_FILES[0].name, NEW_PARAGRAPH)
    _, ix = open_index(folder)
    report = ix.ensure()
    assert report.action == "built" and "rebuilt" in report.reason
    assert doc_count(ix) == 31
    assert len(hit_ids(ix, "flibbertigibbet")) == 1
    ix.close()


def test_two_collections_get_two_indexes(seed_copy: Path) -> None:
    _, a = open_index(seed_copy)
    b_corpus = load_corpus([seed_copy / SEED_FILES[1].name])
    b = SearchIndex(b_corpus)
    assert a.dir != b.dir
    assert a.ensure().action == "built" and b.ensure().action == "built"
    assert doc_count(a) == 30 and doc_count(b) == 19
    a.close()
    b.close()


@pytest.mark.parametrize(
    "mode", ["segment middle overwritten, times kept", "posting blocks garbled, times kept"]
)
def test_damage_only_reading_finds_raises_index_damaged(built: Built, mode: str) -> None:
    """Bytes changed where the manifest does not look, the file's time put back: the index
    opens as fresh, and the first read that fails (the vocabulary, a query) raises IndexDamaged,
    never Whoosh's IndexError, so the caller rebuilds."""
    _, old, folder = built
    _corrupt(old.dir, mode)
    _, ix = open_index(folder)
    assert ix.status() == "fresh"
    with pytest.raises(IndexDamaged, match="damaged"):
        searcher = Searcher(ix)
        for text in ["graph", "learning", "title:model", "mod*", '"neural network"', "*", "year:2026"]:
            searcher.search(text)
    ix.close()
    assert ix.ensure(rebuild=True).action == "built"
    assert Searcher(ix).search("graph neural networks").total == 1
    ix.close()


def _leftover(base: Path, name: str, age: float) -> Path:
    folder = base / name
    folder.mkdir()
    (folder / "part-0").write_bytes(b"x" * 1000)
    then = time.time() - age
    os.utime(folder, (then, then))
    return folder


def test_what_killed_builds_left_is_removed_by_the_next_ensure(built: Built) -> None:
    corpus, ix, _ = built
    base, key, other = ix.base, corpus.key, "0123456789abcdef"
    old = leftovers.LEFTOVER_AGE + 60
    gone = [
        _leftover(base, f"{key}.build-dead0001", old),  # a staging folder of a killed build
        _leftover(base, f"{key}.bulk-dead0002", old),  # its workers' part files
        _leftover(base, f"{key}.old-dead0003", old),  # an index swapped out by a rebuild
        _leftover(base, "tui-reader-bulk-abc123", old),  # named before they carried a key
    ]
    kept = [
        _leftover(base, f"{key}.build-young001", 1),  # too young to judge
        _leftover(base, "unrelated-folder", old),
    ]
    busy = _leftover(base, f"{other}.build-busy0001", old)  # its collection is being built
    with file_lock(leftovers.lock_path(base, other)):  # that build, still running
        assert ix.ensure().action == "unchanged"
        assert not any(p.exists() for p in gone[:3])
        assert busy.exists() and gone[3].exists()  # the old-style one may be that build's too
    assert ix.ensure().action == "unchanged"  # that build was killed: its lock is free
    assert not any(p.exists() for p in [*gone, busy])
    assert all(p.exists() for p in kept)
    assert ix.dir.exists() and Searcher(ix).search("graph").total == 3
    ix.close()


def test_a_build_names_its_temporary_folders_by_collection(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, ix, _ = built
    seen: list[str] = []
    real = build_package.BulkBuild

    def spy(*args: object, **kwargs: object) -> object:
        build = real(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(Path(build._tmp.name).name)
        return build

    monkeypatch.setattr(build_package, "BulkBuild", spy)
    assert ix.ensure(rebuild=True).action == "built"
    assert seen and all(name.startswith(f"{corpus.key}.bulk-") for name in seen)
    ix.close()


def test_a_cache_folder_that_is_a_file_is_one_clear_error(seed_copy: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    corpus = load_corpus([seed_copy], use_cache=False)
    ix = SearchIndex(corpus, root=blocker / "index")
    assert ix.status() == "missing"
    with pytest.raises(CacheUnusable, match=r"cannot use the cache folder .*: Not a directory"):
        ix.ensure()


def test_a_folder_where_the_build_lock_goes_is_one_clear_error(built: Built) -> None:
    corpus, ix, _ = built
    lock = ix.base / f"{corpus.key}.build.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    with pytest.raises(CacheUnusable, match="Is a directory") as caught:
        ix.ensure()
    assert str(lock) in str(caught.value) and "\n" not in str(caught.value)
