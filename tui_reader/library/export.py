"""Bookmarks out of the reader: JSON (everything), Markdown (to read), and BibTeX, RIS and CSL-JSON
(to cite; see citation.py).

Each bookmark's paper comes from the open collection when it holds it, else from the snapshot the
bookmark keeps, so an export without the collection open is complete too. A bookmark with neither
(made before snapshots) exports what it has: its title and note.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import date
from pathlib import Path

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import safe_json
from tui_reader.corpus.venues import venue_label
from tui_reader.library.bookmarks import SNAPSHOT, Bookmark
from tui_reader.library.citation import Citation, bibtex, citation
from tui_reader.library.citeformats import csl_json, ris
from tui_reader.library.citekeys import ascii_fold, cite_keys
from tui_reader.library.links import best_link

__all__ = ["FORMATS", "Citation", "bookmark_citation", "citation", "export", "export_papers", "paper_of"]

FORMATS = ("bibtex", "ris", "csl-json", "markdown", "json")


def paper_of(mark: Bookmark, lookup: Callable[[str], Paper | None]) -> tuple[Paper | None, bool]:
    """The bookmark's paper and whether it is the live one: the open collection's, else the
    snapshot's (a copy), else None."""
    live = lookup(mark.id)
    if live is not None:
        return live, True
    if mark.snapshot is None:
        return None, False
    snap = mark.snapshot
    title = snap.title or mark.title
    return replace(snap, title=title, authors=list(snap.authors), keywords=list(snap.keywords)), False


def _cited(mark: Bookmark, paper: Paper | None) -> Paper:
    """What a citation is written from: the paper, or what the bookmark alone knows."""
    return paper if paper is not None else Paper(id=mark.id, title=mark.title, abstract="")


def bookmark_citation(mark: Bookmark, lookup: Callable[[str], Paper | None]) -> Citation:
    """The bookmark's BibTeX entry (its note included) and key, for copying."""
    paper, _live = paper_of(mark, lookup)
    return citation(_cited(mark, paper), mark.note)


def export(
    marks: Iterable[Bookmark],
    lookup: Callable[[str], Paper | None],
    fmt: str,
    tag: str | None = None,
) -> str:
    """The bookmarks (only those tagged ``tag``, compared case-blind, when given) in a format of
    FORMATS. Citation keys are unique within the export (see citekeys)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format: {fmt}")
    chosen = [m for m in marks if tag is None or m.has_tag(tag)]
    found = [(m, *paper_of(m, lookup)) for m in chosen]
    if fmt == "json":
        return _json(found)
    if fmt == "markdown":
        return _markdown(found)
    items = [(_cited(m, paper), m.note) for m, paper, _live in found]
    keys = cite_keys(p for p, _ in items)
    writer = {"bibtex": bibtex, "ris": ris, "csl-json": csl_json}[fmt]
    return writer(items, keys)


def export_papers(papers: list[Paper], fmt: str, notes: dict[str, str] | None = None) -> str:
    """Papers (a search's answer, in its order) in a format of FORMATS; ``notes``: the bookmark
    notes by paper id, written with the citations as a bookmark export writes them."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format: {fmt}")
    notes = notes or {}
    keys = cite_keys(papers)
    if fmt == "json":
        rows = [
            {**p.to_dict(), "key": keys[p.id], **({"note": notes[p.id]} if p.id in notes else {})}
            for p in papers
        ]
        return safe_json(rows, indent=2) + "\n"
    if fmt == "markdown":
        return _papers_markdown(papers, notes)
    writer = {"bibtex": bibtex, "ris": ris, "csl-json": csl_json}[fmt]
    return writer([(p, notes.get(p.id, "")) for p in papers], keys)


