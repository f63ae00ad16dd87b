"""``tui-reader export QUERY [PATH...] --format FMT [-o FILE]``: the papers a query finds, exactly
Enter's answer in Enter's order (every hit, no limit, no time limit: the same search path as
``tui-reader search``), as BibTeX, RIS, CSL-JSON, Markdown or JSON. ``*`` (or an empty query) is
the whole collection in its order. Bookmarked papers carry their notes, as a bookmarks export.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader import paths
from tui_reader.atomic import atomic_write_bytes
from tui_reader.cli_open import answered
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.paper import Paper
from tui_reader.corpus.text import clean_label
from tui_reader.library.export import FORMATS

if TYPE_CHECKING:
    from tui_reader.search import Searcher, SearchResult

FilterSets = Callable[[argparse.Namespace], "dict[str, frozenset[str]] | None"]
ALL = ("", "*")


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], add_common: Callable[..., None]
) -> None:
    p = sub.add_parser(
        "export",
        help="export the papers a query finds (BibTeX, RIS, CSL-JSON, Markdown, JSON)",
        description="Write the papers matching QUERY ('*' for all), exactly the reader's answer to "
        "Enter, in its order.",
    )
    p.add_argument("query", help="a search, as typed in the reader ('*' for every paper)")
    add_common(p)
    p.add_argument("--format", choices=FORMATS, default="bibtex", help="(default: bibtex)")
    p.add_argument("-o", "--output", metavar="FILE", type=Path, help="write to FILE (default: stdout)")


def matching(args: argparse.Namespace, corpus: Corpus, filter_sets: FilterSets) -> list[Paper]:
    """Enter's whole answer for the query, in its order."""
    if args.query.strip() in ALL:
        return list(corpus)
    from tui_reader.search import SearchMode

    sets, everything = filter_sets(args), max(len(corpus), 1)

    def ask(searcher: Searcher) -> SearchResult:
        return searcher.search(args.query, SearchMode.ENTER, everything, time_limit=None, sets=sets)

    result = answered(corpus, ask, quiet=True)
    if result.notice:
        print(f"tui-reader: {clean_label(result.notice)}", file=sys.stderr)
    return [corpus.paper(hit.row) for hit in result.hits]


def run(args: argparse.Namespace, corpus: Corpus, filter_sets: FilterSets) -> int:
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.library.export import export_papers

    papers = matching(args, corpus, filter_sets)
    store = BookmarkStore(args.bookmarks or paths.bookmarks_file())
    for warning in store.warnings:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    notes = {m.id: m.note for m in store.all() if m.note}
    text = export_papers(papers, args.format, notes)
    what = f"{len(papers):,} paper{'s' if len(papers) != 1 else ''}"
    if args.output is None or str(args.output) == "-":
        sys.stdout.write(text)
    else:
        try:
            atomic_write_bytes(args.output, text.encode("utf-8"))
        except OSError as exc:
            where = clean_label(str(args.output))
            print(f"tui-reader: error: cannot write {where} ({exc.strerror or exc})", file=sys.stderr)
            return 1
        print(f"exported {what} to {clean_label(str(args.output))}", file=sys.stderr)
    if not papers:
        print(f"tui-reader: no paper matches {clean_label(args.query)!r}", file=sys.stderr)
    return 0
