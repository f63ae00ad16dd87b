"""Bookmarks, tags, notes, read state, session and visits saved under the ids before issue 18 still
attach to their papers (library/migrate_ids.py, run by open_user_data)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from support import run_cli

from tui_reader import paths
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import paper_id
from tui_reader.library.arrivals import ArrivalStore, collection_file, only_listed
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.migrate_ids import BACKUP, migrate
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import Session, SessionStore
from tui_reader.library.userdata import open_user_data

ABSTRACT = "We show that a greedy matching is optimal for every degree bound on sparse random graphs."
OTHER = "A second paper studies spectral sparsifiers of dense graphs and their use in fast solvers."


def _collection(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "refs.bib").write_text(
        "@article{smith2020,\n  title = {Sparse matchings},\n  author = {Smith, John},\n  year = {2020},\n}\n"
        "@article{nobody,\n  title = {Placeholder paper},\n  abstract = {Not Available},\n"
        "  year = {2021},\n}\n",
        "utf-8",
    )
    records = [
        {"title": "Greedy matchings", "abstract": ABSTRACT, "authors": "Ann Lee", "year": 2019},
        {"title": "Spectral sparsifiers", "abstract": OTHER, "authors": "Bo Chen", "year": 2018},
    ]
    (folder / "more.json").write_text(json.dumps(records), "utf-8")
    return folder


OLD_TITLE = paper_id("", "Sparse matchings")  # a title-only entry's id before issue 18
OLD_ABSTRACT = paper_id(ABSTRACT)
OLD_PLACEHOLDER = paper_id("Not Available")


def test_a_bookmark_made_under_the_old_id_is_still_bookmarked(tmp_path: Path) -> None:
    data_dir, marks_path = paths.data_dir(), paths.bookmarks_file()
    corpus = load_corpus([_collection(tmp_path)])
    assert OLD_TITLE not in corpus.index_of and OLD_ABSTRACT not in corpus.index_of  # the ids changed
    store = BookmarkStore(marks_path)
    store.add(OLD_TITLE, "Sparse matchings", "my note")
    store.set_tags(OLD_TITLE, ["to-read"])
    store.add(OLD_PLACEHOLDER, "Placeholder paper")
    store.add("0123456789ab", "A paper of another collection")
    ReadStore(data_dir / "read.json").mark_read([OLD_ABSTRACT, "0123456789ab"])
    SessionStore(data_dir / "session.json").save(corpus.key, Session(query="graphs", paper=OLD_ABSTRACT))
    ArrivalStore(collection_file(data_dir, corpus)).record(
        [OLD_TITLE, OLD_ABSTRACT, paper_id(OTHER), OLD_PLACEHOLDER]
    )
    before = marks_path.read_bytes()

    data = open_user_data(data_dir, marks_path, corpus)

    sparse = corpus.ids[corpus.resolve(OLD_TITLE)]  # type: ignore[index]
    greedy = corpus.ids[corpus.resolve(OLD_ABSTRACT)]  # type: ignore[index]
    placeholder = corpus.ids[corpus.resolve(OLD_PLACEHOLDER)]  # type: ignore[index]
    assert data.warnings == []
    mark = data.bookmarks.get(sparse)
    assert mark is not None and mark.note == "my note" and mark.tags == ["to-read"]
    assert mark.snapshot is not None and mark.snapshot.title == "Sparse matchings"  # refreshed, found
    assert placeholder in data.bookmarks and "0123456789ab" in data.bookmarks  # another's: untouched
    assert OLD_TITLE not in data.bookmarks and len(data.bookmarks) == 3
    assert data.read.ids() == {greedy, "0123456789ab"}
    assert data.restored.paper == greedy and data.restored.query == "graphs"
    assert data.arrivals.new == frozenset() and not data.arrivals.first_visit  # nothing looks new
    assert (marks_path.with_name(marks_path.name + BACKUP)).read_bytes() == before
    assert BookmarkStore(marks_path).get(sparse) is not None  # on disk, not only in memory


def test_the_migration_runs_once_per_collection(tmp_path: Path) -> None:
    data_dir, marks_path = paths.data_dir(), paths.bookmarks_file()
    corpus = load_corpus([_collection(tmp_path)])
    bookmarks = BookmarkStore(marks_path)
    bookmarks.add(OLD_TITLE, "Sparse matchings")
    read, session = ReadStore(data_dir / "read.json"), SessionStore(data_dir / "session.json")
    first = migrate(corpus, data_dir, bookmarks, read, session)
    assert first.renamed == {OLD_TITLE: corpus.ids[corpus.resolve(OLD_TITLE)]}  # type: ignore[index]
    BookmarkStore(marks_path).add(OLD_TITLE, "Sparse matchings")  # e.g. an older reader, later
    again = migrate(corpus, data_dir, BookmarkStore(marks_path), read, session)
    assert again.renamed == {} and OLD_TITLE in BookmarkStore(marks_path)


def test_nothing_is_merged_when_both_ids_are_bookmarked(tmp_path: Path) -> None:
    data_dir, marks_path = paths.data_dir(), paths.bookmarks_file()
    corpus = load_corpus([_collection(tmp_path)])
    new = corpus.ids[corpus.resolve(OLD_TITLE)]  # type: ignore[index]
    store = BookmarkStore(marks_path)
    store.add(OLD_TITLE, "Sparse matchings", "old note")
    store.add(new, "Sparse matchings", "new note")
    migrate(
        corpus, data_dir, store, ReadStore(data_dir / "read.json"), SessionStore(data_dir / "session.json")
    )
    kept = BookmarkStore(marks_path)
    assert [(m.id, m.note) for m in kept.all()] == [(OLD_TITLE, "old note"), (new, "new note")]


def test_the_corpus_resolves_old_ids_and_new_ones(tmp_path: Path) -> None:
    corpus = load_corpus([_collection(tmp_path)])
    for i, pid in enumerate(corpus.ids):
        assert corpus.resolve(pid) == i
    assert corpus.resolve("not-an-id") is None
    paper = corpus.get(OLD_ABSTRACT)  # aliases known once resolved
    assert paper is not None and paper.abstract == ABSTRACT and OLD_ABSTRACT in paper.aliases


def test_the_command_line_finds_a_bookmark_made_under_the_old_id(tmp_path: Path) -> None:
    folder = _collection(tmp_path)
    BookmarkStore(paths.bookmarks_file()).add(OLD_TITLE, "Sparse matchings", "my note")
    ReadStore(paths.data_dir() / "read.json").mark_read([OLD_ABSTRACT])
    marked, read = (
        run_cli("search", "--json", query, str(folder), cwd=tmp_path)
        for query in ("matchings is:bookmarked", "matchings is:read")
    )
    assert marked.returncode == 0, marked.stderr
    assert [h["title"] for h in json.loads(marked.stdout)["hits"]] == ["Sparse matchings"]
    assert [h["title"] for h in json.loads(read.stdout)["hits"]] == ["Greedy matchings"]


def test_the_command_line_takes_an_old_id(tmp_path: Path) -> None:
    folder = _collection(tmp_path)
    added = run_cli("bookmarks", "add", OLD_ABSTRACT, str(folder), cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    corpus = load_corpus([folder])
    new = corpus.ids[corpus.resolve(OLD_ABSTRACT)]  # type: ignore[index]
    assert new != OLD_ABSTRACT and BookmarkStore(paths.bookmarks_file()).ids() == {new}


def test_a_relaunch_compares_its_visits_without_a_set_of_their_ids(tmp_path: Path) -> None:
    """Visits that recorded exactly the collection's ids hold no old id: the bookmarks' old ids
    are still renamed, the visits file is left as it is, and the collection is marked done."""
    data_dir, marks_path = paths.data_dir(), paths.bookmarks_file()
    corpus = load_corpus([_collection(tmp_path)])
    visits = collection_file(data_dir, corpus)
    ArrivalStore(visits).record(list(corpus.ids))
    assert only_listed([json.loads(visits.read_text())["visits"][0]["ids"]], corpus.ids)
    before = visits.read_bytes()
    bookmarks = BookmarkStore(marks_path)
    bookmarks.add(OLD_TITLE, "Sparse matchings")
    result = migrate(corpus, data_dir, bookmarks, None, None, ArrivalStore(visits))
    sparse = corpus.ids[corpus.resolve(OLD_TITLE)]  # type: ignore[index]
    assert result.renamed == {OLD_TITLE: sparse} and sparse in BookmarkStore(marks_path)
    assert visits.read_bytes() == before
    BookmarkStore(marks_path).add(OLD_TITLE, "Sparse matchings")  # marked done: not compared again
    assert (
        migrate(corpus, data_dir, BookmarkStore(marks_path), None, None, ArrivalStore(visits)).renamed == {}
    )


IDS = st.lists(st.sampled_from(["a1", "b2", "c3", "d4", "e5", "zz"]), max_size=6)
SEPS = st.sampled_from([" ", "  ", "\t", "\n", " \u2028"])


@settings(max_examples=150)
@given(IDS, st.lists(st.tuples(IDS, SEPS), max_size=4))
def test_only_listed_means_every_visit_id_is_the_collections(
    collection: list[str], visits: list[tuple[list[str], str]]
) -> None:
    ids = list(dict.fromkeys(collection))  # a collection's ids are unique
    texts = [sep.join(part) for part, sep in visits]
    held = {pid for joined in texts for pid in joined.split()}
    if only_listed(texts, ids):
        assert held <= set(ids) and held  # the general rule finds no old id among them
    if (
        texts
        and all(sep == " " for _, sep in visits)
        and " ".join(t for t in texts if t) == " ".join(ids[: len(held)])
        and held
    ):
        assert only_listed(texts, ids)  # the collection's first ids, as recorded: the shortcut


@settings(max_examples=100)
@given(st.lists(st.text("abc12", min_size=1, max_size=3), min_size=1, max_size=8, unique=True), st.data())
def test_visits_of_the_collections_first_ids_take_the_shortcut(ids: list[str], data: st.DataObject) -> None:
    k = data.draw(st.integers(1, len(ids)))
    cuts = sorted(data.draw(st.sets(st.integers(1, k - 1), max_size=3))) if k > 1 else []
    texts = [" ".join(ids[a:b]) for a, b in zip([0, *cuts], [*cuts, k], strict=True)]
    assert only_listed(texts, ids)
    assert not only_listed(texts, ids[1:] + ids[:1]) or len(ids) == 1  # another order: the general rule