def _papers_markdown(papers: list[Paper], notes: dict[str, str]) -> str:
    lines = ["# Papers", ""]
    for paper in papers:
        lines += [f"## {paper.title}", ""]
        meta = [", ".join(paper.authors)] if paper.authors else []
        if paper.venue or paper.year:
            meta.append(venue_label(paper.venue, paper.year))
        lines += [" · ".join([*meta, f"id `{paper.id}`"]), ""]
        if note := notes.get(paper.id):
            lines += ["**Note:** " + "  \n".join(note.split("\n")), ""]
        if paper.abstract:
            lines += ["> " + paper.abstract.replace("\n", "\n> "), ""]
        link = best_link(paper)  # validated: an http(s) URL in printable ASCII, or none
        if link:
            lines += [f"<{link}>", ""]
    return "\n".join(lines)


def _json(found: list[tuple[Bookmark, Paper | None, bool]]) -> str:
    keys = cite_keys(_cited(m, p) for m, p, _live in found)
    out = []
    for mark, paper, live in found:
        entry: dict[str, object] = mark.to_dict()
        entry.pop("paper", None)  # its fields are below, from the live paper when there is one
        entry["in_corpus"] = live
        entry["key"] = keys[mark.id]
        if paper is not None:
            fields = paper.to_dict()
            entry.update({k: fields[k] for k in (*SNAPSHOT, "record") if k != "title" and k in fields})
            entry["title"] = mark.title or paper.title
            if live:
                entry["sources"] = paper.sources
        out.append(entry)
    return safe_json(out, indent=2) + "\n"  # exact, but nothing a terminal would obey


def _markdown(found: list[tuple[Bookmark, Paper | None, bool]]) -> str:
    lines = ["# Bookmarks", ""]
    for mark, paper, _live in found:
        lines.append(f"## {paper.title if paper and paper.title else mark.title}")
        meta = [f"id `{mark.id}`", f"added {mark.added}"]
        if paper and paper.authors:
            meta.insert(0, ", ".join(paper.authors))
        if paper and (paper.venue or paper.year):
            meta.append(venue_label(paper.venue, paper.year))
        lines += ["", " · ".join(meta), ""]
        if mark.tags:
            lines += ["Tags: " + ", ".join(f"`{t}`" for t in mark.tags), ""]
        if mark.note:  # its lines kept: a Markdown hard break ends each
            lines += ["**Note:** " + "  \n".join(mark.note.split("\n")), ""]
        if paper is None:
            lines += ["_(not in the open corpus)_", ""]
            continue
        if paper.abstract:
            lines += ["> " + paper.abstract.replace("\n", "\n> "), ""]
        link = best_link(paper)  # validated: an http(s) URL in printable ASCII, or none
        if link:
            lines += [f"<{link}>", ""]
    return "\n".join(lines)


def export_name(query: str, day: date, suffix: str = ".bib") -> str:
    """``tui-reader-export-<query-slug>-<date>.bib``: the query's words, ASCII, at most 40
    characters ('all' for the whole collection)."""
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_fold(query).lower()))[:40].strip("-") or "all"
    return f"tui-reader-export-{slug}-{day.isoformat()}{suffix}"


def write_new_file(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/name``, never over a file that is there: ``-1``, ``-2``, ...
    before the suffix until a name is free. Written whole to a temp file first, then linked in
    (a link never replaces a file), so a crash leaves no half file under the name."""
    stem, dot, suffix = name.rpartition(".")
    fd, tmp = tempfile.mkstemp(prefix=".tui-reader-export.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        for n in range(10_000):
            target = folder / (name if n == 0 else f"{stem}-{n}{dot}{suffix}")
            try:
                _claim(tmp, target, data)
            except FileExistsError:
                continue
            return target
        raise FileExistsError(f"no free name for {name} in {folder}")
    finally:
        os.unlink(tmp)


def _claim(tmp: str, target: Path, data: bytes) -> None:
    """Put the written temp file under ``target`` unless a file is there (FileExistsError). Where
    hard links are not allowed (FAT, some network shares): create it exclusively and write."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:
        with open(target, "xb") as fh:
            fh.write(data)
