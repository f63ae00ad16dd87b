"""``python -m bench.codec [CORPUS] [--papers N]``: Whoosh's W3 codec beside the project's array
codec (tui_reader/search/fast/codec.py), on the same papers written by Whoosh's own writer.

Measures, for each codec: build time and index size; decoding every posting of the most frequent
content words (Whoosh's matcher a posting at a time, W3's blocks a block at a time as the fast
paths read them today, and numpy over the array blocks); and AND and phrase queries scored in
full (Whoosh's ``search(limit=None)`` against blocks_np's vectorised BM25F, checked equal).
``--built CACHE``: bench.scale's search step (its queries, per kind) on an index built already,
e.g. ``python -m bench.codec /work/big/scale-2700000.jsonl.gz --built /work/big/c27/cache``.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any

from bench import queries
from bench.run import DEFAULT_CORPUS

FIELD = "content"


def build(path: Path, docs: list[dict[str, object]], codec: Any) -> tuple[Any, float]:
    from whoosh import index

    from tui_reader.search.index.schema import make_schema

    path.mkdir(parents=True)
    ix = index.create_in(str(path), make_schema())
    started = time.perf_counter()
    with ix.writer(codec=codec, limitmb=256) as w:
        for doc in docs:
            w.add_document(**doc)
    return index.open_dir(str(path)), time.perf_counter() - started


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.iterdir()) / 1e6


def best(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(rounds):
        gc.collect()
        started = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - started)
    return min(times), out


def matcher_loop(reader: Any, terms: list[bytes], positions: bool) -> int:
    n = 0
    for t in terms:
        m = reader.postings(FIELD, t)
        while m.is_active():
            m.id()
            m.weight()
            if positions:
                m.value_as("positions")
            n += 1
            m.next()
    return n


def w3_blocks(reader: Any, terms: list[bytes], positions: bool) -> int:
    """W3's blocks a block at a time, as the fast paths read them today (search/fast/w3.blocks:
    zlib + one pickle a block, docnums by ``accumulate`` in C); positions a pickle per posting."""
    n = 0
    for t in terms:
        m = reader.postings(FIELD, t)
        while m.is_active():
            if m._data is None:
                m._read_data()
            ids = list(accumulate(m._data[0]))
            n += len(ids)
            if positions:
                m._read_values()
                for v in m._values:
                    list(accumulate(pickle.loads(v[4:])))
            m._next_block()
    return n


def np_blocks(reader: Any, terms: list[bytes]) -> int:
    from tui_reader.search.fast.blocks_np import block_arrays

    return sum(block_arrays(reader, FIELD, t).ids.size for t in terms)


def parsed(ix: Any, texts: list[str]) -> list[tuple[Any, list[str]]]:
    from whoosh import query
    from whoosh.qparser import QueryParser

    parser = QueryParser(FIELD, ix.schema)
    out = []
    for text in texts:
        q = parser.parse(text)
        if isinstance(q, query.And) and all(isinstance(s, query.Term) for s in q.subqueries):
            out.append((q, [s.text for s in q.subqueries]))
        elif isinstance(q, query.Phrase) and q.fieldname == FIELD:
            out.append((q, list(q.words)))
    return out


def per_query(searcher: Any, qs: list[tuple[Any, list[str]]], ours: Callable[..., Any]) -> dict[str, float]:
    """Median and worst ms of Whoosh's full search and of ours, after checking they agree."""
    whoosh_ms, ours_ms = [], []
    for q, words in qs:
        t_w, hits = best(lambda q=q: [(h.docnum, h.score) for h in searcher.search(q, limit=None)], 3)
        t_o, scored = best(lambda words=words: ours(searcher, words).ranked(), 3)
        assert [d for d, _ in scored] == [d for d, _ in hits], q  # type: ignore[union-attr]
        assert all(abs(a[1] - b[1]) < 1e-6 for a, b in zip(scored, hits, strict=True)), q  # type: ignore[arg-type]
        whoosh_ms.append(t_w * 1e3)
        ours_ms.append(t_o * 1e3)
    return {
        "whoosh_median": statistics.median(whoosh_ms),
        "whoosh_max": max(whoosh_ms),
        "np_median": statistics.median(ours_ms),
        "np_max": max(ours_ms),
        "whoosh_total": sum(whoosh_ms),
        "np_total": sum(ours_ms),
    }


