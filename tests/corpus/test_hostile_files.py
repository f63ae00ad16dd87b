"""Hostile input on the file side: nothing reaches the terminal raw, nothing hangs, nothing grows
without bound, and one bad file or record never stops the rest from loading (issue 13).

Real files in tmp_path throughout. Anything that could hang (a FIFO) runs in a subprocess with a
timeout, so a regression fails the test instead of freezing the suite.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import SEED_FILES, run_cli, seed_paragraphs

from tui_reader import paths
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats import common
from tui_reader.corpus.loading import load_corpus

# The raw bytes a terminal obeys: ESC, BEL, 8-bit CSI, and C1 in general.
RAW = ("\x1b", "\x07", "\x9b", "\x90", "\x9d")
SEQUENCES = {
    "osc52": "\x1b]52;c;ZWNobyBwd25lZA==\x1b\\",  # sets the clipboard
    "title": "\x1b]0;title\x07",  # sets the window title
    "clear": "\x1b[2J",  # clears the screen
    "csi8": "\x9b31m",  # 8-bit CSI
}
GOOD = {"title": "Good paper", "abstract": "A good abstract about kernels."}


def no_raw_controls(text: str) -> bool:
    return not any(ch in text for ch in RAW)


def everything_shown(corpus: Corpus) -> str:
    """Every string of the corpus that reaches a screen: titles, sources, warnings."""
    parts = list(corpus.warnings) + list(corpus.titles)
    for paper in corpus:
        parts += [paper.title, paper.abstract, paper.venue, paper.url, *paper.authors, *paper.sources]
    return "\n".join(parts)


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


# -- 1. terminal sequences in file names ---------------------------------------------------------
@pytest.mark.parametrize("name", list(SEQUENCES))
def test_escape_sequences_in_file_names_are_shown_not_obeyed(tmp_path: Path, name: str) -> None:
    seq = SEQUENCES[name]
    folder = tmp_path / "corpus"
    folder.mkdir()
    good = write_json(folder / f"paper{seq}.json", [GOOD])
    # a sibling with the same hostile name and a bad line, so a warning prints the path
    (folder / f"broken{seq}.jsonl").write_text(json.dumps({"abstract": "Second."}) + "\nnot json\n", "utf-8")
    for attempt in ("first load", "cached load"):
        corpus = load_corpus([folder])
        assert len(corpus) == 2, attempt
        paper = corpus.get(corpus.ids[corpus.titles.index("Good paper")])
        assert paper is not None
        (source,) = paper.sources
        assert no_raw_controls(source) and source.startswith("paper") and source.endswith(".json")
        assert len(corpus.warnings) == 1 and "line 2" in corpus.warnings[0]
        assert no_raw_controls(everything_shown(corpus)), attempt
        if "\x1b" in seq:
            assert "\u241b" in source and "\u241b" in corpus.warnings[0]  # ESC shown as a symbol
    assert good.exists()  # the file itself is never renamed or touched


def test_cli_prints_hostile_names_safely(tmp_path: Path, cwd: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for key, seq in SEQUENCES.items():
        write_json(folder / f"{key}{seq}.json", [{"title": f"T {key}", "abstract": f"Abstract {key}."}])
    (folder / f"bad{SEQUENCES['osc52']}.json").write_text("{not json", "utf-8")
    # a name that is not UTF-8 at all: printing it must not raise UnicodeEncodeError
    with open(os.path.join(os.fsencode(folder), b"latin\xff.json"), "wb") as fh:
        fh.write(json.dumps([{"abstract": "Undecodable name."}]).encode())
    # a lone surrogate escaped in JSON: must not break the id hash or printing
    write_json(
        folder / "surrogate.json", [{"title": "Lone \ud800 surrogate", "abstract": "Half \udc00 pair."}]
    )
    for args in (("list", str(folder)), ("list", "--json", str(folder))):
        result = run_cli(*args, cwd=cwd)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        assert no_raw_controls(result.stdout) and no_raw_controls(result.stderr), args
        assert "malformed JSON" in result.stderr and "\u241b]52" in result.stderr
    papers = json.loads(result.stdout)
    assert len(papers) == 6
    sources = sorted(s for p in papers for s in p["sources"])
    assert "latin\\xff.json" in sources and "clear\u241b[2J.json" in sources
    by_title = {p["title"]: p for p in papers}
    assert by_title["Lone \ufffd surrogate"]["abstract"] == "Half \ufffd pair."


# -- 2. FIFOs and other files that are not regular ------------------------------------------------
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@needs_fifo
def test_fifo_in_a_folder_or_given_by_name_is_skipped(tmp_path: Path, cwd: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    write_json(folder / "good.json", [GOOD])
    os.mkfifo(folder / "pipe.jsonl")
    os.mkfifo(folder / "pipe.json.gz")
    calls = (("list", str(folder)), ("list", str(folder / "pipe.jsonl"), str(folder / "good.json")))
    for args in calls:
        result = run_cli(*args, cwd=cwd, timeout=30)  # a hang fails here instead of freezing
        assert result.returncode == 0, result.stderr
        assert result.stdout.endswith("  Good paper\n")
        assert "pipe.jsonl: not a regular file (a FIFO); skipped" in result.stderr
        assert ("pipe.json.gz: not a regular file (a FIFO); skipped" in result.stderr) == (len(args) == 2)


def test_character_device_is_skipped(tmp_path: Path, cwd: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    link = tmp_path / "zeros.txt"
    link.symlink_to("/dev/zero")  # an endless file behind an innocent name
    result = run_cli("list", str(link), str(SEED_FILES[0]), cwd=cwd, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "/dev/zero: not a regular file (a character device); skipped" in result.stderr  # resolved
    assert len(result.stdout.splitlines()) == len(seed_paragraphs(SEED_FILES[0]))


# -- 3. gzip bombs and runaway sizes ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["bomb.json.gz", "bomb.txt.gz", "big.json"])
def test_file_read_whole_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(common, "MAX_WHOLE_FILE", 64 * 1024)
    filler = " " * (1024 * 1024)  # 1 MiB of blanks: compresses to ~1 KiB
    raw = (
        json.dumps([GOOD]).replace("[", "[" + filler, 1)
        if ".json" in name
        else "Header\n\nAn abstract." + filler
    ).encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    if name.endswith(".gz"):
        assert path.stat().st_size < 64 * 1024  # small on disk, large inflated
    other = write_json(tmp_path / "other.json", [{"abstract": "Still here."}])
    corpus = load_corpus([path, other])
    assert [p.abstract for p in corpus] == ["Still here."]
    (warning,) = corpus.warnings
    assert str(path) in warning and "more than 64 KiB" in warning and "skipped" in warning


def test_jsonl_bomb_stops_at_the_total_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "MAX_STREAM_BYTES", 100 * 1024)
    line = json.dumps({"abstract": "Paper number {}. " + "pad " * 20}) + "\n"
    lines = [line.replace("{}", str(n)) for n in range(5000)]  # ~0.5 MiB inflated
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress("".join(lines).encode()))
    corpus = load_corpus([path, SEED_FILES[0]])
    papers_here = [p for p in corpus if p.sources == ["bomb.jsonl.gz"]]
    assert 0 < len(papers_here) < 5000  # what came before the cap is kept
    assert len(corpus) == len(papers_here) + len(seed_paragraphs(SEED_FILES[0]))
    (warning,) = corpus.warnings
    assert str(path) in warning and "stopped at line" in warning
    assert "of JSON Lines once decompressed (the limit for one file)" in warning  # 20x its size


def _varied_lines(n: int) -> str:
    """Lines that compress as real abstracts do (a few times, not a bomb's thousand)."""
    rng = random.Random(7)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        for _ in range(4000)
    ]
    return "".join(
        json.dumps({"title": f"Paper {i}", "abstract": " ".join(rng.choice(words) for _ in range(40))}) + "\n"
        for i in range(n)
    )


