"""The command line, run as a real subprocess with the isolated environment."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import SEED_FILES, run_cli, run_cli_many

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.citekeys import key_base
from tui_reader.search.index.persistent import SearchIndex


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def warm_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An XDG cache holding the seeds' parse cache and index, built in-process once."""
    folder = tmp_path_factory.mktemp("warm-xdg-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("TUI_READER_CACHE_DIR", raising=False)
        mp.setenv("XDG_CACHE_HOME", str(folder))
        index = SearchIndex(load_corpus())
        assert index.ensure().action == "built"
        index.close()
    return folder


@pytest.fixture
def warm(warm_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Read-only CLI tests share the warm cache (still a temp folder, never the user's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(warm_cache_dir))
    return warm_cache_dir


def ok(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.usefixtures("warm")
def test_list(cwd: Path, seed_corpus: Corpus) -> None:
    result = run_cli("list", cwd=cwd)
    ok(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 30
    assert [line.split("  ", 1)[0] for line in lines] == seed_corpus.ids
    assert [line.split("  ", 1)[1] for line in lines] == seed_corpus.titles
    assert result.stderr == ""


@pytest.mark.usefixtures("warm")
def test_list_json(cwd: Path, seed_corpus: Corpus) -> None:
    result = run_cli("list", "--json", cwd=cwd)
    ok(result)
    papers = json.loads(result.stdout)
    assert isinstance(papers, list) and len(papers) == 30
    for paper, pid in zip(papers, seed_corpus.ids, strict=True):
        assert {"id", "title", "abstract", "authors", "sources"} <= set(paper)
        assert paper["id"] == pid and paper["abstract"] and paper["sources"]
    assert sum(len(p["sources"]) == 2 for p in papers) == 8


def test_list_of_given_files_and_warnings(cwd: Path, tmp_path: Path) -> None:
    data = tmp_path / "papers.jsonl"
    data.write_text(json.dumps({"title": "One", "abstract": "Only paper."}) + "\n", "utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_text("", "utf-8")
    result = run_cli("list", str(data), str(empty), cwd=cwd)
    ok(result)
    assert re.fullmatch(r"[0-9a-f]{12}  One\n", result.stdout)
    assert "warning" in result.stderr and str(empty) in result.stderr


@pytest.mark.usefixtures("warm")
def test_search_json(cwd: Path) -> None:
    result = run_cli("search", "graph neural networks", "--json", cwd=cwd)
    ok(result)
    data = json.loads(result.stdout)
    assert {"query", "total", "took_ms", "suggestion", "hits"} <= set(data)
    assert data["query"] == "graph neural networks" and data["total"] == 1
    assert data["suggestion"] is None and isinstance(data["took_ms"], int | float)
    (hit,) = data["hits"]
    assert {"id", "title", "score", "snippet", "abstract"} <= set(hit)
    assert hit["title"].startswith("Graph neural networks")
    assert hit["score"] > 0 and "graph" in hit["snippet"].lower()
    for part in hit["snippet"].split(" \u2026 "):
        assert part.strip("\u2026 ") in hit["abstract"]


@pytest.mark.usefixtures("warm")
def test_search_text_output_limit_and_suggestion(cwd: Path) -> None:
    limited, suggested, suggested_json = run_cli_many(
        ("search", "models", "--limit", "2"),
        ("search", "lerning"),
        ("search", "lerning", "--json"),
        cwd=cwd,
    )
    for result in (limited, suggested, suggested_json):
        ok(result)
    assert re.match(r"\d+ results for 'models'", limited.stdout)
    assert len(re.findall(r"^\s+\d+\. ", limited.stdout, re.M)) == 2
    assert "Did you mean: learning" in suggested.stdout
    data = json.loads(suggested_json.stdout)
    assert data["total"] == 0 and data["hits"] == [] and data["suggestion"] == "learning"


@pytest.mark.usefixtures("warm")
def test_bad_queries_are_a_message_not_a_crash(cwd: Path) -> None:
    queries = ['"unclosed', "graph)", "foo:bar", "AND graph", "year:abc"]
    results = run_cli_many(*(("search", q, "--json") for q in queries), cwd=cwd)
    for query, result in zip(queries, results, strict=True):
        ok(result)
        assert "couldn't parse the query" in result.stderr, query
        data = json.loads(result.stdout)
        assert data["query"] == query
        if query in ("graph)", "AND graph"):
            assert data["total"] == 3


def test_missing_path_exits_2_with_one_line(cwd: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-folder")
    calls = [
        ("list", missing),
        ("list", "--json", missing),
        ("search", "graph", missing),
        ("index", missing),
        ("bookmarks", "list", missing),
        (missing,),
    ]
    for args, result in zip(calls, run_cli_many(*calls, cwd=cwd), strict=True):
        assert result.returncode == 2, args
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and missing in lines[0], (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_limit_must_be_positive(cwd: Path) -> None:
    for result in run_cli_many(
        ("search", "graph", "--limit", "0"), ("search", "graph", "--limit", "-3"), cwd=cwd
    ):
        assert result.returncode == 2 and "--limit" in result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""


def test_index_then_index_again(cwd: Path, isolated_env: Path) -> None:
    first = run_cli("index", cwd=cwd)
    ok(first)
    assert "built the index of 30 papers" in first.stdout
    assert str(isolated_env) in first.stdout  # the index went to the isolated cache
    second = run_cli("index", cwd=cwd)
    ok(second)
    assert "up to date" in second.stdout


def test_index_after_a_file_grows(cwd: Path, seed_copy: Path) -> None:
    ok(run_cli("index", str(seed_copy), cwd=cwd))
    path = seed_copy / SEED_FILES[0].name
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n\nA brand new quokka abstract for the update test.\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
    result = run_cli("index", str(seed_copy), cwd=cwd)
    ok(result)
    assert "1 added, 0 changed, 0 removed" in result.stdout


@pytest.mark.usefixtures("warm")
def test_bookmarks_round_trip(cwd: Path, isolated_env: Path, seed_corpus: Corpus) -> None:
    pid, title = seed_corpus.ids[2], seed_corpus.titles[2]
    added = run_cli("bookmarks", "add", pid[:6], "--note", "check the MoE part", cwd=cwd)
    ok(added)
    assert pid in added.stdout and title in added.stdout
    store = isolated_env / "data" / "tui-reader" / "bookmarks.json"
    data = json.loads(store.read_text("utf-8"))
    assert data["version"] == 3
    assert [(b["id"], b["title"], b["note"]) for b in data["bookmarks"]] == [
        (pid, title, "check the MoE part"),
    ]
    snap = BookmarkStore(store).get(pid).snapshot  # type: ignore[union-attr]  # in its pack
    assert snap is not None and snap.abstract == seed_corpus.paper(2).abstract

    listed, markdown, bibtex, as_json = run_cli_many(
        ("bookmarks", "list"),
        ("bookmarks", "export", "--format", "markdown"),
        ("bookmarks", "export", "--format", "bibtex"),
        ("bookmarks", "export", "--format", "json"),
        cwd=cwd,
    )
    for result in (listed, markdown, bibtex, as_json):
        ok(result)
    assert pid in listed.stdout and title in listed.stdout and "check the MoE part" in listed.stdout
    assert f"## {title}" in markdown.stdout and "check the MoE part" in markdown.stdout
    key = key_base(seed_corpus.paper(2))
    assert key.startswith("anon2026") and f"@inproceedings{{{key}," in bibtex.stdout
    assert "booktitle = {ICML}" in bibtex.stdout and "note = {check the MoE part}" in bibtex.stdout
    assert [(e["id"], e["title"], e["note"]) for e in json.loads(as_json.stdout)] == [
        (pid, title, "check the MoE part"),
    ]

    removed = run_cli("bookmarks", "remove", pid, cwd=cwd)
    ok(removed)
    assert json.loads(store.read_text("utf-8"))["bookmarks"] == []
    again = run_cli("bookmarks", "remove", pid, cwd=cwd)
    assert again.returncode == 1 and "not bookmarked" in again.stderr
    beside = ["bookmarks.json", "bookmarks.json.lock", "bookmarks.json.snapshots"]  # + the snapshot packs
    assert sorted(p.name for p in store.parent.iterdir()) == beside


@pytest.mark.usefixtures("warm")
def test_bookmarks_option_file_and_unknown_ids(cwd: Path, tmp_path: Path, seed_corpus: Corpus) -> None:
    store = tmp_path / "mine.json"
    store.write_text(
        json.dumps(
            {
                "version": 1,
                "bookmarks": [
                    {"id": "deadbeef0000", "title": "Elsewhere", "added": "2020-01-01", "note": ""},
                ],
            }
        ),
        "utf-8",
    )
    future = tmp_path / "future.json"
    raw = b'{"version": 4, "bookmarks": []}'
    future.write_bytes(raw)
    bad, listed, newer = run_cli_many(
        ("bookmarks", "add", "ffffffffffff", "--bookmarks", str(store)),
        ("bookmarks", "list", "--bookmarks", str(store)),
        ("bookmarks", "add", seed_corpus.ids[0], "--bookmarks", str(future)),
        cwd=cwd,
    )
    assert bad.returncode == 2 and "ffffffffffff" in bad.stderr
    assert "Traceback" not in bad.stderr
    ok(listed)
    assert "deadbeef0000" in listed.stdout and "not in this corpus" in listed.stdout
    # a bookmarks file from a newer version: exit 1, one message, the file untouched
    assert newer.returncode == 1 and "Traceback" not in newer.stderr
    assert "newer" in newer.stderr and future.read_bytes() == raw
    # a bookmark of a paper outside the corpus can still be removed by its id
    ok(run_cli("bookmarks", "remove", "deadbeef0000", "--bookmarks", str(store), cwd=cwd))
    assert json.loads(store.read_text("utf-8"))["bookmarks"] == []


@pytest.mark.usefixtures("warm")
def test_bookmarks_tags_notes_and_citations_without_the_collection(
    cwd: Path, tmp_path: Path, seed_corpus: Corpus
) -> None:
    import bibtexparser
    import rispy

    store = str(tmp_path / "marks.json")
    a, b = seed_corpus.ids[0], seed_corpus.ids[4]
    tagged = run_cli("bookmarks", "tag", a[:6], "ML", "to read, later", "--bookmarks", store, cwd=cwd)
    ok(tagged)
    assert tagged.stdout == f"{a}  {seed_corpus.titles[0]}  [later, ML, to read]\n"
    ok(run_cli("bookmarks", "add", b, "--note", "one\ntwo\nthree", "--bookmarks", store, cwd=cwd))
    other = tmp_path / "other.jsonl"  # a collection holding neither bookmarked paper
    other.write_text(json.dumps({"title": "Other", "abstract": "Something else entirely."}) + "\n", "utf-8")
    listed, only_ml, bib, ris, csl, none = run_cli_many(
        ("bookmarks", "list", "--bookmarks", store),
        ("bookmarks", "list", "--tag", "ml", "--bookmarks", store),
        ("bookmarks", "export", "--format", "bibtex", "--bookmarks", store, str(other)),
        ("bookmarks", "export", "--format", "ris", "--tag", "TO READ", "--bookmarks", store, str(other)),
        ("bookmarks", "export", "--format", "csl-json", "--bookmarks", store, str(other)),
        ("bookmarks", "export", "--format", "json", "--tag", "nope", "--bookmarks", store),
        cwd=cwd,
    )
    for result in (listed, only_ml, bib, ris, csl, none):
        ok(result)
    assert f"{seed_corpus.titles[0]}  [later, ML, to read]" in listed.stdout
    assert "— one ↵ two ↵ three" in listed.stdout
    assert only_ml.stdout.count("\n") == 1 and a in only_ml.stdout
    library = bibtexparser.parse_string(bib.stdout)  # from the snapshots: the collection is closed
    assert library.failed_blocks == [] and len(library.entries) == 2
    for entry in library.entries:
        f = {x.key: x.value for x in entry.fields}
        assert entry.entry_type == "inproceedings" and f["booktitle"] == "ICML" and f["year"] == "2026"
        assert f["abstract"]
    (record,) = rispy.loads(ris.stdout)
    assert record["title"] == seed_corpus.titles[0] and record["abstract"]
    items = json.loads(csl.stdout)
    assert [i.get("note") for i in items] == [None, "one\ntwo\nthree"]
    assert items[0]["abstract"] == seed_corpus.paper(0).abstract
    assert json.loads(none.stdout) == [] and "no bookmark is tagged 'nope'" in none.stderr
    # untag, then what cannot be done: exit codes and one line each
    untagged = run_cli(
        "bookmarks", "untag", a, "ml", "LATER", "--collection", str(other), "--bookmarks", store, cwd=cwd
    )
    ok(untagged)
    assert untagged.stdout.endswith("  [to read]\n")
    missing, empty = run_cli_many(
        ("bookmarks", "untag", seed_corpus.ids[9], "x", "--bookmarks", store),
        ("bookmarks", "tag", a, ",", " ", "--bookmarks", store),
        cwd=cwd,
    )
    assert missing.returncode == 1 and "not bookmarked" in missing.stderr
    assert empty.returncode == 2 and "no tag given in ','" in empty.stderr
    assert "Traceback" not in missing.stderr + empty.stderr


def test_search_survives_a_damaged_index(cwd: Path, isolated_env: Path) -> None:
    index = SearchIndex(load_corpus())  # built in-process in this test's own cache
    index.ensure()
    index.close()
    (toc,) = index.dir.glob("*.toc")
    assert toc.is_relative_to(isolated_env)
    toc.write_bytes(b"")
    result = run_cli("search", "graph", "--json", cwd=cwd)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0 and json.loads(result.stdout)["total"] == 3


def _damage_keeping_times(folder: Path, how: str) -> None:
    """Bytes changed between the first and last 4 KiB of the segment (the manifest hashes only
    those), the file's size and time kept: only reading the index finds it."""
    for seg in folder.glob("*.seg"):
        st = seg.stat()
        data = bytearray(seg.read_bytes())
        if how == "vocabulary":  # everything in the middle: the word lists do not load
            data[4096:-4096] = bytes((i * 7919) % 251 for i in range(len(data) - 8192))
        else:  # the posting lists' tags: the index opens, a search fails
            data[4096:-4096] = bytes(data[4096:-4096]).replace(b"W3Bl", b"XXXX").replace(b"TRn1", b"XXXX")
        seg.write_bytes(bytes(data))
        os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("how", ["vocabulary", "postings"])
def test_search_recovers_from_damage_only_reading_finds(cwd: Path, isolated_env: Path, how: str) -> None:
    index = SearchIndex(load_corpus())
    index.ensure()
    index.close()
    _damage_keeping_times(index.dir, how)
    assert index.status() == "fresh"
    result = run_cli("search", "graph", "--json", cwd=cwd)
    ok(result)
    assert json.loads(result.stdout)["total"] == 3
    assert "damaged" in result.stderr and "rebuilding it" in result.stderr
    again = run_cli("search", "graph", cwd=cwd)  # rebuilt for good
    ok(again)
    assert again.stderr == "" and again.stdout.startswith("3 results")


def test_index_finds_damage_to_the_word_lists(cwd: Path, isolated_env: Path) -> None:
    index = SearchIndex(load_corpus())
    index.ensure()
    index.close()
    _damage_keeping_times(index.dir, "vocabulary")
    result = run_cli("index", cwd=cwd)
    ok(result)
    assert "damaged" in result.stderr and "rebuilt it" in result.stderr
    assert "built the index of 30 papers" in result.stdout and "(damaged)" in result.stdout
    assert "index is up to date" in run_cli("index", cwd=cwd).stdout


def test_index_rebuilds_bytes_written_into_a_segment(cwd: Path, isolated_env: Path) -> None:
    index = SearchIndex(load_corpus())
    index.ensure()
    index.close()
    for seg in index.dir.glob("*.seg"):  # a write in place, time and all: the manifest sees it
        data = bytearray(seg.read_bytes())
        data[5000:5100] = b"\xff" * 100
        seg.write_bytes(bytes(data))
    result = run_cli("index", cwd=cwd)
    ok(result)
    assert "damaged; rebuilt it" in result.stderr and "built the index of 30 papers" in result.stdout


def test_an_unusable_cache_folder_is_one_line_and_exit_1(cwd: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("")
    env = {**os.environ, "XDG_CACHE_HOME": str(blocker), "PYTHONIOENCODING": "utf-8"}
    calls = [("list",), ("bookmarks", "list"), ("search", "graph"), ("search", "graph", "--json"), ("index",)]
    for args in calls:
        result = subprocess.run(
            [sys.executable, "-m", "tui_reader", *args], cwd=cwd, env=env, capture_output=True, text=True
        )
        assert "Traceback" not in result.stderr, args
        if args[0] in ("list", "bookmarks"):  # they need no index
            assert result.returncode == 0, (args, result.stderr)
            continue
        assert result.returncode == 1 and result.stdout == "", args
        errors = [line for line in result.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and "cannot use the cache folder" in errors[0], result.stderr
        assert "Not a directory" in errors[0]


def test_a_folder_where_the_lock_goes_is_one_line(cwd: Path, isolated_env: Path) -> None:
    index = SearchIndex(load_corpus())
    lock = index.base / f"{index.corpus.key}.build.lock"
    lock.mkdir(parents=True)
    result = run_cli("search", "graph", cwd=cwd)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "cannot use the cache folder" in line and "Is a directory" in line and str(lock) in line


@pytest.mark.usefixtures("warm")
def test_search_output_carries_no_control_characters(cwd: Path) -> None:
    """The query comes back in the suggestion, the notice and the JSON: escaped, never raw.
    (OR: a suggestion is offered only if it finds more, and the escapes match nothing.)"""
    text, as_json, broken = run_cli_many(
        ("search", "grpah OR \x1b[2J\x9b1m"),
        ("search", "grpah OR \x1b[2J\x9b1m \u202e", "--json"),
        ("search", "grpah \x1b]0;x\x07 title:", "--json"),
        cwd=cwd,
    )
    for result in (text, as_json, broken):
        ok(result)
        for stream in (result.stdout, result.stderr):
            assert not any(ch in stream for ch in "\x1b\x9b\x07\u202e"), repr(stream)
    assert "Did you mean: graph" in text.stdout
    data = json.loads(as_json.stdout)
    assert data["query"] == "grpah OR \x1b[2J\x9b1m \u202e" and data["suggestion"].startswith("graph")
    assert "notice" in json.loads(broken.stdout) and "couldn't parse" in broken.stderr


@pytest.mark.usefixtures("warm")
def test_search_time_limit_option(cwd: Path) -> None:
    unlimited, bad = run_cli_many(
        ("search", "graph", "--json", "--time-limit", "0"), ("search", "graph", "--time-limit", "-1"), cwd=cwd
    )
    ok(unlimited)
    data = json.loads(unlimited.stdout)
    assert data["total"] == 3 and data["total_exact"] is True and data["stopped"] is None
    assert bad.returncode == 2 and "--time-limit" in bad.stderr


CLI_AS_READER = ["graph neural", '"neural networks"', "learn*", "lerning~", "title:graph", "grpah", "venue:x"]


@pytest.mark.usefixtures("warm")
def test_a_one_shot_search_answers_as_the_readers_warmed_searcher(cwd: Path) -> None:
    """The command line reads the vocabulary, the self-check and the norms only when its one
    search needs them; the reader reads them ahead. Same papers, scores, counts, suggestions."""
    from tui_reader.search.searcher import Searcher, SearchMode

    index = SearchIndex(load_corpus())
    reader = Searcher(index)  # warm, as the reader's index worker opens it
    runs = run_cli_many(*(("search", q, "--json", "--limit", "100") for q in CLI_AS_READER), cwd=cwd)
    for text, run in zip(CLI_AS_READER, runs, strict=True):
        ok(run)
        data = json.loads(run.stdout)
        result = reader.search(text, SearchMode.ENTER, 100)
        assert [(h["id"], h["score"]) for h in data["hits"]] == [
            (h.id, round(h.score, 4)) for h in result.hits
        ], text
        assert (data["total"], data["suggestion"]) == (result.total, result.suggestion), text
    assert any(json.loads(r.stdout)["suggestion"] for r in runs)  # a suggestion read the vocabulary
    index.close()


def test_config_prints_the_effective_configuration(cwd: Path, isolated_env: Path) -> None:
    import tomllib

    from tui_reader.app.commands import bound

    result = run_cli("config", cwd=cwd)
    ok(result)
    assert result.stderr == ""
    config_path = isolated_env / "config" / "tui-reader" / "config.toml"
    assert result.stdout.startswith(f"# {config_path} (not there: these are the defaults)\n")
    data = tomllib.loads(result.stdout)
    assert data["theme"] == "textual-dark" and data["sort"] == "relevance" and data["read_delay"] == 1.5
    assert set(data["keys"]) == {c.action for c in bound()}  # every action, by the name [keys] takes
    assert data["keys"]["open_link"] == "o"
    assert run_cli("config", "--path", cwd=cwd).stdout == f"{config_path}\n"


def test_config_with_mistakes_names_their_lines(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tomllib

    config = tmp_path / "my.toml"
    config.write_text('theme = "nord"\nread_delay = -1\n[keys]\nopen_link = "O"\nsimilar = "q"\n')
    monkeypatch.setenv("TUI_READER_CONFIG", str(config))
    result = run_cli("config", cwd=cwd)
    ok(result)
    assert result.stderr.splitlines() == [
        f"tui-reader: warning: {config}, line 2: read_delay must be a number of seconds from 0 (never) "
        "to 3600, not -1; using 1.5",
        f'tui-reader: warning: {config}, line 5: "q" is already the key of quit; keeping "s"',
    ]
    data = tomllib.loads(result.stdout)
    assert data["theme"] == "nord" and data["read_delay"] == 1.5
    assert data["keys"]["open_link"] == "O" and data["keys"]["similar"] == "s"
    assert "# Open the paper's attachment" in result.stdout and '(default "o")' in result.stdout


@pytest.mark.usefixtures("warm")
def test_search_filters_by_the_users_tags_and_bookmarks(
    cwd: Path, tmp_path: Path, seed_corpus: Corpus
) -> None:
    store = str(tmp_path / "marks.json")
    graph = [p.id for p in seed_corpus if "graph" in p.abstract.lower()]  # papers the query matches
    ok(run_cli("bookmarks", "tag", graph[0], "survey", "--bookmarks", store, cwd=cwd))
    ok(run_cli("bookmarks", "add", graph[1], "--bookmarks", store, cwd=cwd))
    tagged, marked, unused = run_cli_many(
        ("search", 'graph tag:"SURVEY"', "--json", "--bookmarks", store),
        ("search", "graph is:bookmarked", "--json", "--bookmarks", store),
        ("search", "graph tag:nosuch", "--json", "--bookmarks", store),
        cwd=cwd,
    )
    for result in (tagged, marked, unused):
        ok(result)
    assert [h["id"] for h in json.loads(tagged.stdout)["hits"]] == [graph[0]]
    assert {h["id"] for h in json.loads(marked.stdout)["hits"]} == {graph[0], graph[1]}
    assert json.loads(unused.stdout)["total"] == 0 and "no paper is tagged 'nosuch'" in unused.stderr


@pytest.mark.usefixtures("warm")
def test_a_search_stopped_at_its_limit_is_asked_again_as_the_reader_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A loaded machine can stop even a tiny search at 1.5 s: the command line then asks again
    for up to PATIENT_LIMIT, as the reader's Enter does, and gives the exact answer."""
    from tui_reader import cli

    def search(*extra: str) -> dict[str, object]:
        assert cli.main(["search", "graph", "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]

    monkeypatch.setattr("tui_reader.search.searcher.TIME_LIMIT", -1.0)  # passed at the first check
    monkeypatch.setattr("tui_reader.search.TIME_LIMIT", -1.0, raising=False)
    patient = search()
    assert patient["total"] == 3 and patient["total_exact"] is True and patient["stopped"] is None
    assert isinstance(patient["took_ms"], float) and patient["took_ms"] > 0  # both asks counted
    monkeypatch.setattr("tui_reader.search.query.modes.PATIENT_LIMIT", -1.0)
    monkeypatch.setattr("tui_reader.search.PATIENT_LIMIT", -1.0, raising=False)
    stopped = search()
    assert stopped["total_exact"] is False and stopped["stopped"] == "time"
