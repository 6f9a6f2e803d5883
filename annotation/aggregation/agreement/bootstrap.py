"""Bootstrap CI (over items) of the axis kappa, fast enough for 100k items x 1,000 replicates.

Two intervals from the same replicates: the percentile interval (the default) and the BCa interval
(bias-corrected and accelerated, Efron & Tibshirani 1993, 14.3 and 14.15; the formulas and conventions of
``scipy.stats.bootstrap(method="BCa")``: the bias correction counts replicates below the estimate plus half of
those equal to it, the acceleration comes from the leave-one-item-out jackknife, both quantiles are numpy's
default linear interpolation).

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

Two exact shortcuts make a replicate cheap:

* Resampling n items with replacement is the same as drawing, from a multinomial over the frequencies of
  the distinct item *patterns* (which raters rated the item, and what), how many times each pattern is drawn.
  A replicate therefore works on the few thousand unique patterns, not on every item.
* With quadratic weights on category indices, a pair's kappa only needs five sums over its common items:
  n, sum a, sum b, sum (a^2 + b^2), sum (a - b)^2. Then
  ``kappa = 1 - n * sum (a-b)^2 / (n * sum (a^2+b^2) - 2 * sum a * sum b)``,
  algebraically identical to ``1 - sum w*O / sum w*E`` of the confusion matrix (what sklearn computes).
  The sums of all pairs for many replicates are one matrix product, (replicates x patterns) times
  (patterns x sums of each pair), when that matrix is small enough.

Only items with at least two ratings are resampled: the others belong to no rater pair and cannot move
any kappa.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from annotation.aggregation.agreement.core import (
    CATEGORIES,
    MISSING,
    check_ratings,
    pair_index,
    rating_pairs,
    ratings_per_item,
)

_STAT_N, _STAT_SUM_A, _STAT_SUM_B, _STAT_SQUARES, _STAT_SQDIFF = range(5)
_CHUNK_ELEMENTS = 4_000_000  # bound on replicates x pattern-pairs held in memory at once
_MATRIX_ELEMENTS = 4_000_000  # bound on patterns x 5 sums x rater pairs for the matrix product (32 MB)


def unique_patterns(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an index matrix (-1 = missing) and how often each occurs."""
    n_raters = idx.shape[1]
    base = int(idx.max(initial=-1)) + 2
    if n_raters * np.log2(max(base, 2)) < 62:  # each row fits in one int64 code
        codes = (idx + 1) @ (base ** np.arange(n_raters, dtype=np.int64))
        _, first, counts = np.unique(codes, return_index=True, return_counts=True)
        return idx[first], counts
    patterns, counts = np.unique(idx, axis=0, return_counts=True)
    return patterns, counts


class PatternPairStats:
    """The five kappa sums of every (pattern, rater pair) entry, grouped by pair for ``np.add.reduceat``."""

    def __init__(self, patterns: np.ndarray):
        n_raters = patterns.shape[1]
        pattern, rater_a, rater_b, cat_a, cat_b = rating_pairs(patterns)
        pair = pair_index(rater_a, rater_b, n_raters)
        order = np.argsort(pair, kind="stable")
        self.pattern = pattern[order]
        pair = pair[order]
        a = cat_a[order].astype(np.float64)
        b = cat_b[order].astype(np.float64)
        self.values = np.stack([np.ones_like(a), a, b, a * a + b * b, (a - b) ** 2])  # (5, entries)
        self.starts = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]) if pair.size else pair
        self.matrix = self._matrix(patterns.shape[0])

    def _matrix(self, n_patterns: int) -> np.ndarray | None:
        """The sums as one matrix product: row = pattern, column = (sum, pair); None when it would be too large.

        A pattern holds each rater pair at most once, so every (pattern, pair) cell gets one entry's values.
        """
        n_pairs = self.starts.size
        if not n_pairs or n_patterns * 5 * n_pairs > _MATRIX_ELEMENTS:
            return None
        group = np.repeat(np.arange(n_pairs), np.diff(np.r_[self.starts, self.n_entries]))
        matrix = np.zeros((n_patterns, 5, n_pairs))
        matrix[self.pattern, :, group] = self.values.T
        return matrix.reshape(n_patterns, 5 * n_pairs)

    @property
    def n_entries(self) -> int:
        return int(self.pattern.size)

    def sums(self, pattern_counts: np.ndarray) -> np.ndarray:
        """For each row of pattern multiplicities (replicates x patterns): the sums, shape (replicates, 5, pairs).

        Both ways add the same small integers (exact in float64), so they give the same sums to the bit.
        """
        if self.matrix is not None:
            product = pattern_counts.astype(np.float64) @ self.matrix
            return product.reshape(pattern_counts.shape[0], 5, self.starts.size)
        drawn = pattern_counts[:, self.pattern].astype(np.float64)  # (replicates, entries)
        return np.add.reduceat(drawn[:, None, :] * self.values[None, :, :], self.starts, axis=2)


