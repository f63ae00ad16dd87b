"""A one-shot ``tui-reader search`` loads only what a search needs (issue 21: <= 0.5 s at 1M
papers), and the id migration of issue 18 costs a command nothing once a collection is done.

Which modules a run imports is read from a real interpreter's ``-X importtime`` (a forked CLI
run starts from a server that has imported the command line already); the stores are real files
in the isolated data folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_cli

from tui_reader import paths
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.arrivals import ArrivalStore, collection_file
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.migrate_ids import IDS_VERSION, KEY

PAPERS = [
    {"title": "Graph neural networks for molecules", "abstract": "Message passing on molecular graphs."},
    {"title": "Sparse matchings", "abstract": "A greedy matching is optimal on sparse random graphs."},
    {"title": "Spectral sparsifiers", "abstract": "Dense graphs sparsified for fast Laplacian solvers."},
]
# What a search without is:/tag: filters never needs: the user's stores, the reader, the parse workers.
NOT_FOR_A_SEARCH = (
    "textual",
    "rich",
    "tui_reader.app",
    "tui_reader.library.migrate_ids",
    "tui_reader.library.arrivals",
    "tui_reader.library.reading",
    "tui_reader.library.session",
    "tui_reader.library.saved",
    "tui_reader.library.inbox",
    "tui_reader.library.negatives",
    "tui_reader.corpus.outcomes",
)


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    path = tmp_path / "papers.json"
    path.write_text(json.dumps(PAPERS), "utf-8")
    return path


def _imported(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A real ``python -X importtime -m tui_reader ARGS`` and the modules it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tui_reader", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    names = {
        line.rpartition("|")[2].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return done, names


def _loaded(names: set[str], prefix: str) -> bool:
    return any(n == prefix or n.startswith(prefix + ".") for n in names)


def _data_files() -> list[str]:
    folder = paths.data_dir()
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_a_search_on_a_built_index_imports_only_what_it_needs(collection: Path, tmp_path: Path) -> None:
    built = run_cli("index", str(collection), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    done, names = _imported("search", "neural", str(collection), "--limit", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 result for 'neural'" in done.stdout and "Graph neural networks" in done.stdout
    assert _loaded(names, "whoosh") and _loaded(names, "tui_reader.search.index.persistent")  # it searched
    assert [m for m in NOT_FOR_A_SEARCH if _loaded(names, m)] == []


def test_a_listing_imports_neither_whoosh_nor_the_search(collection: Path, tmp_path: Path) -> None:
    done, names = _imported("list", str(collection), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(PAPERS)
    assert [m for m in ("whoosh", "textual", "tui_reader.search.index") if _loaded(names, m)] == []


def test_a_search_without_filters_reads_and_writes_none_of_the_users_files(
    collection: Path, tmp_path: Path
) -> None:
    corpus = load_corpus([collection])
    visits = collection_file(paths.data_dir(), corpus)
    visits.parent.mkdir(parents=True, exist_ok=True)
    visits.write_text("{ not json", "utf-8")  # read, it would be set aside with a warning
    before = _data_files()
    done = run_cli("search", "graph", str(collection), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    assert _data_files() == before and visits.read_text("utf-8") == "{ not json"


def test_a_filtered_search_still_carries_old_ids_over(collection: Path, tmp_path: Path) -> None:
    """is:/tag: read the user's ids, so those run the migration first (an id from before issue
    18 still finds its paper)."""
    from tui_reader.corpus.paper import paper_id

    old = paper_id(PAPERS[1]["abstract"])
    BookmarkStore(paths.bookmarks_file()).add(old, "Sparse matchings")
    done = run_cli("search", "--json", "graphs is:bookmarked", str(collection), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [h["title"] for h in json.loads(done.stdout)["hits"]] == ["Sparse matchings"]


def _done_keys() -> dict[str, object]:
    path = paths.data_dir() / "ids.json"
    return json.loads(path.read_text("utf-8"))[KEY] if path.exists() else {}


def test_stores_with_only_the_collections_ids_are_compared_once(collection: Path, tmp_path: Path) -> None:
    """Nothing to rename is still a collection done: the next run reads no visits to compare."""
    corpus = load_corpus([collection])
    BookmarkStore(paths.bookmarks_file()).add(corpus.ids[0], corpus.titles[0])
    ArrivalStore(collection_file(paths.data_dir(), corpus)).record(corpus.ids)
    first = run_cli("bookmarks", "list", str(collection), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _done_keys() == {corpus.key: IDS_VERSION}
    visits = collection_file(paths.data_dir(), corpus)
    visits.write_text("{ not json", "utf-8")  # done: not read again (the reader sets it aside)
    again = run_cli("bookmarks", "list", str(collection), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "warning" not in again.stderr and visits.read_text("utf-8") == "{ not json"
    assert corpus.ids[0] in again.stdout


def test_nothing_held_writes_no_mark(collection: Path, tmp_path: Path) -> None:
    done = run_cli("bookmarks", "list", str(collection), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (paths.data_dir() / "ids.json").exists()


THREADS = "import os, tui_reader.cli, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
THREADS += "; print(len(os.listdir('/proc/self/task')))"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="threads counted in /proc")
def test_numpy_starts_no_blas_threads_unless_asked() -> None:
    """OpenBLAS reads the setting when numpy is first imported: the command line sets it before
    (the process has its one thread); a setting of the user's is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    ours = subprocess.run(
        [sys.executable, "-c", THREADS], env=env, capture_output=True, text=True, check=True
    )
    assert ours.stdout.split() == ["1", "1"]
    env["OPENBLAS_NUM_THREADS"] = "2"
    theirs = subprocess.run([sys.executable, "-c", THREADS], env=env, capture_output=True, text=True)
    assert theirs.returncode == 0 and theirs.stdout.split()[0] == "2"
