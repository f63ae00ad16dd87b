"""``tui-reader saved add NAME QUERY | list | remove NAME | rename OLD NEW`` and ``tui-reader
inbox [PATH...] [--json]``: the saved searches the reader's inbox shows, and their counts, for a
cron job or a shell prompt.

Each saved search is counted as Enter's answer to its query (``Searcher.search(query,
SearchMode.ENTER, ...)``, every match, no time limit): its total is ``tui-reader search QUERY``'s.
What "new" means is in library/inbox.py; ``inbox`` never marks a search visited (only opening it
in the reader does), so running it clears nothing. ``saved`` reads no collection.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui_reader import paths
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.text import clean_label, safe_json
from tui_reader.errors import IndexDamaged

if TYPE_CHECKING:  # the stores are imported by the commands that use them: a search pays for none
    from tui_reader.library.inbox import Count
    from tui_reader.library.saved import SavedSearch, SavedSearches
    from tui_reader.search import Searcher

OpenSearcher = Callable[..., "Searcher"]
FilterSets = Callable[[argparse.Namespace], "dict[str, frozenset[str]] | None"]


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], add_common: Callable[..., None]
) -> None:
    p = sub.add_parser(
        "saved",
        help="save, list, rename or remove searches (the inbox counts their new matches)",
        description="Saved searches, kept in the data folder for every collection.",
    )
    ssub = p.add_subparsers(dest="action", required=True)
    a = ssub.add_parser("add", help="save QUERY under NAME")
    a.add_argument("name")
    a.add_argument("query", help="a search, as typed in the reader")
    a.add_argument("--replace", action="store_true", help="replace the search already named NAME")
    listing = ssub.add_parser("list", help="every saved search, in the order saved")
    listing.add_argument("--json", action="store_true")
    r = ssub.add_parser("remove", help="forget a saved search")
    r.add_argument("name")
    n = ssub.add_parser("rename", help="give a saved search another name")
    n.add_argument("old")
    n.add_argument("new")
    p = sub.add_parser(
        "inbox",
        help="each saved search's new, unread and total matches",
        description="Per saved search: its matches new since it was last opened in the reader, "
        "unread, and in all (Enter's answer). Marks nothing visited.",
    )
    add_common(p)
    p.add_argument("--json", action="store_true", help='one object: {"saved": [...]}')


def _store() -> SavedSearches:
    from tui_reader.library.saved import SavedSearches

    store = SavedSearches(paths.saved_searches_file())
    for warning in store.warnings:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    return store


def run_saved(args: argparse.Namespace) -> int:
    """``saved ACTION``: refusals are one line (2: a name or query that cannot be, 1: the rest)."""
    from tui_reader.library.saved import BadInput, Refused

    store = _store()
    try:
        if args.action == "add":
            saved = store.add(args.name, args.query, replace=args.replace)
            print(f"saved {saved.shown_name!r}: {saved.shown_query}")
        elif args.action == "remove":
            print(f"removed {store.remove(args.name).shown_name!r}")
        elif args.action == "rename":
            old = store.get(args.old)
            renamed = store.rename(args.old, args.new)
            print(f"renamed {old.shown_name if old else clean_label(args.old)!r} to {renamed.shown_name!r}")
        else:
            _list(store.all(), args.json)
    except BadInput as exc:
        print(f"tui-reader: error: {clean_label(str(exc))}", file=sys.stderr)
        return 2
    except Refused as exc:
        print(f"tui-reader: error: {clean_label(str(exc))}", file=sys.stderr)
        return 1
    return 0


def _list(searches: list[SavedSearch], as_json: bool) -> None:
    if as_json:
        items = [{"name": s.name, "query": s.query, "created": s.created} for s in searches]
        print(safe_json({"saved": items}, indent=2))
        return
    if not searches:
        print("no saved searches (tui-reader saved add NAME QUERY saves one)")
    width = min(30, max((len(s.shown_name) for s in searches), default=0))
    for s in searches:
        print(f"{s.shown_name:<{width}}  {s.shown_query}")


def counts(
    args: argparse.Namespace, corpus: Corpus, open_searcher: OpenSearcher, filter_sets: FilterSets
) -> list[Count]:
    """Each saved search's counts in ``corpus`` (searched as ``tui-reader search`` does)."""
    from tui_reader.library.arrivals import collection_file
    from tui_reader.library.inbox import count, open_timeline
    from tui_reader.library.reading import ReadStore
    from tui_reader.search import SearchMode

    searches = _store().all()
    data = paths.data_dir()
    roots = [str(r) for r in corpus.roots]
    timeline, warnings = open_timeline(collection_file(data, corpus), corpus.ids, roots, first_launch=True)
    read = ReadStore(data / "read.json")
    for warning in [*warnings, *read.warnings]:
        print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    if not searches:
        return []
    searcher = open_searcher(corpus, quiet=args.json, warm=False)
    everything, done = max(len(corpus), 1), read.ids()
    out = []
    for saved in searches:
        sets = filter_sets(argparse.Namespace(query=saved.query, bookmarks=args.bookmarks))
        try:
            result = searcher.search(saved.query, SearchMode.ENTER, everything, time_limit=None, sets=sets)
        except IndexDamaged as exc:  # as `tui-reader search` does: rebuilt once, asked again
            print(f"tui-reader: {clean_label(str(exc))}; rebuilding it", file=sys.stderr)
            searcher.index.close()
            searcher = open_searcher(corpus, rebuild=True, quiet=True, warm=False)
            result = searcher.search(saved.query, SearchMode.ENTER, everything, time_limit=None, sets=sets)
        rows = [hit.row for hit in result.hits]
        exact = result.exact and not result.stopped
        out.append(
            count(saved, rows, corpus.ids, timeline, done, corpus.key, total=result.total, exact=exact,
                  notice=result.notice)
        )  # fmt: skip
    return out


def run_inbox(
    args: argparse.Namespace, corpus: Corpus, open_searcher: OpenSearcher, filter_sets: FilterSets
) -> int:
    started = time.perf_counter()
    found = counts(args, corpus, open_searcher, filter_sets)
    if args.json:
        took = round((time.perf_counter() - started) * 1000, 2)
        saved = [c.to_dict() for c in found]
        print(safe_json({"collection": corpus.key, "took_ms": took, "saved": saved}, indent=2))
        return 0
    if not found:
        print("no saved searches (tui-reader saved add NAME QUERY saves one)")
    for c in found:
        print(f"{c.line}  query: {c.search.shown_query}")
        if c.notice:
            print(f"tui-reader: {c.search.shown_name}: {clean_label(c.notice)}", file=sys.stderr)
    return 0
