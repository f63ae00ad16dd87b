"""A cProfile of the type-ahead path (run when its p95 is over budget, or on --profile)."""

from __future__ import annotations

import cProfile
import io
import pstats

from bench.measures import search_latency
from tui_reader.search.searcher import Searcher


def typeahead(searcher: Searcher, texts: list[str], top: int = 25) -> dict[str, object]:
    profiler = cProfile.Profile()
    profiler.enable()
    search_latency(searcher, texts, typeahead=True)
    profiler.disable()
    stats = pstats.Stats(profiler)
    out: dict[str, object] = {"queries": len(texts), "total_s": stats.total_tt}  # type: ignore[attr-defined]
    for order in ("tottime", "cumulative"):
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).strip_dirs().sort_stats(order).print_stats(top)
        text = buf.getvalue()
        start = text.find("   ncalls")
        out[order] = text[start:] if start >= 0 else text
    return out
