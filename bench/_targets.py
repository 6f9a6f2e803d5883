"""What the benches share to tell the truth: the targets they checked, and labels for stored figures.

A bench records every target it checks in one ``Targets``; its last line is ``Targets.line()`` and its exit
status ``Targets.exit_status()`` (0 only when every checked target is met). A figure of another system that
was not measured in the same run is only ever printed through ``StoredFigure.label``, which names the
system, its setup, its transport and when it was measured.

Pure: no Django, no I/O except ``finish`` printing the last line.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TargetResult:
    name: str  # what was checked and its bound, e.g. "kappa_calculator end to end ≤ 4.5 s"
    met: bool
    measured: str  # the figure as printed, e.g. "6.41 s"

    def describe(self) -> str:
        return f"{self.name}: {'met' if self.met else 'NOT met'} ({self.measured})"


@dataclass
class Targets:
    """The targets one bench run checked, in the order it checked them."""

    results: list[TargetResult] = field(default_factory=list)
    none_reason: str = "no target is defined for this run"

    def record(self, name: str, met: bool, measured: str) -> bool:
        self.results.append(TargetResult(name, bool(met), measured))
        return bool(met)

    def at_most(self, name: str, value: float, bound: float, unit: str = "s", digits: int = 2) -> bool:
        """Record ``value <= bound``; ``name`` without the bound (it is appended as "≤ bound unit")."""
        suffix = f" {unit}" if unit else ""
        return self.record(f"{name} ≤ {bound:g}{suffix}", value <= bound, f"{value:.{digits}f}{suffix}")

    def at_least(self, name: str, value: float, bound: float, unit: str = "", digits: int = 1) -> bool:
        """Record ``value >= bound``; ``name`` without the bound (it is appended as "≥ bound unit")."""
        suffix = f"{unit}" if unit in ("x", "×", "/s") else (f" {unit}" if unit else "")
        return self.record(f"{name} ≥ {bound:g}{suffix}", value >= bound, f"{value:.{digits}f}{suffix}")

    @property
    def all_met(self) -> bool:
        return all(result.met for result in self.results)

    def verdict(self, met: bool) -> str:
        return "met" if met else "NOT met"

    def line(self) -> str:
        if not self.results:
            return f"targets: none checked ({self.none_reason})"
        n_met = sum(result.met for result in self.results)
        return f"targets: {n_met} of {len(self.results)} met — " + "; ".join(r.describe() for r in self.results)

    def exit_status(self) -> int:
        return 0 if self.all_met else 1

    def finish(self) -> int:
        """Print the last line of the bench and return its exit status."""
        print(self.line())
        return self.exit_status()


@dataclass(frozen=True)
class StoredFigure:
    """A figure of another system kept from an earlier measurement, never printed without where it comes from."""

    system: str  # "Label Studio 1.23.2"
    setup: str  # "gunicorn 4 sync"
    transport: str  # "HTTP"
    when: str  # "measured 2026-11-27", or "stored 2026-11-25, measurement date not recorded"

    def label(self, figure: str) -> str:
        return f"{self.system}, {self.setup}, {self.transport}, {self.when}: {figure}"


def ratio_range(ours: float, low: float, high: float) -> str:
    """Our figure against a stored range (higher is better on both sides), e.g. "7.0–7.9×"."""
    first, second = sorted((ours / high, ours / low))
    return f"{first:.1f}×" if f"{first:.1f}" == f"{second:.1f}" else f"{first:.1f}–{second:.1f}×"
