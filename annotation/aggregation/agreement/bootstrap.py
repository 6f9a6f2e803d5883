"""Percentile bootstrap (over items) of the axis kappa, fast enough for 100k items x 1,000 replicates.

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

Two exact shortcuts make a replicate cheap:

* Resampling n items with replacement is the same as drawing, from a multinomial over the frequencies of
  the distinct item *patterns* (which raters rated the item, and what), how many times each pattern is drawn.
  A replicate therefore works on the few thousand unique patterns, not on every item.
* With quadratic weights on category indices, a pair's kappa only needs five sums over its common items:
  n, sum a, sum b, sum (a^2 + b^2), sum (a - b)^2. Then
  ``kappa = 1 - n * sum (a-b)^2 / (n * sum (a^2+b^2) - 2 * sum a * sum b)``,
  algebraically identical to ``1 - sum w*O / sum w*E`` of the confusion matrix (what sklearn computes).

Only items with at least two ratings are resampled: the others belong to no rater pair and cannot move
any kappa.
"""

from __future__ import annotations

from collections.abc import Sequence

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

    @property
    def n_entries(self) -> int:
        return int(self.pattern.size)

    def sums(self, pattern_counts: np.ndarray) -> np.ndarray:
        """For each row of pattern multiplicities (replicates x patterns): the sums, shape (replicates, 5, pairs)."""
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


def bootstrap_kappa_ci(
    ratings: np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    min_common: int = 2,
) -> tuple[float | None, float | None, str | None]:
    """Percentile bootstrap CI over items of the axis kappa, reproducible for a given ``seed``.

    Returns ``(low, high, reason)``. Replicates whose kappa is undefined are dropped; if more than half
    are, ``(None, None, reason)``. ``reason`` is also set (with low/high given) when some were dropped.
    """
    if int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer; got {n_boot!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1; got {level!r}")
    if int(min_common) != min_common or min_common < 1:
        raise ValueError(f"min_common must be a positive integer; got {min_common!r}")
    idx, _ = check_ratings(ratings, categories, missing=missing)
    idx = idx[ratings_per_item(idx) >= 2]
    n_items = idx.shape[0]
    if n_items == 0:
        return None, None, "no item has two or more ratings, so there is nothing to resample"
    patterns, frequency = unique_patterns(idx)
    stats = PatternPairStats(patterns)
    point = kappa_from_sums(stats.sums(frequency[None, :]), min_common)[0]
    if np.isnan(point):
        return None, None, "kappa is undefined on the full data, so it has no bootstrap interval"

    rng = np.random.default_rng(seed)
    probabilities = frequency / n_items
    chunk = max(1, _CHUNK_ELEMENTS // max(1, 5 * stats.n_entries))
    replicates = []
    for start in range(0, int(n_boot), chunk):
        size = min(chunk, int(n_boot) - start)
        drawn = rng.multinomial(n_items, probabilities, size=size)
        replicates.append(kappa_from_sums(stats.sums(drawn), min_common))
    values = np.concatenate(replicates)
    defined = values[~np.isnan(values)]
    dropped = int(n_boot) - defined.size
    if dropped * 2 > n_boot:
        return None, None, f"kappa was undefined in {dropped} of {n_boot} bootstrap replicates (more than half)"
    low, high = np.quantile(defined, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    note = None
    if dropped:
        note = f"{dropped} of {n_boot} bootstrap replicates had an undefined kappa and were dropped"
    return float(low), float(high), note
