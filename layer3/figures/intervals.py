"""95% confidence intervals of one model configuration's Layer3 metric, for the error bars (pure numpy/scipy).

The interval follows how the batch aggregation (``layer3.metrics.batch``) forms the figure it brackets:

- proportion metrics (``GV_UR``, ``W2WR_FR`` / ``W2WR_MR`` / ``W2WR_SYR``, ``W2WR_CR``) are item- or
  binding-weighted shares of counts summed over the trials, so their interval is the Wilson score interval
  on those counts. It equals ``statsmodels.stats.proportion.proportion_confint(successes, n, alpha=0.05,
  method="wilson")`` to 1e-9 (statsmodels is the tests' reference, not imported here). It is defined for every
  n ≥ 1, 0 and n successes too; there its exact bounds are 0 and 1, which rounding would miss by 1e-18, so
  the bounds are set to them and in general kept within [0, 1] and around the estimate.
- trial-mean metrics (``GV_CR``, ``W2WR_SC``, ``WS_ENT``, ``GC_NC``, ``GC_EC``, ``GC_DEN``) are means of one
  value per trial, so their interval is the t interval of the mean, ``mean ± t(0.975, n - 1) · s / √n``
  with the sample standard deviation (ddof = 1); it equals ``scipy.stats.t.interval(0.95, n - 1, loc=mean,
  scale=sem)``. With n = 1 it is undefined (no bounds); with identical values it has zero width, where
  scipy would return NaN for the zero scale.

No data (n = 0) gives no estimate and no bounds, never 0: "not measured" must not read as "measured zero".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from scipy import stats

from layer3.statistics.samples import LAYER3_METRICS, MANN_WHITNEY_METRICS, PROPORTION_METRICS, ModelSamples

CONFIDENCE = 0.95


class Interval(NamedTuple):
    """A metric's estimate with its confidence bounds over ``n`` items (proportions) or trials (means).

    ``estimate`` is None when ``n`` is 0; ``low`` and ``high`` are None when there is no interval
    (n = 0, or n = 1 for a mean)."""

    estimate: float | None
    low: float | None
    high: float | None
    n: int


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> Interval:
    """The Wilson score interval of ``successes / n``; no estimate nor bounds when ``n`` is 0."""
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"expected 0 <= successes <= n; got successes={successes}, n={n}")
    if n == 0:
        return Interval(None, None, None, 0)
    z = float(stats.norm.isf((1 - confidence) / 2))
    p = successes / n
    denominator = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denominator
    half_width = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else min(max(center - half_width, 0.0), p)
    high = 1.0 if successes == n else max(min(center + half_width, 1.0), p)
    return Interval(p, low, high, n)


def t_interval(values: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE) -> Interval:
    """The t interval of the mean of ``values``; no bounds for one value, nothing for none."""
    sample = np.asarray(values, dtype=np.float64)
    n = int(sample.size)
    if n == 0:
        return Interval(None, None, None, 0)
    mean = float(sample.mean())
    if n == 1:
        return Interval(mean, None, None, 1)
    sem = float(sample.std(ddof=1)) / math.sqrt(n)
    half_width = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * sem
    return Interval(mean, mean - half_width, mean + half_width, n)


def metric_interval(samples: ModelSamples, metric: str, confidence: float = CONFIDENCE) -> Interval:
    """The interval of ``metric`` for one model configuration's ``model_samples``: Wilson or t, as above."""
    if metric in PROPORTION_METRICS:
        count = samples.counts[metric]
        return wilson_interval(count.successes, count.n, confidence)
    if metric in MANN_WHITNEY_METRICS:
        return t_interval(samples.values[metric], confidence)
    raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(LAYER3_METRICS)}")


def interval_method(metric: str) -> str:
    """``"wilson"`` for the proportion metrics, ``"t"`` for the trial means."""
    return "wilson" if metric in PROPORTION_METRICS else "t"
