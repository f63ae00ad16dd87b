"""RIS TY codes as the reader's kinds (BibTeX entry types) and as CSL types, EndNote's
spelled-out names for them, and the date shapes RIS tools write."""

from __future__ import annotations

import re

# TY codes as BibTeX entry types, so a kind reads the same whatever format it came from.
KINDS = {
    "JOUR": "article",
    "EJOUR": "article",
    "JFULL": "article",
    "MGZN": "article",
    "NEWS": "article",
    "INPR": "article",
    "CONF": "inproceedings",
    "CPAPER": "inproceedings",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "incollection",
    "ECHAP": "incollection",
    "THES": "phdthesis",
    "RPRT": "techreport",
    "UNPB": "unpublished",
    "MANSCPT": "unpublished",
    "ELEC": "online",
    "WEB": "online",
    "BLOG": "online",
    "GEN": "misc",
    "DATA": "dataset",
    "DBASE": "dataset",
    "AGGR": "dataset",
    "COMP": "software",
    "PAT": "patent",
}
# TY codes as CSL types (RECORD.md "type").
CSL_TYPES = {
    "JOUR": "article-journal",
    "EJOUR": "article-journal",
    "JFULL": "article-journal",
    "INPR": "article-journal",
    "ABST": "article-journal",
    "MGZN": "article-magazine",
    "NEWS": "article-newspaper",
    "CONF": "paper-conference",
    "CPAPER": "paper-conference",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "chapter",
    "ECHAP": "chapter",
    "THES": "thesis",
    "RPRT": "report",
    "GOVDOC": "report",
    "UNPB": "manuscript",
    "MANSCPT": "manuscript",
    "ELEC": "webpage",
    "WEB": "webpage",
    "BLOG": "post-weblog",
    "GEN": "document",
    "DATA": "dataset",
    "DBASE": "dataset",
    "AGGR": "dataset",
    "COMP": "software",
    "PAT": "patent",
    "ENCYC": "entry-encyclopedia",
    "DICT": "entry-dictionary",
    "MAP": "map",
    "STAND": "standard",
    "SLIDE": "speech",
    "PCOMM": "personal_communication",
    "ICOMM": "personal_communication",
    "CASE": "legal_case",
    "BILL": "bill",
    "STAT": "legislation",
    "HEAR": "hearing",
    "VIDEO": "motion_picture",
    "MPCT": "motion_picture",
    "SOUND": "song",
    "ART": "graphic",
    "SER": "periodical",
}
# EndNote (and tools that copy it) spell the type out: "TY  - Journal Article".
SPELLED = {
    "journal article": "JOUR",
    "electronic article": "EJOUR",
    "magazine article": "MGZN",
    "newspaper article": "NEWS",
    "conference paper": "CPAPER",
    "conference proceedings": "CONF",
    "book": "BOOK",
    "edited book": "EDBOOK",
    "electronic book": "EBOOK",
    "book section": "CHAP",
    "electronic book section": "ECHAP",
    "thesis": "THES",
    "report": "RPRT",
    "government document": "GOVDOC",
    "unpublished work": "UNPB",
    "manuscript": "MANSCPT",
    "web page": "ELEC",
    "generic": "GEN",
    "dataset": "DATA",
    "computer program": "COMP",
    "patent": "PAT",
}

_DATE = re.compile(r"(\d{4})?(?:[/-](\d{1,2})?(?:[/-](\d{1,2})?)?)?")
_MONTHS = {m: n for n, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN"), 1)} | {
    m: n for n, m in enumerate(("JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 7)
}
_WORD_DATE = re.compile(r"([A-Za-z]{3})[a-z]*\.?(?:\s+(\d{1,2}))?(?:,?\s+(\d{4}))?")  # WoS "MAY 28"


def date_parts(value: str) -> list[int] | None:
    """[year, month?, day?] from "2015/05//", "2021/07/01/", "2019-03-01", "MAY 28" or "2015"."""
    value = value.strip()
    m = _DATE.fullmatch(value.rstrip("/"))
    if m and m.group(1):
        parts = [int(g) for g in m.groups() if g]
        valid = len(parts) < 2 or (1 <= parts[1] <= 12 and (len(parts) < 3 or 1 <= parts[2] <= 31))
        return parts if valid else None
    word = _WORD_DATE.fullmatch(value)
    if word and word.group(1).upper() in _MONTHS:
        year = [int(word.group(3))] if word.group(3) else [0]  # 0: the year another tag gives
        day = [int(word.group(2))] if word.group(2) else []
        return [*year, _MONTHS[word.group(1).upper()], *day]
    return None  # "2015 Spring": not date-parts; kept verbatim
