"""The Paper record every layer shares."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def paper_id(abstract: str) -> str:
    """Stable id from the normalised abstract: same text, same id, whatever file or order."""
    key = " ".join(abstract.split()).casefold()
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


@dataclass(slots=True)
class Paper:
    """One paper. Text fields are already normalised (plain text, no markup, no controls)."""

    id: str
    title: str
    abstract: str
    authors: list[str] = field(default_factory=list)
    venue: str = ""
    year: int | None = None
    url: str = ""
    sources: list[str] = field(default_factory=list)
    title_generated: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "abstract": self.abstract,
            "authors": list(self.authors),
            "venue": self.venue,
            "year": self.year,
            "url": self.url,
            "sources": list(self.sources),
            "title_generated": self.title_generated,
        }

    def to_tuple(self) -> tuple[object, ...]:
        """Compact form for the parse cache (pickles faster than a dict)."""
        return (
            self.id,
            self.title,
            self.abstract,
            self.authors,
            self.venue,
            self.year,
            self.url,
            self.sources,
            self.title_generated,
        )

    @classmethod
    def from_tuple(cls, row: tuple) -> Paper:  # type: ignore[type-arg]
        pid, title, abstract, authors, venue, year, url, sources, generated = row
        return cls(pid, title, abstract, list(authors), venue, year, url, list(sources), generated)
