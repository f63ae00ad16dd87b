"""Command line: ``tui-reader [PATH...]`` opens the reader; subcommands script the same core.

Textual is imported only when the reader opens, so ``list``/``search`` start fast and run where
there is no terminal. Errors are one line on stderr: exit 2 for usage, 1 for a failed action.
"""

from __future__ import annotations

import os

# OpenBLAS starts a thread per core when numpy is imported, and they spin: ~50 ms of CPU in every
# process on 2 cores (a one-shot search, each parse or build worker), for nothing here (no matrix
# products: bincount, sorts, element-wise work). Set before numpy's first import; a user's wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader import __version__, paths
from tui_reader.cli_args import add_bookmarks_option, seconds, subcommand_given, take_trailing_paths
from tui_reader.cli_bookmarks import add_parser as add_bookmarks_parser
from tui_reader.cli_bookmarks import run as run_bookmarks
from tui_reader.cli_export import add_parser as add_export_parser
from tui_reader.cli_export import run as run_export
from tui_reader.cli_open import answered, open_searcher, progress_printer, told
from tui_reader.cli_output import (
    OutputError,
    checked_stdout,
    discard_stdout,
    hit_fields,
    reserve_standard_fds,
    write_search_json,
)
from tui_reader.cli_recommend import add_parser as add_recommend_parser
from tui_reader.cli_recommend import run as run_recommend
from tui_reader.cli_related import add_parser as add_related_parser
from tui_reader.cli_related import run as run_related
from tui_reader.cli_saved import add_parser as add_saved_parser
from tui_reader.cli_saved import run_inbox, run_saved
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats import CorpusError
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.text import clean_label
from tui_reader.errors import CacheUnusable, IndexBusy, IndexDamaged
from tui_reader.library.jsonstore import ReadOnlyStore

if TYPE_CHECKING:
    from tui_reader.library.bookmarks import BookmarkStore

if TYPE_CHECKING:
    from tui_reader.search import Searcher, SearchResult

SUBCOMMANDS = (
    "list",
    "search",
    "index",
    "bookmarks",
    "config",
    "export",
    "saved",
    "inbox",
    "related",
    "recommend",
)


# read the user's ids (a search only for an is:/tag: filter: it prints the collection's own)
MIGRATING = ("search", "bookmarks", "export", "inbox", "recommend", "related")


class UsageError(Exception):
    pass


def _add_common(p: argparse.ArgumentParser, with_paths: bool = True) -> None:
    if with_paths:
        p.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="corpus files or folders: .bib .ris .csl.json .json .jsonl .txt, any gzipped"
            " (default: the bundled ICML 2026 seeds)",
        )
    add_bookmarks_option(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tui-reader",
        description="A keyboard-first terminal reader for paper abstracts.",
        epilog="Subcommands: list, search, index, bookmarks, config, export, saved, inbox, recommend,"
        " related (tui-reader SUBCOMMAND --help).",
    )
    parser.add_argument("--version", action="version", version=f"tui-reader {__version__}")
    _add_common(parser)
    parser.set_defaults(bookmarks=None)
    return parser


def build_sub_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tui-reader")
    add_bookmarks_option(parser, default=None)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="every paper in corpus order")
    _add_common(p)
    p.add_argument("--json", action="store_true", help="JSON array with the full records")
    p = sub.add_parser("search", help="search the corpus")
    p.add_argument("query")
    _add_common(p)
    p.add_argument("--limit", type=int, default=20, help="hits to show (default 20)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--time-limit",
        type=seconds,
        metavar="SECONDS",
        help="stop a costly search after this long, with a lower-bound count (default: 1.5, and a search "
        "stopped then is asked again for up to 30, as the reader does; 0: never)",
    )
    p = sub.add_parser("index", help="build or update the search index")
    _add_common(p)
    p.add_argument("--rebuild", action="store_true", help="throw the index away and build anew")
    p = sub.add_parser(
        "config",
        help="print the effective configuration and every action name",
        description="Print the configuration the reader would use (config.toml with its defaults filled "
        "in), as a config file, with every action [keys] can rebind. Problems go to stderr.",
    )
    p.add_argument("--path", action="store_true", help="print only the configuration file's path")
    add_bookmarks_parser(sub, _add_common)
    add_export_parser(sub, _add_common)
    add_saved_parser(sub, _add_common)
    add_related_parser(sub, _add_common)
    add_recommend_parser(sub, _add_common)
    return parser


# -- helpers ----------------------------------------------------------------------------------
def _warn(corpus: Corpus) -> None:
    for warning in corpus.warnings:
        print(f"tui-reader: warning: {warning}", file=sys.stderr)


