"""The run, in order: corpus, index, search (with the reference engines), TUI, incremental update.

The update comes last because it appends to the working copy of the corpus.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench import bookmarks_store, hostile, launch, manyfiles, measures, profiling, queries, recall, tui
from bench.engines import Fts5, Grep
from bench.report import Budget, Row, Summary
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.loading import load_corpus
from tui_reader.search.index.persistent import SearchIndex
from tui_reader.search.searcher import Searcher

if TYPE_CHECKING:
    from bench.run import Settings

RSS_MB = 600.0
PAPERS_87K = 87_428
BUILD_RATE = PAPERS_87K / 60.0
SEARCH_BUDGET = {"term": 50.0, "and": 50.0, "phrase": 50.0, "field": 50.0, "fuzzy": 100.0, "prefix": 100.0}
KIND_NAMES = {
    "term": "single term",
    "and": "two-term AND",
    "phrase": "phrase",
    "field": "field (title:x)",
    "fuzzy": "fuzzy (word~)",
    "prefix": "prefix (word*)",
    "typeahead": "type-ahead",
}
LABELS = {k: f"search: {v}" for k, v in KIND_NAMES.items()}
# Whoosh's reference scores every match: time caps keep a full 87k run's added time under two
# minutes whatever the core does (6 x 15 s + 30 s; about 11 s in all at 87k when nothing is slow).
RECALL_CAP_S = 15.0  # per Enter kind
TYPEAHEAD_CAP_S = 30.0
README = measures.REPO / "README.md"


@dataclass
class Context:
    s: Settings
    workdir: Path
    cache: Path
    source: Path
    env: dict[str, str]
    papers: int = 0
    query_counts: dict[str, int] = field(default_factory=dict)
    grep_tool: str | None = None
    profile: dict[str, object] | None = None
    details: dict[str, object] = field(default_factory=dict)


def _log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def everything(ctx: Context) -> list[Row]:
    s = ctx.s
    corpus_file = measures.copy_corpus(ctx.source, ctx.workdir / "corpus", s.subset)
    rows = corpus_rows(ctx, corpus_file)
    corpus = load_corpus([corpus_file])
    ctx.papers = len(corpus)
    rows += index_rows(ctx, corpus_file, corpus)
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    _log("building the query set")
    qs = queries.build(corpus, s.per_kind, s.titles, seed=s.seed)
    ctx.query_counts = qs.count()
    search = search_rows(ctx, corpus, searcher, qs, corpus_file)
    rows += search
    rows += recall_rows(ctx, searcher, qs)
    _log("hostile queries")
    rows += hostile.rows(searcher)
    readme_examples(ctx, searcher)
    rows += tui_rows(ctx, corpus_file, corpus)
    rows += launch.rows(ctx, corpus_file, corpus)
    typeahead = next(r for r in search if r.key == "search.typeahead")
    if s.profile or (s.profile is None and typeahead.status == "OVER"):
        _log("profiling type-ahead")
        ctx.profile = profiling.typeahead(searcher, qs.queries["typeahead"])
    index.close()
    corpus.close()
    rows += update_rows(ctx, corpus_file)
    if not s.quick:  # ~5 min: 20,000 files parsed and indexed at ulimit -n 1024
        rows += manyfiles.rows(ctx.workdir)
    rows += bookmarks_store.rows(ctx.workdir, 1000 if s.quick else bookmarks_store.COUNT)
    order = ["corpus.", "index.", "update.", "search.", "recall.", "highlight.", "tui.", "store."]
    return sorted(rows, key=lambda r: next(i for i, p in enumerate(order) if r.key.startswith(p)))


def corpus_rows(ctx: Context, corpus_file: Path) -> list[Row]:
    s = ctx.s
    _log(f"cold parse x{s.parse_reps} of {corpus_file.name}")
    cold = measures.cold_parse(corpus_file, ctx.workdir, ctx.cache, s.parse_reps)
    _log(f"warm load x{s.load_reps}")
    warm = measures.warm_load(corpus_file, s.load_reps)
    ctx.details["parse"] = cold.info
    return [
        Row("corpus.parse_cold", "corpus first parse (cold cache)", "s", cold.values),
        Row(
            "corpus.parse_rss",
            "peak RSS: first parse",
            "MB",
            cold.extra["rss_mb"],
            [Budget("median", RSS_MB)],
            note="a fresh process running load_corpus only",
        ),
        Row("corpus.load_warm", "corpus warm load", "s", warm.values),
    ]


def index_rows(ctx: Context, corpus_file: Path, corpus: Corpus) -> list[Row]:
    s = ctx.s
    _log(f"cold index build x{s.build_reps} ({len(corpus):,} papers)")
    build = measures.cold_build(corpus_file, ctx.cache, s.build_reps)
    ctx.details["build"] = build.info
    fts_build: list[float] | None = None
    fts_rate: list[float] | None = None
    fts_size: list[float] | None = None
    if s.fts5:
        _log("building the FTS5 reference")
        fts = Fts5(ctx.workdir / "fts5.sqlite")
        seconds = fts.build(corpus)
        fts_build, fts_rate, fts_size = [seconds], [len(corpus) / seconds], [fts.size_bytes / 1e6]
        ctx.details["fts5_path"] = str(fts.path)
        fts.close()
    _log(f"no-op reopen x{s.reopen_reps}")
    reopen = measures.noop_reopen(corpus, s.reopen_reps)
    kids = max(build.extra["rss_children_mb"])
    full_size = len(corpus) >= 0.9 * PAPERS_87K
    return [
        Row(
            "index.build",
            "cold index build",
            "s",
            build.values,
            [Budget("median", 60.0)] if full_size else [],
            fts5=fts_build,
            note="fts5 column: an FTS5 build of the same text"
            + ("" if full_size else "; the 60 s budget is for 87k: see the rate"),
        ),
        Row(
            "index.build_rate",
            "cold build rate",
            "docs/s",
            build.extra["docs_per_s"],
            [Budget("median", BUILD_RATE, higher_is_better=True)],
            fts5=fts_rate,
            note=f"budget: {PAPERS_87K:,} papers in 60 s, whatever the size of this corpus",
        ),
        Row("index.size", "index size on disk", "MB", build.extra["index_mb"], fts5=fts_size),
        Row(
            "index.build_rss",
            "peak RSS: cold build",
            "MB",
            build.extra["tree_mb"],
            [Budget("median", RSS_MB)],
            note=f"PSS of the build's process tree sampled every 0.1 s; ru_maxrss: builder "
            f"{max(build.extra['rss_mb']):.0f} MB"
            + (f", each writer sub-process up to {kids:.0f} MB" if kids else ""),
        ),
        Row("index.reopen", "no-op reopen (ensure)", "s", reopen.values, [Budget("p95", 0.5)]),
    ]


def search_rows(
    ctx: Context, corpus: Corpus, searcher: Searcher, qs: queries.QuerySet, corpus_file: Path
) -> list[Row]:
    s = ctx.s
    rows = [
        Row(
            "search.first",
            "first search after open",
            "ms",
            [measures.first_search_ms(searcher, qs.queries["term"][0])],
            note="the searcher's first query (term dictionaries cold)",
        )
    ]
    for kind in queries.KINDS:  # warm-up, unmeasured
        measures.search_latency(searcher, qs.queries[kind][:5], kind == "typeahead")
    ours: dict[str, measures.SearchRuns] = {}
    for kind in queries.KINDS:
        _log(f"search: {kind} x{len(qs.queries[kind])}")
        ours[kind] = measures.search_latency(searcher, qs.queries[kind], kind == "typeahead")
    fts_ms: dict[str, list[float]] = {}
    if s.fts5:
        fts = Fts5(Path(str(ctx.details["fts5_path"])))
        import sqlite3

        fts.db = sqlite3.connect(fts.path)
        for kind in queries.KINDS:
            fts.time_queries(kind, qs.queries[kind][:5])
            fts_ms[kind], errors = fts.time_queries(kind, qs.queries[kind])
            if errors:
                ctx.details[f"fts5_errors_{kind}"] = errors
        fts.close()
    grep_ms: dict[str, list[float]] = {}
    if s.grep_per_kind:
        ctx.grep_tool = Grep.find_tool()
        if ctx.grep_tool:
            _log(f"grep reference ({ctx.grep_tool}), {s.grep_per_kind} queries a kind")
            grep = Grep(Grep.raw_copy(corpus_file, ctx.workdir), ctx.grep_tool)
            for kind in queries.KINDS:
                grep_ms[kind] = grep.time_queries(kind, qs.queries[kind], s.grep_per_kind)
    for kind in queries.KINDS:
        run = ours[kind]
        budgets = (
            [Budget("p95", 35.0), Budget("max", 100.0)]
            if kind == "typeahead"
            else [Budget("p95", SEARCH_BUDGET[kind])]
        )
        note = (
            f"this row to prefix: limit {measures.SEARCH_LIMIT}, exact count, as the reader searches on Enter"
            if kind == "term"
            else ""
        )
        if kind == "typeahead":
            shown = sum(run.partial)
            note = (
                f"{len(qs.typeahead_titles)} titles, every keystroke, "
                f"limit {measures.TYPEAHEAD_LIMIT}, SearchMode.TYPING; "
                f"{shown} of {len(run.partial)} keystrokes "
                f'({_pct(shown, len(run.partial))}) showed "best so far" (partial)'
            )
        if run.notices:
            note += f"; {run.notices} fell back to plain words"
        note = note.lstrip("; ")
        zero = sum(1 for t in run.totals if t == 0)
        if zero:
            note = (note + "; " if note else "") + f"{zero} with no hits"
        rows.append(
            Row(
                f"search.{kind}",
                LABELS[kind],
                "ms",
                run.ms,
                budgets,
                fts5=fts_ms.get(kind) if s.fts5 else None,
                grep=grep_ms.get(kind) if s.grep_per_kind else None,
                note=note,
            )
        )
    ctx.details["typeahead_by_partial_len"] = _by_partial(qs.queries["typeahead"], ours["typeahead"].ms)
    _log("type-ahead while facets count")
    busy = measures.typeahead_with_facets(searcher, qs.queries["typeahead"])
    rows.append(
        Row(
            "search.typeahead_facets",
            "search: type-ahead, facet panel open",
            "ms",
            busy.ms,
            [Budget("p95", 35.0), Budget("max", 100.0)],
            note="each title typed while the facets of the title before (its Enter) are counted in "
            "another thread, which gives way to the first keystroke's search",
        )
    )
    _log("highlighting")
    texts = [q for k in ("term", "and", "phrase", "field") for q in qs.queries[k][:50]]
    per_call, per_page = measures.highlight(searcher, corpus, texts)
    rows += [
        Row("highlight.call", "highlight: snippet() one abstract", "ms", per_call, [Budget("p95", 10.0)]),
        Row(
            "highlight.page",
            "highlight: top-20 hits together",
            "ms",
            per_page,
            note="the sum of the 20 snippet() calls of one result page",
        ),
    ]
    return rows


def recall_rows(ctx: Context, searcher: Searcher, qs: queries.QuerySet) -> list[Row]:
    """Enter's first page and count, and type-ahead's count, against Whoosh's own searcher."""
    s = ctx.s
    rows: list[Row] = []
    found: dict[str, object] = {}
    for kind in queries.ENTER_KINDS:
        texts = qs.queries[kind][: s.recall_per_kind]
        _log(f"recall vs Whoosh: {kind} x{len(texts)}")
        check = recall.enter(searcher, texts, RECALL_CAP_S)
        found[kind] = check.to_json()
        ran = len(check.recall)
        parts = [f"{len(check.counts)} of {ran} counts differed from Whoosh's"]
        if check.counts:
            q, ours, ref = check.counts[0]
            parts[0] += f" (e.g. {q!r}: {ours:,} vs {ref:,})"
        if check.low:
            q, worst = min(check.low, key=lambda qr: qr[1])
            parts.append(f"{len(check.low)} under 100%, worst {worst:.0f}% for {q!r}")
        if check.inexact:
            parts.append(f"{len(check.inexact)} counts not exact")
        if ran < check.planned:
            parts.append(f"{ran} of {check.planned} queries (time cap {RECALL_CAP_S:.0f} s)")
        if kind == queries.ENTER_KINDS[0]:
            parts.append(
                f"top {measures.SEARCH_LIMIT} ids of Enter vs Whoosh's search(parse(text), limit=None)"
            )
        rows.append(
            Row(
                f"recall.{kind}",
                f"recall vs Whoosh: {KIND_NAMES[kind]}",
                "%",
                check.recall,
                [Budget("min", 100.0, higher_is_better=True)],
                note="; ".join(parts),
            )
        )
    texts = qs.queries["typeahead"][: s.recall_keystrokes]
    _log(f"type-ahead vs Whoosh's count x{len(texts)}")
    ta = recall.typeahead(searcher, texts, TYPEAHEAD_CAP_S)
    found["typeahead"] = ta.to_json()
    checked = len(ta.covered)
    ok = sum(1 for v in ta.covered if v)
    parts = [
        f"{ok} of {checked} keystrokes ({_pct(ok, checked)}) partial or count >= Whoosh's",
        f"{ta.partial} ({_pct(ta.partial, checked)}) partial",
    ]
    if ta.short:
        q, ours, ref = ta.short[0]
        parts.append(f"short e.g. {q!r}: {ours:,} vs {ref:,}")
    skipped = [f"{ta.incomplete} too short to search"] if ta.incomplete else []
    skipped += [f"{ta.problems} with syntax Enter refuses"] if ta.problems else []
    if skipped:
        parts.append("not checked: " + ", ".join(skipped))
    done = checked + ta.incomplete + ta.problems
    if done < ta.planned:
        parts.append(f"{done} of {ta.planned} keystrokes (time cap {TYPEAHEAD_CAP_S:.0f} s)")
    rows.append(
        Row(
            "recall.typeahead",
            "type-ahead count vs Whoosh",
            "%",
            ta.covered,
            [Budget("min", 100.0, higher_is_better=True)],
            note="; ".join(parts),
        )
    )
    ctx.details["recall"] = found
    return rows


