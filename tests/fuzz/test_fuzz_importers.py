"""Fuzz each importer with mutations of its real files, through the real loader.

For any bytes: load_corpus never raises (a bad file is warnings), never hangs, builds papers
whose text holds no control characters and whose link is empty or a real http(s)/file URL; and
the parse cache gives the same papers as reading without it (written once, then read)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from fuzzing import (
    FIXTURES,
    SEEDS,
    bad_chars,
    mutated,
    no_hang,
    run,
    tally,
    url_problem,
)
from hypothesis import strategies as st

from bench import corpusgen
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper


def _seed_text(path: Path, paragraphs: int = 6) -> bytes:
    """A seed file's header and first paragraphs (the whole file is slow to fuzz)."""
    return b"\n\n".join(path.read_bytes().split(b"\n\n")[: paragraphs + 1]) + b"\n"


def _jsonl() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return corpusgen.write(Path(tmp) / "p.jsonl", 5).read_bytes()


def _fixtures(*patterns: str) -> list[bytes]:
    return [p.read_bytes() for pat in patterns for p in sorted(FIXTURES.glob(pat))]


TARGETS: dict[str, tuple[list[bytes], list[str]]] = {
    "bibtex": (_fixtures("*.bib"), ["in.bib"]),
    "ris": (_fixtures("*.ris"), ["in.ris"]),
    "csljson": (_fixtures("*.json"), ["in.json", "in.csl.json"]),
    "jsonl": ([_jsonl()], ["in.jsonl"]),
    "seedtext": ([_seed_text(p) for p in sorted(SEEDS.glob("*.txt"))], ["in.txt"]),
    "arxiv": (_fixtures("arxiv-*.jsonl"), ["arxiv-snapshot.jsonl", "in.json"]),
}
EVERY = [seed for seeds, _ in TARGETS.values() for seed in seeds]


# Known bugs (test_regressions.py, xfail): RIS and JSON keep unread fields raw under
# record["custom"], CSL-JSON its item id as the citation key. Remove once those pass.
KNOWN_VERBATIM: tuple[str, ...] = ()  # none left: records are cleaned where they are built


def record_strings(value: object, where: str = "") -> list[tuple[str, str]]:
    """Every string in a paper's record (keys too), with where it is."""
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += [*record_strings(k, where + "/key"), *record_strings(v, f"{where}/{k}")]
        return out
    if isinstance(value, list | tuple):
        return [found for i, v in enumerate(value) for found in record_strings(v, f"{where}/{i}")]
    return []


def paper_problems(paper: Paper) -> list[str]:
    """What a built paper must never hold: controls in its text, a bad link target."""
    found = []
    fields: list[tuple[str, str, bool]] = [
        ("title", paper.title, False),
        ("abstract", paper.abstract, True),
        ("venue", paper.venue, False),
        ("doi", paper.doi, False),
        ("arxiv", paper.arxiv, False),
        ("kind", paper.kind, False),
        ("id", paper.id, False),
    ]
    fields += [("author", a, False) for a in paper.authors]
    fields += [("keyword", k, False) for k in paper.keywords]
    for name, value, newline in fields:
        bad = bad_chars(value, newline)
        if bad:
            found.append(f"{name} {value[:80]!r} holds {sorted(set(bad))!r}")
    for where, value in record_strings(paper.record):
        if where.startswith(KNOWN_VERBATIM) and not any(s.endswith(".bib") for s in paper.sources):
            continue  # a known bug (test_regressions.py, xfail): remove once those pass
        bad = bad_chars(value, newline=True)
        if bad:
            found.append(f"record[{where}] {value[:80]!r} holds {sorted(set(bad))!r}")
    why = url_problem(paper.url)
    if why:
        found.append(f"url {paper.url[:80]!r}: {why}")
    return found


def load(folder: Path, use_cache: bool) -> tuple[list[dict[str, object]], list[str]]:
    corpus = load_corpus([folder], use_cache=use_cache)
    try:
        papers = list(corpus)
        problems = [p for paper in papers for p in paper_problems(paper)]
        assert not problems, problems
        for w in corpus.warnings:
            assert isinstance(w, str) and not bad_chars(w, newline=False), w
        return [p.to_dict() for p in papers], list(corpus.warnings)
    finally:
        corpus.close()


def check_file(data: bytes, name: str, cache: bool = True) -> None:
    """Load ``data`` as a file called ``name``: the properties above."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        (folder / name).write_bytes(data)
        with no_hang():
            plain, warnings = load(folder, use_cache=False)
        if not cache:
            return
        tally(f"papers: {min(len(plain), 5)}{'+' if len(plain) >= 5 else ''}")
        tally("warned" if warnings else "no warning")
        old = os.environ.get("TUI_READER_CACHE_DIR")
        os.environ["TUI_READER_CACHE_DIR"] = str(Path(tmp) / "cache")
        try:
            with no_hang():
                written, _ = load(folder, use_cache=True)
                read, _ = load(folder, use_cache=True)
        finally:
            if old is None:
                del os.environ["TUI_READER_CACHE_DIR"]
            else:
                os.environ["TUI_READER_CACHE_DIR"] = old
        assert written == plain
        assert read == plain


@pytest.mark.parametrize("target", list(TARGETS))
def test_importer_never_fails(target: str) -> None:
    seeds, names = TARGETS[target]
    files = st.tuples(mutated(seeds, EVERY), st.sampled_from(names))
    run(target, files, lambda file: check_file(*file))


@pytest.mark.parametrize("target", list(TARGETS))
def test_the_seeds_load_clean(target: str) -> None:
    """The unmutated seeds pass the same checks (so a finding is the mutation's)."""
    seeds, names = TARGETS[target]
    for seed in seeds:
        check_file(seed, names[0], cache=False)