def _resolve_id(corpus: Corpus, given: str, store: BookmarkStore | None = None) -> str:
    if given in corpus.index_of or (store and given in store):
        return given
    old = corpus.resolve(given) if len(given) == 12 else None  # an id from before issue 18
    if old is not None:
        return corpus.ids[old]
    matches = [pid for pid in corpus.ids if pid.startswith(given)] if len(given) >= 4 else []
    if store:
        matches += [pid for pid in store.ids() if pid.startswith(given) and pid not in matches]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise UsageError(f"id '{given}' is ambiguous ({len(matches)} papers); give more of it")
    raise UsageError(f"no paper with id '{given}' in the corpus")


# -- commands ---------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace, corpus: Corpus) -> int:
    if args.json:
        sys.stdout.write("[")
        for i, paper in enumerate(corpus):
            sys.stdout.write(("," if i else "") + "\n" + json.dumps(paper.to_dict(), ensure_ascii=False))
        sys.stdout.write("\n]\n")
        return 0
    for i in range(len(corpus)):
        print(f"{corpus.ids[i]}  {corpus.titles[i]}")
    return 0


def _has_filters(query: str) -> bool:
    from tui_reader.search import querytext

    return bool(querytext.split_filters(query)[1])


def _reads_user_ids(args: argparse.Namespace) -> bool:
    """Whether the command reads ids the user's stores hold, so they must be the papers' ids of
    issue 18 first: a search without an ``is:``/``tag:`` filter prints only the collection's (and
    at 1M papers comparing a visits store with the collection was most of a one-shot search)."""
    if args.command == "search":
        return _has_filters(args.query)
    return args.command in MIGRATING


def _filter_sets(args: argparse.Namespace) -> dict[str, frozenset[str]] | None:
    """The user's own sets for ``is:`` and ``tag:`` filters, as the reader gives them (read only
    when the query has one). ``is:new`` is about the reader's visits: not known here, and said."""
    if not _has_filters(args.query):
        return None
    from tui_reader.library.bookmarks import BookmarkStore
    from tui_reader.library.reading import ReadStore
    from tui_reader.search import querytext

    marks = BookmarkStore(args.bookmarks or paths.bookmarks_file()).all()
    read = ReadStore(paths.data_dir() / "read.json")
    for warning in read.warnings:
        print(f"tui-reader: {clean_label(warning)}", file=sys.stderr)
    return {
        "read": read.ids(),
        "bookmarked": frozenset(m.id for m in marks),
        **querytext.tag_sets((m.id, m.tags) for m in marks),
    }


def cmd_search(args: argparse.Namespace, corpus: Corpus) -> int:
    from tui_reader.search import PATIENT_LIMIT, TIME_LIMIT, SearchMode

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    from tui_reader.search import remember_self_check

    seconds = TIME_LIMIT if args.time_limit is None else args.time_limit or None
    remember_self_check()  # one search: the fast paths' verdict for this code, kept in the cache
    sets = _filter_sets(args)

    def ask(searcher: Searcher) -> SearchResult:
        result = searcher.search(args.query, SearchMode.ENTER, args.limit, time_limit=seconds, sets=sets)
        if result.stopped == "time" and args.time_limit is None:  # asked again, as the reader does
            first = result.took_ms
            result = searcher.search(args.query, SearchMode.ENTER, args.limit, PATIENT_LIMIT, sets)
            result = dataclasses.replace(result, took_ms=first + result.took_ms)  # the time it all took
        return result

    result = answered(corpus, ask, quiet=args.json)
    if result.notice:
        print(f"tui-reader: {clean_label(result.notice)}", file=sys.stderr)
    hits = (hit_fields(corpus, found, result.terms) for found in result.hits)  # each when written
    if args.json:
        write_search_json(args.query, result, hits)
        return 0
    print(
        f"{result.count_text} result{'s' if result.total != 1 else ''} for {args.query!r} "
        f"({result.took_ms:.1f} ms)"
    )
    if result.suggestion:
        print(f"Did you mean: {clean_label(result.suggestion)}")
    for n, hit in enumerate(hits, 1):
        print(f"\n{n:>3}. {hit['title']}\n     id {hit['id']}  score {hit['score']:.2f}")
        print(f"     {hit['snippet']}")
    return 0


