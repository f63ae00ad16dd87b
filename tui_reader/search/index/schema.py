"""The index's fields and how a paper becomes a document: the one definition both builds use."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import cast

from whoosh import fields
from whoosh.analysis import LowercaseFilter, RegexTokenizer

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.venues import venue_terms
from tui_reader.search.index.analysis import AUTHOR_SEPARATOR, authors_analyzer, fold_analyzer, stem_analyzer

# 7: one segment from bulk.py, fused fold analyzer; 8: year without trie terms;
# 9: the layered packages (search/ owns Whoosh): an index written before them rebuilds once;
# 10: doi, arxiv, keywords and kind from citation formats; 11: Greek letters and math symbols
# folded to their names (α = alpha = \alpha); 12: a gap between authors (a phrase stays in one name);
# 13: search/ split into index/, query/, fast/ (the pickled analyzers moved): rebuilt once;
# 14: posting lists in the array codec (fast/codec.py NpCodec), which Enter's numpy path reads
SCHEMA_VERSION = 14
DEFAULT_FIELD = "content"  # title, authors and abstract together: what a plain word searches


def make_schema() -> fields.Schema:
    # One "content" field (title twice, authors, abstract) serves plain queries: a single-field
    # query is ~2x faster than an OR across fields at 87k papers, and the repeated title is the
    # boost. The other fields exist for field:term queries and type-ahead.
    return fields.Schema(
        id=fields.ID(stored=True, unique=True),
        content=fields.TEXT(analyzer=stem_analyzer()),
        title=fields.TEXT(analyzer=stem_analyzer()),
        authors=fields.TEXT(analyzer=authors_analyzer()),
        venue=fields.TEXT(analyzer=fold_analyzer(), phrase=False),
        # signed: Whoosh's unsigned ranges without a lower bound match all. No trie terms
        # (shift_step=0): a range over a few dozen years is a short term scan, and the 7 extra
        # terms per paper were 5% of the build.
        year=fields.NUMERIC(int, shift_step=0),
        sources=fields.TEXT(analyzer=RegexTokenizer(r"[^\W_]+") | LowercaseFilter(), phrase=False),
        # Unstemmed title words: a small, bounded vocabulary for type-ahead completion and spelling.
        tw=fields.TEXT(analyzer=fold_analyzer(), phrase=False),
        # Citation fields: a DOI or arXiv id is matched whole and case-blind ("doi:10.1/ABC");
        # keywords (and arXiv categories) one per comma, also in content so a plain word finds them.
        doi=fields.KEYWORD(lowercase=True),
        arxiv=fields.KEYWORD(lowercase=True),
        keywords=fields.KEYWORD(lowercase=True, commas=True, scorable=True),
        kind=fields.KEYWORD(lowercase=True),
    )


def document(corpus: Corpus, i: int) -> dict[str, object]:
    return _document(corpus, i, corpus.row(i), corpus.sources(i))


BATCH = 4096  # papers read at a time by ``documents``


def documents(corpus: Corpus, order: Iterable[int]) -> Iterator[tuple[int, dict[str, object]]]:
    """``(i, document(corpus, i))`` for each i of ``order``, the rows of each run of consecutive
    papers read at once (``Corpus.rows``): a whole Paper per document was a third of a bulk
    build's parent at 300k papers."""
    run: list[int] = []
    for i in order:
        if run and (i != run[-1] + 1 or len(run) >= BATCH):
            yield from _documents(corpus, run)
            run = []
        run.append(i)
    if run:
        yield from _documents(corpus, run)


def _documents(corpus: Corpus, run: list[int]) -> Iterator[tuple[int, dict[str, object]]]:
    for i, row in zip(run, corpus.rows(run[0], run[-1] + 1), strict=True):
        yield i, _document(corpus, i, row, corpus.sources(i))


def _document(corpus: Corpus, i: int, row: tuple[object, ...], sources: list[str]) -> dict[str, object]:
    """Paper i's document from its row (``Corpus.row``: a paper of several records gives its merged
    fields), its id and title the corpus's, its extra fields read as ``Paper.set_extra`` reads them."""
    title = corpus.titles[i]
    names = cast("list[str]", row[3])
    extra = row[8] if len(row) > 8 and isinstance(row[8], dict) else {}
    given = extra.get("keywords")
    keywords = [str(k) for k in given] if isinstance(given, list) else []
    authors = f" {AUTHOR_SEPARATOR} ".join(names)
    doc: dict[str, object] = {
        "id": corpus.ids[i],
        "title": title,
        "content": f"{title}\n{title}\n{authors}\n{row[2]}\n" + "\n".join(keywords),
        "authors": authors,
        "venue": venue_terms(cast("str", row[4])),
        "sources": " ".join(sources),
        "tw": title,
    }
    if row[5]:
        doc["year"] = row[5]
    for name in ("doi", "arxiv"):
        if value := str(extra.get(name) or ""):
            doc[name] = value
    if keywords:
        doc["keywords"] = ",".join(k.replace(",", " ") for k in keywords)
    if kind := str(extra.get("kind") or ""):
        doc["kind"] = kind
    return doc
