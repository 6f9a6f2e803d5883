"""Paired tests of two versions of the same trials (two runs of one batch, or two matched batches).

``wilcoxon_signed_rank(a, b)`` tests the per-pair differences d = b - a of a continuous metric (GV_CR,
W2WR_SC, WS_ENT, GC_NC, GC_EC, GC_DEN). It returns exactly ``scipy.stats.wilcoxon(d)`` with scipy's defaults,
which is the call it makes: two-sided, ``zero_method="wilcox"`` (zero differences are dropped), no continuity
correction, ``method="auto"`` (the exact distribution for small samples without ties or zeros, otherwise the
normal approximation). The statistic is scipy's: the smaller of the rank sums of the positive and the negative
differences. Effect size: the matched-pairs rank-biserial correlation r = (R+ - R-)/(R+ + R-) over the ranks
of the non-zero |d|, positive when B tends to be larger.

``mcnemar(b, c)`` tests paired binary outcomes (an item useful in A and in B, a binding classified as flow...):
``b`` pairs succeed in A only, ``c`` in B only (the discordant pairs). It mirrors
``statsmodels.stats.contingency_tables.mcnemar(table)`` with ``table[0, 1] = b`` and ``table[1, 0] = c``,
computed with scipy in the same order of operations (statsmodels itself is only used by the tests):

- exact (``b + c < EXACT_BELOW``): statistic min(b, c), p = min(1, 2·binom.cdf(min(b, c), b + c, 0.5)),
  i.e. ``mcnemar(table, exact=True)``;
- chi-square with continuity correction (``b + c >= EXACT_BELOW``): statistic (|b - c| - 1)²/(b + c),
  p = chi2.sf(statistic, 1), i.e. ``mcnemar(table, exact=False, correction=True)``.

The variant used is named in ``test`` ("mcnemar_exact" or "mcnemar_chi2"). ``variant`` forces one of them.

Undefined (statistic and p-value None, with a reason and its code, never raised):

- no pairs (``no_pairs``);
- every difference is zero (``all_differences_zero``, Wilcoxon): nothing changed, the test has no rank to use
  (scipy returns p = 1 with a warning);
- no discordant pairs (``no_discordant_pairs``, McNemar): every pair has the same outcome in A and in B
  (statsmodels returns p = 1 exactly, and with the chi-square (|0| - 1)²/0 = inf, p = 0).

One non-zero difference is a performed test, as in scipy (statistic 0, p = 1).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from numbers import Integral

import numpy as np

WILCOXON = "wilcoxon_signed_rank"
MCNEMAR_EXACT = "mcnemar_exact"
MCNEMAR_CHI2 = "mcnemar_chi2"
EXACT_BELOW = 25  # fewer discordant pairs than this: the exact binomial test
PAIRED_REASON_CODES = ("no_pairs", "all_differences_zero", "no_discordant_pairs")


@dataclass(frozen=True)
class PairedResult:
    """One paired test: ``n`` pairs, the figure of A and of B (mean or proportion), ``difference`` = B - A.

    ``discordant`` is (b, c) for McNemar (A only, B only), None for Wilcoxon. Undefined tests keep None in
    ``statistic``, ``p_value`` and ``effect_size``, with ``reason``/``reason_code``/``reason_params``.
    """

    test: str
    n: int
    value_a: float | None
    value_b: float | None
    difference: float | None
    statistic: float | None = None
    p_value: float | None = None
    effect_size: float | None = None
    discordant: tuple[int, int] | None = None
    reason: str | None = None
    reason_code: str | None = None
    reason_params: dict | None = None

    @property
    def performed(self) -> bool:
        return self.p_value is not None


def _pairs(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a and b must be one-dimensional and of equal length; got shapes {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("a and b must hold finite numbers only")
    return x, y


def _no_pairs(test: str) -> PairedResult:
    return PairedResult(
        test, 0, None, None, None, reason="no pairs with a value in both A and B", reason_code="no_pairs",
        reason_params={"n": 0},
    )  # fmt: skip


def matched_rank_biserial(differences: np.ndarray) -> float:
    """(R+ - R-)/(R+ + R-) over the average ranks of the non-zero |d| (0 pairs: ValueError)."""
    from scipy import stats

    nonzero = differences[differences != 0]
    if not nonzero.size:
        raise ValueError("the rank-biserial correlation needs a non-zero difference")
    ranks = stats.rankdata(np.abs(nonzero))
    positive = math.fsum(ranks[nonzero > 0].tolist())
    negative = math.fsum(ranks[nonzero < 0].tolist())
    return (positive - negative) / (positive + negative)


def wilcoxon_signed_rank(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> PairedResult:
    """The Wilcoxon signed-rank test of d = b - a (``scipy.stats.wilcoxon(d)``), pair i being (a[i], b[i])."""
    x, y = _pairs(a, b)
    if not x.size:
        return _no_pairs(WILCOXON)
    n = int(x.size)
    mean_a = math.fsum(x.tolist()) / n
    mean_b = math.fsum(y.tolist()) / n
    result = PairedResult(WILCOXON, n, mean_a, mean_b, mean_b - mean_a)
    differences = y - x
    if not differences.any():
        return replace(
            result,
            reason=f"all {n} differences are zero, so the signed-rank test has nothing to rank",
            reason_code="all_differences_zero",
            reason_params={"n": n},
        )
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy warns about its own normal approximation with n=1
        test = stats.wilcoxon(differences)
    return replace(
        result,
        statistic=float(test.statistic),
        p_value=float(test.pvalue),
        effect_size=matched_rank_biserial(differences),
    )


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    return int(value)


def mcnemar(
    b: int, c: int, *, n: int | None = None, successes_a: int | None = None, variant: str | None = None
) -> PairedResult:
    """McNemar's test of ``b`` pairs successful in A only against ``c`` in B only.

    ``n`` (all pairs) and ``successes_a`` (pairs successful in A) give the proportions of A and B and their
    difference (B - A = (c - b)/n); without them those are None. ``variant``: None (by ``EXACT_BELOW``),
    "exact" or "chi2".
    """
    b, c = _count(b, "b"), _count(c, "c")
    if variant not in (None, "exact", "chi2"):
        raise ValueError(f"variant must be None, 'exact' or 'chi2'; got {variant!r}")
    discordant = b + c
    exact = variant == "exact" or (variant is None and discordant < EXACT_BELOW)
    test = MCNEMAR_EXACT if exact else MCNEMAR_CHI2
    total = discordant if n is None else _count(n, "n")
    if total < discordant:
        raise ValueError(f"n ({total}) must be at least the discordant pairs b + c ({discordant})")
    if total == 0:
        return _no_pairs(test)
    p_a = p_b = difference = None
    if n is not None and successes_a is not None:
        x_a = _count(successes_a, "successes_a")
        if x_a < b or x_a - b + c > total:
            raise ValueError(f"successes_a={x_a} is inconsistent with b={b}, c={c}, n={total}")
        p_a, p_b = x_a / total, (x_a - b + c) / total
        difference = (c - b) / total
    result = PairedResult(test, total, p_a, p_b, difference, discordant=(b, c))
    if discordant == 0:
        return replace(
            result,
            reason=f"no discordant pairs among {total}: every pair has the same outcome in A and B",
            reason_code="no_discordant_pairs",
            reason_params={"n": total},
        )
    from scipy import stats

    if exact:
        statistic = float(min(b, c))
        p_value = min(float(stats.binom.cdf(statistic, discordant, 0.5) * 2), 1.0)
    else:
        statistic = (abs(float(b) - float(c)) - 1) ** 2 / (1.0 * discordant)
        p_value = float(stats.chi2.sf(statistic, 1))
    return replace(result, statistic=statistic, p_value=p_value, effect_size=difference)
