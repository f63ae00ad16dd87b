"""``python -m bench.scale [--sizes 10000,87428,300000]``: how each cost grows with the collection.

Collections larger than the real corpus are made from its own abstracts: each new paper's
abstract is a run of sentences drawn from real abstracts, its title two real title halves, its
authors, venue and year a real paper's. Vocabulary, lengths and term frequencies stay realistic,
which a Zipf generator only imitates. For each size: parse, cold build, index size, peak memory,
warm first paint, type-ahead and Enter latency per query kind, a one-shot CLI search, and the
first rows of a first launch (empty cache).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench import engines, launch, measures, queries, tui
from bench.report import percentile
from bench.run import DEFAULT_CORPUS
from tui_reader.corpus.corpus import Corpus

SEED = 20261130
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
ENTER_KINDS = ("term", "and", "phrase", "field")


def _real(source: Path) -> list[dict[str, object]]:
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def records(source: Path, count: int, seed: int = SEED) -> Iterator[dict[str, object]]:
    """The real papers first, then as many recombined ones as ``count`` asks for."""
    real = _real(source)
    yield from real[:count]
    rng = random.Random(seed)
    sentences = [s for r in real for s in _SENTENCE.split(str(r.get("abstract") or "")) if len(s) > 20]
    titles = [str(r.get("title") or "") for r in real if r.get("title")]
    for n in range(count - len(real)):
        base = real[rng.randrange(len(real))]
        length = max(3, len(_SENTENCE.split(str(base.get("abstract") or ""))))
        left = rng.choice(titles).split()
        right = rng.choice(titles).split()
        title = " ".join(left[: max(1, len(left) // 2)] + right[len(right) // 2 :])
        yield {
            "title": title,
            "authors": base.get("authors"),
            "abstract": " ".join(rng.choice(sentences) for _ in range(length)),
            "venue": base.get("venue"),
            "year": base.get("year"),
            "url": f"https://example.org/scale/{n}",
        }


def write(source: Path, path: Path, count: int) -> Path:
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=3) as fh:
        for record in records(source, count):
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def scaled_file(source: Path, size: int, folder: Path, kept: Path | None) -> Path:
    """The recombined papers of this size: from ``kept`` when an earlier run left them there
    (they are the same for the same source and seed: writing 2.7M takes minutes)."""
    name = f"scale-{size}.jsonl.gz"
    if kept is None:
        return write(source, folder / name, size)
    kept.mkdir(parents=True, exist_ok=True)
    if not (kept / name).exists():
        write(source, kept / f"{name}.part", size).rename(kept / name)
    return kept / name


def one_size(
    source: Path,
    size: int,
    workdir: Path,
    per_kind: int,
    titles: int,
    kept: Path | None = None,
    built: Path | None = None,
) -> dict[str, object]:
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search import Searcher, SearchIndex

    folder = workdir / f"n{size}"
    folder.mkdir(parents=True, exist_ok=True)
    corpus_file = scaled_file(source, size, folder, kept)
    cache = built or folder / "cache"
    env = measures.cache_env(cache)
    cold = _cold(corpus_file, folder, cache, size) if built is None else _built(cache)
    measures.use_cache(cache)
    corpus = load_corpus([corpus_file])
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    qs = queries.build(corpus, per_kind, titles, seed=SEED)
    print(f"scale: {size:,}: search", file=sys.stderr, flush=True)
    typing = measures.search_latency(searcher, qs.queries["typeahead"], True).ms
    enter = {k: measures.search_latency(searcher, qs.queries[k], False).ms for k in ENTER_KINDS}
    print(f"scale: {size:,}: SQLite FTS5 on the same papers and queries", file=sys.stderr, flush=True)
    fts5 = reference(corpus, folder, {k: qs.queries[k] for k in ENTER_KINDS})
    first_title = corpus.titles[0]
    index.close()
    corpus.close()
    print(f"scale: {size:,}: first paint and CLI", file=sys.stderr, flush=True)
    paint, rss, problem = tui.measure([str(corpus_file)], first_title, env, measures.REPO, runs=2)
    cli = launch.cli_search(corpus_file, env, reps=3)
    shown, _ = launch.first_rows(corpus_file, first_title, env, folder, runs=1)
    return {
        "papers": size,
        **cold,
        "paint_s": statistics.median(paint) if paint else None,
        "app_rss_mb": max(rss) if rss else None,
        "paint_problem": problem,
        "typing_ms": [percentile(typing, 50), percentile(typing, 95), max(typing)],
        "enter_p95_ms": {k: percentile(v, 95) for k, v in enter.items()},
        **fts5,
        "cli_s": statistics.median(cli),
        "first_rows_s": shown[0] if shown else None,
    }


def _cold(corpus_file: Path, folder: Path, cache: Path, size: int) -> dict[str, object]:
    print(f"scale: {size:,}: parse", file=sys.stderr, flush=True)
    parse = measures.cold_parse(corpus_file, folder, cache, 1)
    print(f"scale: {size:,}: build", file=sys.stderr, flush=True)
    build = measures.cold_build(corpus_file, cache, 1)
    return {
        "parse_s": parse.values[0],
        "build_s": build.values[0],
        "index_mb": build.extra["index_mb"][0],
        "build_tree_mb": build.extra["tree_mb"][0],
        "parse_rss_mb": parse.extra["rss_mb"][0],
    }


def _built(cache: Path) -> dict[str, object]:
    """``--built``: the parse and the build were timed elsewhere (the reader's own first build,
    in the closing note); only the index's size is read here."""
    index = sum(
        p.stat().st_size for p in (cache / "tui-reader").rglob("*") if p.is_file() and "index" in str(p)
    )
    return {
        "parse_s": None,
        "build_s": None,
        "index_mb": index / 1e6,
        "build_tree_mb": None,
        "parse_rss_mb": None,
    }


