"""Argument parsing helpers for the command line: the checks argparse runs on values, and the
options that may come before the subcommand as well as after it."""

from __future__ import annotations

import argparse
import math
from collections.abc import Collection, Sequence
from pathlib import Path


def seconds(text: str) -> float:
    """argparse's check of --time-limit: a finite number of seconds, 0 or more (nan, inf and a
    negative number would each turn the limit off without a word)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or a finite number of seconds, not {text!r}")
    return value


def add_bookmarks_option(p: argparse.ArgumentParser, default: object = argparse.SUPPRESS) -> None:
    """--bookmarks, before the subcommand or after it. Below the top, its default is SUPPRESS:
    a subparser's own default would overwrite the value given before the subcommand."""
    p.add_argument(
        "--bookmarks",
        metavar="FILE",
        type=Path,
        default=default,
        help="bookmarks file (default: $XDG_DATA_HOME/tui-reader/bookmarks.json)",
    )


def subcommand_given(argv: Sequence[str], names: Collection[str]) -> bool:
    """Whether the first word that is not an option (nor --bookmarks' value) is a subcommand:
    ``tui-reader --bookmarks F bookmarks list`` is the bookmarks subcommand, not two paths."""
    words = iter(argv)
    for word in words:
        if word == "--":
            return False
        if word.startswith("--") and "=" not in word and len(word) > 2 and "--bookmarks".startswith(word):
            next(words, None)  # its value, whatever it is called
        elif not word.startswith("-") or word == "-":
            return word in names
    return False


def take_trailing_paths(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> None:
    """Paths after an option (``search '*' --json PATH``): argparse gives ``PATH...`` only what
    precedes the first option and leaves the rest over; anything else left over is an error."""
    tagging = getattr(args, "action", None) in ("tag", "untag")  # their paths: --collection
    positional_paths = isinstance(getattr(args, "paths", None), list) and not tagging
    if extra and positional_paths and not any(word.startswith("-") for word in extra):
        args.paths += extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
