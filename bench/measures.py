"""Our engine's figures: parse, load, build, reopen, update, search and highlight."""

from __future__ import annotations

import gc
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import corpusgen, procfs
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import PAGE, Searcher, SearchMode, snippet

REPO = Path(__file__).resolve().parent.parent
HIGHLIGHT_HITS = 20
# As the reader calls Searcher.search (app/screens/main.py): one page; Enter's count is exact,
# type-ahead's a lower bound when it stopped early (partial). The reader fetches the next page
# only when the cursor nears the end.
TYPEAHEAD_LIMIT = PAGE
SEARCH_LIMIT = PAGE


def cache_env(cache: Path) -> dict[str, str]:
    """Environment that points every tui-reader cache at ``cache`` (never the user's)."""
    return {"XDG_CACHE_HOME": str(cache), "TUI_READER_CACHE_DIR": str(cache / "tui-reader")}


def use_cache(cache: Path) -> None:
    os.environ.update(cache_env(cache))


def worker(what: str, corpus: Path, env: dict[str, str], *extra: str) -> dict[str, object]:
    """Run bench.worker in a fresh interpreter; its JSON report, plus the peak PSS of its process
    tree (it and its sub-processes together) sampled from /proc as ``tree_pss_mb``."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bench.worker", what, str(corpus), *extra],
            cwd=REPO,
            env={**os.environ, **env, "PYTHONPATH": str(REPO)},
            stdout=out,
            stderr=err,
        )
        peak = procfs.wait_sampling(proc)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"bench.worker {what} failed: {stderr.strip()[-2000:]}")
    return {**json.loads(stdout.strip().splitlines()[-1]), "tree_pss_mb": peak}


@dataclass(slots=True)
class Runs:
    """Repeated measurements of one thing, plus whatever the last run reported."""

    values: list[float] = field(default_factory=list)
    extra: dict[str, list[float]] = field(default_factory=dict)
    info: dict[str, object] = field(default_factory=dict)

    def add(self, name: str, value: float) -> None:
        self.extra.setdefault(name, []).append(value)


def cold_parse(corpus: Path, workdir: Path, final_cache: Path, reps: int) -> Runs:
    """First parse with an empty parse cache, in a fresh process; the last run fills final_cache."""
    runs = Runs()
    for k in range(reps):
        cache = final_cache if k == reps - 1 else workdir / f"cold-cache-{k}"
        shutil.rmtree(cache, ignore_errors=True)
        out = worker("parse", corpus, cache_env(cache))
        runs.values.append(float(out["seconds"]))  # type: ignore[arg-type]
        runs.add("rss_mb", max(float(out["rss_self_mb"]), float(out["rss_children_mb"])))  # type: ignore[arg-type]
        runs.info = out
        if cache != final_cache:
            shutil.rmtree(cache, ignore_errors=True)
    return runs


def warm_load(corpus: Path, reps: int) -> Runs:
    runs = Runs()
    for _ in range(reps):
        gc.collect()
        started = time.perf_counter()
        loaded = load_corpus([corpus])
        runs.values.append(time.perf_counter() - started)
        runs.info = {"papers": len(loaded)}
        loaded.close()
    return runs


def cold_build(corpus: Path, cache: Path, reps: int) -> Runs:
    """Full index builds in a fresh process (the first finds no index; later ones rebuild)."""
    runs = Runs()
    for k in range(reps):
        out = worker("build", corpus, cache_env(cache), *(["--rebuild"] if k else []))
        seconds = float(out["seconds"])  # type: ignore[arg-type]
        runs.values.append(seconds)
        runs.add("docs_per_s", float(out["papers"]) / seconds if seconds else 0.0)  # type: ignore[arg-type]
        runs.add("rss_mb", float(out["rss_self_mb"]))  # type: ignore[arg-type]
        runs.add("rss_children_mb", float(out["rss_children_mb"]))  # type: ignore[arg-type]
        runs.add("tree_mb", float(out["tree_pss_mb"]))  # type: ignore[arg-type]
        runs.add("index_mb", float(out["index_bytes"]) / 1e6)  # type: ignore[arg-type]
        runs.info = out
    return runs


def noop_reopen(corpus: Corpus, reps: int) -> Runs:
    runs = Runs()
    for _ in range(reps):
        index = SearchIndex(corpus)
        report = index.ensure()
        runs.values.append(report.seconds)
        runs.info = {"action": report.action}
        index.close()
    return runs


def append_papers(path: Path, count: int, start: int) -> None:
    """Append ``count`` new generated papers (a new gzip member when the file is gzipped)."""
    data = b"\n" + corpusgen.jsonl(corpusgen.papers(count, seed=corpusgen.SEED + 1, start=start))
    with open(path, "ab") as fh:
        fh.write(gzip.compress(data, 6) if path.name.endswith(".gz") else data)


def incremental(path: Path, reps: int, count: int = 100) -> Runs:
    """Append ``count`` papers, then reload (re-parse of the changed file) and ensure()."""
    runs = Runs()
    for k in range(reps):
        append_papers(path, count, start=10_000_000 + k * count)
        gc.collect()
        started = time.perf_counter()
        corpus = load_corpus([path])
        parsed = time.perf_counter()
        index = SearchIndex(corpus)
        report = index.ensure()
        done = time.perf_counter()
        runs.values.append(done - started)
        runs.add("reparse_s", parsed - started)
        runs.add("ensure_s", done - parsed)
        runs.info = {
            "action": report.action,
            "added": report.added,
            "changed": report.changed,
            "removed": report.removed,
            "papers": len(corpus),
        }
        index.close()
        corpus.close()
    return runs


@dataclass(slots=True)
class SearchRuns:
    ms: list[float] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    partial: list[bool] = field(default_factory=list)  # type-ahead showed "best so far"
    notices: int = 0


def search_latency(searcher: Searcher, texts: list[str], typeahead: bool) -> SearchRuns:
    """Each query once against an empty result cache, timed around Searcher.search exactly as
    the reader calls it: on Enter ``search(text, limit=SEARCH_LIMIT)``, on each keystroke
    ``search(text, SearchMode.TYPING, TYPEAHEAD_LIMIT)`` (with its time budget)."""
    out = SearchRuns()
    for text in texts:
        searcher.invalidate()
        started = time.perf_counter()
        if typeahead:
            result = searcher.search(text, SearchMode.TYPING, TYPEAHEAD_LIMIT)
        else:
            result = searcher.search(text, limit=SEARCH_LIMIT)
        out.ms.append((time.perf_counter() - started) * 1000)
        out.totals.append(result.total)
        out.partial.append(result.partial)
        out.notices += result.notice is not None
    return out


def first_search_ms(searcher: Searcher, text: str) -> float:
    started = time.perf_counter()
    searcher.search(text, limit=SEARCH_LIMIT)
    return (time.perf_counter() - started) * 1000


def highlight(searcher: Searcher, corpus: Corpus, texts: list[str]) -> tuple[list[float], list[float]]:
    """snippet(abstract, result.terms) over the top 20 hits: ms per call and per result page."""
    per_call: list[float] = []
    per_page: list[float] = []
    for text in texts:
        result = searcher.search(text, limit=HIGHLIGHT_HITS)
        abstracts = [corpus.abstract(hit.row) for hit in result.hits[:HIGHLIGHT_HITS]]
        page = 0.0
        for abstract in abstracts:
            started = time.perf_counter()
            snippet(abstract, result.terms)
            ms = (time.perf_counter() - started) * 1000
            per_call.append(ms)
            page += ms
        if abstracts:
            per_page.append(page)
    return per_call, per_page


def copy_corpus(src: Path, workdir: Path, subset: int | None) -> Path:
    """The corpus the run works on (the update appends to it): a copy, or its first ``subset``
    papers as plain JSON Lines (JSON Lines sources only; others are copied whole)."""
    workdir.mkdir(parents=True, exist_ok=True)
    dst = workdir / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
        return dst
    plain = src.name.removesuffix(".gz")
    if subset is None or not plain.endswith((".jsonl", ".ndjson")):
        shutil.copyfile(src, dst)
        return dst
    dst = workdir / f"{plain.rsplit('.', 1)[0]}-first{subset}.jsonl"
    opener = gzip.open if src.name.endswith(".gz") else open
    written = 0
    with opener(src, "rb") as fh, open(dst, "wb") as out:  # type: ignore[operator]
        for line in fh:
            if not line.strip():
                continue
            out.write(line if line.endswith(b"\n") else line + b"\n")
            written += 1
            if written >= subset:
                break
    return dst


def typeahead_with_facets(searcher: Searcher, texts: list[str]) -> SearchRuns:
    """Type-ahead as the reader runs it with the facet panel open: each title's keystrokes start
    while the facets of the title before (its Enter) are being counted in another thread, which
    gives way when the first keystroke's search begins. Worst case: every title follows an Enter."""
    import threading

    from tui_reader.search.facets import facets

    facets(searcher, "")  # the columns and the docnum map, built once, as the reader does
    out = SearchRuns()
    runs_of: list[list[str]] = []
    for text in texts:  # keystrokes in order: a title's first keystroke is one character
        if len(text) == 1 or not runs_of:
            runs_of.append([])
        runs_of[-1].append(text)
    previous = ""
    for keystrokes in runs_of:
        counting = threading.Thread(target=facets, args=(searcher, previous), daemon=True)
        counting.start()
        time.sleep(0.03)  # the first key comes while the count is under way
        runs = search_latency(searcher, keystrokes, typeahead=True)
        counting.join()
        out.ms += runs.ms
        out.totals += runs.totals
        out.partial += runs.partial
        previous = keystrokes[-1]  # what was typed, as if Enter was pressed on it
    return out
