"""The query set: drawn from the corpus's own words with a fixed seed, so runs compare.

Kinds: single term, two-term AND, phrase, field (title:x), fuzzy (word~), prefix (word*) and
type-ahead (the text after each keystroke of the first words of real titles). Every kind is also
translated for the reference engines: an FTS5 MATCH expression and literal strings for grep
(None: no equivalent).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from tui_reader.corpus.corpus import Corpus

SEED = 1729
KINDS = ("term", "and", "phrase", "field", "fuzzy", "prefix", "typeahead")
ENTER_KINDS = tuple(k for k in KINDS if k != "typeahead")
_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_TOKEN = re.compile(r"\w+")
STOPWORDS = frozenset(
    str.split("""
a about above after again against all also although among an and any are as at be because been
before being below between both but by can could did do does doing done during each either else
even ever every few for from further had has have having here how however if in into is it its
itself just less many may might more most much must neither no nor not now of off on once only
or other others our out over own per rather same several shall should since so some such than
that the their them then there these they this those through thus to too under until up upon us
very via was we well were what when where whether which while who whom whose why will with within
without would yet you your tbd show shows shown paper propose proposed present presents work use
used uses using based new first two three one results result different various given make makes
""")
)


@dataclass(slots=True)
class QuerySet:
    seed: int
    queries: dict[str, list[str]] = field(default_factory=dict)
    typeahead_titles: list[str] = field(default_factory=list)

    def count(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.queries.items()}


def _sample_rows(corpus: Corpus, rng: random.Random, k: int) -> list[int]:
    n = len(corpus)
    return sorted(rng.sample(range(n), min(k, n)))


def _doc_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def build(corpus: Corpus, per_kind: int, titles: int, seed: int = SEED, sample: int = 3000) -> QuerySet:
    """``per_kind`` queries of each kind but type-ahead, which gets every prefix of ``titles``
    title openings (2-3 words each)."""
    rng = random.Random(seed)
    rows = _sample_rows(corpus, rng, sample)
    texts = {r: corpus.titles[r] + " " + corpus.abstract(r) for r in rows}
    df: Counter[str] = Counter()
    for text in texts.values():
        df.update({w for w in _doc_words(text) if w not in STOPWORDS})
    # Frequent but not stop words: the top of the vocabulary, past the near-universal few.
    # Ties broken by the word itself: set order varies with PYTHONHASHSEED, the query set must not.
    ranked = [w for w, c in sorted(df.items(), key=lambda wc: (-wc[1], wc[0])) if c >= 3]
    pool = ranked[5:2000] or ranked or ["model"]

    qs = QuerySet(seed)
    qs.queries["term"] = [rng.choice(pool) for _ in range(per_kind)]

    pool_set = set(pool)
    pairs: list[str] = []
    for _ in range(per_kind * 50):
        if len(pairs) >= per_kind:
            break
        words = sorted({w for w in _doc_words(texts[rng.choice(rows)]) if w in pool_set})
        if len(words) >= 2:
            a, b = rng.sample(words, 2)
            pairs.append(f"{a} {b}")
    qs.queries["and"] = pairs

    phrases: list[str] = []
    for _ in range(per_kind * 50):
        if len(phrases) >= per_kind:
            break
        tokens = _TOKEN.findall(texts[rng.choice(rows)])
        bigrams = [(a.lower(), b.lower()) for a, b in itertools.pairwise(tokens) if _plain(a) and _plain(b)]
        if bigrams:
            a, b = rng.choice(bigrams)
            phrases.append(f'"{a} {b}"')
    qs.queries["phrase"] = phrases

    title_words = [w for r in rows for w in _doc_words(corpus.titles[r]) if w not in STOPWORDS]
    qs.queries["field"] = [f"title:{rng.choice(title_words or pool)}" for _ in range(per_kind)]

    long_words = [w for w in pool if len(w) >= 5] or pool
    qs.queries["fuzzy"] = [_typo(rng, rng.choice(long_words)) + "~" for _ in range(per_kind)]

    qs.typeahead_titles = [corpus.titles[r] for r in _sample_rows(corpus, rng, titles)]
    qs.queries["typeahead"] = [q for t in qs.typeahead_titles for q in keystrokes(t, rng)]

    # Drawn last, so that adding this kind left the earlier kinds' queries as they were.
    stems = [w for w in pool if len(w) >= 6] or pool
    qs.queries["prefix"] = [_prefix(rng, rng.choice(stems)) + "*" for _ in range(per_kind)]
    qs.queries = {k: qs.queries[k] for k in KINDS}
    return qs


def _prefix(rng: random.Random, word: str) -> str:
    """The first 5-7 letters of the word, always short of the whole word when it can be."""
    top = max(1, min(7, len(word) - 1))
    return word[: rng.randint(min(5, top), top)]


def _plain(token: str) -> bool:
    return token.isalpha() and len(token) >= 3 and token.lower() not in STOPWORDS


def _typo(rng: random.Random, word: str) -> str:
    """Half of the fuzzy queries carry one edit past the second letter (the core keeps a prefix)."""
    if rng.random() < 0.5 or len(word) < 5:
        return word
    i = rng.randrange(2, len(word) - 1)
    edit = rng.choice(("swap", "drop", "sub"))
    if edit == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if edit == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + rng.choice("aeiourstln") + word[i + 1 :]


def keystrokes(title: str, rng: random.Random) -> list[str]:
    """The search box after each keystroke of the title's first 2-3 words."""
    words = title.split()
    opening = " ".join(words[: rng.choice((2, 3))])
    return [opening[:k] for k in range(1, len(opening) + 1)]


# -- translations for the reference engines --------------------------------------------------------
def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts5(kind: str, q: str) -> str | None:
    """FTS5 MATCH expression for one of our queries (None: no FTS5 equivalent)."""
    if kind == "term":
        return _quote(q)
    if kind == "and":
        return " AND ".join(_quote(w) for w in q.split())
    if kind == "phrase":
        return _quote(q.strip('"'))
    if kind == "field":
        name, _, value = q.partition(":")
        return f"{name} : {_quote(value)}"
    if kind == "prefix":
        return _quote(q.rstrip("*")) + "*"
    if kind == "typeahead":
        tokens = _TOKEN.findall(q)
        if not tokens:
            return None
        parts = [_quote(t) for t in tokens]
        if q[-1:].isalnum() or q[-1:] == "_":  # the word being typed: a prefix query
            parts[-1] = parts[-1] + "*"
        return " AND ".join(parts)
    return None  # fuzzy: FTS5 has no edit-distance match


def grep(kind: str, q: str) -> list[str] | None:
    """Literal strings a grep must all find on one line (None: not expressible)."""
    if kind in ("term", "and"):
        return q.split()
    if kind == "phrase":
        return [q.strip('"')]
    if kind == "field":
        return [q.partition(":")[2]]
    if kind == "typeahead":
        return [q.strip()] if q.strip() else None
    return None  # fuzzy, prefix: a substring is not a word match
