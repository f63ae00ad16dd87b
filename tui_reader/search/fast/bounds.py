"""Type-ahead's page for queries with many postings: the best-bounded blocks first, within a budget.

A common word has 100k-190k postings at 300k papers; decoding them alone takes longer than a
keystroke may (~0.2 µs a posting), and an AND must decode every word to count its matches. While
typing, such a query is answered from its most promising posting blocks only: each block's
header holds its highest weight and shortest length, so BM25F gives the best score any of its
papers can reach (Whoosh's own ``block_quality``). The words' block boundaries cut the docnums
into intervals, each with a bound for the whole query (its words' block bounds summed as the
query sums their scores). Intervals are read most promising first -- by the same sum with each
block's highest weight at the average length, a likelier best than the bound -- until the
budget of postings is spent. The papers read are scored by score.py's own code (the same
floats) and are real matches; the page is the best of them. When no interval left unread can
beat the page's last score the page is exact; else it is a best-so-far (``Page.partial``). The
count is exact for one word (its document frequency) or when every interval was read; otherwise
a lower bound. Enter never comes here: it reads every posting.

At 300k papers a keystroke reads 32k postings (score.TYPING_POSTINGS) instead of up to 180k; its
page then shares about half of its 100 papers with the exact one (single words: nearly all).
"""

from __future__ import annotations

import threading
import weakref
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from itertools import repeat
from operator import add, mul
from typing import Any, Protocol

from whoosh import query
from whoosh.codec import whoosh3

from tui_reader.search import stop
from tui_reader.search.fast import bm25

Scores = dict[int, float]
Key = tuple[str, bytes]
Postings = dict[Key, tuple[list[int], list[float]]]
NONE = float("-inf")  # an interval where the query cannot match
SAFETY = 1 + 1e-9  # a bound is raised by this much: float rounding can never put a score above it
ROUNDS = 2  # a page short of matches after a round reads as many postings again, this often
HEADERS_KEPT = 256  # posting lists whose block headers are remembered, per segment reader
# Words a bounded query may have: each interval is weighed word by word, so 200 prefixes OR'ed
# (~10,000 words) would cost minutes here; such a query takes score.py's exact path, which its
# deadline stops.
MAX_WORDS = 64

