"""Reference engines run beside ours on the same queries: SQLite FTS5 and grep over the raw file."""

from __future__ import annotations

import gzip
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from bench import queries
from tui_reader.corpus.corpus import Corpus

FTS_LIMIT = 20


class Fts5:
    """An FTS5 table over the same normalised text our index sees (title, abstract, authors)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db: sqlite3.Connection | None = None
        self.build_seconds = 0.0

    def build(self, corpus: Corpus) -> float:
        if self.path.exists():
            self.path.unlink()
        started = time.perf_counter()
        db = sqlite3.connect(self.path)
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute(
            "CREATE VIRTUAL TABLE papers USING fts5(title, abstract, authors, tokenize='porter unicode61')"
        )

        def rows() -> Iterator[tuple[int, str, str, str]]:
            for i in range(len(corpus)):
                paper = corpus.paper(i)
                yield i, paper.title, paper.abstract, " ; ".join(paper.authors)

        with db:
            db.executemany("INSERT INTO papers(rowid, title, abstract, authors) VALUES (?,?,?,?)", rows())
        with db:
            db.execute("INSERT INTO papers(papers) VALUES ('optimize')")
        self.build_seconds = time.perf_counter() - started
        self.db = db
        return self.build_seconds

    @property
    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def search(self, match: str) -> list[int]:
        """Top 20 by bm25 with the title weighted as ours is (field boost 2)."""
        assert self.db is not None
        cur = self.db.execute(
            "SELECT rowid FROM papers WHERE papers MATCH ? ORDER BY bm25(papers, 2.0, 1.0, 1.0) LIMIT ?",
            (match, FTS_LIMIT),
        )
        return [r[0] for r in cur.fetchall()]

    def time_queries(self, kind: str, texts: list[str]) -> tuple[list[float], int]:
        """Milliseconds per query that has an FTS5 form; and how many failed to run."""
        out: list[float] = []
        errors = 0
        for q in texts:
            match = queries.fts5(kind, q)
            if match is None:
                continue
            started = time.perf_counter()
            try:
                self.search(match)
            except sqlite3.OperationalError:
                errors += 1
                continue
            out.append((time.perf_counter() - started) * 1000)
        return out, errors

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


class Grep:
    """ripgrep (or grep) counting matching lines of the decompressed corpus, one process a query."""

    def __init__(self, raw: Path, tool: str) -> None:
        self.raw = raw
        self.tool = tool

    @staticmethod
    def find_tool(install: bool = True) -> str | None:
        """rg if present; else one attempt to install it (root with apt-get); else grep."""
        rg = shutil.which("rg")
        if rg:
            return rg
        if install and shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
            subprocess.run(
                ["apt-get", "install", "-y", "-q", "ripgrep"], capture_output=True, check=False, timeout=300
            )
            rg = shutil.which("rg")
            if rg:
                return rg
        return shutil.which("grep")

    @staticmethod
    def raw_copy(corpus_file: Path, workdir: Path) -> Path:
        """The corpus as plain JSON Lines (decompressed once when gzipped)."""
        if not corpus_file.name.endswith(".gz"):
            return corpus_file
        out = workdir / corpus_file.name[:-3]
        with gzip.open(corpus_file, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        return out

    def count(self, literals: list[str]) -> int:
        """Lines containing every literal (case-insensitive); more than one is a pipeline."""
        first, rest = literals[0], literals[1:]
        if not rest:
            done = subprocess.run(
                [self.tool, "-c", "-i", "-F", "-e", first, str(self.raw)], capture_output=True, check=False
            )
            return int(done.stdout.strip() or 0)
        procs: list[subprocess.Popen[bytes]] = [
            subprocess.Popen([self.tool, "-i", "-F", "-e", first, str(self.raw)], stdout=subprocess.PIPE)
        ]
        for lit in rest[:-1]:
            prev = procs[-1].stdout
            procs.append(
                subprocess.Popen([self.tool, "-i", "-F", "-e", lit], stdin=prev, stdout=subprocess.PIPE)
            )
        last = subprocess.run(
            [self.tool, "-c", "-i", "-F", "-e", rest[-1]],
            stdin=procs[-1].stdout,
            capture_output=True,
            check=False,
        )
        for p in procs:
            if p.stdout:
                p.stdout.close()
            p.wait()
        return int(last.stdout.strip() or 0)

    def time_queries(self, kind: str, texts: list[str], limit: int) -> list[float]:
        out: list[float] = []
        step = max(1, len(texts) // max(limit, 1))  # spread over the set (type-ahead is grouped)
        for q in texts[::step]:
            literals = queries.grep(kind, q)
            if not literals:
                continue
            started = time.perf_counter()
            self.count(literals)
            out.append((time.perf_counter() - started) * 1000)
            if len(out) >= limit:
                break
        return out
