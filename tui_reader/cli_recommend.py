"""``tui-reader recommend [--tag NAME] [PATH...] [--json] [--limit N]``: recommendations you can steer.

The collection ranked by a model of the papers tagged NAME (or every bookmark), as the reader's
For-you view ranks it (search/recommend.py): unread papers first, each with the terms that weigh
most for it. ``--not-interested ID`` records a paper the user does not want for that tag (it never
comes back; the next ranking is trained against it); ``--reset`` clears the tag's list. JSON hits
are ``search --json`` hits (cli_output.hit_fields) with ``"because": [terms]`` and ``"read"``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui_reader import paths
from tui_reader.cli_output import hit_fields, write_search_json
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.text import clean_label
from tui_reader.errors import IndexDamaged

if TYPE_CHECKING:  # the stores are imported when this command runs: a search pays for none
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.search import Recommendations, Searcher

OpenSearcher = Callable[..., "Searcher"]
# (corpus, the id or its start as given, the store) -> the paper's full id; UsageError if none
Resolve = Callable[[Corpus, str, "BookmarkStore | None"], str]


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _tag(text: str) -> str:
    from tui_reader.library.bookmarks import normalise_tags

    tags = normalise_tags([text])
    if len(tags) != 1:
        raise argparse.ArgumentTypeError(f"give one tag, not {text!r}")
    return tags[0]


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], add_common: Callable[..., None]
) -> None:
    p = sub.add_parser(
        "recommend",
        help="papers for a tag (or all bookmarks), ranked by a model of them; steer with --not-interested",
        description="Rank the collection by a linear model trained on the papers tagged NAME (default: "
        "every bookmark) against those marked not interested and a sample of the rest. Unread papers "
        "first; each with the terms that weigh most for it. Needs 3 such papers in the collection.",
    )
    p.add_argument("--tag", type=_tag, metavar="NAME", help="the tag to learn from (default: all bookmarks)")
    add_common(p)
    p.add_argument("--limit", type=_count, default=20, help="papers to list (default 20)")
    p.add_argument(
        "--json", action="store_true", help='JSON: search --json\'s shape, each hit with "because"'
    )
    steer = p.add_mutually_exclusive_group()
    steer.add_argument(
        "--not-interested", metavar="ID", help="never recommend this paper for the tag; train against it"
    )
    steer.add_argument("--reset", action="store_true", help="clear the tag's not-interested papers")


def label(tag: str | None) -> str:
    return f'the tag "{tag}"' if tag else "your bookmarks"


def run(args: argparse.Namespace, corpus: Corpus, open_searcher: OpenSearcher, resolve: Resolve) -> int:
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.library.negatives import NotInterested

    store = BookmarkStore(args.bookmarks or paths.bookmarks_file())
    negatives = NotInterested(paths.not_interested_file())
    unwanted = negatives.ids(args.tag)  # read first: a corrupt file set aside is said below
    for warning in [*store.warnings, *negatives.warnings]:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    if args.reset:
        cleared = negatives.reset(args.tag)
        print(f"cleared {cleared} not-interested paper{'s' if cleared != 1 else ''} for {label(args.tag)}")
        return 0
    if args.not_interested:
        pid = resolve(corpus, args.not_interested, store)
        now = negatives.add(args.tag, pid)
        print(f"{pid}: not interested for {label(args.tag)} ({len(now)} in all); it is not recommended again")
        return 0
    positives = store.ids_with_tag(args.tag) if args.tag else store.ids()
    got = _ranked(corpus, open_searcher, positives, unwanted, args.limit, args.json)
    return _write(args, corpus, store, got)


def _ranked(
    corpus: Corpus,
    open_searcher: OpenSearcher,
    positives: set[str],
    negatives: frozenset[str],
    limit: int,
    quiet: bool,
) -> Recommendations:
    from tui_reader.search import recommendations as recommend

    searcher = open_searcher(corpus, quiet=quiet, warm=False)
    try:
        return recommend(searcher, positives, negatives, limit=limit)
    except IndexDamaged as exc:  # as `tui-reader search` does: rebuilt once, asked again
        print(f"tui-reader: {clean_label(str(exc))}; rebuilding it", file=sys.stderr)
        searcher.index.close()
        again = open_searcher(corpus, rebuild=True, quiet=quiet, warm=False)
        return recommend(again, positives, negatives, limit=limit)


def _write(args: argparse.Namespace, corpus: Corpus, store: BookmarkStore, got: Recommendations) -> int:
    from tui_reader.library.reading import ReadStore
    from tui_reader.search import Hit, SearchResult, needs_text, unread_first

    read = ReadStore(paths.data_dir() / "read.json").ids()
    notice = needs_text(label(args.tag), got.positives, got.missing) if got.short_by else None
    if notice and args.tag and not got.positives and not store.ids_with_tag(args.tag):
        notice += (
            f" No bookmark has that tag (tags in use: {', '.join(store.all_tags()[:12]) or 'none yet'})."
        )
    picks = unread_first(got.picks, read)
    took = got.train_ms + got.rank_ms
    result = SearchResult(f"for you: {label(args.tag)}", total=got.total, took_ms=took, notice=notice)
    hits = (
        {
            **hit_fields(corpus, Hit(p.row, p.id, p.score), frozenset(p.terms)),
            "because": list(p.because),
            "read": p.id in read,
        }
        for p in picks
    )
    if args.json:
        write_search_json(result.query, result, hits)
        return 1 if notice else 0
    if notice:
        print(f"tui-reader: {clean_label(notice)}", file=sys.stderr)
        return 1
    print(
        f"For you, from {clean_label(label(args.tag))}: {got.positives} papers, {got.negatives} not "
        f"interested; {got.total:,} ranked ({took:.0f} ms)"
    )
    for n, (pick, hit) in enumerate(zip(picks, hits, strict=True), 1):
        seen = "  (read)" if pick.id in read else ""
        print(f"\n{n:>3}. {hit['title']}{seen}\n     id {pick.id}  score {pick.score:.2f}", end="")
        print(f"  because: {', '.join(pick.because)}\n     {hit['snippet']}")
    return 0