def enter_indexes(corpus: Any, keep: Path) -> dict[str, Any]:
    """SearchIndex objects over the same papers: "w3" built as the reader builds it today (the
    bulk build), "np" written by Whoosh's own writer through NpCodec; kept in ``keep`` (a 87k
    build through Whoosh's writer takes minutes) and reused when already there."""
    from whoosh import index as whoosh_index

    from tui_reader.search import SearchIndex
    from tui_reader.search.fast.codec import NpCodec
    from tui_reader.search.index.schema import document, make_schema

    out = {}
    for name in ("w3", "np"):
        ix = SearchIndex(corpus, root=keep / name)
        if name == "w3":
            ix.ensure()
        elif not whoosh_index.exists_in(str(ix.dir)):
            started = time.perf_counter()
            part = keep / name / f"{corpus.key}.part"
            shutil.rmtree(part, ignore_errors=True)
            part.mkdir(parents=True)
            made = whoosh_index.create_in(str(part), make_schema())
            with made.writer(codec=NpCodec(), limitmb=256) as w:
                for i in range(len(corpus)):
                    w.add_document(**document(corpus, i))
            made.close()
            part.rename(ix.dir)
            print(f"np index written by Whoosh's writer in {time.perf_counter() - started:.0f} s")
        out[name] = ix
    return out


def enter(corpus_path: Path, keep: Path, per_kind: int, seed: int, titles: int = 10) -> int:
    """Enter per query kind through the real Searcher (bench.measures.search_latency, the
    queries of bench.queries.build as bench.scale draws them, and type-ahead's keystrokes of
    ``titles`` titles) on each codec's index: p50 / p95 / max ms, and CPU seconds of the whole
    kind; Enter's answers (hits and totals) checked equal."""
    from bench import measures
    from bench.report import percentile
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search import Searcher

    measures.use_cache(keep / "cache")
    corpus = load_corpus([corpus_path])
    indexes = enter_indexes(corpus, keep)
    qset = queries.build(corpus, per_kind, titles, seed=seed)
    kinds = ("term", "and", "phrase", "field", "fuzzy", "prefix", "typeahead")
    answers: dict[str, list[list[tuple[str, float | None]]]] = {}
    for name, ix in indexes.items():
        searcher = Searcher(ix)
        answers[name] = []
        for kind in kinds:
            texts = qset.queries[kind]
            cpu = time.process_time()
            runs = measures.search_latency(searcher, texts, kind == "typeahead")
            cpu = time.process_time() - cpu
            ms = runs.ms
            print(
                f"{name} {kind:7} p50 {percentile(ms, 50):7.1f}  p95 {percentile(ms, 95):7.1f}"
                f"  max {max(ms):7.1f} ms  cpu {cpu:6.2f} s  ({len(texts)} queries)"
            )
            for text in texts if kind != "typeahead" else ():  # Enter's answers compared
                searcher.invalidate()
                result = searcher.search(text, limit=measures.SEARCH_LIMIT)
                answers[name].append([(h.id, h.score) for h in result.hits] + [("total", result.total)])
        ix.close()
    same = all(
        [x for x, _ in a] == [x for x, _ in b]
        and all(sa == sb or abs((sa or 0) - (sb or 0)) < 1e-6 for (_, sa), (_, sb) in zip(a, b, strict=True))
        for a, b in zip(answers["w3"], answers["np"], strict=True)
    )
    print("answers: the same on both indexes" if same else "answers DIFFER between the indexes")
    from tui_reader.search.fast import health

    print(f"fast paths: {health.status()}")
    corpus.close()
    return 0 if same else 1


# Enter's p95 and worst queries per kind at 87k (bench.scale's queries, --enter's runs): their
# words' content and title document frequencies there, scaled by ``scaled`` to a bigger index.
SCALED_CASES = {
    "term p95": ("achieve", [19864], [105]),
    "term worst": ("learned", [32981], [14025]),
    "and p95": ("datasets supervision", [6062, 20354], [869, 1871]),
    "and worst": ("robot effects", [20960, 26305], [870, 12928]),
    "phrase p95": ('"heuristic method"', [1531, 41205], []),
    "phrase worst": ('"approach achieves"', [19864, 32400], []),
    "field": ("title:learning", [14025], []),
}
PAPERS_87K = 87_415


def synthetic_list(rng: Any, n: int, papers: int) -> bytes:
    """An NpCodec posting list of ``n`` random papers (listwriter.encode_list): weights mostly
    1, lengths 60-120 tokens, a position per unit of weight."""
    import numpy as np

    from tui_reader.search.fast import listwriter

    ids = np.sort(rng.choice(papers, n, replace=False)).astype(np.int64)
    weights = rng.choice([1.0] * 6 + [2.0, 3.0], n).astype(np.float32)
    counts = weights.astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    owner = np.repeat(np.arange(n), counts)
    positions = rng.integers(0, 250, int(counts.sum()))
    rank = np.arange(positions.size) - np.repeat(offsets[:-1], counts)
    positions = positions[np.lexsort((positions, owner))] + rank  # ascending, distinct, per paper
    lengths = rng.integers(60, 120, n).astype(np.uint8)
    return listwriter.encode_list(listwriter.Postings(ids, weights, lengths, counts, positions))[0]


