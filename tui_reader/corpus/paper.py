"""The Paper record every layer shares."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def paper_id(abstract: str, title: str = "") -> str:
    """Stable id from the normalised abstract: same text, same id, whatever file or order.

    A paper listed without an abstract (a BibTeX entry with only a title) takes its id from the
    title instead, in a separate key space, so adding the abstract later gives it a new id."""
    if not abstract and title:
        key = "\x00title\x00" + " ".join(title.split()).casefold()
    else:
        key = " ".join(abstract.split()).casefold()
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


@dataclass(slots=True)
class Paper:
    """One paper. Text fields are already normalised (plain text, no markup, no controls).

    ``abstract`` is empty for a title-only entry (``has_abstract`` is False). ``doi`` is bare
    (``10.1234/x``, no resolver), ``arxiv`` is a bare id (``2101.00001`` or ``hep-th/9901001``),
    ``kind`` is the citation entry type the source gave (``article``, ``inproceedings``, ...)."""

    id: str
    title: str
    abstract: str
    authors: list[str] = field(default_factory=list)
    venue: str = ""
    year: int | None = None
    url: str = ""
    sources: list[str] = field(default_factory=list)
    title_generated: bool = False
    doi: str = ""
    arxiv: str = ""
    keywords: list[str] = field(default_factory=list)
    kind: str = ""

    @property
    def has_abstract(self) -> bool:
        return bool(self.abstract)

    def extra(self) -> dict[str, object]:
        """The citation fields, only those set: most papers have none, so rows stay small."""
        out: dict[str, object] = {}
        if self.doi:
            out["doi"] = self.doi
        if self.arxiv:
            out["arxiv"] = self.arxiv
        if self.keywords:
            out["keywords"] = list(self.keywords)
        if self.kind:
            out["kind"] = self.kind
        return out

    def set_extra(self, extra: object) -> None:
        if not isinstance(extra, dict):
            return
        self.doi = str(extra.get("doi") or "")
        self.arxiv = str(extra.get("arxiv") or "")
        keywords = extra.get("keywords")
        self.keywords = [str(k) for k in keywords] if isinstance(keywords, list) else []
        self.kind = str(extra.get("kind") or "")

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "abstract": self.abstract,
            "authors": list(self.authors),
            "venue": self.venue,
            "year": self.year,
            "url": self.url,
            "doi": self.doi,
            "arxiv": self.arxiv,
            "keywords": list(self.keywords),
            "kind": self.kind,
            "sources": list(self.sources),
            "title_generated": self.title_generated,
        }
