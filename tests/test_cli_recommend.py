"""``tui-reader recommend``: the ranking, its JSON (search --json's hits plus "because"), not
interested, reset and the message for too few papers; in subprocesses, on the topics fixture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import recommend_fixture as fx
from support import run_cli

from tui_reader import paths
from tui_reader.corpus.loading import load_corpus
from tui_reader.library.bookmarks import BookmarkStore
from tui_reader.library.reading import ReadStore


@pytest.fixture
def topics(tmp_path: Path) -> tuple[Path, dict[str, list[str]]]:
    """The fixture collection, and its ids by topic."""
    path = fx.write(tmp_path / "files")
    corpus = load_corpus([path], use_cache=False)
    by_topic: dict[str, list[str]] = {}
    for pid, title in zip(corpus.ids, corpus.titles, strict=True):
        by_topic.setdefault(fx.topic_of(title), []).append(pid)
    corpus.close()
    return path, by_topic


def tag(ids: list[str], name: str) -> None:
    store = BookmarkStore(paths.bookmarks_file())
    for pid in ids:
        store.add_tags(pid, [name], title=pid)


def recommend_json(path: Path, *args: str) -> dict[str, Any]:
    done = run_cli("recommend", *args, str(path), "--json", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_json_hits_are_search_hits_with_because(topics: tuple[Path, dict[str, list[str]]]) -> None:
    path, by_topic = topics
    tag(by_topic["graph"][:3], "GNN")
    found = recommend_json(path, "--tag", "gnn", "--limit", "12")
    hits = found["hits"]
    assert isinstance(hits, list) and len(hits) == 12
    assert {h["id"] for h in hits} == set(by_topic["graph"][3:])
    search = json.loads(run_cli("search", "graph", str(path), "--json", cwd=path.parent).stdout)
    assert set(hits[0]) == set(search["hits"][0]) | {"because", "read"}
    for hit in hits:
        text = f"{hit['title']} {hit['abstract']}".lower()
        assert 1 <= len(hit["because"]) <= 3 and all(word in text for word in hit["because"])
        assert hit["read"] is False
    assert found["total"] >= 12 and found["notice"] is None


def test_not_interested_never_comes_back_and_reset_clears_it(
    topics: tuple[Path, dict[str, list[str]]],
) -> None:
    path, by_topic = topics
    tag(by_topic["speech"][:3], "audio")
    first = recommend_json(path, "--tag", "audio")["hits"]
    unwanted = first[0]["id"]
    done = run_cli(
        "recommend", "--tag", "audio", "--not-interested", unwanted[:8], str(path), cwd=path.parent
    )
    assert done.returncode == 0, done.stderr
    assert "not recommended again" in done.stdout
    assert unwanted not in {h["id"] for h in recommend_json(path, "--tag", "audio", "--limit", "100")["hits"]}
    assert unwanted in {
        h["id"] for h in recommend_json(path, "--limit", "100")["hits"]
    }  # all bookmarks: its own list
    done = run_cli("recommend", "--tag", "audio", "--reset", str(path), cwd=path.parent)
    assert done.returncode == 0 and "cleared 1 not-interested paper" in done.stdout
    assert unwanted in {h["id"] for h in recommend_json(path, "--tag", "audio", "--limit", "100")["hits"]}


def test_text_output_names_the_because_terms_and_puts_read_papers_last(
    topics: tuple[Path, dict[str, list[str]]],
) -> None:
    path, by_topic = topics
    tag(by_topic["bandit"][:4], "bandits")
    order = [h["id"] for h in recommend_json(path, "--tag", "bandits")["hits"]]
    ReadStore(paths.data_dir() / "read.json").mark_read([order[0]])
    done = run_cli("recommend", "--tag", "bandits", str(path), "--limit", "5", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert 'For you, from the tag "bandits": 4 papers' in done.stdout
    assert "because: " in done.stdout
    again = [h["id"] for h in recommend_json(path, "--tag", "bandits")["hits"]]
    assert again[-1] == order[0] and again[:-1] == order[1:]


def test_fewer_than_three_papers_says_what_it_needs(topics: tuple[Path, dict[str, list[str]]]) -> None:
    path, by_topic = topics
    tag(by_topic["robot"][:2], "robots")
    done = run_cli("recommend", "--tag", "robots", str(path), cwd=path.parent)
    assert done.returncode == 1
    assert 'at least 3 papers in the tag "robots"' in done.stderr and "1 more" in done.stderr
    done = run_cli("recommend", "--tag", "nosuch", str(path), cwd=path.parent)
    assert done.returncode == 1 and "No bookmark has that tag (tags in use: robots)" in done.stderr
    done = run_cli("recommend", "--tag", "robots", str(path), "--json", cwd=path.parent)
    assert done.returncode == 1 and json.loads(done.stdout)["hits"] == []
    assert "at least 3" in json.loads(done.stdout)["notice"]


@pytest.mark.parametrize("action", [(), ("--reset",), ("--not-interested", "FIRST")])
def test_a_corrupt_not_interested_file_is_said_and_kept_aside(
    topics: tuple[Path, dict[str, list[str]]], action: tuple[str, ...]
) -> None:
    path, by_topic = topics
    tag(by_topic["robot"][:3], "bots")
    store = paths.not_interested_file()
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text("garbage{")
    args = tuple(by_topic["graph"][0] if a == "FIRST" else a for a in action)
    done = run_cli("recommend", "--tag", "bots", *args, str(path), cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert "not-interested.json was corrupt" in done.stderr
    assert "kept as not-interested.json.corrupt-" in done.stderr
    assert [p.read_text() for p in store.parent.glob("not-interested.json.corrupt-*")] == ["garbage{"]
