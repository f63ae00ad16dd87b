"""One progress figure for an index build that reports phase by phase.

``SearchIndex.ensure(progress=...)`` calls ``progress(done, total, phase)`` with each phase counting
from 0 to its own total ("indexing", then "writing the index", then "finishing"), and with
``total == 0`` while it waits (for another tui-reader building the same index). Shown as they come,
the figures go backwards (indexing 50% -> writing 17%). Here each phase owns a slice of one scale,
and the figure shown never goes down; 100% is left for "ready".
"""

from __future__ import annotations

# phase -> its slice of the overall figure, in percent
PHASES: dict[str, tuple[int, int]] = {
    "indexing": (0, 80),
    "writing the index": (80, 95),
    "finishing": (95, 99),
    "updating": (0, 99),  # an incremental update has one phase
}
SHOWN_MAX = 99


def phase_slice(phase: str) -> tuple[int, int] | None:
    """The slice a phase owns; None for a phase this table does not know."""
    if phase in PHASES:
        return PHASES[phase]
    for name, span in PHASES.items():
        if phase.startswith(name.split()[0]):  # "writing segments" -> "writing the index"
            return span
    return None


class OverallProgress:
    """Turns ``progress(done, total, phase)`` calls into status texts ("writing the index 86%")."""

    def __init__(self) -> None:
        self.percent = 0  # the largest figure computed so far
        self._last = ""

    def figure(self, done: int, total: int, phase: str) -> int:
        """The overall percentage for one call (never less than an earlier one)."""
        span = phase_slice(phase)
        if span is not None and total > 0:
            low, high = span
            fraction = min(max(done, 0), total) / total
            self.percent = max(self.percent, min(SHOWN_MAX, int(low + (high - low) * fraction)))
        return self.percent

    def update(self, done: int, total: int, phase: str) -> str | None:
        """The status text for this call, or None when it would repeat the one shown last."""
        text = phase if total <= 0 else f"{phase} {self.figure(done, total, phase)}%"
        if text == self._last:
            return None
        self._last = text
        return text
