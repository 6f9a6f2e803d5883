"""Gwet's AC1 / AC2 agreement coefficient, vectorised.

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

Formulas of Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., as implemented by the ``irrCAC``
package (``CAC(ratings, weights=..., categories=...).gwet()``):

* weights ``w_kl = 1 - (k - l)^2 / (max - min)^2`` (quadratic), ``1 - |k - l| / (max - min)`` (linear) or
  the identity (AC1), over the category VALUES;
* ``r_ik`` raters giving category k to item i, ``r_i = sum_k r_ik``, ``r*_ik = sum_l w_kl r_il``;
* ``pa`` = mean over items with ``r_i >= 2`` of ``sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))``;
* ``pi_k`` = mean over items with at least one rating of ``r_ik / r_i``;
* ``pe = sum(w) / (q (q - 1)) * sum_k pi_k (1 - pi_k)``, q = number of categories;
* ``AC = (pa - pe) / (1 - pe)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.aggregation.agreement.core import (
    CATEGORIES,
    MISSING,
    Result,
    check_ratings,
    check_scale,
    item_tallies,
)

WEIGHTS = ("identity", "linear", "quadratic")


def gwet_weights(categories: Sequence[int], weights: str) -> np.ndarray:
    """Agreement weights (1 on the diagonal) over the category values."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}; got {weights!r}")
    values = check_scale(categories).astype(np.float64)
    if weights == "identity":
        return np.eye(values.size)
    span = values[-1] - values[0]
    diff = values[:, None] - values[None, :]
    if weights == "linear":
        return 1.0 - np.abs(diff) / span
    return 1.0 - diff**2 / span**2


def gwet_pa_pe(counts: np.ndarray, sizes: np.ndarray | None, w: np.ndarray) -> tuple[float | None, float]:
    """Gwet's percent agreement (None without an item with two ratings) and chance agreement.

    ``counts`` are the r_ik (items x q), ``sizes`` the r_i (computed from ``counts`` if not given).
    """
    q = w.shape[0]
    r_i = counts.sum(axis=1) if sizes is None else sizes
    rated = r_i >= 1
    pi = (counts[rated] / r_i[rated, None]).mean(axis=0) if rated.any() else np.zeros(q)
    pe = float(w.sum() / (q * (q - 1)) * np.sum(pi * (1.0 - pi)))
    two = r_i >= 2
    if not two.any():
        return None, pe
    r_two = r_i[two].astype(np.float64)
    r_ik = counts[two].astype(np.float64)
    r_star = r_ik @ w.T  # r*_ik = sum_l w_kl r_il
    per_item = (r_ik * (r_star - 1.0)) @ np.ones(q)  # row sums (matmul is faster than a short-axis sum)
    pa = float(np.mean(per_item / (r_two * (r_two - 1.0))))
    return pa, pe


def gwet_ac2(
    ratings: np.ndarray,
    *,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    weights: str = "quadratic",
) -> Result:
    """Gwet's AC2 (weights "quadratic" or "linear") or AC1 (weights "identity"); None with a reason if undefined."""
    w = gwet_weights(categories, weights)
    idx, cats = check_ratings(ratings, categories, missing=missing)
    pa, pe = gwet_pa_pe(*item_tallies(idx, cats.size), w)
    if pa is None:
        return None, "no item has two or more ratings, so observed agreement is undefined"
    if not pe < 1.0:
        return None, "chance agreement is 1, so AC2 is undefined"
    return (pa - pe) / (1.0 - pe), None
