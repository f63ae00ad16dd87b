"""The package's imports: no cycles (counting imports inside functions, which only defer one), the
app and the command line reach search only through its public front, and the front resolves."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import tui_reader
import tui_reader.search as front

PACKAGE = Path(tui_reader.__file__).parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under ``if TYPE_CHECKING:``: they never run."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {
                n.lineno
                for stmt in node.body
                for n in ast.walk(stmt)
                if isinstance(n, ast.ImportFrom | ast.Import)
            }
    return lines


def _package_of(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]


def imported(name: str) -> set[str]:
    """The project's modules that ``name`` imports when it runs (at its top or in a function)."""
    tree = ast.parse(MODULES[name].read_text("utf-8"))
    skip = _checking_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [
                        *_package_of(name).split(".")[: len(_package_of(name).split(".")) - node.level + 1],
                        base,
                    ]
                ).strip(".")
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


def cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    graph = {m: sorted(imported(m)) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in graph[m]:
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = []
            while True:
                n = stack.pop()
                group.append(n)
                if n == m:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for m in graph:
        if m not in index:
            visit(m)
    return groups


def test_no_import_cycles() -> None:
    assert cycles() == []


def test_the_cycle_finder_finds_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: two modules importing each other, one of them lazily."""
    (tmp_path / "a.py").write_text("from tui_reader import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from tui_reader import a\n")
    monkeypatch.setitem(MODULES, "tui_reader.a", tmp_path / "a.py")
    monkeypatch.setitem(MODULES, "tui_reader.b", tmp_path / "b.py")
    assert ["tui_reader.a", "tui_reader.b"] in cycles()


OUTSIDE = re.compile(r"^tui_reader\.(app|cli\w*|library|corpus)\b")


def test_the_app_and_the_command_line_import_search_only_through_its_front() -> None:
    offenders = []
    for name, path in MODULES.items():
        if not OUTSIDE.match(name):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tui_reader.search."):
                offenders.append(f"{name}:{node.lineno} {node.module}")
            if isinstance(node, ast.Import):
                offenders += [
                    f"{name}:{node.lineno} {a.name}"
                    for a in node.names
                    if a.name.startswith("tui_reader.search.")
                ]
    assert offenders == []


@pytest.mark.parametrize("name", front.__all__)
def test_every_name_of_the_front_resolves_and_hides_no_module(name: str) -> None:
    assert getattr(front, name) is not None
    assert f"tui_reader.search.{name}" not in MODULES  # a submodule of that name would be shadowed


def test_the_front_loads_no_whoosh_until_a_name_needs_it() -> None:
    """The command line's quick start: naming a search mode must not import Whoosh."""
    import subprocess
    import sys

    code = "import sys; from tui_reader.search import SearchMode, PAGE, querytext; print('whoosh' in sys.modules)"  # noqa: E501
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert importlib.import_module("tui_reader.search").Searcher.__name__ == "Searcher"