_headers: weakref.WeakKeyDictionary[Any, OrderedDict[Key, _Blocks]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class Page(tuple):
    """(top, total, total_exact), as score.search returns them; ``partial``: the page is the
    best of the papers read, not proven to be the best of all (type-ahead's "best so far")."""

    partial = False


class Scorer(Protocol):
    """What of score.py's segment scorer this module uses."""

    reader: Any
    searcher: Any
    b: float
    k1: float
    source: Postings | None

    def run(self, q: query.Query) -> Scores: ...

    def cost(self, q: query.Query) -> int | None: ...


class _Blocks:
    """A posting list's block headers: each block's last docnum, highest weight and shortest
    length. Gathered as a Whoosh scorer whose ``block_quality`` the matcher's
    ``skip_to_quality`` calls on every block it passes, decoding none."""

    __slots__ = ("ends", "first", "lengths", "weights")

    def __init__(self, first: int) -> None:
        self.first = first
        self.ends = array("q")
        self.weights = array("d")
        self.lengths = array("q")

    def supports_block_quality(self) -> bool:
        return True

    def block_quality(self, matcher: Any) -> float:
        end = matcher.block_max_id()
        if not self.ends or self.ends[-1] != end:  # skip_to_quality asks twice about the first
            self.ends.append(end)
            self.weights.append(matcher.block_max_weight())
            self.lengths.append(matcher.block_min_length())
        return 0.0


def blocks(reader: Any, fieldname: str, btext: bytes) -> _Blocks:
    """The term's block headers in this segment, read once (~4 ms for 1,000 blocks)."""
    key = (fieldname, btext)
    with _lock:
        kept = _headers.setdefault(reader, OrderedDict())
        found = kept.get(key)
        if found is not None:
            kept.move_to_end(key)
            return found
    info = reader.term_info(fieldname, btext)
    found = _Blocks(info.min_id())
    matcher = reader.postings(fieldname, btext, scorer=found)
    if type(matcher) is whoosh3.W3LeafMatcher:
        matcher.skip_to_quality(1.0)  # every block's quality is 0.0: it passes them all
    if not found.ends:  # postings kept in the term's entry: one block, the term's statistics
        found = _Blocks(info.min_id())
        found.ends.append(info.max_id())
        found.weights.append(info.max_weight())
        found.lengths.append(info.min_length())
    with _lock:
        kept[key] = found
        while len(kept) > HEADERS_KEPT:
            kept.popitem(last=False)
    return found


def reads(q: query.Query, reader: Any, skip_below: int) -> int:
    """About how many postings scoring every match of ``q`` reads (score.py's exact path): an
    AND reads its rarest part, then each next part whole, or only the blocks holding one of
    fewer than ``skip_below`` matches so far (128 postings a block), the words taken as
    independent. Above score.BOUNDED_TYPING, a keystroke reads its best blocks instead."""
    return int(_reads(q, reader, max(1, reader.doc_count_all()), skip_below)[0])


def _reads(q: query.Query, reader: Any, n: int, skip_below: int) -> tuple[float, float]:
    """(postings read, matches) of ``q``."""
    if isinstance(q, query.Term):
        try:
            df = float(reader.doc_frequency(q.fieldname, q.text))
        except Exception:
            df = 0.0
        return df, df
    if not isinstance(q, query.And | query.Or) or not q.subqueries:
        return 0.0, 0.0
    parts = sorted(_reads(sub, reader, n, skip_below) for sub in q.subqueries)
    if isinstance(q, query.Or):
        return sum(p[0] for p in parts), min(float(n), sum(p[1] for p in parts))
    read, matches = parts[0]
    for cost, found in parts[1:]:
        read += cost if matches >= skip_below else min(cost, 128 * matches)
        matches *= found / n
    return read, matches


def search(leaf: Scorer, q: query.Query, limit: int, budget: int) -> Page | None:
    """The best ``limit`` (score, docnum) pairs, best first, among the papers of the intervals
    read within ``budget`` postings, in one segment without deletions; None when the query is
    not made of terms, ORs and ANDs this module can bound."""
    words: dict[Key, _Blocks] = {}
    if limit <= 0 or not _gather(leaf, q, words) or not words:
        return None
    cuts = sorted({end for b in words.values() for end in b.ends})
    bounds: dict[Key, list[float]] = {}
    likely: dict[Key, list[float]] = {}
    at: dict[Key, list[int]] = {}  # the word's block in each interval (len(ends): none)
    for key, b in words.items():
        found_bounds = _word_bounds(leaf, key, b, cuts)
        if found_bounds is None:
            return None
        bounds[key], likely[key], at[key] = found_bounds
    upper = _upper(leaf, q, bounds, len(cuts))
    guess = _upper(leaf, q, likely, len(cuts))
    order = sorted((i for i, u in enumerate(upper) if u > NONE), key=guess.__getitem__, reverse=True)
    found: Scores = {}
    done = 0
    for _ in range(ROUNDS):
        take, done = _within(order, done, words, at, budget)
        found.update(_scored(leaf, q, words, cuts, sorted(take)))
        if len(found) >= limit or done >= len(order):
            break
    top = bm25.top(found, limit)
    complete = done >= len(order)
    page = Page((top, len(found), complete))
    if isinstance(q, query.Term):
        page = Page((top, leaf.reader.doc_frequency(q.fieldname, q.text), True))
    elif not complete:
        page = Page((top, max(len(found), _floor(leaf, q)), False))
    theta = top[-1][0] if len(top) >= limit else NONE
    page.partial = not complete and max(upper[i] for i in order[done:]) >= theta  # one may beat it
    return page


def _within(
    order: list[int], done: int, words: dict[Key, _Blocks], at: dict[Key, list[int]], budget: int
) -> tuple[list[int], int]:
    """The next intervals in ``order`` whose blocks, not yet counted, fit in ``budget``
    postings (at least one interval); where the next read starts."""
    seen: set[tuple[Key, int]] = set()
    spent = 0
    take: list[int] = []
    while done < len(order):
        stop.check()
        i = order[done]
        new = [(key, at[key][i]) for key in words if at[key][i] < len(words[key].ends)]
        cost = sum(_size(words[key], j) for key, j in new if (key, j) not in seen)
        if take and spent + cost > budget:
            break
        seen.update(new)
        spent += cost
        take.append(i)
        done += 1
    return take, done


def _size(b: _Blocks, j: int) -> int:
    """Postings in block j, about: the headers keep no count, blocks are full but the last."""
    return 128 if j < len(b.ends) - 1 else 64


def _gather(leaf: Scorer, q: query.Query, words: dict[Key, _Blocks]) -> bool:
    """Whether the query is terms, ORs and ANDs (of terms and ORs of terms, whose order of
    addition is fixed by their document frequencies), with positive boosts; their words'
    headers into ``words``."""
    if q.boost <= 0:
        return False
    if isinstance(q, query.Term):
        key = _key(leaf, q)
        if key is None or len(words) >= MAX_WORDS:
            return False
        if key in leaf.reader:
            words[key] = blocks(leaf.reader, *key)
        return True
    if isinstance(q, query.Or) and q.subqueries and not q.minmatch and not q.scale:
        return all(_gather(leaf, sub, words) for sub in q.subqueries)
    if isinstance(q, query.And) and q.subqueries:
        return all(leaf.cost(sub) is not None and _gather(leaf, sub, words) for sub in q.subqueries)
    return False


def _key(leaf: Scorer, q: query.Term) -> Key | None:
    schema = leaf.searcher.schema
    if q.fieldname not in schema or not schema[q.fieldname].scorable:
        return None
    try:
        return q.fieldname, schema[q.fieldname].to_bytes(q.text)
    except ValueError:
        return None


def _word_bounds(
    leaf: Scorer, key: Key, b: _Blocks, cuts: list[int]
) -> tuple[list[float], list[float], list[int]] | None:
    """For each interval (ending at a cut), the best BM25F the word's block there allows (NONE
    where the word has no block), and that block's number. BM25F grows with the weight and
    shrinks with the length: the block's highest weight and shortest length bound it."""
    fieldname, btext = key
    parent = leaf.searcher.get_parent()
    idf = parent.idf(fieldname, btext)
    avgfl = parent.avg_field_length(fieldname) or 1
    k1, omb, bb = leaf.k1, 1 - leaf.b, leaf.b
    k1p = k1 + 1
    best = [
        idf * ((w * k1p) / (w + k1 * (omb + bb * fl / avgfl))) * SAFETY
        for w, fl in zip(b.weights, b.lengths, strict=True)
    ]
    if min(best) <= 0:
        return None  # papers that may score 0: nothing to order blocks by
    typical = [idf * ((w * k1p) / (w + k1)) for w in b.weights]  # at the average length
    starts = [b.first - 1, *b.ends]  # interval (c', c] is in block j when starts[j] < c <= ends[j]
    where = list(map(bisect_left, repeat(starts), cuts))  # 0: before the first block
    padded = [NONE, *best, NONE]
    blocks_at = [j - 1 if 0 < j <= len(b.ends) else len(b.ends) for j in where]
    guessed = [NONE, *typical, NONE]
    return list(map(padded.__getitem__, where)), list(map(guessed.__getitem__, where)), blocks_at


def _upper(leaf: Scorer, q: query.Query, bounds: dict[Key, list[float]], width: int) -> list[float]:
    """The query's bound in each interval: an OR adds its parts' (those that can match), an AND
    adds all of its parts' or cannot match, a boost multiplies, as score.py scores them."""
    if isinstance(q, query.And | query.Or) and len(q.subqueries) == 1:
        return _upper(leaf, q.subqueries[0], bounds, width)  # Whoosh runs a lone part unboosted
    if isinstance(q, query.Term):
        key = _key(leaf, q)
        out = bounds.get(key, [NONE] * width) if key is not None else [NONE] * width
    elif isinstance(q, query.Or):
        out = [0.0] * width
        for sub in q.subqueries:
            out = list(map(add, out, map(max, _upper(leaf, sub, bounds, width), repeat(0.0))))
        out = list(map({0.0: NONE}.get, out, out))  # no part can match there
    else:
        out = [0.0] * width
        for sub in q.subqueries:
            out = list(map(add, out, _upper(leaf, sub, bounds, width)))  # NONE stays NONE
    return out if q.boost == 1.0 else list(map(mul, out, repeat(q.boost * SAFETY)))


def _floor(leaf: Scorer, q: query.Query) -> int:
    """A lower bound on the matches without reading postings: an OR matches at least what its
    largest part matches, a word its documents (no deletions here), an AND nothing known."""
    if isinstance(q, query.Term):
        return int(leaf.reader.doc_frequency(q.fieldname, q.text))
    if isinstance(q, query.Or):
        return max(_floor(leaf, sub) for sub in q.subqueries)
    return 0


def _scored(
    leaf: Scorer, q: query.Query, words: dict[Key, _Blocks], cuts: list[int], take: list[int]
) -> Scores:
    """score.py's scores of the papers in the intervals ``take``: each word's blocks there are
    decoded (w3.blocks skips the others by their last docnum), its postings in the intervals
    kept, and the query run over them."""
    if not take:
        return {}
    ends = [cuts[i] for i in take]
    spans = [(cuts[i - 1] if i else -1, cuts[i]) for i in take]
    source: Postings = {}
    for fieldname, btext in words:
        ids, weights, _ = bm25.postings(leaf.reader, fieldname, btext, wanted=ends)
        kept_ids: list[int] = []
        kept_weights: list[float] = []
        for after, last in spans:
            lo, hi = bisect_right(ids, after), bisect_right(ids, last)
            kept_ids += ids[lo:hi]
            kept_weights += weights[lo:hi]
        source[(fieldname, btext)] = kept_ids, kept_weights
        stop.check()
    leaf.source = source
    try:
        return leaf.run(q)
    finally:
        leaf.source = None
