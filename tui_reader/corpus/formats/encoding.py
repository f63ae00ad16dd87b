"""Which encoding a file's bytes are in, and the words a notice names it by.

Most files are UTF-8; a byte order mark settles UTF-16 and UTF-32 (Windows tools write them); a
declared encoding (JabRef's ``% Encoding: GBK`` first line) wins over guessing; only the rest is
guessed, by charset-normalizer, and the notice says the encoding was guessed.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

# Longest first: a UTF-32-LE mark starts with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# JabRef writes "% Encoding: UTF-8" (Java charset names: GBK, ISO8859_1, windows-1252, x-MacRoman)
# on the first line; comment lines may come before it. Read from the raw bytes: it is ASCII.
_DECLARED = re.compile(rb"\A(?:[ \t]*%[^\n]*\n){0,8}?[ \t]*%\s*Encoding:\s*([A-Za-z0-9_.:+-]{2,40})", re.I)
_NAMES = {  # Python codec names as a notice shows them
    "cp1252": "Windows-1252",
    "cp1250": "Windows-1250",
    "cp1251": "Windows-1251",
    "gbk": "GBK",
    "gb18030": "GBK",  # GB18030 is GBK's superset: a GBK file is what users know it as
    "gb2312": "GB2312",
    "big5": "Big5",
    "cp932": "Shift_JIS",
    "shift_jis": "Shift_JIS",
    "euc_jp": "EUC-JP",
    "euc_kr": "EUC-KR",
    "iso8859-1": "ISO-8859-1",
    "latin_1": "ISO-8859-1",
    "mac-roman": "MacRoman",
    "mac_roman": "MacRoman",
}
FALLBACK = "cp1252"  # when nothing fits: every byte decodes, the common Western default


class Decoded(NamedTuple):
    """The text, the codec it was read with, and how that was known: "bom", "utf-8", "declared"
    (a hint or the file's own line), "guessed" or "fallback" (undecodable bytes replaced)."""

    text: str
    codec: str
    how: str


def display_name(codec: str) -> str:
    """'gb18030' -> 'GBK', 'cp1252' -> 'Windows-1252', 'utf-16-le' -> 'UTF-16-LE'."""
    name = codecs.lookup(codec).name if _known(codec) else codec
    return _NAMES.get(name, _NAMES.get(codec.lower(), name.upper().replace("_", "-")))


def _known(codec: str) -> bool:
    try:
        codecs.lookup(codec)
    except LookupError:
        return False
    return True


def _codec(name: str) -> str | None:
    """A declared name as a Python codec ("x-MacRoman" -> "mac-roman"); None when unknown."""
    for candidate in (name, name.removeprefix("x-"), name.replace("_", "-")):
        if _known(candidate):
            return codecs.lookup(candidate).name
    return None


def declared(raw: bytes) -> str | None:
    """The encoding a BibTeX file declares on a leading ``% Encoding:`` line (JabRef), if any."""
    m = _DECLARED.match(raw[:4096])
    return m.group(1).decode("ascii") if m else None


def _bom(raw: bytes) -> str | None:
    return next((codec for bom, codec in _BOMS if raw.startswith(bom)), None)


def guess(raw: bytes) -> str | None:
    """charset-normalizer's best codec; of equally good Western single-byte guesses, Windows-1252
    (it cannot tell cp1250 from cp1252 on a short bibliography, and cp1252 is the common one)."""
    from charset_normalizer import from_bytes  # only a file that is not UTF-8 pays for the import

    matches = list(from_bytes(raw))
    if not matches:
        return None
    best = matches[0]
    for match in matches:
        if (match.chaos, match.coherence) != (best.chaos, best.coherence):
            continue
        if FALLBACK in match.could_be_from_charset or match.encoding == FALLBACK:
            return FALLBACK
    return str(best.encoding)


def decode(raw: bytes, hint: str | None = None) -> Decoded:
    """The bytes as text: a BOM, then the hint (or the file's own declaration), then UTF-8, then a
    guess; a file that fits none is read as Windows-1252 with undecodable bytes replaced."""
    bom = _bom(raw)
    if bom is not None:  # the mark says it; a stray bad unit later is replaced, never guessed at
        text = raw.decode("utf-8-sig" if bom == "utf-8" else bom, errors="replace")
        return Decoded(text.removeprefix("\ufeff"), bom, "bom")
    wanted = _codec(hint or declared(raw) or "")
    if wanted is not None:
        try:
            return Decoded(raw.decode(wanted), wanted, "declared")
        except UnicodeDecodeError:
            pass  # the declaration is wrong (an editor re-saved the file): detect instead
    try:
        return Decoded(raw.decode("utf-8"), "utf-8", "utf-8")
    except UnicodeDecodeError:
        pass
    found = guess(raw)
    if found is not None:
        try:
            return Decoded(raw.decode(found), found, "guessed")
        except (UnicodeDecodeError, LookupError):
            pass
    return Decoded(raw.decode(FALLBACK, errors="replace"), FALLBACK, "fallback")


def notice(name: str, decoded: Decoded) -> str | None:
    """The one-line notice for a file whose encoding was guessed (None when it was known)."""
    shown = display_name(decoded.codec)
    if decoded.how == "guessed":
        return f"{name}: not UTF-8; read as {shown} (guessed)"
    if decoded.how == "fallback":
        return f"{name}: not UTF-8 and no encoding fits; read as {shown} (undecodable bytes replaced)"
    return None
