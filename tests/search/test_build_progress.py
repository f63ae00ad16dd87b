"""The bulk build's progress: one rising figure while the workers analyse and write their
ranges (a range is written while others are still analysed), then the stitch ("finishing").
Shown as is, two phases would take turns on the status line and the figure would jump."""

from __future__ import annotations

from pathlib import Path

from bench import corpusgen
from tui_reader.app.progress import OverallProgress
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex


def test_two_workers_report_one_rising_figure(tmp_path: Path) -> None:
    corpus = load_corpus([corpusgen.write(tmp_path / "papers.jsonl", 1500)])
    calls: list[tuple[int, int, str]] = []
    index = SearchIndex(corpus, root=tmp_path / "index")
    assert index.ensure(procs=2, progress=lambda d, t, p: calls.append((d, t, p))).action == "built"
    index.close()
    phases = [p for _, _, p in calls]
    assert set(phases) == {"indexing", "finishing"} and phases[-1] == "finishing"
    assert phases.index("finishing") == len(phases) - 1  # finishing last, once
    indexing = [d / t for d, t, p in calls if p == "indexing"]
    assert indexing == sorted(indexing) and indexing[-1] == 1.0 and len(indexing) > 4
    overall = OverallProgress()
    shown = [s for s in (overall.update(*c) for c in calls) if s]
    figures = [int(s.rsplit(" ", 1)[1].rstrip("%")) for s in shown]
    assert figures == sorted(figures) and shown[-2] == "indexing 80%" and shown[-1] == "finishing 99%"
