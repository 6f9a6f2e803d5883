"""Two-sided two-proportion z-test with pooled variance, and Cohen's h (seed 002 §7.1: GV_UR, W2WR_FR,
W2WR_MR, W2WR_SYR, W2WR_CR).

``two_proportion_z(x_a, n_a, x_b, n_b)`` equals ``statsmodels.stats.proportion.proportions_ztest([x_a, x_b],
[n_a, n_b])`` (pooled variance is its default; statsmodels itself is only used by the tests), computed in the
same order of operations:

    p_A = x_A/n_A, p_B = x_B/n_B, p = (x_A + x_B)/(n_A + n_B)
    z = (p_A - p_B) / sqrt(p(1 - p)(1/n_A + 1/n_B)),  p-value = 2·scipy.stats.norm.sf(|z|)

Effect size: Cohen's h = 2·asin(sqrt(p_A)) - 2·asin(sqrt(p_B)), positive when A has the larger proportion;
magnitude by |h|: < 0.2 negligible, < 0.5 small, < 0.8 medium, else large.

Undefined (statistic, p-value and effect size None, with a reason and its code, see
:mod:`layer3.statistics.outcome`; statsmodels would return NaN):

- a group has no items (n = 0; ``empty_group``);
- the pooled proportion is 0 or 1 (no successes, or only successes, in both groups; ``pooled_proportion_zero``,
  ``pooled_proportion_one``): the variance is 0.

``wald_difference(x_a, n_a, x_b, n_b)`` is the 95% Wald interval of the difference p_A - p_B with the unpooled
standard error, equal to ``statsmodels.stats.proportion.confint_proportions_2indep(x_a, n_a, x_b, n_b,
method="wald", compare="diff")`` (same order of operations, no clipping to [-1, 1]):

    d = p_A - p_B,  se = sqrt(p_A(1 - p_A)/n_A + p_B(1 - p_B)/n_B),  d ± scipy.stats.norm.isf(0.025)·se

The pooled z-test and this interval both treat every item as independent; items of one trial are not
(:mod:`layer3.statistics.bootstrap` gives the trial-level interval beside it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from numbers import Integral

from layer3.statistics.outcome import COHENS_H_THRESHOLDS, TwoSampleResult, effect_magnitude, empty_group_reason

TEST = "two_proportion_z"
EFFECT_SIZE_TYPE = "cohens_h"
WALD_ALPHA = 0.05  # the 95% interval; statsmodels' alpha, so z is computed as it computes it
# ``float(scipy.stats.norm.isf(WALD_ALPHA / 2))`` as written, so scipy (~0.5 s) is imported where a p-value is
# computed, not at Django start-up (issue 31); a test checks it against scipy.
WALD_Z = 1.9599639845400545


@dataclass(frozen=True)
class WaldDifference:
    """The difference p_A - p_B, its unpooled standard error and its 95% Wald interval [low, high]."""

    difference: float
    standard_error: float
    low: float
    high: float


def cohens_h(p_a: float, p_b: float) -> float:
    """h = 2·asin(sqrt(p_A)) - 2·asin(sqrt(p_B))."""
    return 2.0 * math.asin(math.sqrt(p_a)) - 2.0 * math.asin(math.sqrt(p_b))


def _counts(successes: object, n: object, group: str) -> tuple[int, int]:
    for name, value in ((f"x_{group}", successes), (f"n_{group}", n)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    if successes > n:
        raise ValueError(f"x_{group} must not exceed n_{group}; got x_{group}={successes}, n_{group}={n}")
    return int(successes), int(n)


def two_proportion_z(
    x_a: int,
    n_a: int,
    x_b: int,
    n_b: int,
    *,
    labels: tuple[str, str] = ("A", "B"),
    unit: str = "items",
) -> TwoSampleResult:
    """Two-proportion z-test of x_a/n_a (model ``labels[0]``) against x_b/n_b (model ``labels[1]``).

    ``unit`` names what n counts, for the reason of an empty group ("no {unit} in model B").
    """
    x_a, n_a = _counts(x_a, n_a, "a")
    x_b, n_b = _counts(x_b, n_b, "b")
    p_a = x_a * 1.0 / n_a if n_a else None
    p_b = x_b * 1.0 / n_b if n_b else None
    result = TwoSampleResult(TEST, EFFECT_SIZE_TYPE, n_a, n_b, p_a, p_b)

    undefined = empty_group_reason(unit, n_a, n_b, labels)
    if undefined is not None:
        return replace(result, **undefined)
    successes, n = x_a + x_b, n_a + n_b
    if successes in (0, n):
        pooled = "0 (no successes in either model)" if successes == 0 else "1 (only successes in both models)"
        return replace(
            result,
            reason=f"pooled proportion is {pooled}, so the variance is 0 and z is undefined",
            reason_code="pooled_proportion_zero" if successes == 0 else "pooled_proportion_one",
            reason_params={"n": n},
        )

    pooled_p = successes * 1.0 / n
    std_diff = math.sqrt(pooled_p * (1 - pooled_p) * (1.0 / n_a + 1.0 / n_b))
    z = (p_a - p_b) / std_diff
    from scipy import stats

    p_value = float(stats.norm.sf(abs(z)) * 2)
    h = cohens_h(p_a, p_b)
    return replace(
        result,
        statistic=z,
        p_value=p_value,
        effect_size=h,
        effect_magnitude=effect_magnitude(h, COHENS_H_THRESHOLDS),
    )


def wald_difference(x_a: int, n_a: int, x_b: int, n_b: int) -> WaldDifference | None:
    """The 95% Wald interval of p_A - p_B (unpooled standard error), None when a group has no items.

    Equals ``confint_proportions_2indep(x_a, n_a, x_b, n_b, method="wald", compare="diff")`` of statsmodels.
    Where both proportions are 0 or 1 the standard error is 0 and the interval is the point d.
    """
    x_a, n_a = _counts(x_a, n_a, "a")
    x_b, n_b = _counts(x_b, n_b, "b")
    if not (n_a and n_b):
        return None
    p_a = x_a * 1.0 / n_a
    p_b = x_b * 1.0 / n_b
    difference = p_a - p_b
    standard_error = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    margin = WALD_Z * standard_error
    return WaldDifference(difference, standard_error, difference - margin, difference + margin)
