"""Measurements that need a process of their own (a cold interpreter and a clean peak RSS).

``python -m bench.worker parse CORPUS`` and ``python -m bench.worker build CORPUS [--rebuild]``
print one JSON object on stdout. The cache location comes from the environment the parent sets.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def peak_rss_mb() -> dict[str, float]:
    """ru_maxrss is in KiB on Linux; children covers Whoosh's writer sub-processes."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"rss_self_mb": own, "rss_children_mb": kids}


def parse(corpus_path: str) -> dict[str, object]:
    from tui_reader.corpus.loading import load_corpus

    started = time.perf_counter()
    corpus = load_corpus([corpus_path])
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "papers": len(corpus), "warnings": corpus.warnings[:5], **peak_rss_mb()}


def build(corpus_path: str, rebuild: bool) -> dict[str, object]:
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.persistent import SearchIndex

    started = time.perf_counter()
    corpus = load_corpus([corpus_path])
    load_seconds = time.perf_counter() - started
    index = SearchIndex(corpus)
    before = index.status()
    report = index.ensure(rebuild=rebuild)
    index.close()
    return {
        "seconds": report.seconds,
        "load_seconds": load_seconds,
        "papers": len(corpus),
        "action": report.action,
        "status_before": before,
        "reason": report.reason,
        "index_bytes": dir_size(index.dir),
        "index_dir": str(index.dir),
        **peak_rss_mb(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.worker")
    parser.add_argument("what", choices=("parse", "build"))
    parser.add_argument("corpus")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args(argv)
    out = parse(args.corpus) if args.what == "parse" else build(args.corpus, args.rebuild)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
