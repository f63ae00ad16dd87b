"""``tui-reader bookmarks``: list, add, remove, tag, untag and export, on the same store the
reader uses. Every action but remove first refreshes the bookmarks' snapshots from the open
collection (one write, only when a paper changed), so a later export without it is complete.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from tui_reader import paths
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.text import clean_label, safe_json
from tui_reader.library.bookmarks import Bookmark, BookmarkStore, ReadOnlyStore, normalise_tags
from tui_reader.library.export import FORMATS, export

# (corpus, the id or its start as given, the store) -> the paper's full id; UsageError if none
Resolve = Callable[[Corpus, str, BookmarkStore | None], str]


def _tag_word(text: str) -> str:
    """argparse's check of a TAG: it must hold a tag once normalised (not only commas or blanks)."""
    if not normalise_tags([text]):
        raise argparse.ArgumentTypeError(f"no tag given in {text!r} (commas separate tags)")
    return text


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], add_common: Callable[..., None]
) -> None:
    p = sub.add_parser("bookmarks", help="list, add, remove, tag or export bookmarks")
    bsub = p.add_subparsers(dest="action", required=True)
    for name, helptext in (
        ("list", "list bookmarks"),
        ("add", "bookmark a paper by id"),
        ("remove", "remove a bookmark"),
        ("tag", "add tags to a paper's bookmark (bookmarks it if needed)"),
        ("untag", "take tags off a bookmark"),
        ("export", "export bookmarks (BibTeX, RIS and CSL-JSON cite them)"),
    ):
        bp = bsub.add_parser(name, help=helptext)
        if name in ("add", "remove", "tag", "untag"):
            bp.add_argument("id")
        if name in ("tag", "untag"):  # the tags take the positional place of the paths
            bp.add_argument(
                "tags", nargs="+", type=_tag_word, metavar="TAG", help="a tag (commas separate tags too)"
            )
            bp.add_argument(
                "--collection",
                dest="paths",
                action="append",
                default=[],
                metavar="PATH",
                help="corpus file or folder the paper is in (repeatable; default: the bundled seeds)",
            )
        if name == "add":
            bp.add_argument("--note", default="")
        if name == "export":
            bp.add_argument("--format", choices=FORMATS, default="markdown")
        if name in ("export", "list"):
            bp.add_argument("--tag", metavar="NAME", help="only the bookmarks with this tag (any case)")
        if name == "list":
            bp.add_argument("--json", action="store_true")
        add_common(bp, with_paths=name not in ("tag", "untag"))


def _refresh_snapshots(store: BookmarkStore, corpus: Corpus) -> None:
    if store.read_only or not len(store):
        return
    try:
        store.refresh_snapshots(corpus.get)
    except ReadOnlyStore as exc:  # not saved: this run still exports from the open collection
        print(f"tui-reader: warning: {clean_label(str(exc))}", file=sys.stderr)


def _line(mark: Bookmark, corpus: Corpus) -> str:
    flag = "" if mark.id in corpus.index_of else "  (not in this corpus)"
    tags = f"  [{', '.join(mark.tags)}]" if mark.tags else ""
    note = f"  — {' ↵ '.join(mark.note.splitlines())}" if mark.note else ""
    return f"{mark.id}  {mark.added}  {mark.title}{tags}{note}{flag}"


def _retag(args: argparse.Namespace, corpus: Corpus, store: BookmarkStore, resolve: Resolve) -> int:
    pid = resolve(corpus, args.id, store)
    if args.action == "tag":
        row = corpus.index_of.get(pid)
        title = corpus.titles[row] if row is not None else ""
        mark: Bookmark | None = store.add_tags(pid, args.tags, title, snapshot=corpus.get(pid))
    else:
        mark = store.remove_tags(pid, args.tags)
    if mark is None:
        print(f"tui-reader: {pid} was not bookmarked", file=sys.stderr)
        return 1
    shown = f"[{', '.join(mark.tags)}]" if mark.tags else "(no tags)"
    print(f"{pid}  {mark.title}  {shown}")
    return 0


def run(args: argparse.Namespace, corpus: Corpus, resolve: Resolve) -> int:
    store = BookmarkStore(args.bookmarks or paths.bookmarks_file())
    for warning in store.warnings:
        print(f"tui-reader: warning: {warning}", file=sys.stderr)
    if args.action != "remove":
        _refresh_snapshots(store, corpus)
    tag = getattr(args, "tag", None)
    if tag is not None and not store.ids_with_tag(tag):
        known = ", ".join(store.all_tags()) or "none yet"
        print(
            f"tui-reader: warning: no bookmark is tagged {clean_label(tag)!r} (tags: {known})",
            file=sys.stderr,
        )
    if args.action == "list":
        marks = [m for m in store.all() if tag is None or m.has_tag(tag)]
        if args.json:
            print(safe_json([m.to_dict() for m in marks], indent=2))  # fields kept verbatim: escaped
        for m in [] if args.json else marks:
            print(_line(m, corpus))
        return 0
    if args.action == "add":
        pid = resolve(corpus, args.id, None)
        mark = store.add(pid, corpus.titles[corpus.index_of[pid]], args.note, snapshot=corpus.get(pid))
        if args.note and mark.note != args.note:
            store.set_note(pid, args.note)
        print(f"bookmarked {pid}  {mark.title}")
        return 0
    if args.action in ("tag", "untag"):
        return _retag(args, corpus, store, resolve)
    if args.action == "remove":
        pid = resolve(corpus, args.id, store)
        if not store.remove(pid):
            print(f"tui-reader: {pid} was not bookmarked", file=sys.stderr)
            return 1
        print(f"removed {pid}")
        return 0
    sys.stdout.write(export(store.all(), corpus.get, args.format, tag=tag))
    return 0