def test_a_plain_jsonl_file_past_the_stream_cap_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arXiv snapshot is ~4.6 GB of plain JSON Lines: the cap is for gzip bombs, and a plain
    file's size is what the user gave (it used to stop at 2 GiB, halfway through arXiv)."""
    monkeypatch.setattr(common, "MAX_STREAM_BYTES", 100 * 1024)
    path = tmp_path / "arxiv-like.jsonl"
    path.write_text(_varied_lines(2000))
    assert path.stat().st_size > 4 * 100 * 1024
    corpus = load_corpus([path])
    assert len(corpus) == 2000 and corpus.warnings == []


def test_a_gzipped_file_that_inflates_as_text_does_is_read_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "MAX_STREAM_BYTES", 100 * 1024)
    body = _varied_lines(2000).encode()
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(body))
    assert len(body) > 4 * 100 * 1024 and len(body) < common.MAX_INFLATION * path.stat().st_size
    corpus = load_corpus([path])
    assert len(corpus) == 2000 and corpus.warnings == []


def test_overlong_jsonl_record_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "MAX_RECORD_BYTES", 4096)
    huge = json.dumps({"abstract": "Too long. " + "x" * 50_000})
    path = tmp_path / "long.jsonl.gz"
    body = "\n".join([json.dumps({"abstract": "Before."}), huge, json.dumps({"abstract": "After."}), huge])
    path.write_bytes(gzip.compress(body.encode()))  # the last line has no newline at all
    corpus = load_corpus([path])
    assert sorted(p.abstract for p in corpus) == ["After.", "Before."]
    (warning,) = corpus.warnings
    assert str(path) in warning and "skipped 2 line(s) longer than 4 KiB (line 2, 4)" in warning


