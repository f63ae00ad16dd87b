"""``tui-reader related DRAFT [--bib FILE] [PATH...] [--json] [--limit N]``: what am I missing.

The collection's papers most like the draft (search/related.py: Whoosh's more-like-this over the
draft's prose), each marked cited when the draft already cites it (library/cited.py: its
bibliography, ``--bib`` or the ``.bib`` files it names, then the bookmarks' keys). JSON hits are
``search --json`` hits (cli_output.hit_fields) with ``"cited": true|false``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader import paths
from tui_reader.cli_output import hit_fields, write_search_json
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged

if TYPE_CHECKING:
    from tui_reader.corpus.draft import Draft
    from tui_reader.library.cited import Cited
    from tui_reader.search import Searcher, SearchResult

OpenSearcher = Callable[..., "Searcher"]
CITED_MARK = "[cited]"


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], add_common: Callable[..., None]
) -> None:
    p = sub.add_parser(
        "related",
        help="what am I missing: the papers most related to a draft, those it cites marked",
        description="Rank the collection's papers by how much they are like DRAFT (.tex, .md or plain "
        "text; more-like-this over its prose), and mark the ones the draft already cites: by its "
        "bibliography (--bib, else the .bib files it names) or, for keys that has not, the keys your "
        "bookmarks export with. A draft without citation keys counts every --bib entry as cited.",
    )
    p.add_argument("draft", type=Path, metavar="DRAFT", help="the draft: .tex, .md or plain text")
    add_common(p)
    p.add_argument(
        "--bib",
        type=Path,
        action="append",
        metavar="FILE",
        help="the draft's bibliography (.bib; repeatable; default: the ones the draft names)",
    )
    p.add_argument("--limit", type=_count, default=20, help="papers to list (default 20)")
    p.add_argument("--json", action="store_true", help='JSON: search --json\'s shape, each hit with "cited"')


def run(args: argparse.Namespace, corpus: Corpus, open_searcher: OpenSearcher) -> int:
    from tui_reader.corpus.draft import DraftError, read_draft  # only this command pays for them

    draft = read_draft(args.draft)  # DraftError: one line, exit 2 (a CorpusError)
    for bib in args.bib or ():
        if not bib.is_file():
            raise DraftError(f"no such bibliography: {bib}")
    for warning in draft.warnings:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    cited = _cited(args, draft, corpus)
    result = _ranked(corpus, open_searcher, draft, args.limit, quiet=args.json)
    if result.notice:
        print(f"tui-reader: {clean_label(result.notice)}", file=sys.stderr)
    marks = [cited.cites(corpus.paper(hit.row)) for hit in result.hits]
    hits = (
        {**hit_fields(corpus, hit, result.terms), "cited": mark}
        for hit, mark in zip(result.hits, marks, strict=True)
    )
    if args.json:
        write_search_json(f"related: {draft.name}", result, hits)
        return 0
    listed = len(result.hits)
    print(
        f"{listed} paper{'' if listed == 1 else 's'} related to {clean_label(draft.name)} "
        f"({draft.words:,} words; {result.took_ms:.0f} ms)"
    )
    print(f"cited: {sum(marks)} of these · {clean_label(cited.summary)}")
    if cited.unknown:
        shown = ", ".join(cited.unknown[:8]) + (" ..." if len(cited.unknown) > 8 else "")
        print(f"keys not found: {clean_label(shown)}")
    for n, hit in enumerate(hits, 1):
        flag = f"  {CITED_MARK}" if hit["cited"] else ""
        print(f"\n{n:>3}. {hit['title']}{flag}\n     id {hit['id']}  score {hit['score']:.2f}")
        print(f"     {hit['snippet']}")
    return 0


def _cited(args: argparse.Namespace, draft: Draft, corpus: Corpus) -> Cited:
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.library.cited import resolve

    store = BookmarkStore(args.bookmarks or paths.bookmarks_file())
    bibs = list(args.bib) if args.bib else list(draft.bibliographies)
    cited = resolve(draft.cites, bibs, store.all() if draft.cites else (), corpus.get)
    for warning in [*store.warnings, *cited.warnings]:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    return cited


def _ranked(
    corpus: Corpus, open_searcher: OpenSearcher, draft: Draft, limit: int, quiet: bool
) -> SearchResult:
    from tui_reader.search import rank_related as related

    searcher = open_searcher(corpus, quiet=quiet, warm=False)
    try:
        return related(searcher, draft.text, limit)
    except IndexDamaged as exc:  # as `tui-reader search` does: rebuilt once, asked again
        print(f"tui-reader: {clean_label(str(exc))}; rebuilding it", file=sys.stderr)
        searcher.index.close()
        return related(open_searcher(corpus, rebuild=True, quiet=quiet, warm=False), draft.text, limit)
