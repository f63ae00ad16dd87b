"""Every value that becomes a link target (a terminal hyperlink, the browser, the clipboard) goes
through here: validated, and percent-encoded to printable ASCII, or no link at all.

A link target is written raw into an OSC 8 escape sequence and handed to $BROWSER, so a DOI
holding ``ESC ] 0 ; ... BEL`` would rename the terminal. Nothing that fails validation is
"cleaned up" into a link: a value with a control character, a space, an unknown scheme or no
host gives None.

The record's ``url`` may be a web address, a bare DOI (``10.1145/3292500.3330701``, ``doi:10.…``),
or an arXiv id (``arXiv:2101.00001v2``, ``cs/0112017``); only http(s) links come out of it (a local
path or ``javascript:`` is no link). A paper's best link is its url, else its DOI at doi.org,
else its arXiv abstract page. Local attachments become ``file://`` URLs (file_link).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import SplitResult, quote, urlsplit

from tui_reader.corpus.paper import Paper

_DOI = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+|10/[a-z0-9]+)$", re.IGNORECASE)
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ARXIV = re.compile(rf"^(?:arxiv:\s*)?({_ARXIV_NEW}|{_ARXIV_OLD})$", re.IGNORECASE)
_HOST = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/:?#]\S*)?$", re.IGNORECASE)
_HOSTNAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")
_IPV6 = re.compile(r"^\[[0-9a-f:.]+\]$", re.IGNORECASE)
# \url{...} / \href{...}{...} / <...> around a link as LaTeX and Markdown write it, and
# "\urlhttps://..." (the braces dropped); only the whole value: "urlhttps://..." left by a LaTeX
# decoder that ate the backslash is no link
_WRAPPED = re.compile(
    r"^(?:\\url\s*\{(.*)\}|\\url(https?://.*)|\\href\s*\{(.*?)\}\s*\{.*\}|<(.*)>)$", re.DOTALL
)
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_FILE_ENDINGS = {"pdf", "ps", "txt", "htm", "html", "gz", "zip", "bib", "json", "xml", "md", "tex"}
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
MAX_LINK = 2000


def _printable(text: str) -> bool:
    """No control, format (bidi, zero-width) or space character anywhere."""
    return bool(text) and len(text) <= MAX_LINK and all(c.isprintable() and not c.isspace() for c in text)


def _encode(part: str, safe: str) -> str:
    return quote(_LONE_PERCENT.sub("%25", part), safe=safe)


def _host(netloc: str) -> str | None:
    """The host[:port] of a URL in ASCII (IDNA for a non-ASCII name); None when it is not one.
    User info (``user@``) is refused: ``https://doi.org@evil.example`` goes to evil.example."""
    if "@" in netloc or not netloc:
        return None
    host, port = netloc, ""
    if not _IPV6.match(netloc) and netloc.count(":") == 1:
        host, port = netloc.split(":")
        if not port.isascii() or not port.isdigit() or int(port) > 65535:
            return None
        port = ":" + port
    if _IPV6.match(host):
        return host + port
    try:
        ascii_host = host.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    return ascii_host + port if _HOSTNAME.match(ascii_host) and "." in ascii_host else None


def _split(text: str) -> SplitResult | None:
    """urlsplit, or None for what it refuses ("http://[" raises ValueError)."""
    try:
        return urlsplit(text)
    except ValueError:
        return None


def safe_url(raw: str) -> str | None:
    """An http(s) URL as printable ASCII (path, query and fragment percent-encoded, the host in
    IDNA), or None when ``raw`` is not one."""
    text = raw.strip()
    if not _printable(text):
        return None
    parts = _split(text)
    if parts is None or parts.scheme.lower() not in ("http", "https"):
        return None
    host = _host(parts.netloc)
    if host is None:
        return None
    url = f"{parts.scheme.lower()}://{host}{_encode(parts.path, _PATH_SAFE)}"
    if parts.query:
        url += "?" + _encode(parts.query, _QUERY_SAFE)
    if parts.fragment:
        url += "#" + _encode(parts.fragment, _QUERY_SAFE)
    return url if len(url) <= MAX_LINK else None