# -- 4. one bad record never stops a load -----------------------------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_json_file_is_skipped(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP, "utf-8")
    good = write_json(tmp_path / "good.json", [GOOD])
    corpus = load_corpus([deep, good])
    assert corpus.titles == ["Good paper"]
    assert corpus.warnings == [f"{deep}: JSON nested too deeply to read; skipped"]


def test_deeply_nested_jsonl_line_skips_that_record_only(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    lines = [json.dumps(GOOD), '{"abstract": "deep", "x": ' + DEEP + "}", json.dumps({"abstract": "Third."})]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    corpus = load_corpus([path])
    assert sorted(p.abstract for p in corpus) == ["A good abstract about kernels.", "Third."]
    assert corpus.warnings == [
        f"{path}: skipped 1 record(s) that could not be read (line 2: nested too deeply)"
    ]


def test_lone_surrogates_load(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"title": "T \\ud800", "abstract": "Broken \\udfff pair \\ud83d here.", "authors": ["A \\udc80"]}\n'
        + json.dumps(GOOD)
        + "\n",
        "utf-8",
    )
    corpus = load_corpus([path])
    assert corpus.warnings == [] and len(corpus) == 2
    paper = corpus.paper(0)
    assert paper.abstract == "Broken \ufffd pair \ufffd here." and paper.title == "T \ufffd"
    json.dumps(paper.to_dict(), ensure_ascii=False).encode("utf-8")  # printable, hashable


