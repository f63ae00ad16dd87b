"""The links a record gives: Mendeley glues several URLs into one field ("http://a http://b"),
RIS repeats UR lines or joins them with ";". Paper.url is the first that is a real web link;
record["links"] keeps all of them, in order, when there is more than one."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from tui_reader.corpus.text import strip_controls

_SPLIT = re.compile(r"[\s;]+")
_SCHEMES = {"http", "https", "ftp"}


def split(values: Iterable[object]) -> list[str]:
    """Every link in the values, in order (one field may hold several); control sequences go
    whole first (a link is data: ``ESC ] 0 ; ... BEL`` must not reach an export or the terminal)."""
    return [part for value in values if value for part in _SPLIT.split(strip_controls(str(value))) if part]


def is_web(link: str) -> bool:
    """An http(s) or ftp URL with a host: what the reader may open (never javascript: or a path)."""
    try:
        parts = urlsplit(link)
    except ValueError:
        return False
    return parts.scheme.lower() in _SCHEMES and bool(parts.netloc) and link.isprintable()


_BARE_HOST = re.compile(r"(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/?#]\S*)?", re.IGNORECASE)


def first_web(links: list[str]) -> str:
    """The first web link; a bare host and path (openreview.net/forum?id=x) is read as https."""
    for link in links:
        if is_web(link):
            return link
        if _BARE_HOST.fullmatch(link) and is_web("https://" + link):
            return "https://" + link
    return ""
