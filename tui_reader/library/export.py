"""Bookmarks out of the reader: JSON (everything), Markdown (to read), BibTeX (to cite)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import safe_json
from tui_reader.corpus.venues import venue_label
from tui_reader.library.bookmarks import Bookmark

FORMATS = ("json", "markdown", "bibtex")


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
        return safe_json(out, indent=2) + "\n"  # exact, but nothing a terminal would obey
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
