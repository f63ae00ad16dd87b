"""A paper's link, from whatever its record holds: a URL, a DOI or an arXiv id.

The record's ``url`` is the first of url, link, pdf, pdf_url, doi that it has (see
corpus/formats/jsonfmt.py), so it may be a web address, a bare DOI (``10.1145/3292500.3330701``,
``doi:10.…``), or an arXiv id (``arXiv:2101.00001v2``, ``cs/0112017``). Only http(s) links come
out: anything else (a local path, ``javascript:``) is no link at all.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

_DOI = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ARXIV = re.compile(rf"^(?:arxiv:\s*)?({_ARXIV_NEW}|{_ARXIV_OLD})$", re.IGNORECASE)
_HOST = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/:?#]\S*)?$", re.IGNORECASE)
_FILE_ENDINGS = {"pdf", "ps", "txt", "htm", "html", "gz", "zip", "bib", "json", "xml", "md", "tex"}
MAX_LINK = 2000


def paper_link(raw: str) -> str | None:
    """The http(s) address to open for a record's url field, or None when it holds none."""
    text = raw.strip()
    if not text or len(text) > MAX_LINK or any(c.isspace() or not c.isprintable() for c in text):
        return None
    doi = _DOI.match(text)
    if doi:
        return "https://doi.org/" + quote(doi.group(1), safe="/:;()._-")
    arxiv = _ARXIV.match(text)
    if arxiv:
        return f"https://arxiv.org/abs/{arxiv.group(1)}"
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("http", "https"):
        return text if urlsplit(text).netloc else None
    if _HOST.match(text):  # "openreview.net/forum?id=…", "www.example.org/paper.pdf"
        host = re.split(r"[/:?#]", text, maxsplit=1)[0]
        if host.rsplit(".", 1)[-1].lower() not in _FILE_ENDINGS:  # "paper.pdf" is a file name
            return "https://" + text
    return None
