"""``tui-reader saved`` and ``tui-reader inbox``, in subprocesses, against a real collection file
that grows: the inbox's counts are compared with ``tui-reader search``'s total and with the new
papers worked out here, independently."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support import run_cli

from tui_reader import paths
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.arrivals import collection_file
from tui_reader.library.inbox import open_timeline
from tui_reader.library.saved import SavedSearches
from tui_reader.library.userdata import open_user_data

FIRST = [
    {"title": "Diffusion models for images", "abstract": "Score based diffusion with guidance."},
    {"title": "Graph networks", "abstract": "Message passing on graphs."},
    {"title": "Guided diffusion for text", "abstract": "Classifier free guidance in diffusion."},
    {"title": "Robot grasping", "abstract": "Robots learn to grasp from images."},
]
LATER = [
    {"title": "Latent diffusion at scale", "abstract": "Diffusion in a latent space."},
    {"title": "Graph transformers", "abstract": "Attention over graphs."},
    {"title": "Diffusion policies for robots", "abstract": "Robots act with diffusion policies."},
]


def _write(path: Path, records: list[dict[str, object]], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)


def _inbox(tmp_path: Path, *paths: str) -> dict[str, dict[str, object]]:
    out = run_cli("inbox", *paths, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) == {"collection", "took_ms", "saved"}
    return {item["name"]: item for item in doc["saved"]}


def _search_total(tmp_path: Path, query: str, path: str) -> tuple[int, set[str]]:
    out = run_cli("search", query, path, "--json", "--limit", "1000", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    return doc["total"], {h["id"] for h in doc["hits"]}


def _ids(tmp_path: Path, path: str) -> dict[str, str]:
    out = run_cli("list", path, "--json", cwd=tmp_path)
    return {p["title"]: p["id"] for p in json.loads(out.stdout)}


def test_saved_add_list_rename_remove(tmp_path: Path) -> None:
    assert run_cli("saved", "add", "ranking", "learning to rank", cwd=tmp_path).returncode == 0
    assert run_cli("saved", "add", "diff", "diffusion", cwd=tmp_path).returncode == 0
    out = run_cli("saved", "list", "--json", cwd=tmp_path)
    assert [(s["name"], s["query"]) for s in json.loads(out.stdout)["saved"]] == [
        ("ranking", "learning to rank"),
        ("diff", "diffusion"),
    ]
    out = run_cli("saved", "rename", "RANKING", "rank", cwd=tmp_path)
    assert out.returncode == 0 and "renamed 'ranking' to 'rank'" in out.stdout
    out = run_cli("saved", "remove", "diff", cwd=tmp_path)
    assert out.returncode == 0 and "removed 'diff'" in out.stdout
    out = run_cli("saved", "list", cwd=tmp_path)
    assert out.stdout.split() == ["rank", "learning", "to", "rank"]


def test_refusals_are_one_line(tmp_path: Path) -> None:
    run_cli("saved", "add", "a", "q", cwd=tmp_path)
    for args, code, said in (
        (("saved", "add", " ", "q"), 2, "a saved search needs a name"),
        (("saved", "add", "x", ""), 2, "a saved search needs a query"),
        (("saved", "add", "A", "other"), 1, "already named 'a' (--replace replaces it)"),
        (("saved", "remove", "nope"), 1, "no saved search is named 'nope'"),
        (("saved", "rename", "a", ""), 2, "needs a name"),
    ):
        out = run_cli(*args, cwd=tmp_path)
        assert out.returncode == code, (args, out.stderr)
        assert out.stderr.count("\n") == 1 and said in out.stderr and not out.stdout
    out = run_cli("saved", "add", "A", "other", "--replace", cwd=tmp_path)
    assert out.returncode == 0
    listed = json.loads(run_cli("saved", "list", "--json", cwd=tmp_path).stdout)["saved"]
    assert [(s["name"], s["query"]) for s in listed] == [("A", "other")]


def test_hostile_name_and_query_are_shown_escaped(tmp_path: Path) -> None:
    name, query = "\x1b[2Jwipe\x07", "diffusion \x1b]52;c;aGk=\x07"
    assert run_cli("saved", "add", name, query, cwd=tmp_path).returncode == 0
    for args in (("saved", "list"), ("saved", "list", "--json"), ("inbox",), ("inbox", "--json")):
        out = run_cli(*args, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stdout + out.stderr
    listed = json.loads(run_cli("saved", "list", "--json", cwd=tmp_path).stdout)["saved"]
    assert (listed[0]["name"], listed[0]["query"]) == (name, query)  # the data, exactly


def test_inbox_counts_after_the_file_grows(tmp_path: Path) -> None:
    corpus = tmp_path / "papers.jsonl"
    _write(corpus, FIRST)
    for name, query in (("diffusion", "diffusion"), ("graphs", "graphs"), ("none", "zebrafish")):
        assert run_cli("saved", "add", name, query, cwd=tmp_path).returncode == 0
    first = _inbox(tmp_path, str(corpus))  # the collection's first visit: nothing is new
    assert {n: c["new"] for n, c in first.items()} == {"diffusion": 0, "graphs": 0, "none": 0}
    for name, query in (("diffusion", "diffusion"), ("graphs", "graphs"), ("none", "zebrafish")):
        total, _ = _search_total(tmp_path, query, str(corpus))
        assert first[name]["total"] == first[name]["unread"] == total
    _write(corpus, LATER, "a")  # papers arrive: the file grew
    grown = _inbox(tmp_path, str(corpus))  # it brings the index up to date itself
    updated = run_cli("index", str(corpus), cwd=tmp_path)
    assert "index is up to date" in updated.stdout, updated.stdout
    ids = _ids(tmp_path, str(corpus))
    later = {ids[str(r["title"])] for r in LATER}
    again = _inbox(tmp_path, str(corpus))  # inbox marks nothing visited: still new
    for name, query in (("diffusion", "diffusion"), ("graphs", "graphs"), ("none", "zebrafish")):
        total, matched = _search_total(tmp_path, query, str(corpus))
        assert grown[name]["total"] == total == len(matched)
        assert grown[name]["new"] == len(matched & later), name  # computed here, independently
        assert again[name]["new"] == grown[name]["new"]
    assert grown["diffusion"]["new"] == 2 and grown["graphs"]["new"] == 1 and grown["none"]["total"] == 0


def test_inbox_unread_follows_the_read_state(tmp_path: Path) -> None:
    corpus = tmp_path / "papers.jsonl"
    _write(corpus, FIRST)
    run_cli("saved", "add", "diffusion", "diffusion", cwd=tmp_path)
    ids = _ids(tmp_path, str(corpus))
    data = Path(os.environ["XDG_DATA_HOME"]) / "tui-reader"
    data.mkdir(parents=True, exist_ok=True)
    read = {ids["Diffusion models for images"]: "2026-01-01T00:00:00+00:00"}
    (data / "read.json").write_text(json.dumps({"version": 1, "read": read}), encoding="utf-8")
    counted = _inbox(tmp_path, str(corpus))["diffusion"]
    total, _ = _search_total(tmp_path, "diffusion", str(corpus))
    assert (counted["total"], counted["unread"]) == (total, total - 1)


def test_a_visit_in_the_reader_clears_new(tmp_path: Path) -> None:
    """What the reader's Enter in the inbox records (SavedSearches.visited): the new papers are
    no longer new there; a paper arriving after it is."""
    corpus = tmp_path / "papers.jsonl"
    _write(corpus, FIRST)
    run_cli("saved", "add", "diffusion", "diffusion", cwd=tmp_path)
    _inbox(tmp_path, str(corpus))
    _write(corpus, LATER[:1], "a")
    assert _inbox(tmp_path, str(corpus))["diffusion"]["new"] == 1
    # a reader launch records the arrival, and opening the search marks it seen up to then
    run = run_cli("index", str(corpus), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    loaded = load_corpus([str(corpus)])
    open_user_data(paths.data_dir(), paths.bookmarks_file(), loaded)
    timeline, _ = open_timeline(collection_file(paths.data_dir(), loaded), loaded.ids)
    SavedSearches(paths.saved_searches_file()).visited(["diffusion"], loaded.key, timeline.seen_upto())
    assert _inbox(tmp_path, str(corpus))["diffusion"]["new"] == 0
    _write(corpus, LATER[2:], "a")
    assert _inbox(tmp_path, str(corpus))["diffusion"]["new"] == 1


def test_no_saved_searches(tmp_path: Path) -> None:
    out = run_cli("inbox", cwd=tmp_path)
    assert out.returncode == 0 and "no saved searches" in out.stdout
    assert json.loads(run_cli("inbox", "--json", cwd=tmp_path).stdout)["saved"] == []
