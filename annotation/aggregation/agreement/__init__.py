"""Inter-rater agreement statistics for sycophancy annotation ratings (public entry point).

Pure Python + numpy; importable without Django settings.

A ratings matrix holds ONE axis (a sycophancy axis "social", "avoidant", "mechanical" or "self", or one
judge-audit question): an integer ``np.ndarray`` of shape (n_items, n_raters) whose values are ``categories``
(default :data:`SYCOPHANCY_SCALE`, 1..5, 1 = "Absent") or the sentinel ``missing`` (default 0). A scale that
includes 0 names another sentinel, never guessed: ``categories=JUDGE_SCALE, missing=JUDGE_MISSING`` (0..2, -1 =
missing). Every function that takes ``categories`` takes ``missing`` too, and refuses a sentinel that is a
category. Rater ids are the caller's business: results are indexed by rater column.

Every statistic that can be undefined returns ``(value, reason)``: ``value`` is a Python float, or None
exactly when the statistic is undefined, and then ``reason`` says why in plain English. NaN never leaves
this module (``PairwiseKappa.kappa`` keeps NaN internally and carries a reason per pair).

Reference implementations the results are tested against (to 1e-9):

* :func:`pairwise_quadratic_kappa` - ``sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic",
  labels=list(categories))`` per pair on the pair's common items;
* :func:`krippendorff_alpha` - ``krippendorff.alpha(ratings.T with NaN, level_of_measurement=level,
  value_domain=categories)``;
* :func:`gwet_ac2` - Gwet (2014) as in ``irrCAC``'s ``CAC(...).gwet()``.

Scale: kappa weights use category INDICES (as sklearn does with ``labels``), while AC2 weights and the
interval/ratio alpha distances use category VALUES (as irrCAC and krippendorff do). For evenly spaced scales
(1..5, 0..2) both coincide; they differ only for unevenly spaced ``categories``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from annotation.aggregation.agreement.alpha import LEVELS, krippendorff_alpha
from annotation.aggregation.agreement.bootstrap import METHODS as CI_METHODS
from annotation.aggregation.agreement.bootstrap import bca_interval, bootstrap_kappa_ci
from annotation.aggregation.agreement.core import (
    CATEGORIES,
    JUDGE_MISSING,
    JUDGE_SCALE,
    MISSING,
    SYCOPHANCY_SCALE,
    Result,
    check_ratings,
    item_category_counts,
    item_tallies,
    ratings_per_item,
)
from annotation.aggregation.agreement.gwet import WEIGHTS, gwet_ac2
from annotation.aggregation.agreement.kappa import (
    PairwiseKappa,
    axis_kappa,
    leave_one_out_kappa,
    pairwise_quadratic_kappa,
)

__all__ = [
    "CATEGORIES",
    "CI_METHODS",
    "JUDGE_MISSING",
    "JUDGE_SCALE",
    "LEVELS",
    "MISSING",
    "SYCOPHANCY_SCALE",
    "WEIGHTS",
    "PairwiseKappa",
    "Result",
    "axis_kappa",
    "axis_report",
    "bca_interval",
    "bootstrap_kappa_ci",
    "gwet_ac2",
    "krippendorff_alpha",
    "leave_one_out_kappa",
    "pairwise_agreement",
    "pairwise_quadratic_kappa",
    "prevalence",
]

PARADOX_WITHIN_1 = 0.85
PARADOX_EXACT = 0.80


def pairwise_agreement(
    ratings: np.ndarray, *, tolerance: int = 0, categories: Sequence[int] = CATEGORIES, missing: int = MISSING
) -> Result:
    """Share of agreeing rater pairs, pooled over all pairs of ratings of the same item.

    Two ratings agree when their category values differ by at most ``tolerance`` (1 = "within one point").
    Each item with r ratings contributes r(r-1)/2 pairs.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0; got {tolerance!r}")
    idx, cats = check_ratings(ratings, categories, missing=missing)
    counts, m = item_tallies(idx, cats.size)
    counts, m = counts[m >= 2], m[m >= 2]
    if m.size == 0:
        return None, "no item has two or more ratings, so there is no pair to compare"
    close = (np.abs(cats[:, None] - cats[None, :]) <= tolerance).astype(np.int64)
    # Ordered pairs of distinct ratings that agree: n_i' A n_i minus each rating paired with itself.
    agreeing = int(np.sum((counts @ close) * counts) - m.sum())
    total = int(np.sum(m * (m - 1)))
    return agreeing / total, None


def prevalence(
    ratings: np.ndarray, *, categories: Sequence[int] = CATEGORIES, missing: int = MISSING
) -> dict[str, float | None]:
    """Share of each category among all given ratings, keyed by the category as a string ("1".."5", "0".."2").

    With no rating at all the shares are undefined and every value is None.
    """
    idx, cats = check_ratings(ratings, categories, missing=missing)
    totals = item_category_counts(idx, cats.size).sum(axis=0)
    n = int(totals.sum())
    return {str(int(c)): (int(t) / n if n else None) for c, t in zip(cats, totals, strict=True)}


def _json_id(rater_id: Any) -> Any:
    return rater_id.item() if isinstance(rater_id, np.generic) else rater_id


