"""The fuzz targets: fuzzing.py registers the smoke and fuzz profiles when this is imported."""

from __future__ import annotations

import pytest
from fuzzing import FUZZING, SECONDS, TRIED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many inputs each target tried (the statistics make fuzz reports)."""
    if not TRIED:
        return
    mode = f"fuzz profile, {SECONDS:g} s per target" if FUZZING else "smoke profile"
    terminalreporter.section(f"fuzz inputs tried ({mode})")
    for name, (count, seconds) in sorted(TRIED.items()):
        terminalreporter.write_line(f"{name:12} {count:7,} inputs in {seconds:6.1f} s")
    total = sum(c for c, _ in TRIED.values())
    terminalreporter.write_line(f"{'total':12} {total:7,}")
