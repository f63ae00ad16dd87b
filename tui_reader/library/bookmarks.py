"""Bookmarks: a versioned JSON file that two running readers can share without losing a write.

Every change is read-merge-write under an exclusive lock, written atomically. A file we cannot
parse is moved aside byte-for-byte and the user told; a file from a newer version is left alone
and the store turns read-only. Bookmarks whose paper is not in the open corpus are kept.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tui_reader.atomic import atomic_write_bytes, file_lock
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.venues import venue_label

VERSION = 1


class ReadOnlyStore(Exception):
    """The file was written by a newer tui-reader; writing would lose what it knows."""


@dataclass(slots=True)
class Bookmark:
    id: str
    title: str
    added: str
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)  # fields we do not know: kept as-is

    def to_dict(self) -> dict[str, object]:
        return {**self.extra, "id": self.id, "title": self.title, "added": self.added, "note": self.note}


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class BookmarkStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_only = False
        self.warnings: list[str] = []
        self._items: dict[str, Bookmark] = {}
        self.reload()

    # -- reading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the file (another process may have changed it)."""
        with file_lock(self.path):
            self._items = self._read()

    def _read(self) -> dict[str, Bookmark]:
        """Parse the file; call with the lock held. Corrupt files are set aside, never rewritten."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.read_only = True
            self.warnings.append(f"cannot read {self.path} ({exc.strerror}); bookmarks are read-only")
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
            version = data.get("version") if isinstance(data, dict) else None
            if not isinstance(version, int):
                raise ValueError("not a versioned bookmarks file")
            if version > VERSION:  # a newer shape we may not understand: read what we can
                self.read_only = True
                self.warnings.append(
                    f"{self.path} is from a newer tui-reader (version {version}); not changing it"
                )
                entries = data.get("bookmarks")
                return self._entries(entries if isinstance(entries, list) else [])
            if not isinstance(data.get("bookmarks"), list):
                raise ValueError("not a bookmarks file")
        except (ValueError, UnicodeDecodeError) as exc:
            backup = self._set_aside()
            self.warnings.append(
                f"{self.path} was corrupt ({exc.__class__.__name__}); kept as {backup.name}, "
                "starting with no bookmarks"
            )
            return {}
        return self._entries(data["bookmarks"])

    @staticmethod
    def _entries(entries: list[object]) -> dict[str, Bookmark]:
        items: dict[str, Bookmark] = {}
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                known = {"id", "title", "added", "note"}
                items[entry["id"]] = Bookmark(
                    entry["id"],
                    str(entry.get("title", "")),
                    str(entry.get("added", "")),
                    str(entry.get("note", "") or ""),
                    {k: v for k, v in entry.items() if k not in known},
                )
        return items

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while backup.exists():
            n += 1
            backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        os.replace(self.path, backup)
        return backup

    # -- queries ----------------------------------------------------------------------------
    def __contains__(self, pid: object) -> bool:
        return pid in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, pid: str) -> Bookmark | None:
        return self._items.get(pid)

    def all(self) -> list[Bookmark]:
        return list(self._items.values())

    def ids(self) -> set[str]:
        return set(self._items)

    # -- changes ----------------------------------------------------------------------------
    def _change(self, apply: Callable[[dict[str, Bookmark]], None]) -> None:
        """Read-merge-write: apply the change to what is on disk now, not to our stale copy."""
        with file_lock(self.path):
            current = self._read()
            if self.read_only:
                self._items = current or self._items
                raise ReadOnlyStore(self.warnings[-1] if self.warnings else str(self.path))
            apply(current)
            payload = {"version": VERSION, "bookmarks": [b.to_dict() for b in current.values()]}
            atomic_write_bytes(self.path, (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode())
            self._items = current

    def add(self, pid: str, title: str, note: str = "") -> Bookmark:
        def apply(items: dict[str, Bookmark]) -> None:
            if pid not in items:
                items[pid] = Bookmark(pid, title, _now(), note)

        self._change(apply)
        return self._items[pid]

    def remove(self, pid: str) -> bool:
        existed = pid in self._items

        def apply(items: dict[str, Bookmark]) -> None:
            items.pop(pid, None)

        self._change(apply)
        return existed

    def toggle(self, pid: str, title: str) -> bool:
        """True if the paper is bookmarked afterwards."""
        self.reload()
        if pid in self._items:
            self.remove(pid)
            return False
        self.add(pid, title)
        return True

    def set_note(self, pid: str, note: str, title: str = "") -> None:
        def apply(items: dict[str, Bookmark]) -> None:
            mark = items.get(pid)
            if mark is None:
                items[pid] = Bookmark(pid, title, _now(), note)
            else:
                mark.note = note

        self._change(apply)


# -- export -----------------------------------------------------------------------------------
def export(marks: Iterable[Bookmark], lookup: Callable[[str], Paper | None], fmt: str) -> str:
    marks = list(marks)
    papers = {m.id: lookup(m.id) for m in marks}
    if fmt == "json":
        out = []
        for m in marks:
            entry: dict[str, object] = m.to_dict()
            paper = papers[m.id]
            entry["in_corpus"] = paper is not None
            if paper:
                entry.update(
                    abstract=paper.abstract,
                    authors=paper.authors,
                    venue=paper.venue,
                    year=paper.year,
                    url=paper.url,
                    sources=paper.sources,
                )
            out.append(entry)
        return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        lines = ["# Bookmarks", ""]
        for m in marks:
            paper = papers[m.id]
            lines.append(f"## {paper.title if paper else m.title}")
            meta = [f"id `{m.id}`", f"added {m.added}"]
            if paper and paper.authors:
                meta.insert(0, ", ".join(paper.authors))
            if paper and (paper.venue or paper.year):
                meta.append(venue_label(paper.venue, paper.year))
            lines += ["", " · ".join(meta), ""]
            if m.note:
                lines += [f"**Note:** {m.note}", ""]
            if paper:
                lines += ["> " + paper.abstract, ""]
                if paper.url:
                    lines += [f"<{paper.url}>", ""]
            else:
                lines += ["_(not in the open corpus)_", ""]
        return "\n".join(lines)
    if fmt == "bibtex":
        return "\n".join(_bibtex(m, papers[m.id]) for m in marks)
    raise ValueError(f"unknown export format: {fmt}")


def _bib_escape(text: str) -> str:
    out = text
    for ch in "\\{}":
        out = out.replace(ch, "")
    for ch in "&%$#_":
        out = out.replace(ch, "\\" + ch)
    return out


def _bibtex(mark: Bookmark, paper: Paper | None) -> str:
    fields = {"title": paper.title if paper else mark.title}
    if paper:
        if paper.authors:
            fields["author"] = " and ".join(paper.authors)
        if paper.year:
            fields["year"] = str(paper.year)
        if paper.venue:
            fields["booktitle"] = paper.venue
        if paper.url:
            fields["url"] = paper.url
        fields["abstract"] = paper.abstract
    if mark.note:
        fields["note"] = mark.note
    body = ",\n".join(f"  {k} = {{{_bib_escape(v)}}}" for k, v in fields.items())
    return f"@misc{{tr_{mark.id},\n{body}\n}}\n"