def reference(corpus: Corpus, folder: Path, kinds: dict[str, list[str]]) -> dict[str, object]:
    """SQLite FTS5 (porter, bm25, top 20: it scores every match to sort them, as Enter does) on
    the same papers and the same queries: its build seconds and Enter p95 per query kind."""
    fts = engines.Fts5(folder / "fts5.db")
    build = fts.build(corpus)
    p95 = {}
    for kind, texts in kinds.items():
        ms, _errors = fts.time_queries(kind, texts)
        p95[kind] = percentile(ms, 95) if ms else None
    size = fts.size_bytes / 1e6
    fts.close()
    return {"fts5_build_s": build, "fts5_mb": size, "fts5_enter_p95_ms": p95}


def _ratio(ours: dict[str, float], theirs: dict[str, float | None]) -> str:
    """The worst ours/FTS5 over the query kinds FTS5 can run: the issue's <= 3x."""
    ratios = [ours[k] / v for k, v in theirs.items() if v]
    return f"{max(ratios):.1f}x" if ratios else "n/a"


def table(results: list[dict[str, object]]) -> str:
    def f(v: object, fmt: str) -> str:
        return "n/a" if v is None else format(v, fmt)

    head = (
        "| papers | parse s | build s | index MB | build MB | app MB | paint s | type-ahead p50/p95/max ms "
        "| Enter p95 ms term/and/phrase/field | CLI search s | first rows s | FTS5 build s "
        "| FTS5 Enter p95 ms term/and/phrase/field | ours/FTS5 worst |"
    )
    lines = [head, "|" + " --- |" * 14]
    for r in results:
        t = r["typing_ms"]
        e = r["enter_p95_ms"]
        x = r.get("fts5_enter_p95_ms") or {}
        assert isinstance(t, list) and isinstance(e, dict) and isinstance(x, dict)
        lines.append(
            f"| {r['papers']:,} | {f(r['parse_s'], '.1f')} | {f(r['build_s'], '.1f')} "
            f"| {f(r['index_mb'], '.0f')} "
            f"| {f(r['build_tree_mb'], '.0f')} | {f(r['app_rss_mb'], '.0f')} | {f(r['paint_s'], '.2f')} "
            f"| {t[0]:.1f} / {t[1]:.1f} / {t[2]:.0f} | {' / '.join(f'{e[k]:.0f}' for k in ENTER_KINDS)} "
            f"| {f(r['cli_s'], '.2f')} | {f(r.get('first_rows_s'), '.2f')} "
            f"| {f(r.get('fts5_build_s'), '.1f')} | {' / '.join(f(x.get(k), '.1f') for k in ENTER_KINDS)} "
            f"| {_ratio(e, x)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    p.add_argument("--source", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--sizes", default="87428,1000000,2700000")
    p.add_argument("--queries", type=int, default=60, help="Enter queries per kind")
    p.add_argument("--titles", type=int, default=15, help="titles typed for type-ahead")
    p.add_argument("--out", type=Path, default=measures.REPO / "bench" / "results")
    p.add_argument("--corpora", type=Path, help="keep the recombined corpus files here and reuse them")
    p.add_argument(
        "--built", type=Path, help="an XDG cache dir where this size is parsed and indexed already (one size)"
    )
    args = p.parse_args(argv)
    if not args.source.exists():
        print(f"bench.scale: needs the real corpus ({args.source})", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="tui-reader-scale-"))
    started = time.perf_counter()
    try:
        results = [
            one_size(args.source, n, workdir, args.queries, args.titles, args.corpora, args.built)
            for n in sizes
        ]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"scale-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"results": results, "seconds": time.perf_counter() - started}, indent=1))
    print(f"\nresults: {out}  ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
