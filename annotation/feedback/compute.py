"""The figures of the monthly feedback meeting (seed 000 B.3.2 月次フィードバック会議), pure Python + numpy.

No Django import. Input: the ratings people made during one calendar month, as a
:class:`~annotation.io.dataset.RatingSet` (items x annotators; each annotator's rating of an item made in that month).
Every figure comes from the project's engines, computed on that month's ratings only:

* the agreement of the month per axis (:func:`annotation.aggregation.agreement.axis_report`: kappa with its
  percentile bootstrap CI over items, the pair kappas the heat map shows, each annotator's kappa with the rest);
* the consensus per item (:func:`annotation.aggregation.consensus.merge`, the confidence-weighted mean rounded half
  up, with its defaults; the annotator's own rating is part of it, as in the stored consensus);
* an annotator's kappa with the consensus, and with each other annotator, is the engine's pair kappa of the two
  columns, with :func:`annotation.aggregation.agreement.bootstrap_kappa_ci` on the same two columns;
* bias: the mean of (own score - unrounded consensus) over the items both have; straight-lining: the variance
  of the annotator's own scores against the others' on the same items, with the thresholds of the outlier check
  (:class:`annotation.quality.outliers.OutlierThresholds`); speed: the median seconds per item.

The result is strict JSON (no NaN, no numpy types): it is stored as the prepared month.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.aggregation.agreement import (
    axis_kappa,
    axis_report,
    bootstrap_kappa_ci,
    leave_one_out_kappa,
    pairwise_quadratic_kappa,
)
from annotation.aggregation.consensus import merge
from annotation.axes import AXES
from annotation.io.dataset import RatingSet
from annotation.quality.outliers import OutlierThresholds

TOP_ITEMS = 10
THRESHOLDS = OutlierThresholds()


def pair_kappa(a: np.ndarray, b: np.ndarray, *, n_boot: int, seed: int) -> dict:
    """The engine's quadratic weighted kappa of two rating columns (0 = missing) on their common items, with CI."""
    pair = np.stack([np.asarray(a), np.asarray(b)], axis=1).astype(np.int64)
    common = int(np.sum((pair > 0).all(axis=1)))
    kappa, reason = axis_kappa(pairwise_quadratic_kappa(pair))
    ci = None
    if kappa is not None and n_boot:
        low, high, ci_reason = bootstrap_kappa_ci(pair, n_boot=n_boot, seed=seed)
        ci = None if low is None else [low, high]
        reason = reason or (ci_reason if ci is None else None)
    return {"kappa": kappa, "ci95": ci, "n_items": common, "reason": reason}


def consensus_columns(ratings: RatingSet) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """Per axis the integer consensus (0 = none) and the unrounded merged value (NaN = none) of every item."""
    result = merge(ratings)
    where = {item: i for i, item in enumerate(ratings.item_ids)}
    rounded = {axis: np.zeros(ratings.n_items, dtype=np.int64) for axis in AXES}
    merged = {axis: np.full(ratings.n_items, np.nan) for axis in AXES}
    for line in result.consensus:
        i = where[line["id"]]
        for axis in AXES:
            rounded[axis][i] = line["annotations"][axis]
            merged[axis][i] = line["scores_mean"][axis]
    return rounded, merged, len(result.consensus)


def _bias(own: np.ndarray, merged: np.ndarray) -> dict:
    both = (own > 0) & ~np.isnan(merged)
    diff = own[both].astype(np.float64) - merged[both]
    n = int(diff.size)
    return {
        "mean": float(diff.mean()) if n else None,
        "sd": float(diff.std(ddof=1)) if n >= 2 else None,
        "n_items": n,
    }


def _straight_lining(scores: np.ndarray, rater: int, t: OutlierThresholds) -> dict:
    rated = scores > 0
    mine = rated[:, rater]
    own = scores[mine, rater].astype(np.float64)
    others_mask = rated[mine].copy()
    others_mask[:, rater] = False
    others = scores[mine][others_mask].astype(np.float64)
    n = int(own.size)
    own_var = float(own.var()) if n else None
    others_var = float(others.var()) if others.size else None
    modal = int(np.bincount(own.astype(np.int64)).max()) if n else 0
    flagged = (
        n >= t.min_items
        and others.size >= t.min_items
        and own_var <= t.straight_variance
        and others_var >= t.others_variance
    )
    return {
        "own_variance": own_var,
        "others_variance": others_var,
        "modal_share": modal / n if n else None,
        "n_items": n,
        "flagged": bool(flagged),
    }


def _speed(seconds: np.ndarray, t: OutlierThresholds) -> dict:
    known = seconds[~np.isnan(seconds)]
    return {
        "median_seconds": float(np.median(known)) if known.size else None,
        "n_timed": int(known.size),
        "fast_share": float(np.mean(known < t.fast_median_seconds)) if known.size else None,
        "fast_threshold": t.fast_median_seconds,
    }


