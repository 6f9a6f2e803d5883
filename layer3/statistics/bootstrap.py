"""Trial-level cluster bootstrap of the pooled rates of the proportion metrics (GV_UR, W2WR_FR, W2WR_MR, W2WR_SYR,
W2WR_CR), and the percentile interval of a difference of two model configurations' rates.

The pooled two-proportion z-test (:mod:`layer3.statistics.proportions`, seed 002 §7.1) treats every item
(binding) as independent, but items of one trial share its UI spec and its judge call, so they are correlated
and the z-test is too confident. Here the trial is the unit of resampling:

- one replicate of a model configuration draws its N trials (those read without error, see
  ``ModelSamples.trial_counts``) N times with replacement and recomputes each metric's pooled rate
  Σ successes / Σ n over the drawn trials (a ratio estimator: trials with n = 0 are drawn like any other and add
  nothing). A replicate whose Σ n is 0 has no rate (NaN) for that metric;
- each configuration is resampled on its own, independently: its replicates depend only on the seed, its label
  and its data (``numpy.random.default_rng([seed, zlib.crc32(label)])``), never on which other configurations
  are compared or in which order;
- for a pair (A, B) the replicate differences are rate_A[r] - rate_B[r], r = 1..R; replicates where either
  rate is NaN are dropped. The interval is the percentile one, ``numpy.quantile(d, [0.025, 0.975])`` (numpy's
  default linear interpolation) of the kept differences, the standard error ``numpy.std(d, ddof=1)``; both equal
  ``numpy.nanquantile`` / ``numpy.nanstd`` over the replicates with NaN for the dropped ones.

A model with fewer than ``MIN_TRIALS`` (2) trials with items for a metric has no interval for it: one trial
resampled is always the same trial, and its zero spread would claim a certainty the data do not have
(``trials_with_items``; the comparisons then leave the interval null).

``design_effect`` = (bootstrap standard error / Wald standard error)², the factor by which clustering inflates
the variance of the difference over what the item-independent z-test assumes (≈ 1 without clustering); None
where the Wald standard error is 0 (both rates 0 or 1) or fewer than two replicates were kept.

``replicate_rates`` equals, exactly, the plain loop the tests compare it with: for each of the R replicates in
turn, ``drawn = rng.integers(0, N, size=N)`` and, per metric, ``successes[drawn].sum() / n[drawn].sum()``.
It is vectorised: the drawn trials of a chunk of replicates (about 2^16 draws, to bound memory; the chunks
consume the generator's stream in order, so the chunk size changes nothing) are counted per replicate
(``numpy.bincount``) and these multiplicities times the per-trial count matrix give every metric's sums at
once, in float32 while every sum stays below 2^24 (so exactly), else in float64.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from layer3.statistics.samples import PROPORTION_METRICS, ModelSamples

DEFAULT_REPLICATES = 1000  # after every run, for the stored statistics: 95% percentile bounds need >= 1000
DEFAULT_SEED = 0
LEVEL = 0.95
UNIT = "trial"
MIN_TRIALS = 2
_QUANTILES = (0.025, 0.975)  # the 95% (LEVEL) percentile interval
_CHUNK_DRAWS = 1 << 16


@dataclass(frozen=True)
class BootstrapDifference:
    """The percentile interval [low, high] of rate_A - rate_B, its bootstrap standard error, and how many
    replicates were kept; low/high None when none was, standard_error None when fewer than two were."""

    low: float | None
    high: float | None
    standard_error: float | None
    replicates: int


def check_replicates(replicates: object) -> int:
    """``replicates`` as an int if it is an integer ≥ 1 (not a bool); ValueError otherwise."""
    if isinstance(replicates, bool) or not isinstance(replicates, Integral) or replicates < 1:
        raise ValueError(f"bootstrap replicates must be a whole number of at least 1; got {replicates!r}")
    return int(replicates)


def check_seed(seed: object) -> int:
    """``seed`` as an int if it is an integer ≥ 0 (not a bool); ValueError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(f"bootstrap seed must be a whole number of at least 0; got {seed!r}")
    return int(seed)


