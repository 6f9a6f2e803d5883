"""Krippendorff's alpha (nominal, ordinal, interval, ratio), vectorised.

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

Matches ``krippendorff.alpha(reliability_data=ratings.T (NaN = missing), level_of_measurement=level,
value_domain=categories)``. Items with fewer than two ratings contribute nothing (no pairable values).
The value domain only matters through the order of the categories and, for interval/ratio, their values;
unused categories have frequency 0 and add nothing to the ordinal distances.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.aggregation.agreement.core import (
    CATEGORIES,
    MISSING,
    Result,
    check_ratings,
    observed_entries,
    same_item_pairs,
)

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _distances(level: str, cats: np.ndarray, n_v: np.ndarray) -> np.ndarray:
    """Squared distance between every two categories (K x K), as defined by Krippendorff for ``level``."""
    values = cats.astype(np.float64)
    if level == "nominal":
        return 1.0 - np.eye(cats.size)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ratio":
        total = values[:, None] + values[None, :]
        diff = values[:, None] - values[None, :]
        return np.divide(diff, total, out=np.zeros_like(diff), where=total != 0) ** 2
    # ordinal: (sum of the frequencies from category k to l, minus half of both ends)^2
    cum = np.concatenate(([0.0], np.cumsum(n_v)))
    grid = np.arange(cats.size)
    lo = np.minimum(grid[:, None], grid[None, :])
    hi = np.maximum(grid[:, None], grid[None, :])
    between = cum[hi + 1] - cum[lo]
    return (between - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2


def coincidence_matrix(idx: np.ndarray, n_categories: int) -> tuple[np.ndarray, int]:
    """Krippendorff's coincidence matrix and the number of items with at least two ratings.

    o_kl = sum over items u with r_u >= 2 ratings of (number of ordered pairs of u's ratings valued (k, l))
    / (r_u - 1). Built from the same-item rating pairs (the machinery of the pairwise kappa) with one
    weighted ``np.bincount`` per offset between two ratings of an item.
    """
    k = n_categories
    items, _, cats = observed_entries(idx)
    sizes = np.bincount(items, minlength=idx.shape[0])
    weight = 1.0 / np.maximum(sizes - 1, 1)
    half = np.zeros(k * k)
    for d, first in same_item_pairs(items):
        half += np.bincount(cats[first] * k + cats[first + d], weights=weight[items[first]], minlength=k * k)
    half = half.reshape(k, k)
    return half + half.T, int(np.sum(sizes >= 2))


def krippendorff_alpha(
    ratings: np.ndarray, *, level: str = "ordinal", categories: Sequence[int] = CATEGORIES, missing: int = MISSING
) -> Result:
    """Krippendorff's alpha of one axis; None with a reason when undefined."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}; got {level!r}")
    idx, cats = check_ratings(ratings, categories, missing=missing)
    o, n_pairable_items = coincidence_matrix(idx, cats.size)
    if n_pairable_items == 0:
        return None, "no item has two or more ratings, so there are no pairable values"
    n_v = o.sum(axis=0)  # pairable values of each category
    used = np.flatnonzero(n_v > 0.5)
    if used.size < 2:
        return None, (
            f"expected disagreement is 0: every pairable rating is {int(cats[used[0]])}, so alpha is undefined"
        )
    n = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n - 1.0)
    d = _distances(level, cats, n_v)
    expected = float(np.sum(e * d))
    if not expected > 0:
        return None, "expected disagreement is 0, so alpha is undefined"
    return 1.0 - float(np.sum(o * d)) / expected, None