def kappa_from_sums(sums: np.ndarray, min_common: int) -> np.ndarray:
    """Axis kappa (n-weighted mean of the defined pair kappas) per replicate; NaN where no pair is defined."""
    n = sums[:, _STAT_N]
    denominator = n * sums[:, _STAT_SQUARES] - 2.0 * sums[:, _STAT_SUM_A] * sums[:, _STAT_SUM_B]
    defined = (n >= min_common) & (denominator > 0)
    safe = np.where(defined, denominator, 1.0)
    kappa = 1.0 - n * sums[:, _STAT_SQDIFF] / safe
    weight = np.where(defined, n, 0.0)
    total = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (weight * kappa).sum(axis=1) / total, np.nan)


METHODS = ("percentile", "bca")
_NORMAL = NormalDist()


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The (1-level)/2 and (1+level)/2 quantiles of the replicate values (numpy's linear interpolation)."""
    low, high = np.quantile(values, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(low), float(high)


def bca_interval(
    point: float, values: np.ndarray, jackknife: np.ndarray, level: float
) -> tuple[float | None, float | None, str | None]:
    """BCa interval from the replicate values and the leave-one-out (jackknife) estimates, one per resampled unit.

    ``(low, high, None)``, or ``(None, None, reason)`` when the interval does not exist (every replicate on one
    side of the estimate, or a jackknife without spread).
    """
    values = np.asarray(values, dtype=np.float64)
    jackknife = np.asarray(jackknife, dtype=np.float64)
    share = (np.count_nonzero(values < point) + np.count_nonzero(values <= point)) / (2.0 * values.size)
    if not 0.0 < share < 1.0:
        return None, None, "every bootstrap replicate lies on one side of the estimate, so BCa is undefined"
    z0 = _NORMAL.inv_cdf(share)
    n = float(jackknife.size)
    u = (n - 1.0) * (jackknife.mean() - jackknife)
    spread = np.sum(u**2) / n**2
    if not spread > 0:
        return None, None, "the jackknife estimates do not vary, so the BCa acceleration is undefined"
    acceleration = float(np.sum(u**3) / n**3 / 6.0 / spread**1.5)
    bounds = []
    for tail in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        z = z0 + _NORMAL.inv_cdf(tail)
        bounds.append(_NORMAL.cdf(z0 + z / (1.0 - acceleration * z)))
    low, high = np.quantile(values, bounds)
    return float(low), float(high), None


class KappaBootstrap:
    """The items of a ratings matrix prepared for the bootstrap: distinct patterns, their frequencies, the estimate.

    ``reason`` is set (and ``point`` None) when there is nothing to resample or kappa is undefined on the data.
    """

    def __init__(self, ratings: np.ndarray, *, categories: Sequence[int], missing: int, min_common: int):
        if int(min_common) != min_common or min_common < 1:
            raise ValueError(f"min_common must be a positive integer; got {min_common!r}")
        self.min_common = int(min_common)
        self.point: float | None = None
        self.reason: str | None = None
        idx, _ = check_ratings(ratings, categories, missing=missing)
        idx = idx[ratings_per_item(idx) >= 2]
        self.n_items = idx.shape[0]
        if self.n_items == 0:
            self.reason = "no item has two or more ratings, so there is nothing to resample"
            return
        patterns, self.frequency = unique_patterns(idx)
        self.stats = PatternPairStats(patterns)
        point = kappa_from_sums(self.stats.sums(self.frequency[None, :]), self.min_common)[0]
        if np.isnan(point):
            self.reason = "kappa is undefined on the full data, so it has no bootstrap interval"
            return
        self.point = float(point)

    def replicates(self, n_boot: int, seed: int) -> np.ndarray:
        """Kappa of ``n_boot`` resamples of the items (NaN where undefined), from ``default_rng(seed)``."""
        rng = np.random.default_rng(seed)
        probabilities = self.frequency / self.n_items
        chunk = max(1, _CHUNK_ELEMENTS // max(1, 5 * self.stats.n_entries))
        out = []
        for start in range(0, int(n_boot), chunk):
            size = min(chunk, int(n_boot) - start)
            drawn = rng.multinomial(self.n_items, probabilities, size=size)
            out.append(kappa_from_sums(self.stats.sums(drawn), self.min_common))
        return np.concatenate(out)

    def jackknife(self) -> np.ndarray:
        """Kappa with each resampled item left out in turn (NaN where undefined), one value per item."""
        n_patterns = self.frequency.size
        per_pattern = np.empty(n_patterns)
        rows = max(1, min(n_patterns, _CHUNK_ELEMENTS // max(1, 5 * self.stats.n_entries, n_patterns)))
        for start in range(0, n_patterns, rows):
            stop = min(start + rows, n_patterns)
            left_out = np.repeat(self.frequency[None, :], stop - start, axis=0)
            left_out[np.arange(stop - start), np.arange(start, stop)] -= 1
            per_pattern[start:stop] = kappa_from_sums(self.stats.sums(left_out), self.min_common)
        return np.repeat(per_pattern, self.frequency)


def bootstrap_kappa_ci(
    ratings: np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    method: str = "percentile",
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    min_common: int = 2,
) -> tuple[float | None, float | None, str | None]:
    """Bootstrap CI over items of the axis kappa (``method`` "percentile" or "bca"), reproducible for a ``seed``.

    Returns ``(low, high, reason)``. Replicates whose kappa is undefined are dropped; if more than half
    are, ``(None, None, reason)``. ``reason`` is also set (with low/high given) when some were dropped.
    Both methods draw the same replicates for the same seed.
    """
    if int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer; got {n_boot!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1; got {level!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    prepared = KappaBootstrap(ratings, categories=categories, missing=missing, min_common=min_common)
    if prepared.point is None:
        return None, None, prepared.reason
    values = prepared.replicates(n_boot, seed)
    defined = values[~np.isnan(values)]
    dropped = int(n_boot) - defined.size
    if dropped * 2 > n_boot:
        return None, None, f"kappa was undefined in {dropped} of {n_boot} bootstrap replicates (more than half)"
    note = None
    if dropped:
        note = f"{dropped} of {n_boot} bootstrap replicates had an undefined kappa and were dropped"
    if method == "percentile":
        low, high = percentile_interval(defined, level)
        return low, high, note
    jackknife = prepared.jackknife()
    if np.isnan(jackknife).any():
        undefined = int(np.isnan(jackknife).sum())
        return None, None, f"kappa is undefined when one of {undefined} item(s) is left out, so BCa has no acceleration"
    low, high, reason = bca_interval(prepared.point, defined, jackknife, level)
    return low, high, reason or note