def config_rng(seed: int, label: str) -> np.random.Generator:
    """The generator of one model configuration's replicates: ``default_rng([seed, crc32(label as UTF-8)])``."""
    return np.random.default_rng([seed, zlib.crc32(label.encode("utf-8"))])


def replicate_rates(samples: ModelSamples, label: str, *, replicates: int, seed: int) -> np.ndarray:
    """The pooled rate of every proportion metric in each replicate: float64 array of shape
    (replicates, len(PROPORTION_METRICS)), columns in ``PROPORTION_METRICS`` order, NaN where Σ n = 0."""
    replicates = check_replicates(replicates)
    seed = check_seed(seed)
    columns = [samples.trial_counts[metric][0] for metric in PROPORTION_METRICS]
    columns += [samples.trial_counts[metric][1] for metric in PROPORTION_METRICS]
    n_metrics, n_trials = len(PROPORTION_METRICS), len(columns[0])
    rates = np.full((replicates, n_metrics), np.nan)
    if n_trials == 0:
        return rates

    # Each distinct column once (W2WR_FR/MR/SYR share their n); rows[i] is where column i went.
    distinct: list[np.ndarray] = []
    rows = []
    for column in columns:
        found = next((i for i, seen in enumerate(distinct) if np.array_equal(seen, column)), None)
        if found is None:
            found = len(distinct)
            distinct.append(column)
        rows.append(found)
    # float32 sums are exact while every sum stays below 2^24 (a replicate's sum is at most N·max); the 8 SIMD
    # lanes make them faster than float64. einsum rather than a BLAS matmul: OpenBLAS wakes its threads for
    # these skinny products, which costs more than the product itself.
    largest = max(int(column.max()) for column in distinct)
    dtype = np.float32 if n_trials * largest < 2**24 else np.float64
    data = np.array(distinct, dtype=dtype)
    rng = config_rng(seed, label)
    sums = np.empty((replicates, data.shape[0]))
    chunk = max(1, _CHUNK_DRAWS // n_trials)
    offsets = np.arange(min(chunk, replicates), dtype=np.int64)[:, None] * n_trials
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        drawn = rng.integers(0, n_trials, size=(size, n_trials))
        drawn += offsets[:size]  # replicate r counts its draws in bins r·N .. r·N + N - 1
        weights = np.bincount(drawn.ravel(), minlength=size * n_trials).reshape(size, n_trials)
        sums[start : start + size] = np.einsum("rn,kn->rk", weights.astype(dtype), data)
    sums = sums[:, rows]
    hits, items = sums[:, :n_metrics], sums[:, n_metrics:]
    np.divide(hits, items, out=rates, where=items > 0)
    return rates


def trials_with_items(samples: ModelSamples, metric: str) -> int:
    """How many trials of ``samples`` have at least one item (binding) for the proportion ``metric``."""
    return int(np.count_nonzero(samples.trial_counts[metric][1]))


def bootstrap_differences(rates_a: np.ndarray, rates_b: np.ndarray) -> list[BootstrapDifference]:
    """For each metric (column) of two ``replicate_rates`` arrays, the interval of rate_A - rate_B."""
    differences = rates_a - rates_b
    kept = np.count_nonzero(~np.isnan(differences), axis=0)
    results = []
    for column, count in enumerate(kept.tolist()):
        values = differences[:, column]
        if count == 0:
            results.append(BootstrapDifference(None, None, None, 0))
            continue
        values = values[~np.isnan(values)] if count < values.size else values
        low, high = np.quantile(values, _QUANTILES).tolist()
        standard_error = float(np.std(values, ddof=1)) if count > 1 else None
        results.append(BootstrapDifference(low, high, standard_error, count))
    return results


def design_effect(bootstrap_se: float | None, wald_se: float | None) -> float | None:
    """(bootstrap_se / wald_se)²; None when either is missing or the Wald standard error is 0."""
    if bootstrap_se is None or not wald_se:
        return None
    ratio = (bootstrap_se / wald_se) ** 2
    return ratio if math.isfinite(ratio) else None
