"""Quadratic weighted Cohen's kappa for every rater pair, and its summaries.

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

Each pair's kappa is computed on the items both raters rated, over the FIXED category set, with weights
(i - j)^2 / (K - 1)^2 on category indices. This is exactly
``sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic", labels=list(categories))``; note that without
``labels`` sklearn builds the scale from the values present, which changes the weights whenever a category
inside the scale is unused (see the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotation.aggregation.agreement.core import (
    CATEGORIES,
    MISSING,
    Result,
    check_ratings,
    observed_entries,
    pair_index,
    rating_pairs,
    same_item_pairs,
)

_JOINT_BINS_LIMIT = 1 << 24  # (raters x categories)^2 bins of the one-bincount confusion path


@dataclass(frozen=True, eq=False)
class PairwiseKappa:
    """Kappa of every rater pair (rater_a < rater_b, column indices) that rated at least one common item.

    ``kappa`` is NaN where undefined, and then ``reason[p]`` says why (fewer than ``min_common`` common items,
    or expected disagreement 0); ``reason[p]`` is None for defined pairs. Pairs without any common item are
    left out.
    """

    rater_a: np.ndarray
    rater_b: np.ndarray
    n_common: np.ndarray
    kappa: np.ndarray
    reason: list[str | None]
    min_common: int = 2

    def __len__(self) -> int:
        return int(self.rater_a.size)

    @property
    def defined(self) -> np.ndarray:
        """Boolean mask of the pairs with a defined kappa."""
        return ~np.isnan(self.kappa)


def quadratic_weights(n_categories: int) -> np.ndarray:
    """Integer disagreement weights (i - j)^2 on category indices (the 1/(K-1)^2 factor cancels in kappa)."""
    grid = np.arange(n_categories)
    return (grid[:, None] - grid[None, :]) ** 2


def pair_confusion_matrices(idx: np.ndarray, n_categories: int) -> np.ndarray:
    """Confusion matrix of every rater pair a < b on their common items, shape (n_pairs, K, K), triu order.

    Each observed rating gets the code ``rater * K + category``; each same-item rating pair is coded as
    ``code_a * (R*K) + code_b`` and all pairs are counted with one ``np.bincount`` over (R*K)^2 bins. For a
    very large number of raters the bins are the (pair, cat_a, cat_b) triples instead.
    """
    n_raters = idx.shape[1]
    k = n_categories
    pair_a, pair_b = np.triu_indices(n_raters, 1)
    width = n_raters * k
    if width * width > _JOINT_BINS_LIMIT:
        _, rater_a, rater_b, cat_a, cat_b = rating_pairs(idx)
        codes = pair_index(rater_a, rater_b, n_raters) * (k * k) + cat_a * k + cat_b
        return np.bincount(codes, minlength=pair_a.size * k * k).reshape(pair_a.size, k, k)
    items, raters, cats = observed_entries(idx)
    entry = (raters * k + cats).astype(np.int32)  # codes < (R*K)^2 <= _JOINT_BINS_LIMIT fit in int32
    parts = [entry[first] * width + entry[first + d] for d, first in same_item_pairs(items)]
    codes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    joint = np.bincount(codes, minlength=width * width).reshape(n_raters, k, n_raters, k)
    return joint[pair_a, :, pair_b, :]


def pairwise_quadratic_kappa(
    ratings: np.ndarray, *, categories: Sequence[int] = CATEGORIES, missing: int = MISSING, min_common: int = 2
) -> PairwiseKappa:
    """Quadratic weighted Cohen's kappa for every rater pair, computed on their common items.

    All confusion matrices are built at once with one ``np.bincount`` (see :func:`pair_confusion_matrices`).
    """
    if int(min_common) != min_common or min_common < 1:
        raise ValueError(f"min_common must be a positive integer; got {min_common!r}")
    idx, cats = check_ratings(ratings, categories, missing=missing)
    n_raters = idx.shape[1]
    k = cats.size
    pair_a, pair_b = np.triu_indices(n_raters, 1)
    conf = pair_confusion_matrices(idx, k)
    n_common = conf.sum(axis=(1, 2))
    keep = np.flatnonzero(n_common > 0)
    conf, n_common = conf[keep], n_common[keep]
    pair_a, pair_b = pair_a[keep].astype(np.int64), pair_b[keep].astype(np.int64)

    w = quadratic_weights(k)
    row = conf.sum(axis=2)  # rater a's category counts
    col = conf.sum(axis=1)  # rater b's category counts
    # Exact integers: observed = sum w*O; expected_n = n * sum w*E with E = outer(row, col) / n.
    observed = np.einsum("pij,ij->p", conf, w)
    expected_n = np.einsum("pi,ij,pj->p", row, w, col)

    enough = n_common >= min_common
    defined = enough & (expected_n > 0)
    kappa = np.full(n_common.shape, np.nan)
    kappa[defined] = 1.0 - n_common[defined] * observed[defined] / expected_n[defined]

    reasons: list[str | None] = []
    for p in range(keep.size):
        n = int(n_common[p])
        if not enough[p]:
            reasons.append(f"only {n} common item(s); at least {min_common} needed")
        elif not defined[p]:
            score = int(cats[np.argmax(row[p])])
            reasons.append(
                f"expected disagreement is 0 (both raters gave the same single score, {score}, "
                f"on all {n} common items), so kappa is undefined"
            )
        else:
            reasons.append(None)
    return PairwiseKappa(pair_a, pair_b, n_common, kappa, reasons, int(min_common))


def _undefined_summary(pairwise: PairwiseKappa, sel: np.ndarray) -> str:
    """Count the undefined pairs in ``sel`` by cause."""
    few = int(np.sum(sel & (pairwise.n_common < pairwise.min_common)))
    constant = int(np.sum(sel & ~pairwise.defined & (pairwise.n_common >= pairwise.min_common)))
    parts = []
    if constant:
        parts.append(
            f"{constant} pair(s) with expected disagreement 0 (both raters gave the same single score throughout)"
        )
    if few:
        parts.append(f"{few} pair(s) with fewer than {pairwise.min_common} common items")
    return "; ".join(parts)


def _weighted_mean(pairwise: PairwiseKappa, sel: np.ndarray) -> float:
    weights = pairwise.n_common[sel].astype(np.float64)
    return float(np.sum(weights * pairwise.kappa[sel]) / np.sum(weights))


def axis_kappa(pairwise: PairwiseKappa) -> Result:
    """Mean of the defined pair kappas weighted by their number of common items."""
    if len(pairwise) == 0:
        return None, "no two raters rated a common item, so no pair kappa exists"
    ok = pairwise.defined
    if not ok.any():
        summary = _undefined_summary(pairwise, np.ones(len(pairwise), dtype=bool))
        return None, f"no rater pair has a defined kappa: {summary}"
    return _weighted_mean(pairwise, ok), None


def leave_one_out_kappa(pairwise: PairwiseKappa, n_raters: int) -> list[Result]:
    """Per rater (column index), the n_common-weighted mean of the defined kappas of the pairs involving them."""
    if len(pairwise) and n_raters <= int(max(pairwise.rater_a.max(), pairwise.rater_b.max())):
        raise ValueError(f"n_raters={n_raters} is too small for the rater indices in pairwise")
    out: list[Result] = []
    for rater in range(n_raters):
        involved = (pairwise.rater_a == rater) | (pairwise.rater_b == rater)
        ok = involved & pairwise.defined
        if ok.any():
            out.append((_weighted_mean(pairwise, ok), None))
        elif not involved.any():
            out.append((None, "this rater shares no item with any other rater"))
        else:
            summary = _undefined_summary(pairwise, involved)
            out.append((None, f"none of this rater's pairs has a defined kappa: {summary}"))
    return out
