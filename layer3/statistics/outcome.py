"""The result of one two-sample test, and the effect-size magnitude labels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

MAGNITUDES = ("negligible", "small", "medium", "large")
RANK_BISERIAL_THRESHOLDS = (0.1, 0.3, 0.5)
COHENS_H_THRESHOLDS = (0.2, 0.5, 0.8)


@dataclass(frozen=True)
class TwoSampleResult:
    """One test of group A against group B.

    ``statistic``, ``p_value``, ``effect_size`` and ``effect_magnitude`` are all None when the test is undefined,
    and then ``reason`` says why (it is None otherwise). ``n_a``/``n_b`` count trial values (Mann–Whitney) or
    items/bindings (two-proportion z); ``value_a``/``value_b`` are the mean or the proportion, None for an
    empty group. All numbers are plain Python ints and floats.
    """

    test: str  # "mann_whitney_u" | "two_proportion_z"
    effect_size_type: str  # "rank_biserial" | "cohens_h"
    n_a: int
    n_b: int
    value_a: float | None
    value_b: float | None
    statistic: float | None = None
    p_value: float | None = None
    effect_size: float | None = None
    effect_magnitude: str | None = None
    reason: str | None = None

    @property
    def performed(self) -> bool:
        """True when the test has a p-value (and so counts in the multiple-comparison correction)."""
        return self.p_value is not None


def effect_magnitude(effect_size: float | Fraction, thresholds: Sequence[float]) -> str:
    """The label "negligible" / "small" / "medium" / "large" for ``|effect_size|`` below each of the three
    thresholds in turn, "large" at or above the last.

    The thresholds are compared as the decimals they are written as (0.1 is 1/10, not the float nearest to
    it), so an effect size given exactly as a Fraction gets the right label on a boundary.
    """
    size = abs(effect_size)
    for label, threshold in zip(MAGNITUDES, thresholds, strict=False):
        if size < Fraction(str(threshold)):
            return label
    return MAGNITUDES[-1]


def empty_group_reason(unit: str, n_a: int, n_b: int, labels: tuple[str, str]) -> str | None:
    """The reason "no {unit} in model B" (or "in models A and B"), None when both groups have data."""
    empty = [label for label, n in zip(labels, (n_a, n_b), strict=True) if n == 0]
    if not empty:
        return None
    if len(empty) == 1:
        return f"no {unit} in model {empty[0]}"
    return f"no {unit} in models {empty[0]} and {empty[1]}"
