"""The architecture, held by tests: which package may import what, and how big a module may grow.

corpus/ (reading collections) and library/ (the user's own data) know neither Whoosh nor
Textual; search/ is the only package that imports Whoosh; only app/ imports Textual; the
command line starts without loading either.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tui_reader"
MAX_LINES = 400
# The screen routes every key and message to the collaborator it concerns, three lines each: a
# table, not logic (its functions stay short; ruff's complexity rules check those).
LONGER = {"app/screens/main.py": 480}

# package (first path part under tui_reader/, or the module name) -> imports it must not make
FORBIDDEN = {
    "corpus": {"whoosh", "textual", "rich", "tui_reader.search", "tui_reader.library", "tui_reader.app"},
    "library": {"whoosh", "textual", "rich", "tui_reader.search", "tui_reader.app"},
    "search": {"textual", "rich", "tui_reader.library", "tui_reader.app"},
    "errors.py": {"whoosh", "textual", "rich", "tui_reader."},
    "paths.py": {"whoosh", "textual", "rich", "tui_reader."},
    "atomic.py": {"whoosh", "textual", "rich", "tui_reader."},
    "cli.py": {"whoosh", "textual", "rich"},  # the app and the index are imported inside functions
    "app": {"whoosh"},
}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def imported(path: Path) -> list[tuple[int, str, bool]]:
    """(line, module, at top level) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = parts[: len(parts) - node.level]
                base = ".".join([*anchor, base] if base else anchor)
            out.append((node.lineno, base, id(node) in top))
    return out


def layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.name


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    rules = FORBIDDEN.get(layer(path), set())
    for line, name, at_top in imported(path):
        if layer(path) == "cli.py" and not at_top:
            continue  # the command line imports the index and the app only when it needs them
        for banned in rules:
            assert not (name == banned.rstrip(".") or name.startswith(banned.rstrip(".") + ".")) or (
                banned == "tui_reader." and name == "tui_reader"
            ), f"{path.relative_to(PACKAGE)}:{line} imports {name}"


def test_only_search_imports_whoosh() -> None:
    offenders = [
        f"{p.relative_to(PACKAGE)}:{line}"
        for p in modules()
        if layer(p) != "search"
        for line, name, _ in imported(p)
        if name == "whoosh" or name.startswith("whoosh.")
    ]
    assert offenders == []


def test_the_command_line_starts_without_textual_or_whoosh() -> None:
    code = (
        "import sys, tui_reader.cli, tui_reader.corpus.corpus, tui_reader.library.export; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'whoosh', 'rich'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= LONGER.get(str(path.relative_to(PACKAGE)), MAX_LINES), (
        f"{path.relative_to(PACKAGE)} has {lines} lines: split it by concern"
    )


def test_only_the_seam_touches_whooshs_private_attributes() -> None:
    """``obj._name`` on anything but self/cls is reaching into another object (in search/:
    Whoosh's); w3.py is the one module allowed to, so a Whoosh upgrade has one place to check."""
    offenders = []
    for p in modules():
        if layer(p) != "search" or p.name == "w3.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                offenders.append(f"{p.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert offenders == []
