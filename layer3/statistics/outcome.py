"""The result of one two-sample test, the effect-size magnitude labels, and the reason codes of undefined tests.

An undefined test carries an English ``reason`` and, for translation, a machine-readable ``reason_code`` with its
``reason_params`` (JSON-ready: strings, numbers and lists); ``REASON_CODES`` lists every code and its params:

- ``empty_group`` {models: [labels], metric, unit}: a group has no data (``unit`` one of ``SAMPLE_UNIT_CODES``);
- ``all_tied`` {n, value}: the n values of both groups all equal ``value`` (Mann-Whitney);
- ``pooled_proportion_zero`` / ``pooled_proportion_one`` {n}: no successes / only successes among the n items
  or bindings of both groups (two-proportion z);
- ``different_judges`` {modelA, modelB, judgeA, judgeB}: a judged metric whose two models have different judges;
- ``mixed_judges`` {model, judges: [labels]}: a judged metric of a model judged by more than one judge.

(``metric`` and ``unit`` of ``empty_group`` are added by :func:`layer3.statistics.comparisons.compare_metric`,
which knows the metric; the tests themselves give ``models``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

MAGNITUDES = ("negligible", "small", "medium", "large")
RANK_BISERIAL_THRESHOLDS = (0.1, 0.3, 0.5)
COHENS_H_THRESHOLDS = (0.2, 0.5, 0.8)
REASON_CODES = (
    "empty_group",
    "all_tied",
    "pooled_proportion_zero",
    "pooled_proportion_one",
    "different_judges",
    "mixed_judges",
)


@dataclass(frozen=True)
class TwoSampleResult:
    """One test of group A against group B.

    ``statistic``, ``p_value``, ``effect_size`` and ``effect_magnitude`` are all None when the test is undefined,
    and then ``reason`` says why in English, ``reason_code`` (one of ``REASON_CODES``) and ``reason_params`` for
    translation (all three are None otherwise). ``n_a``/``n_b`` count trial values (Mann–Whitney) or
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
    reason_code: str | None = None
    reason_params: dict | None = None

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


def empty_group_reason(unit: str, n_a: int, n_b: int, labels: tuple[str, str]) -> dict | None:
    """The fields of an empty group's result: ``reason`` "no {unit} in model B" (or "in models A and B"),
    ``reason_code`` "empty_group", ``reason_params`` {"models": [the empty ones]}; None when both have data."""
    empty = [label for label, n in zip(labels, (n_a, n_b), strict=True) if n == 0]
    if not empty:
        return None
    models = f"model {empty[0]}" if len(empty) == 1 else f"models {empty[0]} and {empty[1]}"
    return {"reason": f"no {unit} in {models}", "reason_code": "empty_group", "reason_params": {"models": empty}}