def scaled(sizes: list[int], rounds: int) -> int:
    """An estimate of Enter's scoring CPU at ``sizes`` papers without such an index: npleaf's
    kernels (decode, intersect, phrase check, BM25F, the title phrase's OR, the page) for the
    SCALED_CASES queries, on synthetic lists of their words' frequencies scaled up. Whoosh's own
    per-query costs (parsing, term lookups, stored fields: ~1 ms at 87k) are not in it."""
    import numpy as np

    from tui_reader.search.fast import blocks_np, npleaf, score
    from tui_reader.search.fast.docsets import members

    rng = np.random.default_rng(1)
    norms = 1.2 * (0.25 + 0.75 * blocks_np.LENGTHS / 100.0)

    def bm25(a: Any) -> Any:
        return 2.0 * ((a.weights * 2.2) / (a.weights + norms[a.lengths]))

    def phrase(bufs: list[bytes]) -> Any:
        if len(bufs) == 1:
            a = blocks_np.from_blocks(bufs[0], False)
            return a.ids, bm25(a)
        rare = blocks_np.from_blocks(bufs[0], False)
        last = blocks_np.from_blocks(bufs[1], True, rare.ids, True)
        first = blocks_np.from_blocks(bufs[0], True, last.ids, True)
        held = npleaf.holding([first, last], last.ids.size, 1)
        return last.ids[held], bm25(first.select(held)) + bm25(last.select(held))

    def conj(bufs: list[bytes], titles: list[bytes]) -> Any:
        ids, parts = None, []
        for buf in bufs:
            part = blocks_np.from_blocks(buf, False, ids, ids is not None)
            parts.append(part)
            ids = part.ids
        assert ids is not None
        found = (ids, sum(bm25(p.select(members(p.ids, ids))) for p in parts))
        return npleaf.union(found, phrase(titles)) if titles else found

    for papers in sizes:
        factor = papers / PAPERS_87K
        print(f"{papers:,} papers (document frequencies x{factor:.1f}), CPU ms, best of {rounds}:")
        for kind, (label, dfs, tdfs) in SCALED_CASES.items():
            bufs = [synthetic_list(rng, min(papers, int(x * factor)), papers) for x in dfs]
            titles = [synthetic_list(rng, max(1, int(x * factor)), papers) for x in tdfs]

            def page(bufs: list[bytes] = bufs, titles: list[bytes] = titles, kind: str = kind) -> object:
                found = phrase(bufs) if kind.startswith("phrase") else conj(bufs, titles)
                return score.top_arrays(found, 20)

            ms = min(_cpu(page) for _ in range(rounds))
            print(f"  {kind:13} {label:22} {[int(x * factor) for x in dfs]!s:20} {ms:7.1f}")
    return 0


def built(corpus_path: Path, cache: Path, per_kind: int, titles: int, seed: int) -> int:
    """bench.scale's search step on an index already built in ``cache`` (an XDG_CACHE_HOME, as
    bench.build_profile leaves it): the same queries (``seed``), each timed around
    Searcher.search against an empty result cache as measures.search_latency does; wall and CPU
    milliseconds (p50 / p95 / max) per kind, and how many keystrokes gave a best-so-far page."""
    from bench import measures
    from bench.report import percentile

    measures.use_cache(cache)
    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search import Searcher, SearchIndex
    from tui_reader.search.query.modes import SearchMode

    corpus = load_corpus([corpus_path])
    index = SearchIndex(corpus)
    index.ensure()
    searcher = Searcher(index)
    qs = queries.build(corpus, per_kind, titles, seed=seed)
    print(f"{len(corpus):,} papers; {', '.join(f'{k} {len(v)}' for k, v in qs.queries.items())} queries")
    kinds = ["typeahead", "term", "and", "phrase", "field"]
    for kind in kinds:  # each kind's first query once: what a first search reads
        measures.search_latency(searcher, qs.queries[kind][:1], kind == "typeahead")
    for kind in kinds:
        wall, cpu, partial = [], [], 0
        for text in qs.queries[kind]:
            searcher.invalidate()
            started, cpu_started = time.perf_counter(), time.process_time()
            if kind == "typeahead":
                result = searcher.search(text, SearchMode.TYPING, measures.TYPEAHEAD_LIMIT)
            else:
                result = searcher.search(text, limit=measures.SEARCH_LIMIT)
            wall.append((time.perf_counter() - started) * 1e3)
            cpu.append((time.process_time() - cpu_started) * 1e3)
            partial += result.partial
        w, c = (f"{percentile(v, 50):.1f} / {percentile(v, 95):.1f} / {max(v):.0f}" for v in (wall, cpu))
        print(f"{kind:9s} wall p50/p95/max {w} ms | cpu {c} ms | {len(wall)} queries, {partial} best-so-far")
    index.close()
    corpus.close()
    return 0


