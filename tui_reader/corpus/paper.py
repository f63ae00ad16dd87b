"""The Paper record every layer shares."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def paper_id(abstract: str, title: str = "") -> str:
    """Stable id from the normalised abstract: same text, same id, whatever file or order.

    A paper listed without an abstract (a BibTeX entry with only a title) takes its id from the
    title instead, in a separate key space, so adding the abstract later gives it a new id."""
    if not abstract and title:
        key = "\x00title\x00" + _spaced(title).casefold()
    else:
        key = _spaced(abstract).casefold()
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


def _spaced(text: str) -> str:
    """``" ".join(text.split())``, without the split when it would change nothing: printable
    text (no tabs, newlines or other separators but the space) without doubled or edge spaces."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


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
    # The full bibliographic record, shaped as a CSL-JSON item (issue 18): every field the source
    # gave beyond the columns above ("volume", "issue", "page", "publisher", "editor", "issued",
    # "ISBN", "citation-key", ...), and under "custom" what the reader does not model, verbatim.
    record: dict[str, object] = field(default_factory=dict)
    # Ids this paper was known by before (issue 18: the old hash of its abstract or title, and
    # the ids of the records folded into it): bookmarks and read state saved under one still find it.
    aliases: list[str] = field(default_factory=list)
    # What the identity rule compares (identity.Identity.to_json): read when files fold together.
    identity: str = ""

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
        if self.record:
            out["record"] = self.record
        if self.aliases and self.aliases != self._abstract_alias():
            out["aliases"] = list(self.aliases)  # the usual one (its abstract's hash) goes without
        if self.identity:
            out["identity"] = self.identity
        return out

    def set_extra(self, extra: object) -> None:
        if not isinstance(extra, dict):
            return
        self.doi = str(extra.get("doi") or "")
        self.arxiv = str(extra.get("arxiv") or "")
        keywords = extra.get("keywords")
        self.keywords = [str(k) for k in keywords] if isinstance(keywords, list) else []
        self.kind = str(extra.get("kind") or "")
        record = extra.get("record")
        self.record = dict(record) if isinstance(record, dict) else {}
        identity = extra.get("identity")
        self.identity = identity if isinstance(identity, str) else ""
        aliases = extra.get("aliases")
        self.aliases = [str(a) for a in aliases] if isinstance(aliases, list) else self._abstract_alias()

    def _abstract_alias(self) -> list[str]:
        """The id a paper with an abstract had before issue 18 (the abstract's hash: the identity's
        fifth field), unless that is its id still."""
        parts = self.identity.split("\t")
        text = parts[4] if len(parts) == 6 else ""
        return [text] if text and text != self.id else []

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
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
        if self.record:
            out["record"] = dict(self.record)
        return out
