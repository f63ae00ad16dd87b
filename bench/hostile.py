"""Hostile queries: texts that once took Whoosh seconds to minutes at 87k papers (issue 13).

``python -m bench.hostile [CORPUS]`` times each through ``Searcher.search`` on Enter and while
typing and prints one line per query; ``rows`` gives the bench its "hostile queries" row. Every
query must answer, or stop with a notice, within about two seconds at 87k.
"""

from __future__ import annotations

import random
import string
import sys
import time
from pathlib import Path

from bench.report import Budget, Row
from tui_reader.search.searcher import Searcher, SearchMode, SearchResult

BUDGET_MS = 2000.0  # "answers, or stops with a message, within about 2 s at 87k"


def _random_words(n: int, seed: int = 13) -> str:
    rng = random.Random(seed)
    return " ".join(
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 9))) for _ in range(n)
    )


QUERIES: dict[str, str] = {
    "authors range": "authors:[a TO z]",
    "title range": "title:[a TO z]",
    "1,100 random words": _random_words(1100),
    "everything (*)": "*",
    "a~99": "a~99",
    "ab~99/3": "ab~99/3",
    "10,000 x's": "x" * 10_000,
    "authors:*": "authors:*",
    "a*": "a*",
    "*a*": "*a*",
    "title:*": "title:*",
    "content range": "[a TO z]",
    "500 nested parentheses": "(" * 500 + "graph" + ")" * 500,
    "200 prefixes OR'ed": " OR ".join(f"{a}{b}*" for a in "abcdefghij" for b in "aeioubcdfghjklmnprst"),
    "long phrase": '"' + " ".join(["model"] * 150) + '"',  # 900 characters: under the cap
    "phrase of 60 common words": '"' + " ".join(["the", "of", "model", "learning", "data"] * 12) + '"',
    "NOT a": "NOT graph",
}


def time_all(searcher: Searcher) -> dict[tuple[str, str], tuple[float, SearchResult]]:
    """{(label, mode): (ms, result)} for every hostile query, on Enter and while typing, each
    from a cold result cache and as the reader calls it (its default time limits)."""
    out = {}
    for label, text in QUERIES.items():
        for mode in (SearchMode.ENTER, SearchMode.TYPING):
            searcher.invalidate()
            started = time.perf_counter()
            result = searcher.search(text, mode)
            out[label, mode.value] = ((time.perf_counter() - started) * 1000, result)
    return out


def rows(searcher: Searcher) -> list[Row]:
    timed = time_all(searcher)
    worst = max(timed, key=lambda k: timed[k][0])
    stopped = sum(1 for _, result in timed.values() if result.stopped)
    return [
        Row(
            "search.hostile",
            "hostile queries: max ms",
            "ms",
            [ms for ms, _ in timed.values()],
            [Budget("max", BUDGET_MS)],
            note=f"{len(QUERIES)} queries (bench/hostile.py), Enter and typing; slowest: {worst[0]} "
            f"({worst[1]}); {stopped} stopped at their time limit with a notice",
        )
    ]


def main(argv: list[str]) -> int:
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.index.persistent import SearchIndex

    corpus = load_corpus([Path(p) for p in argv] or None)
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    searcher.search("graph neural networks")  # warm
    for (label, mode), (ms, result) in time_all(searcher).items():
        notice = (result.notice or "")[:100]
        print(f"{label:24} {mode:7} {ms:9.1f} ms  {result.count_text:>8}  {notice}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
