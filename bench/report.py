"""Figures, budgets and the one printed table (the JSON file holds the same rows)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

STATS = ("median", "p95", "max")


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(slots=True)
class Summary:
    n: int
    median: float
    p95: float
    max: float
    min: float = math.nan  # for budgets on the worst of a higher-is-better figure (recall)

    @classmethod
    def of(cls, values: list[float]) -> Summary:
        if not values:
            return cls(0, math.nan, math.nan, math.nan)
        return cls(len(values), statistics.median(values), percentile(values, 95), max(values), min(values))

    def get(self, stat: str) -> float:
        return float(getattr(self, stat))

    def to_json(self) -> dict[str, float | int | None]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)

        return {
            "n": self.n,
            "median": clean(self.median),
            "p95": clean(self.p95),
            "max": clean(self.max),
            "min": clean(self.min),
        }


@dataclass(slots=True)
class Budget:
    stat: str  # "median", "p95", "max" or "min"
    limit: float
    higher_is_better: bool = False

    def holds(self, summary: Summary) -> bool | None:
        value = summary.get(self.stat)
        if math.isnan(value):
            return None
        return value >= self.limit if self.higher_is_better else value <= self.limit

    def text(self, unit: str) -> str:
        op = ">=" if self.higher_is_better else "<="
        name = "" if self.stat == "median" else self.stat
        return f"{name}{op}{_num(self.limit, unit)}"


@dataclass(slots=True)
class Row:
    """One line of the table: our figure, its budget, and the reference engines beside it."""

    key: str
    label: str
    unit: str
    values: list[float] = field(default_factory=list)
    budgets: list[Budget] = field(default_factory=list)
    fts5: list[float] | None = None
    grep: list[float] | None = None
    na: str | None = None  # why there is no figure
    note: str = ""

    @property
    def summary(self) -> Summary:
        return Summary.of(self.values)

    @property
    def status(self) -> str:
        if self.na is not None or not self.values:
            return "n/a"
        if not self.budgets:
            return ""
        verdicts = [b.holds(self.summary) for b in self.budgets]
        if any(v is False for v in verdicts):
            return "OVER"
        return "OK" if all(v is True for v in verdicts) else "n/a"

    def ratios(self) -> dict[str, float] | None:
        """Ours / FTS5 for the median and the p95 (holds on a noisy machine)."""
        if not self.fts5 or not self.values:
            return None
        ours, ref = self.summary, Summary.of(self.fts5)
        out = {}
        for stat in ("median", "p95"):
            if ref.get(stat) > 0:
                out[stat] = ours.get(stat) / ref.get(stat)
        return out or None

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "label": self.label,
            "unit": self.unit,
            **self.summary.to_json(),
            "budgets": [
                {"stat": b.stat, "limit": b.limit, "higher_is_better": b.higher_is_better}
                for b in self.budgets
            ],
            "status": self.status,
            "na": self.na,
            "note": self.note,
            "fts5": Summary.of(self.fts5).to_json() if self.fts5 is not None else None,
            "grep": Summary.of(self.grep).to_json() if self.grep is not None else None,
            "ours_over_fts5": ({k: round(v, 3) for k, v in r.items()} if (r := self.ratios()) else None),
            "values": [round(v, 4) for v in self.values],
        }


def _num(x: float, unit: str) -> str:
    if math.isnan(x):
        return "-"
    if unit == "docs/s":
        return f"{x:,.0f}/s"
    if unit == "MB":
        return f"{x:,.0f} MB" if x >= 10 else f"{x:.1f} MB"
    if unit == "s":
        return f"{x:.2f} s" if x < 10 else f"{x:.1f} s"
    if unit == "ms":
        if x < 1:
            return f"{x:.3f} ms"
        return f"{x:.2f} ms" if x < 10 else f"{x:.1f} ms" if x < 1000 else f"{x:,.0f} ms"
    if unit == "count":
        return f"{x:,.0f}"
    if unit == "%":
        return f"{x:.4g}%"
    return f"{x:.3g} {unit}"


COLUMNS = (
    "measure",
    "n",
    "median",
    "p95",
    "max",
    "budget",
    "ok",
    "fts5 med",
    "fts5 p95",
    "ours/fts5",
    "grep med",
)


def table(rows: list[Row], header: str) -> str:
    lines: list[list[str]] = []
    for row in rows:
        s = row.summary
        if row.na is not None:
            cells = [row.label, "-", "n/a", "", "", _budget_text(row), "n/a", "", "", "", ""]
            lines.append(cells)
            continue
        fts = Summary.of(row.fts5) if row.fts5 is not None else None
        grep = Summary.of(row.grep) if row.grep is not None else None
        ratios = row.ratios()
        ratio_text = ""
        if ratios:
            ratio_text = " / ".join(_ratio(ratios[k]) for k in ("median", "p95") if k in ratios)
        repeated = s.n > 1
        cells = [
            row.label,
            str(s.n),
            _num(s.median, row.unit),
            _num(s.p95, row.unit) if repeated else "",
            _num(s.max, row.unit) if repeated else "",
            _budget_text(row),
            row.status,
            _ref(fts, "median", row.unit),
            _ref(fts, "p95", row.unit),
            ratio_text,
            _ref(grep, "median", row.unit),
        ]
        lines.append(cells)
    widths = [
        max(len(COLUMNS[i]), *(len(c[i]) for c in lines)) if lines else len(COLUMNS[i])
        for i in range(len(COLUMNS))
    ]
    left = {0, 5}

    def fmt(cells: list[str] | tuple[str, ...]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [header, fmt(COLUMNS), fmt(tuple("-" * w for w in widths))]
    out += [fmt(c) for c in lines]
    notes = [f"  * {r.label}: {r.na or r.note}" for r in rows if (r.na or r.note)]
    if notes:
        out += ["", "notes:", *notes]
    return "\n".join(out)


def _ratio(r: float) -> str:
    return f"{r:.0f}x" if r >= 10 else f"{r:.1f}x" if r >= 1 else f"{r:.2g}x"


def _ref(summary: Summary | None, stat: str, unit: str) -> str:
    if summary is None:
        return ""
    if summary.n == 0:
        return "n/a"
    return _num(summary.get(stat), unit)


def _budget_text(row: Row) -> str:
    return ", ".join(b.text(row.unit) for b in row.budgets)