def test_symlink_loops_are_named_and_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    write_json(folder / "good.json", [GOOD])
    (folder / "loop-a.json").symlink_to("loop-b.json")
    (folder / "loop-b.json").symlink_to("loop-a.json")
    (folder / "self.jsonl").symlink_to("self.jsonl")
    (folder / "dangling.json").symlink_to("nowhere.json")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to("..", target_is_directory=True)  # a folder loop (not followed)
    corpus = load_corpus([folder])
    assert corpus.titles == ["Good paper"]
    named = sorted(Path(w.split(":")[0]).name for w in corpus.warnings)
    assert named == ["dangling.json", "loop-a.json", "loop-b.json", "self.jsonl"]
    assert all("skipped" in w for w in corpus.warnings)
    assert any("symbolic links" in w for w in corpus.warnings)
    # a loop given by name is a warning too, not a traceback
    by_name = load_corpus([folder / "self.jsonl", folder / "good.json"])
    assert by_name.titles == ["Good paper"] and len(by_name.warnings) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_unreadable_subfolder_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    (folder / "locked").mkdir(parents=True)
    write_json(folder / "good.json", [GOOD])
    write_json(folder / "locked" / "hidden.json", [{"abstract": "Cannot see me."}])
    (folder / "locked").chmod(0)
    try:
        corpus = load_corpus([folder])
    finally:
        (folder / "locked").chmod(0o755)
    assert corpus.titles == ["Good paper"]
    (warning,) = corpus.warnings
    assert str(folder / "locked") in warning and "cannot read folder" in warning


# -- 5. the parse cache is an optimisation ------------------------------------------------------------
@pytest.mark.parametrize("variable", ["TUI_READER_CACHE_DIR", "XDG_CACHE_HOME"])
def test_cache_folder_that_is_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, cwd: Path
) -> None:
    plain = tmp_path / "not-a-folder"
    plain.write_text("I am a file", "utf-8")
    monkeypatch.setenv(variable, str(plain))
    expected = load_corpus(use_cache=False)
    corpus = load_corpus()
    assert corpus.ids == expected.ids and [p.to_dict() for p in corpus] == [p.to_dict() for p in expected]
    (warning,) = corpus.warnings
    assert warning.startswith("cannot write the parse cache (") and "Not a directory" in warning
    assert warning.endswith("); reading without it")
    assert plain.read_text("utf-8") == "I am a file"
    result = run_cli("list", cwd=cwd)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert len(result.stdout.splitlines()) == 30
    assert result.stderr.count("cannot write the parse cache") == 1


def _limit_file_size() -> None:  # runs in the child before exec: writes past 8 KiB fail (EFBIG)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))


def test_cache_that_cannot_grow_mid_file(seed_copy: Path, cwd: Path) -> None:
    """The parse cache hits a real write error part-way through a file (a full disk, here a file
    size limit): `list` still prints every paper, with one warning, and leaves no temp file."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(
        [sys.executable, "-m", "tui_reader", "list", str(seed_copy)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_file_size,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines() == run_cli("list", str(seed_copy), cwd=cwd).stdout.splitlines()
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "cannot write the parse cache" in lines[0] and "File too large" in lines[0]
    parsed = paths.cache_dir() / "parsed"
    assert not list(parsed.glob(".parse-*")) and not list(parsed.glob(".*.tmp"))


def test_leftovers_of_killed_loads_are_removed(seed_copy: Path) -> None:
    load_corpus([seed_copy])
    parsed = paths.cache_dir() / "parsed"
    kept = sorted(p.name for p in parsed.iterdir())
    hour_ago = time.time() - 3600
    dead = [
        parsed / ".parse-dead1234.rows",
        parsed / ".0123abcd.meta.x1y2.tmp",
        parsed / "0123abcd.feed.rows",
    ]
    live = parsed / ".parse-live5678.rows"
    young = parsed / ".parse-young999.rows"
    for path in [*dead, live, young]:
        path.write_bytes(b"[]\n")
    for path in [*dead, live]:
        os.utime(path, (hour_ago, hour_ago))
    with open(live, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # a loader that is still running holds it
        corpus = load_corpus([seed_copy])
    assert corpus.warnings == [] and len(corpus) == 30
    left = sorted(p.name for p in parsed.iterdir())
    assert left == sorted([*kept, live.name, young.name])