def doi_link(doi: str) -> str | None:
    """https://doi.org/DOI for a DOI (bare, ``doi:`` or a resolver URL; a short ``10/abc`` too)."""
    text = doi.strip()
    m = _DOI.match(text) if _printable(text) else None
    return safe_url("https://doi.org/" + quote(m.group(1), safe="/:;()._-")) if m else None


def arxiv_link(arxiv: str) -> str | None:
    """The abstract page of an arXiv id (``arXiv:`` prefix and version allowed)."""
    m = _ARXIV.match(arxiv.strip())
    return f"https://arxiv.org/abs/{m.group(1)}" if m else None


def _unwrapped(text: str) -> str:
    m = _WRAPPED.match(text)
    if not m:
        return text
    return next(g for g in m.groups() if g is not None).strip()


def paper_link(raw: str) -> str | None:
    """The http(s) address to open for a record's url field, or None when it holds none."""
    text = _unwrapped(raw.strip())
    if not _printable(text):
        return None
    found = doi_link(text) or arxiv_link(text)
    if found:
        return found
    parts = _split(text)
    if parts is None:
        return None
    if parts.scheme.lower() in ("http", "https"):
        return safe_url(text)
    if _HOST.match(text):  # "openreview.net/forum?id=…", "www.example.org/paper.pdf"
        host = re.split(r"[/:?#]", text, maxsplit=1)[0]
        if host.rsplit(".", 1)[-1].lower() not in _FILE_ENDINGS:  # "paper.pdf" is a file name
            return safe_url("https://" + text)
    return None


def best_link(paper: Paper) -> str | None:
    """What ``o`` opens and ``L`` copies: the url, else https://doi.org/DOI, else the arXiv page."""
    return (
        (paper_link(paper.url) if paper.url else None)
        or (doi_link(paper.doi) if paper.doi else None)
        or (arxiv_link(paper.arxiv) if paper.arxiv else None)
    )


def extra_links(paper: Paper, limit: int = 3) -> list[str]:
    """The record's other links (``record["links"]`` after the first), valid ones only."""
    links = paper.record.get("links")
    if not isinstance(links, list):
        return []
    first = best_link(paper)
    out: list[str] = []
    for item in links:
        link = paper_link(item) if isinstance(item, str) else None
        if link and link != first and link not in out:
            out.append(link)
    return out[:limit]


# -- attachments ---------------------------------------------------------------------------------
def attachments(paper: Paper) -> list[Mapping[str, object]]:
    """The record's ``file`` entries that name a path, PDFs first (what ``o`` opens)."""
    files = paper.record.get("file")
    if not isinstance(files, list):
        return []
    found = [f for f in files if isinstance(f, dict) and isinstance(f.get("path"), str) and f["path"].strip()]
    return sorted(found, key=lambda f: not is_pdf(f))


def is_pdf(entry: Mapping[str, object]) -> bool:
    mime, path = str(entry.get("mime") or "").lower(), str(entry.get("path") or "").lower()
    return "pdf" in mime or path.endswith(".pdf")


def attachment_paths(paper: Paper, folders: Iterable[Path]) -> list[Path]:
    """Where the paper's attachments would be: absolute paths as written (``~`` expanded),
    relative ones under each folder the paper's source files are in. No file is touched here."""
    folders = list(folders)
    out: list[Path] = []
    for entry in attachments(paper):
        written = Path(os.path.expanduser(str(entry["path"]).strip()))
        places = [written] if written.is_absolute() else [Path(os.path.abspath(f / written)) for f in folders]
        out += [p for p in places if p not in out]
    return out


def file_link(path: Path) -> str | None:
    """A file:// URL for an absolute local path (every unsafe byte percent-encoded)."""
    if not path.is_absolute() or "\x00" in str(path):
        return None
    try:
        url = path.as_uri()
    except ValueError:
        return None
    return url if url.isascii() and _printable(url) else None


def existing_file(paths: Iterable[Path]) -> Path | None:
    """The first path that is a regular file (never a FIFO or device: a browser would hang on
    one). Touches the disk: call it in a worker."""
    import stat

    for path in paths:
        try:
            if stat.S_ISREG(os.stat(path).st_mode):
                return path
        except (OSError, ValueError):
            continue
    return None