def _paradox_note(
    kappa: float, exact: float, within_1: float, ac2: float | None, shares: dict[str, float | None]
) -> str:
    top, top_share = max(shares.items(), key=lambda kv: kv[1] or 0.0)
    if ac2 is None:
        ac2_text = "Gwet's AC2 is undefined here"
    else:
        ac2_text = f"Gwet's AC2, far less sensitive to prevalence, is {ac2:.3f}"
    return (
        f"Kappa is {kappa:.3f} although raters agree exactly on {exact:.1%} of rating pairs "
        f"({within_1:.1%} within one point): {top_share:.1%} of all ratings are {top}, and such skewed prevalence "
        f"makes chance agreement high, which depresses kappa and alpha (the kappa paradox); {ac2_text}."
    )


def axis_report(
    ratings: np.ndarray,
    rater_ids: Sequence[Any],
    *,
    min_kappa: float = 0.60,
    n_boot: int = 1000,
    seed: int = 0,
    ci_method: str = "percentile",
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    min_common: int = 2,
) -> dict[str, Any]:
    """Agreement summary of one axis, as strict-JSON-serialisable content (no NaN, no inf, no numpy types).

    ``n_boot=0`` skips the bootstrap (``ci95`` is then None); ``ci_method`` is "percentile" or "bca" (see
    :func:`bootstrap_kappa_ci`). ``passed`` is True only if kappa is defined and
    >= ``min_kappa``. ``reason`` is None when the axis passed and every statistic is defined; otherwise it
    lists, separated by "; ", why kappa is undefined or below the threshold and which statistic failed.
    ``annotators[i]["n_items"]`` counts the items annotator i rated together with at least one other rater.
    """
    scale = {"categories": categories, "missing": missing}
    idx, _ = check_ratings(ratings, categories, missing=missing)
    n_raters = idx.shape[1]
    if len(rater_ids) != n_raters:
        raise ValueError(f"got {len(rater_ids)} rater ids for {n_raters} rater columns")
    ids = [_json_id(r) for r in rater_ids]

    pairwise = pairwise_quadratic_kappa(ratings, **scale, min_common=min_common)
    kappa, kappa_reason = axis_kappa(pairwise)
    alpha, alpha_reason = krippendorff_alpha(ratings, level="ordinal", **scale)
    ac2, ac2_reason = gwet_ac2(ratings, **scale, weights="quadratic")
    exact, _ = pairwise_agreement(ratings, tolerance=0, **scale)
    within_1, _ = pairwise_agreement(ratings, tolerance=1, **scale)
    shares = prevalence(ratings, **scale)

    sizes = ratings_per_item(idx)
    n_items = int(np.sum(sizes >= 2))
    ci95 = None
    problems: list[str] = []
    if n_items == 0:
        problems.append("no item has two or more ratings, so no agreement statistic is defined")
    elif kappa is None:
        problems.append(f"kappa is undefined: {kappa_reason}")
    else:
        if kappa < min_kappa:
            problems.append(f"kappa {kappa:.3f} is below the threshold {min_kappa:.2f}")
        if n_boot:
            low, high, ci_reason = bootstrap_kappa_ci(
                ratings, n_boot=n_boot, seed=seed, method=ci_method, **scale, min_common=min_common
            )
            if low is None or high is None:
                problems.append(f"95% CI unavailable: {ci_reason}")
            else:
                ci95 = [low, high]
    if n_items:
        problems += [
            f"{name} is undefined: {why}" for name, why in (("alpha", alpha_reason), ("AC2", ac2_reason)) if why
        ]

    high_agreement = exact is not None and within_1 is not None
    high_agreement = high_agreement and (within_1 >= PARADOX_WITHIN_1 or exact >= PARADOX_EXACT)
    paradox_note = None
    if kappa is not None and kappa < min_kappa and high_agreement:
        paradox_note = _paradox_note(kappa, exact, within_1, ac2, shares)

    with_others = (idx >= 0) & (sizes >= 2)[:, None]
    per_rater = leave_one_out_kappa(pairwise, n_raters)
    return {
        "kappa": kappa,
        "ci95": ci95,
        "alpha": alpha,
        "ac2": ac2,
        "agreement_exact": exact,
        "agreement_within_1": within_1,
        "prevalence": shares,
        "n_items": n_items,
        "n_ratings": int(np.sum(idx >= 0)),
        "passed": kappa is not None and kappa >= min_kappa,
        "reason": "; ".join(problems) or None,
        "paradox_note": paradox_note,
        "pairs": [
            {
                "annotators": [ids[int(a)], ids[int(b)]],
                "n_items": int(n),
                "kappa": None if np.isnan(k) else float(k),
                "reason": why,
            }
            for a, b, n, k, why in zip(
                pairwise.rater_a, pairwise.rater_b, pairwise.n_common, pairwise.kappa, pairwise.reason, strict=True
            )
        ],
        "annotators": [
            {"annotator": ids[r], "n_items": int(with_others[:, r].sum()), "kappa_vs_rest": value, "reason": why}
            for r, (value, why) in enumerate(per_rater)
        ],
    }
