"""Venue strings as the data has them ('icml2019', 'NeurIPS 2023', 'Proc. of CVPR') made into one
name per venue and a year, so ``venue:icml`` finds every ICML paper and ``year:`` works on
collections whose records carry no year.

Pure string work (no Textual, no Whoosh): the loader calls ``split_venue`` once per distinct
string, the index stores ``venue_terms`` so that every alias and old name of a venue matches.
Changing the table changes loaded papers: bump ``loaders.LOADER_VERSION`` (it rebuilds the index).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Venue:
    name: str  # how the reader shows it
    aliases: tuple[str, ...]  # single words, lowercase: indexed, so each one finds the venue
    full: tuple[str, ...] = ()  # longer names, only to recognise the venue in a string


def _v(name: str, aliases: str, *full: str) -> Venue:
    return Venue(name, tuple(aliases.split()), full)


VENUES: tuple[Venue, ...] = (
    # machine learning
    _v("NeurIPS", "neurips nips", "neural information processing systems"),
    _v("ICML", "icml", "international conference on machine learning"),
    _v("ICLR", "iclr", "international conference on learning representations"),
    _v("AISTATS", "aistats", "artificial intelligence and statistics"),
    _v("UAI", "uai", "uncertainty in artificial intelligence"),
    _v("COLT", "colt", "conference on learning theory", "computational learning theory"),
    _v("ALT", "alt", "algorithmic learning theory"),
    _v("ACML", "acml", "asian conference on machine learning"),
    _v("AutoML", "automl", "automated machine learning"),
    _v("MLSys", "mlsys sysml", "conference on machine learning and systems"),
    _v("TMLR", "tmlr", "transactions on machine learning research"),
    _v("JMLR", "jmlr", "journal of machine learning research"),
    _v("COLM", "colm", "conference on language modeling"),
    # artificial intelligence, data, the web
    _v("AAAI", "aaai", "aaai conference on artificial intelligence"),
    _v("IJCAI", "ijcai", "international joint conference on artificial intelligence"),
    _v("KDD", "kdd sigkdd", "knowledge discovery and data mining"),
    _v("WWW", "www thewebconf webconf", "web conference", "world wide web conference"),
    _v("SIGIR", "sigir", "research and development in information retrieval"),
    _v("WSDM", "wsdm", "web search and data mining"),
    _v("CIKM", "cikm", "information and knowledge management"),
    # vision
    _v("CVPR", "cvpr", "computer vision and pattern recognition"),
    _v("ICCV", "iccv", "international conference on computer vision"),
    _v("ECCV", "eccv", "european conference on computer vision"),
    _v("WACV", "wacv", "winter conference on applications of computer vision"),
    _v("BMVC", "bmvc", "british machine vision conference"),
    _v("3DV", "3dv", "international conference on 3d vision"),
    _v("TPAMI", "tpami pami", "transactions on pattern analysis and machine intelligence"),
    _v("IJCV", "ijcv", "international journal of computer vision"),
    _v("MICCAI", "miccai", "medical image computing and computer assisted intervention"),
    # language and speech
    _v(
        "ACL",
        "acl",
        "annual meeting of the association for computational linguistics",
        "association for computational linguistics",
    ),
    _v("EMNLP", "emnlp", "empirical methods in natural language processing"),
    _v("NAACL", "naacl", "north american chapter of the association for computational linguistics"),
    _v("EACL", "eacl", "european chapter of the association for computational linguistics"),
    _v("AACL", "aacl", "asia pacific chapter of the association for computational linguistics"),
    _v("TACL", "tacl", "transactions of the association for computational linguistics"),
    _v("COLING", "coling", "international conference on computational linguistics"),
    _v("CoNLL", "conll", "conference on computational natural language learning"),
    _v("Interspeech", "interspeech"),
    _v("ICASSP", "icassp", "international conference on acoustics speech and signal processing"),
    # robotics
    _v("CoRL", "corl", "conference on robot learning"),
    _v("ICRA", "icra", "international conference on robotics and automation"),
    _v("IROS", "iros", "intelligent robots and systems"),
    _v("RSS", "rss", "robotics science and systems"),
    _v("RA-L", "ral", "robotics and automation letters"),
    # preprints (CoRR is DBLP's name for arXiv)
    _v("arXiv", "arxiv corr"),
)

# The words of a venue's name, its aliases and its full names, folded as _key folds text.
_LOOKUP: dict[str, Venue] = {}
for _venue in VENUES:
    for _phrase in (_venue.name, *_venue.aliases, *_venue.full):
        _LOOKUP.setdefault(" ".join(re.findall(r"[a-z0-9]+", _phrase.lower())), _venue)
_LONGEST = max(len(k.split()) for k in _LOOKUP)

_QUALIFIERS = {"workshop": "Workshop", "workshops": "Workshop", "findings": "Findings"}
_YEAR4 = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_YEAR2 = re.compile(r"(?:(?<=[A-Za-z])|(?<!\S))['’‘`](\d\d)(?!\d)")  # "ICML'19", "ICML '19"
# 'icml19', 'AAAI-22': only after a known venue's name ('COVID-19' is not a year)
_GLUED2 = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*?)-?(\d\d)(?![\w-])")
_ARXIV_ID = re.compile(r"(?<![\d.])(\d\d)(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?(?![\d.])")
_PAPERS = re.compile(r"\s*\b(?:accepted\s+)?papers\s*$", re.IGNORECASE)
_ACRONYM = re.compile(r"[a-z][a-z0-9]{1,4}")


def _key(text: str) -> list[str]:
    """Lowercase words without accents or punctuation: 'Robotics: Science and Systems' and
    'robotics science and systems' are the same key."""
    folded = unicodedata.normalize("NFKD", text.lower())
    return re.findall(r"[a-z0-9]+", folded.encode("ascii", "ignore").decode())


def _two_digit(yy: str) -> int:
    """'19 is 2019, '98 is 1998: venues older than 1950 are not this reader's business."""
    n = int(yy)
    return 2000 + n if n < 50 else 1900 + n


