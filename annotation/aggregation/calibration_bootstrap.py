"""Percentile bootstrap over items for the judge calibration report, every replicate at once (pure: no Django).

A calibration report (:mod:`annotation.aggregation.calibration`) carries some forty statistics, each with a
95% interval from ``n_boot`` resamples of its items; calling the agreement engine once per replicate would
take seconds. Instead a replicate is a row of *counts*: how often each item was drawn (n draws with
replacement from n items). Every statistic here is a ratio of sums over items, so the whole bootstrap is a
matrix product of the counts (replicates x items) with per-item terms, and the formulas afterwards run on
all replicates together. With every count 1 each function returns the engine's value on the data; with
any counts, the engine's value on the items repeated that often (the tests check both):

* :func:`kappa_replicates` - the n-weighted mean of the defined pair kappas, from the five sums per pair
  of :mod:`annotation.aggregation.agreement.bootstrap` (``axis_kappa`` / ``leave_one_out_kappa``);
* :func:`alpha_replicates` - ordinal Krippendorff alpha from the summed per-item coincidences
  (``krippendorff_alpha(level="ordinal")``);
* :func:`ac2_replicates` - Gwet's AC2 from the summed per-item agreement and category shares
  (``gwet_ac2``);
* :func:`ratio_replicates` - anything of the form sum(numerator) / sum(denominator): exact agreement,
  mean differences, design-weighted shares.

Ratings are category *indices* (0..K-1, -1 = not rated), as ``check_ratings`` returns them. Undefined
replicates are NaN; :func:`percentile_interval` drops them and gives up when more than half are.
"""

from __future__ import annotations

import numpy as np

from annotation.aggregation.agreement.bootstrap import kappa_from_sums

MIN_COMMON = 2  # the engine's default: a pair kappa needs two common items
LEVEL = 0.95


class Resampler:
    """Item counts for ``n_boot`` replicates from ``numpy.random.default_rng(seed)``.

    Each statistic resamples its own items (those its value is computed on), so that the number of
    items that matter is the same in every replicate, as in the engine's bootstrap. Every draw of the
    same size starts from the same seed: a statistic's interval does not depend on which others are in
    the report, and the same data and seed always give the same intervals.
    """

    def __init__(self, n_boot: int, seed: int):
        if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 0:
            raise ValueError(f"n_boot must be a non-negative integer (0 = no intervals); got {n_boot!r}")
        self.n_boot = int(n_boot)
        self.seed = seed
        self._cache: dict[int, np.ndarray] = {}

    def counts(self, n_items: int) -> np.ndarray:
        """(n_boot, n_items) float counts; each row sums to n_items."""
        if n_items not in self._cache:
            rng = np.random.default_rng(self.seed)
            draws = rng.integers(0, n_items, size=(self.n_boot, n_items))
            rows = (draws + (np.arange(self.n_boot) * n_items)[:, None]).ravel()
            counts = np.bincount(rows, minlength=self.n_boot * n_items).reshape(self.n_boot, n_items)
            self._cache[n_items] = counts.astype(np.float64)
        return self._cache[n_items]


def percentile_interval(replicates: np.ndarray, *, level: float = LEVEL) -> tuple[list[float] | None, str | None]:
    """The percentile interval of the defined replicates, or None with a reason when more than half are undefined.

    The reason is also set, beside an interval, when some replicates were dropped.
    """
    total = int(replicates.size)
    defined = replicates[~np.isnan(replicates)]
    dropped = total - int(defined.size)
    if dropped * 2 > total:
        return None, f"95% CI unavailable: undefined in {dropped} of {total} bootstrap replicates (more than half)"
    low, high = np.quantile(defined, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    note = f"{dropped} of {total} bootstrap replicates were undefined and dropped" if dropped else None
    return [float(low), float(high)], note


def pair_terms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The five kappa terms of a rater pair per item, shape (5, items): n, a, b, a^2 + b^2, (a - b)^2 (common items)."""
    both = (a >= 0) & (b >= 0)
    x = np.where(both, a, 0).astype(np.float64)
    y = np.where(both, b, 0).astype(np.float64)
    return np.stack([both.astype(np.float64), x, y, x * x + y * y, (x - y) ** 2])


def kappa_replicates(counts: np.ndarray, terms: np.ndarray, *, min_common: int = MIN_COMMON) -> np.ndarray:
    """Per replicate, the n-weighted mean of the defined kappas of the pairs whose ``terms`` are (pairs, 5, items)."""
    sums = np.einsum("ri,psi->rsp", counts, terms)
    return kappa_from_sums(sums, min_common)


def ratio_replicates(counts: np.ndarray, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Per replicate, sum(count * numerator) / sum(count * denominator); NaN where the denominator sums to 0."""
    top, bottom = counts @ numerator, counts @ denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)


def _tallies(idx: np.ndarray, n_categories: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item category counts (items, K) and ratings per item."""
    tallies = np.stack([(idx == k).sum(axis=1) for k in range(n_categories)], axis=1).astype(np.float64)
    return tallies, tallies.sum(axis=1)


def alpha_replicates(counts: np.ndarray, idx: np.ndarray, n_categories: int) -> np.ndarray:
    """Ordinal Krippendorff alpha per replicate (NaN where undefined) of the index matrix ``idx`` (items, raters)."""
    k = n_categories
    tallies, sizes = _tallies(idx, k)
    pairable = sizes >= 2
    per_item = tallies[:, :, None] * tallies[:, None, :] - tallies[:, :, None] * np.eye(k)[None]
    per_item /= np.where(pairable, sizes - 1.0, 1.0)[:, None, None]
    per_item[~pairable] = 0.0
    o = (counts @ per_item.reshape(len(sizes), k * k)).reshape(-1, k, k)
    n_v = o.sum(axis=2)
    n = n_v.sum(axis=1)
    cum = np.concatenate([np.zeros((len(n), 1)), np.cumsum(n_v, axis=1)], axis=1)
    grid = np.arange(k)
    lo, hi = np.minimum.outer(grid, grid), np.maximum.outer(grid, grid)
    between = cum[:, hi + 1] - cum[:, lo]
    d = (between - (n_v[:, :, None] + n_v[:, None, :]) / 2.0) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(k)[None]) / (n - 1.0)[:, None, None]
        expected = np.sum(e * d, axis=(1, 2))
        alpha = 1.0 - np.sum(o * d, axis=(1, 2)) / expected
    defined = ((n_v > 0.5).sum(axis=1) >= 2) & (expected > 0)
    return np.where(defined, alpha, np.nan)


def ac2_replicates(counts: np.ndarray, idx: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Gwet's AC2 per replicate (NaN where undefined) with agreement ``weights`` (K x K, 1 on the diagonal)."""
    q = weights.shape[0]
    tallies, sizes = _tallies(idx, q)
    two, rated = sizes >= 2, sizes >= 1
    starred = tallies @ weights.T
    agreement = (tallies * (starred - 1.0)).sum(axis=1) / np.where(two, sizes * (sizes - 1.0), 1.0)
    shares = tallies / np.where(rated, sizes, 1.0)[:, None]
    pa = ratio_replicates(counts, np.where(two, agreement, 0.0), two.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = (counts @ shares) / (counts @ rated.astype(np.float64))[:, None]
    pe = weights.sum() / (q * (q - 1)) * np.sum(pi * (1.0 - pi), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1.0, (pa - pe) / (1.0 - pe), np.nan)
