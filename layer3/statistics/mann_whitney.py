"""Two-sided Mann–Whitney U test with the rank-biserial correlation (seed 002 §7.1: GV_CR, W2WR_SC, WS_ENT,
GC_NC, GC_EC, GC_DEN).

``mann_whitney_u(a, b)`` returns exactly ``scipy.stats.mannwhitneyu(a, b, alternative="two-sided")`` with scipy's
default ``method="auto"``, which is the call it makes: the exact distribution of U when there are no ties and the
smaller sample has at most 8 values, otherwise the normal approximation with tie correction and continuity
correction. The statistic is scipy's U for ``x = a``, U_A = R_A - n_A(n_A + 1)/2: the number of (a, b) pairs
with a > b, ties counting 1/2.

Effect size: the rank-biserial correlation r = 2·U_A/(n_A·n_B) - 1, in [-1, 1], positive when A tends to be
larger; magnitude by |r|: < 0.1 negligible, < 0.3 small, < 0.5 medium, else large.

Undefined (statistic, p-value and effect size None, with a reason and its code, see
:mod:`layer3.statistics.outcome`):

- a group is empty (``empty_group``; scipy returns NaN);
- all values of both groups are equal (``all_tied``): every rank is tied and the variance of U is 0. scipy
  returns U = n_A·n_B/2 with p = 1 here; an undefined test instead says that the data carry no information. It is
  not a performed test (with the seed's family it still counts in m, as a hypothesis left untested).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import numpy as np

from layer3.statistics.outcome import RANK_BISERIAL_THRESHOLDS, TwoSampleResult, effect_magnitude, empty_group_reason

TEST = "mann_whitney_u"
EFFECT_SIZE_TYPE = "rank_biserial"


def rank_biserial(u_a: float, n_a: int, n_b: int) -> Fraction:
    """r = 2·U_A/(n_A·n_B) - 1 (the proportion of pairs A wins minus the proportion it loses), exactly.

    U_A is a multiple of 1/2, so r is a ratio of integers: kept as a Fraction, its magnitude label is exact on
    the boundaries 0.1, 0.3 and 0.5, and ``float(r)`` is the correctly rounded value.
    """
    return Fraction(2 * u_a) / (n_a * n_b) - 1


def _sample(values: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional sequence of numbers; got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers only; got {array[~np.isfinite(array)][0]!r}")
    return array


def mann_whitney_u(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    labels: tuple[str, str] = ("A", "B"),
    unit: str = "values",
) -> TwoSampleResult:
    """Mann–Whitney U test of ``a`` (model ``labels[0]``) against ``b`` (model ``labels[1]``).

    ``unit`` names what the samples hold, for the reason of an empty group ("no {unit} in model B").
    """
    x = _sample(a, "a")
    y = _sample(b, "b")
    n_a, n_b = int(x.size), int(y.size)
    mean_a = math.fsum(x.tolist()) / n_a if n_a else None
    mean_b = math.fsum(y.tolist()) / n_b if n_b else None
    result = TwoSampleResult(TEST, EFFECT_SIZE_TYPE, n_a, n_b, mean_a, mean_b)

    undefined = empty_group_reason(unit, n_a, n_b, labels)
    if undefined is None:
        low, high = min(x.min(), y.min()), max(x.max(), y.max())
        if low == high:
            undefined = {
                "reason": (
                    f"all {n_a + n_b} values equal {float(low)!r} in both models, so every rank is tied and "
                    "the Mann-Whitney test is undefined"
                ),
                "reason_code": "all_tied",
                "reason_params": {"n": n_a + n_b, "value": float(low)},
            }
    if undefined is not None:
        return replace(result, **undefined)

    from scipy import stats  # ~0.5 s: where a test is run, not at Django start-up (issue 31)

    test = stats.mannwhitneyu(x, y, alternative="two-sided")
    u_a = float(test.statistic)
    r = rank_biserial(u_a, n_a, n_b)
    return replace(
        result,
        statistic=u_a,
        p_value=float(test.pvalue),
        effect_size=float(r),
        effect_magnitude=effect_magnitude(r, RANK_BISERIAL_THRESHOLDS),
    )
