"""A large bookmarks store (issue 22, item 3): 50,000 bookmarks with full snapshots.

``python -m bench.bookmarks_store [N]`` writes a version-2 file of N bookmarks (default 50,000,
about 38 MB: mostly snapshots), upgrades it with one change, then times, each in a fresh process
(as the CLI and the reader pay it): opening the store, one change of each kind (add, tag, note,
remove), a BibTeX export of every bookmark without the collection (from the snapshots), and
the peak memory of a change. ``rows`` gives the bench its ``store.*`` rows.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import Budget, Row

COUNT = 50_000
CHANGE_S = 0.3  # issue 22: a change costs <= 0.3 s at 50k
OPEN_S = 1.0  # and opening the store <= 1 s
REPS = 3
OPS = ("open", "add", "tag", "note", "remove", "snapshots", "export")

_WORDS = [
    "graph",
    "neural",
    "network",
    "learning",
    "deep",
    "model",
    "attention",
    "transformer",
    "robust",
    "sparse",
    "efficient",
    "language",
    "vision",
    "reinforcement",
    "policy",
    "gradient",
    "bayesian",
    "inference",
    "causal",
    "contrastive",
    "diffusion",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _entry(rng: random.Random, n: int) -> dict[str, object]:
    title = _sentence(rng, 10).capitalize()
    year = rng.randint(1990, 2026)
    return {
        "id": f"{n:012x}",
        "title": title,
        "added": "2026-01-01T00:00:00+00:00",
        "note": _sentence(rng, 8) if n % 5 == 0 else "",
        **({"tags": ["toread", f"t{n % 50}"]} if n % 3 == 0 else {}),
        "paper": {
            "title": title,
            "authors": [f"{_sentence(rng, 1).title()} {_sentence(rng, 1).title()}" for _ in range(4)],
            "year": year,
            "venue": "NeurIPS",
            "url": f"https://example.org/paper/{n}",
            "doi": f"10.1234/bench.{n}",
            "keywords": [_sentence(rng, 1) for _ in range(3)],
            "kind": "inproceedings",
            "abstract": _sentence(rng, 28) + ".",
        },
    }


def write_v2(path: Path, count: int = COUNT, seed: int = 22) -> int:
    """A version-2 bookmarks file as the reader before version 3 wrote it; its size in bytes."""
    rng = random.Random(seed)
    doc = {"version": 2, "bookmarks": [_entry(rng, n) for n in range(count)]}
    data = (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def child(op: str, path: str, n: int) -> None:
    """One measured operation in this process; prints {"s": wall seconds, "rss_mb": peak}.
    "open" and "export" count from the imports on; a change counts from the store open."""
    started = time.perf_counter()
    from tui_reader.corpus.paper import Paper
    from tui_reader.library.bookmarks import BookmarkStore

    store = BookmarkStore(Path(path))
    if op in ("add", "tag", "note", "remove"):
        started = time.perf_counter()  # the change alone: the reader has the store open already
    if op == "add":
        paper = Paper(id=f"new{n}", title="A new paper", abstract=_sentence(random.Random(n), 60))
        store.add(paper.id, paper.title, snapshot=paper)
    elif op == "tag":
        store.add_tags(f"{n:012x}", [f"bench{n}"])
    elif op == "note":
        store.set_note(f"{n:012x}", f"a note {n}")
    elif op == "remove":
        store.remove(f"{n:012x}")
    elif op == "snapshots":  # what an export asks of the store: every snapshot, from the packs
        assert sum(m.snapshot is not None for m in store.all()) >= len(store) - 10
    elif op == "export":
        from tui_reader.library.export import export

        text = export(store.all(), lambda _pid: None, "bibtex")
        assert text.count("\n@") + text.startswith("@") >= len(store) // 2
    elapsed = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"s": elapsed, "rss_mb": rss, "count": len(store)}))


def _run(op: str, path: Path, n: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bookmarks_store", "--child", op, str(path), str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(folder: Path, count: int = COUNT, reps: int = REPS) -> dict[str, object]:
    """{op: [seconds]}, "rss_mb": [peak MB of the changes], "v2_mb", "upgrade_s"."""
    path = folder / "bookmarks.json"
    size = write_v2(path, count)
    upgrade = _run("tag", path, 1)  # the first change: the upgrade to version 3
    out: dict[str, object] = {"v2_mb": size / 2**20, "upgrade_s": upgrade["s"], "rss_mb": []}
    for op in OPS:
        runs = [_run(op, path, 7 + 13 * k) for k in range(1 if op == "export" else reps)]  # export: minutes
        out[op] = [r["s"] for r in runs]
        if op in ("add", "tag", "note", "remove"):
            out["rss_mb"] += [r["rss_mb"] for r in runs]  # type: ignore[operator]
    return out


def rows(workdir: Path, count: int = COUNT) -> list[Row]:
    folder = workdir / "bookmarks-bench"
    got = measure(folder, count)
    note = (
        f"{count:,} bookmarks (a {got['v2_mb']:.0f} MB version-2 file; its upgrade, the first change: "
        f"{got['upgrade_s']:.1f} s); each a fresh process; open: imports + open; a change: the "
        "change alone (bench/bookmarks_store.py)"
    )
    label = f"bookmarks {count // 1000}k:"
    values = {k: v for k, v in got.items() if isinstance(v, list)}
    out = [
        Row(
            "store.open",
            f"{label} open the store",
            "s",
            values["open"],
            [Budget("median", OPEN_S)],
            note=note,
        )
    ]
    out += [
        Row(f"store.{op}", f"{label} one {op}", "s", values[op], [Budget("median", CHANGE_S)])
        for op in ("add", "tag", "note", "remove")
    ]
    out.append(Row("store.snapshots", f"{label} open + read every snapshot", "s", values["snapshots"]))
    out.append(Row("store.export", f"{label} export bibtex (snapshots)", "s", values["export"]))
    out.append(Row("store.rss", f"{label} peak memory of a change", "MB", values["rss_mb"]))
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], int(argv[3]))
        return 0
    count = int(argv[0]) if argv else COUNT
    with tempfile.TemporaryDirectory(prefix="tui-reader-bookmarks-bench-") as tmp:
        got = measure(Path(tmp), count)
    print(f"{count:,} bookmarks, version-2 file {got['v2_mb']:.1f} MB, upgrade {got['upgrade_s']:.2f} s")
    for op in OPS:
        values = got[op]
        assert isinstance(values, list)
        print(f"  {op:7} " + "  ".join(f"{v:.3f}" for v in values) + " s")
    print("  peak memory of a change: " + ", ".join(f"{v:.0f}" for v in got["rss_mb"]) + " MB")  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
