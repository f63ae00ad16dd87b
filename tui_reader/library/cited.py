"""Which papers a draft already cites: the works behind its citation keys, compared with the
collection's papers by the identity rule (corpus/identity.py: DOI, then arXiv id, then title,
first author and year; another file's citation key never makes two records one work).

The works come from the draft's bibliography (``--bib FILE``, else the ``.bib`` files the draft
names next to it) and from the user's bookmarks, whose keys are those ``bookmarks export
--format bibtex`` writes. A key is looked up in the bibliography first, then in the bookmarks.

A draft with citation keys cites exactly the entries those keys name: a ``.bib`` is often a
shared one, and an entry the draft does not cite is one it is missing. A draft without any key
(plain text, or a draft before its citations) counts every entry of the given bibliography as
cited: the ``.bib`` is then the list of what the author has already.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tui_reader.corpus import formats
from tui_reader.corpus.formats.common import shown
from tui_reader.corpus.identity import Identity, same_work
from tui_reader.corpus.paper import Paper
from tui_reader.library.bookmark import Bookmark
from tui_reader.library.citekeys import cite_keys, source_key
from tui_reader.library.export import paper_of

__all__ = ["Cited", "bib_entries", "resolve"]

Lookup = Callable[[str], Paper | None]


@dataclass(slots=True)
class Cited:
    """The works a draft cites, as far as they are known."""

    works: list[Identity] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)  # paper ids known cited (bookmarks)
    keys: tuple[str, ...] = ()  # the draft's citation keys
    found: int = 0  # keys (or, without keys, bibliography entries) resolved to a work
    unknown: tuple[str, ...] = ()  # keys neither the bibliography nor the bookmarks know
    sources: list[str] = field(default_factory=list)  # where the works came from, as shown
    warnings: list[str] = field(default_factory=list)

    def cites(self, paper: Paper) -> bool:
        """Whether ``paper`` is one of the cited works."""
        if paper.id in self.ids or any(a in self.ids for a in paper.aliases):
            return True
        if not self.works:
            return False
        own = Identity.from_json(paper.identity)
        return any(same_work(own, work, same_file=False) for work in self.works)

    @property
    def summary(self) -> str:
        """One line: what was resolved, from where ("3 of 4 cited keys known (refs.bib, bookmarks)")."""
        where = f" ({', '.join(self.sources)})" if self.sources else ""
        if self.keys:
            return f"{self.found} of {len(self.keys)} cited keys known{where}"
        if self.found:
            return f"no citation keys in the draft: every entry counts as cited, {self.found}{where}"
        return "no citation keys in the draft"


def bib_entries(path: Path, warnings: list[str]) -> list[Paper]:
    """The entries of a bibliography (.bib, or any citation file the reader opens), read by the
    collection's own readers; problems go to ``warnings``."""
    text = formats.read_text(path, warnings)
    if text is None:
        return []
    papers = []
    for _key, payload in formats.records(path, text, warnings):
        paper = formats.build(path, payload)
        if paper is not None:
            papers.append(paper)
    return papers


def resolve(
    keys: Sequence[str],
    bibliographies: Iterable[Path] = (),
    marks: Iterable[Bookmark] = (),
    lookup: Lookup = lambda _pid: None,
) -> Cited:
    """The works the draft's ``keys`` name: in ``bibliographies`` first, then among the bookmarks
    (their export keys). Without keys: every entry of the bibliographies."""
    cited = Cited(keys=tuple(keys))
    entries: list[Paper] = []
    for path in bibliographies:
        if not path.is_file():
            cited.warnings.append(f"{shown(path)}: no such bibliography; its keys are not known")
            continue
        entries += bib_entries(path, cited.warnings)
        cited.sources.append(path.name)
    if not keys:
        cited.works = [Identity.from_json(p.identity) for p in entries]
        cited.found = len(entries)
        return cited
    wanted = {k.casefold(): k for k in keys}  # BibTeX matches keys case-blind
    known: set[str] = set()
    for paper in entries:
        key = source_key(paper).casefold()
        if key in wanted:
            cited.works.append(Identity.from_json(paper.identity))
            known.add(key)
    _from_bookmarks(cited, wanted, known, list(marks), lookup)
    cited.found = len(known)
    cited.unknown = tuple(k for k in keys if k.casefold() not in known)
    return cited


def _from_bookmarks(
    cited: Cited, wanted: dict[str, str], known: set[str], marks: list[Bookmark], lookup: Lookup
) -> None:
    """Keys the bibliography did not name, resolved to bookmarked papers by their export keys."""
    left = {k for k in wanted if k not in known}
    if not left or not marks:
        return
    papers = {m.id: paper_of(m, lookup)[0] or Paper(id=m.id, title=m.title, abstract="") for m in marks}
    used = False
    for pid, key in cite_keys(papers.values()).items():
        if key.casefold() in left:
            cited.ids.add(pid)
            if papers[pid].identity:
                cited.works.append(Identity.from_json(papers[pid].identity))
            known.add(key.casefold())
            used = True
    if used:
        cited.sources.append("bookmarks")