def _take_year(text: str) -> tuple[str, int | None]:
    """The text without its year, and the year (first four-digit one, else an apostrophe one)."""
    if "arxiv" in text.lower():
        m = _ARXIV_ID.search(text)  # 2301.01234 is January 2023, not the year 2301
        if m:
            return text[: m.start()] + text[m.end() :], 2000 + int(m.group(1))
    for pattern, convert in ((_YEAR4, int), (_YEAR2, _two_digit)):
        m = pattern.search(text)
        if m:
            return f"{text[: m.start()]} {text[m.end() :]}", convert(m.group(1))
    for m in _GLUED2.finditer(text):
        if m.group(1).lower() in _LOOKUP:
            return f"{text[: m.start()]}{m.group(1)} {text[m.end() :]}", _two_digit(m.group(2))
    return text, None


def _find(words: list[str]) -> Venue | None:
    """The venue whose longest name appears in the words (the leftmost, among equally long)."""
    for n in range(min(_LONGEST, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            venue = _LOOKUP.get(" ".join(words[i : i + n]))
            if venue is not None:
                return venue
    return None


@lru_cache(maxsize=4096)
def _resolve(text: str) -> tuple[Venue | None, str]:
    """The known venue a year-free string names, and its qualifier ('Workshop', 'Findings').
    After a colon comes the venue itself ('Findings of the ACL: EMNLP'), if it names one."""
    words = _key(text)
    qualifier = next((_QUALIFIERS[w] for w in words if w in _QUALIFIERS), "")
    venue = None
    if ":" in text:
        venue = _find(_key(text.rsplit(":", 1)[1]))
    return venue or _find(words), qualifier


def _tidy(text: str) -> str:
    """An unknown venue, readable: no empty brackets, stray punctuation or doubled spaces."""
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
    text = _PAPERS.sub("", " ".join(text.split()))
    text = re.sub(r"\s+([,;:.)\]])", r"\1", text)
    text = text.strip(" ,;:-–—/(").strip()
    return text.upper() if _ACRONYM.fullmatch(text) else text


@lru_cache(maxsize=4096)
def split_venue(raw: str) -> tuple[str, int | None]:
    """('ICML', 2019) from 'icml2019', "ICML '19", 'Proceedings of the 36th International
    Conference on Machine Learning 2019'; a string naming no known venue keeps its own words."""
    text, year = _take_year(" ".join(raw.split()))
    venue, qualifier = _resolve(text)
    if venue is None:
        return _tidy(text), year
    return f"{venue.name} {qualifier}".strip(), year


@lru_cache(maxsize=4096)
def venue_terms(name: str) -> str:
    """The words to index for a venue name: the name and every alias of its venue ('NeurIPS'
    gives 'NeurIPS nips'), so old names and acronyms find the same papers."""
    venue, _ = _resolve(name)
    if venue is None:
        return name
    have = set(_key(name))
    return " ".join([name, *(a for a in venue.aliases if a not in have)])


def venue_label(name: str, year: int | None) -> str:
    """Venue and year as one line for display: 'ICML 2019'."""
    if year and str(year) not in name:
        return f"{name} {year}".strip()
    return name