def readme_examples(ctx: Context, searcher: Searcher) -> None:
    """Enter's count for each example of the README's search-syntax table."""
    examples = readme_queries(README.read_text(encoding="utf-8") if README.exists() else "")
    counts: dict[str, int] = {}
    notices: dict[str, str] = {}
    for text in examples:
        result = searcher.search(text, limit=measures.SEARCH_LIMIT)
        counts[text] = result.total
        if result.notice:
            notices[text] = result.notice
    ctx.details["readme_examples"] = counts
    if notices:
        ctx.details["readme_notices"] = notices


def readme_queries(readme: str) -> list[str]:
    """The backticked examples in the first column of the "### Search syntax" table."""
    m = re.search(r"^### Search syntax\s*$(.*?)(?=^#)", readme + "\n#", re.M | re.S)
    if m is None:
        return []
    out: list[str] = []
    for line in m.group(1).splitlines():
        cells = line.strip().strip("|").split("|")
        if not line.lstrip().startswith("|") or len(cells) < 2:
            continue
        out += [q for q in re.findall(r"`([^`]+)`", cells[0]) if q not in out]
    return out


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _by_partial(texts: list[str], ms: list[float]) -> dict[str, dict[str, float | int | None]]:
    """Type-ahead latency by the length of the word being typed (0: the text ends in a space)."""
    groups: dict[str, list[float]] = {}
    for text, t in zip(texts, ms, strict=True):
        n = 0 if text[-1:].isspace() else len(text.rsplit(None, 1)[-1])
        groups.setdefault(str(min(n, 5)) + ("+" if n >= 5 else ""), []).append(t)
    return {k: Summary.of(v).to_json() for k, v in sorted(groups.items())}