def _differences(ratings: RatingSet, rater: int, rounded: dict[str, np.ndarray], top: int) -> list[dict]:
    """The items where the annotator's scores lie farthest from the consensus (sum of |own - consensus| over axes)."""
    if not top:
        return []
    has = ratings.rated[:, rater] & (rounded[AXES[0]] > 0)
    gaps = np.stack([np.abs(ratings.scores[a][:, rater].astype(np.int64) - rounded[a]) for a in AXES], axis=1)
    distance = np.where(has, gaps.sum(axis=1), 0)
    widest = np.where(has, gaps.max(axis=1), 0)
    order = sorted(np.flatnonzero(distance > 0), key=lambda i: (-distance[i], -widest[i], ratings.item_ids[i]))
    return [
        {
            "item": ratings.item_ids[i],
            "distance": int(distance[i]),
            "own": {axis: int(ratings.scores[axis][i, rater]) for axis in AXES},
            "consensus": {axis: int(rounded[axis][i]) for axis in AXES},
        }
        for i in order[:top]
    ]


def _mean_defined(values: Sequence[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return float(np.mean(defined)) if defined else None


def month_feedback(
    ratings: RatingSet, *, n_boot: int = 1000, seed: int = 0, top_items: int = TOP_ITEMS, details: bool = True
) -> dict:
    """Every annotator's figures for the month, and the month's agreement per axis (strict JSON).

    ``details=False`` leaves out what only the month's own pages show (pair kappas with each other annotator, the
    items that differed most, the bootstrap): what a month needs to be a point of another month's trend.
    """
    boot = n_boot if details else 0
    axes = {
        axis: axis_report(ratings.scores[axis], ratings.rater_ids, n_boot=boot, seed=seed) for axis in AXES if details
    }
    rest = (
        {}
        if details
        else {
            axis: leave_one_out_kappa(pairwise_quadratic_kappa(ratings.scores[axis]), ratings.n_raters) for axis in AXES
        }
    )
    rounded, merged, n_consensus = consensus_columns(ratings)
    pairs: dict[tuple[str, int, int], dict] = {}

    def pair(axis: str, r: int, s: int) -> dict:
        """A pair's kappa and CI, computed once for both annotators (kappa and its bootstrap are symmetric)."""
        key = (axis, min(r, s), max(r, s))
        if key not in pairs:
            scores = ratings.scores[axis]
            pairs[key] = pair_kappa(scores[:, key[1]], scores[:, key[2]], n_boot=boot, seed=seed)
        return pairs[key]

    pooled_seconds = ratings.seconds[~np.isnan(ratings.seconds)]
    people = {}
    for r, name in enumerate(ratings.rater_ids):
        per_axis = {}
        for axis in AXES:
            scores = ratings.scores[axis]
            own = scores[:, r]
            if details:
                vs_rest = axes[axis]["annotators"][r]
            else:
                value, why = rest[axis][r]
                vs_rest = {"kappa_vs_rest": value, "reason": why}
            per_axis[axis] = {
                "vs_consensus": pair_kappa(own, rounded[axis], n_boot=boot, seed=seed),
                "vs_rest": {"kappa": vs_rest["kappa_vs_rest"], "reason": vs_rest["reason"]},
                "bias": _bias(own, merged[axis]),
                "straight_lining": _straight_lining(scores, r, THRESHOLDS),
                "pairs": [
                    {"other": other, **pair(axis, r, s)}
                    for s, other in enumerate(ratings.rater_ids)
                    if s != r and details and np.any((own > 0) & (scores[:, s] > 0))
                ],
            }
        people[name] = {
            "n_ratings": int(ratings.rated[:, r].sum()),
            "n_shared": int((ratings.rated[:, r] & (ratings.rated.sum(axis=1) >= 2)).sum()),
            "axes": per_axis,
            "kappa_consensus_mean": _mean_defined([per_axis[a]["vs_consensus"]["kappa"] for a in AXES]),
            "kappa_rest_mean": _mean_defined([per_axis[a]["vs_rest"]["kappa"] for a in AXES]),
            "speed": _speed(ratings.seconds[:, r], THRESHOLDS),
            "differences": _differences(ratings, r, rounded, top_items if details else 0),
        }
    return {
        "n_items": ratings.n_items,
        "n_ratings": int(ratings.rated.sum()),
        "n_consensus": n_consensus,
        "annotators": list(ratings.rater_ids),
        "median_seconds": float(np.median(pooled_seconds)) if pooled_seconds.size else None,
        "bootstrap": {"replicates": boot, "seed": seed, "level": 0.95, "resampled": "items"},
        "thresholds": {
            "straight_variance": THRESHOLDS.straight_variance,
            "others_variance": THRESHOLDS.others_variance,
            "min_items": THRESHOLDS.min_items,
            "fast_seconds": THRESHOLDS.fast_median_seconds,
        },
        "axes": axes,
        "people": people,
    }


def trend_point(month: str, content: dict, name: str) -> dict:
    """One annotator's row of the trend table from one month's content (None figures when they did not rate)."""
    person = content["people"].get(name)
    if person is None:
        return {"month": month, "n_ratings": 0, "kappa_consensus_mean": None, "kappa_rest_mean": None,
                "median_seconds": None, "axes": [[axis, None] for axis in AXES]}  # fmt: skip
    return {
        "month": month,
        "n_ratings": person["n_ratings"],
        "kappa_consensus_mean": person["kappa_consensus_mean"],
        "kappa_rest_mean": person["kappa_rest_mean"],
        "median_seconds": person["speed"]["median_seconds"],
        "axes": [[axis, person["axes"][axis]["vs_consensus"]["kappa"]] for axis in AXES],  # a list: jsonb sorts keys
    }
