"""``python -m bench [CORPUS] [--quick] [--out bench/results]``: the whole benchmark, one table."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import corpusgen, queries
from bench.measures import REPO, cache_env, use_cache
from bench.report import Row, table

DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "paperlists-87k.jsonl.gz"
GENERATED_SIZE = 87_428


@dataclass(slots=True)
class Settings:
    quick: bool
    subset: int | None
    per_kind: int
    titles: int
    parse_reps: int
    load_reps: int
    build_reps: int
    reopen_reps: int
    update_reps: int
    tui_runs: int
    grep_per_kind: int
    recall_per_kind: int  # Enter queries of each kind checked against Whoosh's own answer
    recall_keystrokes: int  # type-ahead keystrokes checked against Whoosh's count
    fts5: bool
    tui: bool
    profile: bool | None  # None: only when type-ahead is over budget (full runs)
    seed: int


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument(
        "corpus",
        nargs="?",
        type=Path,
        help=f"corpus file (default: {DEFAULT_CORPUS} if present, else a generated one)",
    )
    p.add_argument(
        "--quick", action="store_true", help="first 5000 papers, fewer queries and repeats, no grep"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=REPO / "bench" / "results",
        help="folder for the JSON results (default: bench/results)",
    )
    p.add_argument("--papers", type=int, help="use only the first N papers of the corpus")
    p.add_argument("--queries", type=int, help="queries per kind (default 200; quick 30)")
    p.add_argument("--titles", type=int, help="titles typed for type-ahead (default 40; quick 8)")
    p.add_argument("--build-reps", type=int, help="cold index builds (default 1; quick 2)")
    p.add_argument("--seed", type=int, default=queries.SEED, help="query-set seed")
    p.add_argument("--skip-grep", action="store_true")
    p.add_argument("--skip-fts5", action="store_true")
    p.add_argument("--skip-tui", action="store_true", help="no first-paint/app RSS launches")
    p.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="profile type-ahead (default: only when over budget, full runs)",
    )
    p.add_argument("--keep", action="store_true", help="keep the temporary work folder")
    return p.parse_args(argv)


def settings(args: argparse.Namespace) -> Settings:
    q = args.quick
    return Settings(
        quick=q,
        subset=args.papers or (5000 if q else None),
        per_kind=args.queries or (30 if q else 200),
        titles=args.titles or (8 if q else 40),
        parse_reps=2 if q else 3,
        load_reps=3 if q else 5,
        build_reps=args.build_reps or (2 if q else 1),
        reopen_reps=5 if q else 10,
        update_reps=2 if q else 3,
        tui_runs=1 if q else 3,
        grep_per_kind=0 if (q or args.skip_grep) else 30,
        recall_per_kind=10 if q else 40,
        recall_keystrokes=40 if q else 150,
        fts5=not args.skip_fts5,
        tui=not args.skip_tui,
        profile=args.profile if args.profile is not None else (None if not q else False),
        seed=args.seed,
    )


def source_corpus(given: Path | None, workdir: Path, s: Settings) -> tuple[Path, str]:
    if given is not None:
        if not given.exists():
            raise SystemExit(f"bench: no such corpus: {given}")
        return given.resolve(), "given"
    if DEFAULT_CORPUS.exists():
        return DEFAULT_CORPUS, "default"
    count = s.subset or GENERATED_SIZE
    out = corpusgen.write(workdir / f"generated-{count}.jsonl.gz", count)
    return out, f"generated (seed {corpusgen.SEED})"


def _git() -> str:
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    s = settings(args)
    workdir = Path(tempfile.mkdtemp(prefix="tui-reader-bench-"))
    started = time.perf_counter()
    try:
        rows, meta = run(args.corpus, s, workdir)
    finally:
        if args.keep:
            print(f"bench: work folder kept at {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    meta["bench_seconds"] = round(time.perf_counter() - started, 1)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    header = (
        f"tui-reader bench {stamp}  {meta['corpus_name']} ({meta['papers']:,} papers, "
        f"{meta['corpus_source']})  {'quick' if s.quick else 'full'}  "
        f"{os.cpu_count()} cpus  Python {platform.python_version()}  "
        f"whoosh {meta['whoosh']}  sqlite {sqlite3.sqlite_version}  git {meta['git']}"
    )
    print(table(rows, header))
    details = meta.get("details")
    by_len = details.get("typeahead_by_partial_len") if isinstance(details, dict) else None
    if isinstance(by_len, dict) and by_len:
        print("\ntype-ahead by the length of the word being typed (0: after a space), median / p95 / max ms:")
        print(
            "  "
            + "   ".join(
                f"{k}: {v['median']:.1f} / {v['p95']:.1f} / {v['max']:.1f} (n={v['n']})"
                for k, v in by_len.items()
            )
        )
    examples = details.get("readme_examples") if isinstance(details, dict) else None
    if isinstance(examples, dict) and examples:
        print(f"\nREADME search examples, Enter's count at {meta['papers']:,} papers:")
        width = max(len(q) for q in examples)
        notices = details.get("readme_notices") if isinstance(details, dict) else None
        for q, total in examples.items():
            why = notices.get(q) if isinstance(notices, dict) else None
            print(f"  {q.ljust(width)}  {total:>8,}" + (f"  ({why})" if why else ""))
    profile = meta.get("profile")
    if isinstance(profile, dict):
        print(f"\ntype-ahead profile ({profile['queries']} queries), top by own time:")
        print(profile["tottime"])
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{stamp}.json"
    path.write_text(json.dumps({"meta": meta, "rows": [r.to_json() for r in rows]}, indent=1))
    print(f"\nresults: {path}  ({meta['bench_seconds']} s)")
    return 0


def run(given: Path | None, s: Settings, workdir: Path) -> tuple[list[Row], dict[str, object]]:
    from bench import sections  # imports the core; after argparse so --help stays instant

    cache = workdir / "cache"
    use_cache(cache)  # this process and every child: never the user's cache
    data_env = {
        "XDG_DATA_HOME": str(workdir / "data"),
        "TUI_READER_BOOKMARKS": str(workdir / "data" / "bookmarks.json"),
    }
    os.environ.update(data_env)
    src, how = source_corpus(given, workdir, s)
    ctx = sections.Context(s, workdir, cache, src, {**cache_env(cache), **data_env})
    rows = sections.everything(ctx)
    import whoosh

    meta: dict[str, object] = {
        "timestamp": dt.datetime.now().isoformat(timespec="seconds"),
        "corpus": str(src),
        "corpus_name": src.name,
        "corpus_source": how,
        "corpus_bytes": src.stat().st_size if src.is_file() else None,
        "papers": ctx.papers,
        "quick": s.quick,
        "subset": s.subset,
        "seed": s.seed,
        "queries": ctx.query_counts,
        "grep_tool": ctx.grep_tool,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "whoosh": whoosh.versionstring(),
        "sqlite": sqlite3.sqlite_version,
        "git": _git(),
        "profile": ctx.profile,
        "details": ctx.details,
    }
    return rows, meta