def tui_rows(ctx: Context, corpus_file: Path, corpus: Corpus) -> list[Row]:
    s = ctx.s
    labels = [
        ("tui.paint_seeds", "first paint: seeds", 0.8),
        ("tui.paint_corpus", f"first paint: {len(corpus):,} (warm index)", 1.5),
    ]
    rss_label = "peak RSS: app (corpus, warm)"
    if not s.tui:
        return [
            Row(k, lbl, "s", budgets=[Budget("median", b)], na="skipped (--skip-tui)") for k, lbl, b in labels
        ] + [Row("tui.rss", rss_label, "MB", budgets=[Budget("median", RSS_MB)], na="skipped (--skip-tui)")]
    seeds = load_corpus([])
    seeds_title = seeds.titles[0] if len(seeds) else ""
    seeds.close()
    _log("first paint: seeds")
    paint_seeds, _, why_seeds = tui.measure([], seeds_title, ctx.env, measures.REPO, s.tui_runs)
    paint, rss, why = (paint_seeds, [], why_seeds)
    if why_seeds is None:
        _log("first paint: corpus")
        paint, rss, why = tui.measure(
            [str(corpus_file)], corpus.titles[0], ctx.env, measures.REPO, s.tui_runs
        )
    return [
        Row(labels[0][0], labels[0][1], "s", paint_seeds, [Budget("median", labels[0][2])], na=why_seeds),
        Row(
            labels[1][0],
            labels[1][1],
            "s",
            paint if why_seeds is None else [],
            [Budget("median", labels[1][2])],
            na=why,
        ),
        Row(
            "tui.rss",
            rss_label,
            "MB",
            rss,
            [Budget("median", RSS_MB)],
            na=why or (None if rss else "VmHWM not readable"),
        ),
    ]


def update_rows(ctx: Context, corpus_file: Path) -> list[Row]:
    s = ctx.s
    _log(f"incremental update x{s.update_reps} (+100 papers each)")
    runs = measures.incremental(corpus_file, s.update_reps)
    ctx.details["update"] = runs.info
    info = runs.info
    note = (
        f"last run: {info.get('action')}, +{info.get('added')} ~{info.get('changed')} -{info.get('removed')}"
    )
    return [
        Row(
            "update.total",
            "+100 papers: reload + ensure()",
            "s",
            runs.values,
            [Budget("median", 5.0)],
            note=note,
        ),
        Row("update.reparse", "  of which re-parse of the file", "s", runs.extra["reparse_s"]),
        Row("update.ensure", "  of which ensure()", "s", runs.extra["ensure_s"]),
    ]
