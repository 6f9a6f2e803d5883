"""Statistical outlier detection over a set of ratings (seed A.7 item 6, A.9; pure numpy).

Annotator-level checks: low agreement with the others (leave-one-out kappa), a mean-score bias
against the others on the same items, straight-lining, implausibly fast ratings and drift late in
a working session (fatigue, A.9.3). Item-level check: high disagreement. Every flag carries the
statistic, the threshold it crossed and details for the reviewer.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

import numpy as np

from annotation.aggregation.agreement import leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.axes import AXES, MIN_KAPPA
from annotation.io.dataset import RatingSet


@dataclass(frozen=True)
class OutlierThresholds:
    min_kappa: float = MIN_KAPPA  # leave-one-out kappa below this: low agreement
    bias_points: float = 0.75  # mean deviation from the others on the same items, in scale points
    bias_z: float = 2.0  # or a z-score of that deviation across annotators (with >= 4 annotators)
    min_items: int = 10  # annotator-level statistics need at least this many rated items
    straight_variance: float = 0.05  # own score variance at or below this ...
    others_variance: float = 0.30  # ... while the others vary at least this much on the same items
    fast_median_seconds: float = 5.0  # median seconds per item below this: implausibly fast
    session_gap_minutes: float = 30.0  # a pause this long starts a new session
    min_session_items: int = 12  # sessions shorter than this are not used for drift
    drift_points: float = 0.5  # late-session minus early-session mean deviation from the others
    item_spread: int = 2  # an item whose ratings on an axis span more than this many points


@dataclass(frozen=True)
class OutlierFlag:
    kind: str
    subject_type: str  # "annotator" or "item"
    subject: str
    axis: str | None
    statistic: float
    threshold: float
    message: str
    details: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return asdict(self)


def _others_mean(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per rated cell, the mean score of the other raters of that item, and where it is defined."""
    rated = scores > 0
    values = scores.astype(np.float64)
    total = values.sum(axis=1, keepdims=True)
    count = rated.sum(axis=1, keepdims=True)
    defined = rated & (count >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (total - values) / (count - 1)
    return np.where(defined, others, np.nan), defined


def _low_agreement(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    flags = []
    rated_counts = ratings.rated.sum(axis=0)
    for axis in AXES:
        pairwise = pairwise_quadratic_kappa(ratings.scores[axis])
        for rater, (value, _reason) in enumerate(leave_one_out_kappa(pairwise, ratings.n_raters)):
            if value is not None and value < t.min_kappa:
                flags.append(
                    OutlierFlag(
                        "low_agreement", "annotator", ratings.rater_ids[rater], axis, value, t.min_kappa,
                        f"weighted kappa with the other annotators {value:.3f} < {t.min_kappa}",
                        {"n_items": int(rated_counts[rater])},
                    )
                )  # fmt: skip
    return flags


def _bias(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    flags = []
    for axis in AXES:
        scores = ratings.scores[axis]
        others, defined = _others_mean(scores)
        deviation = np.where(defined, scores - others, 0.0)
        n = defined.sum(axis=0)
        eligible = n >= t.min_items
        if not eligible.any():
            continue
        mean_dev = deviation.sum(axis=0) / np.maximum(n, 1)
        z = np.full(ratings.n_raters, np.nan)
        if eligible.sum() >= 4:
            pool = mean_dev[eligible]
            spread = pool.std(ddof=1)
            if spread > 0:
                z[eligible] = (pool - pool.mean()) / spread
        for rater in np.flatnonzero(eligible):
            by_points = abs(mean_dev[rater]) >= t.bias_points
            by_z = not np.isnan(z[rater]) and abs(z[rater]) >= t.bias_z
            if by_points or by_z:
                direction = "higher" if mean_dev[rater] > 0 else "lower"
                flags.append(
                    OutlierFlag(
                        "score_bias", "annotator", ratings.rater_ids[rater], axis, float(mean_dev[rater]),
                        t.bias_points,
                        f"scores {abs(mean_dev[rater]):.2f} points {direction} than the others on the same items",
                        {
                            "z": None if np.isnan(z[rater]) else float(z[rater]),
                            "bias_z": t.bias_z,
                            "n_items": int(n[rater]),
                        },
                    )
                )  # fmt: skip
    return flags


def _straight_lining(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    flags = []
    for axis in AXES:
        scores = ratings.scores[axis]
        rated = scores > 0
        values = scores.astype(np.float64)
        for rater in range(ratings.n_raters):
            mine = rated[:, rater]
            if mine.sum() < t.min_items:
                continue
            own = values[mine, rater]
            others_mask = rated[mine].copy()
            others_mask[:, rater] = False
            others = values[mine][others_mask]
            if others.size < t.min_items:
                continue
            own_var, others_var = float(own.var()), float(others.var())
            if own_var <= t.straight_variance and others_var >= t.others_variance:
                flags.append(
                    OutlierFlag(
                        "straight_lining", "annotator", ratings.rater_ids[rater], axis, own_var, t.straight_variance,
                        f"almost always the same score (variance {own_var:.3f}) where the others vary "
                        f"(variance {others_var:.3f})",
                        {
                            "others_variance": others_var,
                            "n_items": int(mine.sum()),
                            "modal_score": int(np.bincount(own.astype(int)).argmax()),
                        },
                    )
                )  # fmt: skip
    return flags


def _too_fast(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    flags = []
    for rater in range(ratings.n_raters):
        seconds = ratings.seconds[:, rater]
        seconds = seconds[~np.isnan(seconds)]
        if seconds.size < t.min_items:
            continue
        median = float(np.median(seconds))
        if median < t.fast_median_seconds:
            flags.append(
                OutlierFlag(
                    "too_fast", "annotator", ratings.rater_ids[rater], None, median, t.fast_median_seconds,
                    f"median {median:.1f} s per item, below {t.fast_median_seconds} s",
                    {"n_timed": int(seconds.size), "share_under_3s": float((seconds < 3).mean())},
                )
            )  # fmt: skip
    return flags


def _late_session_drift(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    # Mean absolute deviation from the others over the four axes, per rated cell.
    total = np.zeros(ratings.scores[AXES[0]].shape)
    count = np.zeros(total.shape)
    for axis in AXES:
        others, defined = _others_mean(ratings.scores[axis])
        total += np.where(defined, np.abs(ratings.scores[axis] - others), 0.0)
        count += defined
    with np.errstate(invalid="ignore", divide="ignore"):
        deviation = np.where(count > 0, total / count, np.nan)
    flags = []
    gap = t.session_gap_minutes * 60
    for rater in range(ratings.n_raters):
        items = np.flatnonzero(ratings.rated[:, rater] & ~np.isnan(ratings.epoch[:, rater]))
        if items.size < t.min_session_items:
            continue
        order = items[np.argsort(ratings.epoch[items, rater], kind="stable")]
        times = ratings.epoch[order, rater]
        starts = np.concatenate([[0], np.flatnonzero(np.diff(times) > gap) + 1, [order.size]])
        early, late, sessions = [], [], 0
        for start, end in itertools.pairwise(starts):
            if end - start < t.min_session_items:
                continue
            third = (end - start) // 3
            session = deviation[order[start:end], rater]
            early.extend(session[:third][~np.isnan(session[:third])])
            late.extend(session[-third:][~np.isnan(session[-third:])])
            sessions += 1
        if not early or not late:
            continue
        drift = float(np.mean(late) - np.mean(early))
        if drift >= t.drift_points:
            flags.append(
                OutlierFlag(
                    "late_session_drift", "annotator", ratings.rater_ids[rater], None, drift, t.drift_points,
                    f"deviation from the others grows by {drift:.2f} points late in sessions (fatigue?)",
                    {
                        "sessions": sessions,
                        "early_deviation": float(np.mean(early)),
                        "late_deviation": float(np.mean(late)),
                    },
                )
            )  # fmt: skip
    return flags


def _item_disagreement(ratings: RatingSet, t: OutlierThresholds) -> list[OutlierFlag]:
    spans = {}
    for axis in AXES:
        scores = ratings.scores[axis]
        rated = scores > 0
        high = np.where(rated, scores, 0).max(axis=1)
        low = np.where(rated, scores, 99).min(axis=1)
        spans[axis] = np.where(rated.sum(axis=1) >= 2, high - low, 0)
    flags = []
    worst = np.max(np.stack([spans[axis] for axis in AXES]), axis=0)
    for item in np.flatnonzero(worst > t.item_spread):
        axes = {axis: int(spans[axis][item]) for axis in AXES if spans[axis][item] > t.item_spread}
        flags.append(
            OutlierFlag(
                "item_disagreement", "item", ratings.item_ids[item], None, float(worst[item]), float(t.item_spread),
                f"ratings span more than {t.item_spread} points on {', '.join(axes)}",
                {"spans": axes},
            )
        )  # fmt: skip
    return flags


CHECKS = (_low_agreement, _bias, _straight_lining, _too_fast, _late_session_drift, _item_disagreement)


def detect_outliers(ratings: RatingSet, thresholds: OutlierThresholds | None = None) -> list[OutlierFlag]:
    thresholds = thresholds or OutlierThresholds()
    flags: list[OutlierFlag] = []
    for check in CHECKS:
        flags.extend(check(ratings, thresholds))
    return flags


def outlier_report(ratings: RatingSet, thresholds: OutlierThresholds | None = None) -> dict:
    thresholds = thresholds or OutlierThresholds()
    flags = detect_outliers(ratings, thresholds)
    counts: dict[str, int] = {}
    for flag in flags:
        counts[flag.kind] = counts.get(flag.kind, 0) + 1
    return {
        "thresholds": asdict(thresholds),
        "n_items": ratings.n_items,
        "n_annotators": ratings.n_raters,
        "counts": counts,
        "flags": [flag.as_json() for flag in flags],
    }
