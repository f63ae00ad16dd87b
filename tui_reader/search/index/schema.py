"""The index's fields and how a paper becomes a document: the one definition both builds use."""

from __future__ import annotations

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
    paper = corpus.paper(i)
    authors = f" {AUTHOR_SEPARATOR} ".join(paper.authors)
    keywords = "\n".join(paper.keywords)
    doc: dict[str, object] = {
        "id": paper.id,
        "title": paper.title,
        "content": f"{paper.title}\n{paper.title}\n{authors}\n{paper.abstract}\n{keywords}",
        "authors": authors,
        "venue": venue_terms(paper.venue),
        "sources": " ".join(paper.sources),
        "tw": paper.title,
    }
    if paper.year:
        doc["year"] = paper.year
    if paper.doi:
        doc["doi"] = paper.doi
    if paper.arxiv:
        doc["arxiv"] = paper.arxiv
    if paper.keywords:
        doc["keywords"] = ",".join(k.replace(",", " ") for k in paper.keywords)
    if paper.kind:
        doc["kind"] = paper.kind
    return doc
