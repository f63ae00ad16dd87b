"""Recommendations: training and ranking one tag (search/recommend.py), as the For-you view does.

``python -m bench.recommend [CORPUS] [--reps N]``: a tag is simulated by the first papers a
search finds (10, 30 and 100 of them), with 5 papers marked "not interested" (the first
recommendations of a first run); each is trained and ranked ``reps`` times, the whole call
timed (training, the ranking's postings, "because"). Budget: 2 s a tag at 87k papers.
``rows(searcher)`` gives the table's rows.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.report import Budget, Row, Summary
from tui_reader.corpus.loading import load_corpus
from tui_reader.search import Searcher, SearchIndex, SearchMode
from tui_reader.search import recommendations as recommend

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "paperlists-87k.jsonl.gz"
TAGS = (("diffusion guidance", 10), ("graph neural network", 30), ("reinforcement learning exploration", 100))
LIMIT = 200  # the For-you view's list
MAX_2S = Budget("max", 2000)


def rows(searcher: Searcher, reps: int = 3) -> list[Row]:
    times: list[float] = []
    train: list[float] = []
    rank: list[float] = []
    for text, size in TAGS:
        found = searcher.search(text, SearchMode.ENTER, size, time_limit=None)
        positives = [h.id for h in found.hits]
        first = recommend(searcher, positives, limit=LIMIT)
        negatives = [p.id for p in first.picks[:5]]
        for _ in range(reps):
            started = time.perf_counter()
            got = recommend(searcher, positives, negatives, limit=LIMIT)
            times.append((time.perf_counter() - started) * 1000)
            train.append(got.train_ms)
            rank.append(got.rank_ms)
        top = got.picks[0] if got.picks else None
        because = ", ".join(top.because) if top else "-"
        print(
            f"{text!r:38} {len(positives):3} positives: {got.total:6,} ranked over {got.terms} terms; "
            f"first: {searcher.corpus.titles[top.row][:50] if top else '-'!r} because {because}"
        )
    return [
        Row("recommend.tag", "For you: train + rank one tag (10-100 positives)", "ms", times, [MAX_2S]),
        Row("recommend.train", "  of which training (text, analysis, fit)", "ms", train),
        Row("recommend.rank", "  of which ranking (postings of 250 terms, because)", "ms", rank),
    ]


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.recommend", description=__doc__)
    p.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    if not args.corpus.exists():  # `make bench` on a machine without the shared corpus
        print(f"bench.recommend: no corpus at {args.corpus}; skipped (give one: CORPUS)")
        return
    corpus = load_corpus([args.corpus])
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    for row in rows(searcher, args.reps):
        s = Summary.of(row.values)
        verdict = "".join(
            f"  budget {b.text(row.unit)}: {'ok' if b.holds(s) else 'OVER'}" for b in row.budgets
        )
        print(
            f"{row.label:52} median {s.median:7.1f}  p95 {s.p95:7.1f}  max {s.max:7.1f} {row.unit}"
            f" (n={s.n}){verdict}"
        )
    index.close()


if __name__ == "__main__":
    main()