def cmd_index(args: argparse.Namespace, corpus: Corpus) -> int:
    from tui_reader.search import open_searcher as opening

    # warm: the word lists are read, so damage the manifest cannot see is found (and rebuilt) here
    opened = opening(
        corpus, rebuild=args.rebuild, wait=True, progress=progress_printer("indexing"), tell=told
    )
    report, index = opened.report, opened.index
    state = "damaged" if opened.rebuilt and not args.rebuild else opened.status
    what = {
        "unchanged": "index is up to date",
        "built": f"built the index of {report.added:,} papers",
        "updated": f"updated the index: {report.added} added, {report.changed} changed, "
        f"{report.removed} removed",
    }[report.action]
    if report.reason:
        print(f"tui-reader: {clean_label(report.reason)}", file=sys.stderr)
    print(f"{what} in {report.seconds:.2f} s ({state}); {clean_label(str(index.dir))}")
    return 0


def cmd_bookmarks(args: argparse.Namespace, corpus: Corpus) -> int:
    return run_bookmarks(args, corpus, _resolve_id)


def cmd_export(args: argparse.Namespace, corpus: Corpus) -> int:
    return run_export(args, corpus, _filter_sets)


def cmd_config(args: argparse.Namespace) -> int:
    """The effective configuration. Reading the table of actions loads no Textual; the theme
    names do (only here, for this subcommand)."""
    from textual.theme import BUILTIN_THEMES

    from tui_reader.app.commands import helps, reader_keys, reserved_keys
    from tui_reader.library.config import as_toml, load_config

    path = paths.config_file()
    if args.path:
        print(path)
        return 0
    config = load_config(path, reader_keys(), set(BUILTIN_THEMES), reserved_keys())
    for problem in config.problems:
        print(f"tui-reader: warning: {clean_label(problem)}", file=sys.stderr)
    where = "" if config.found else " (not there: these are the defaults)"
    print(f"# {clean_label(str(path))}{where}")
    print(f"# themes: {', '.join(sorted(BUILTIN_THEMES))}")
    sys.stdout.write(as_toml(config, reader_keys(), helps(), "textual-dark"))
    return 0


def run_subcommand(argv: Sequence[str]) -> int:
    parser = build_sub_parser()
    args, extra = parser.parse_known_args(argv)
    take_trailing_paths(parser, args, extra)
    if args.command == "config":
        return cmd_config(args)
    if args.command == "saved":
        return run_saved(args)
    corpus = load_corpus(args.paths)
    _warn(corpus)
    if _reads_user_ids(args):  # ids saved before issue 18: renamed once
        from tui_reader.library.migrate_ids import migrate_files

        marks = getattr(args, "bookmarks", None) or paths.bookmarks_file()
        for warning in migrate_files(corpus, paths.data_dir(), marks):
            print(f"tui-reader: warning: {clean_label(warning)}", file=sys.stderr)
    if args.command == "inbox":
        return run_inbox(args, corpus, open_searcher, _filter_sets)
    if args.command == "related":
        return run_related(args, corpus, open_searcher)
    if args.command == "recommend":
        return run_recommend(args, corpus, open_searcher, _resolve_id)
    handler = {"list": cmd_list, "search": cmd_search, "index": cmd_index, "bookmarks": cmd_bookmarks}.get(
        args.command, cmd_export
    )
    return handler(args, corpus)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    closed = reserve_standard_fds()
    try:
        if subcommand_given(argv, SUBCOMMANDS):
            with checked_stdout(closed=1 in closed):
                return run_subcommand(argv)
        with checked_stdout() if 1 not in closed else contextlib.nullcontext():  # --help, --version
            args = build_parser().parse_args(argv)
        for raw in args.paths:  # fail before the screen opens, with a plain message
            if not Path(raw).expanduser().exists():
                raise CorpusError(f"no such file or folder: {raw}")
        from tui_reader.search import one_arena

        one_arena()  # before any thread: the first keystroke's memory (search/index/heap.py)
        from tui_reader.app.app import ReaderApp
        from tui_reader.corpus.outcomes import prepare as prepare_parse_workers

        app = ReaderApp(args.paths, bookmarks_path=args.bookmarks)
        prepare_parse_workers(args.paths)  # before Textual takes stderr
        app.run()
        return app.return_code or 0
    except OutputError as exc:
        print(f"tui-reader: error: {exc}", file=sys.stderr)
        return 1
    except (CorpusError, UsageError) as exc:
        print(f"tui-reader: error: {clean_label(str(exc))}", file=sys.stderr)
        return 2
    except ReadOnlyStore as exc:
        print(f"tui-reader: error: {clean_label(str(exc))}", file=sys.stderr)
        return 1
    except IndexBusy as exc:
        print(f"tui-reader: error: {exc}; try again in a moment", file=sys.stderr)
        return 1
    except (CacheUnusable, IndexDamaged) as exc:  # the index cannot be written, or read once rebuilt
        print(f"tui-reader: error: {clean_label(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `tui-reader list | head`: quiet, as a pipe's writer should be
        discard_stdout()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