def _cpu(fn: Callable[[], object]) -> float:
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.codec")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--papers", type=int, default=20000, help="the first N papers (0: all)")
    parser.add_argument("--terms", type=int, default=200)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--enter",
        type=Path,
        metavar="DIR",
        help="Enter through the Searcher on both codecs, indexes kept in DIR",
    )
    parser.add_argument("--seed", type=int, default=20261130, help="bench.scale's query seed")
    parser.add_argument(
        "--scaled", metavar="SIZES", help="estimate Enter's scoring at these sizes (1000000,2700000)"
    )
    parser.add_argument(
        "--built", type=Path, metavar="CACHE", help="bench.scale's search step on an index built in CACHE"
    )
    args = parser.parse_args(argv)
    if args.built is not None:
        return built(args.corpus, args.built, 60, 15, args.seed)  # bench.scale's defaults
    if args.scaled:
        return scaled([int(x) for x in args.scaled.split(",")], args.rounds)
    if args.enter is not None:
        return enter(args.corpus, args.enter, args.queries, args.seed)

    from whoosh.codec.whoosh3 import W3Codec

    from tui_reader.corpus.loading import load_corpus
    from tui_reader.search.fast import blocks_np
    from tui_reader.search.fast.codec import NpCodec
    from tui_reader.search.index.schema import document

    corpus = load_corpus([args.corpus], use_cache=False)
    count = min(args.papers or len(corpus), len(corpus))
    docs = [document(corpus, i) for i in range(count)]
    qset = queries.build(corpus, per_kind=args.queries * 2, titles=0)
    print(f"{count:,} papers of {args.corpus.name}")
    work = Path(tempfile.mkdtemp(prefix="bench-codec-"))
    try:
        ixs, rows = {}, []
        for name, codec in (("w3", W3Codec()), ("np", NpCodec())):
            ixs[name], seconds = build(work / name, docs, codec)
            rows.append(f"build {name}: {seconds:.1f} s, index {size_mb(work / name):.1f} MB")
        with ixs["w3"].searcher() as sw, ixs["np"].searcher() as sn:
            rw, rn = sw.reader(), sn.reader()
            terms = [t for _, t in rw.most_frequent_terms(FIELD, args.terms)]
            postings = sum(rw.doc_frequency(FIELD, t) for t in terms)
            head = f"decode: {len(terms)} most frequent {FIELD} terms, {postings:,} postings"
            rows.append(f"{head} (best of {args.rounds})")
            cases = [
                ("Whoosh matcher, W3, ids+weights", lambda: matcher_loop(rw, terms, False)),
                ("Whoosh matcher, W3, +positions", lambda: matcher_loop(rw, terms, True)),
                ("Whoosh matcher, array codec, ids+weights", lambda: matcher_loop(rn, terms, False)),
                ("Whoosh matcher, array codec, +positions", lambda: matcher_loop(rn, terms, True)),
                ("W3 blocks a block at a time, ids+weights", lambda: w3_blocks(rw, terms, False)),
                ("W3 blocks a block at a time, +positions", lambda: w3_blocks(rw, terms, True)),
                ("numpy over array blocks, everything", lambda: np_blocks(rn, terms)),
            ]
            for label, fn in cases:
                seconds, n = best(fn, args.rounds)
                assert n == postings, (label, n, postings)
                rows.append(
                    f"  {label:44} {seconds * 1e3:9.1f} ms  {seconds / postings * 1e9:7.1f} ns/posting"
                )
            for kind, ours in (("and", lambda s, w: blocks_np.conjoined(s, [(FIELD, x) for x in w])),
                               ("phrase", lambda s, w: blocks_np.phrase(s, FIELD, w))):  # fmt: skip
                qs = parsed(ixs["np"], qset.queries[kind])[: args.queries]
                for name, searcher in (("w3", sw), ("np", sn)):
                    r = per_query(searcher, qs, ours)
                    rows.append(
                        f"{len(qs)} {kind} queries on the {name} index, limit=None:"
                        f" Whoosh median {r['whoosh_median']:.1f}"
                        f" / max {r['whoosh_max']:.1f} ms (total {r['whoosh_total']:.0f}); numpy median"
                        f" {r['np_median']:.2f} / max {r['np_max']:.2f} ms (total {r['np_total']:.0f})"
                    )
        print("\n".join(rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        corpus.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
