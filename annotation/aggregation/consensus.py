"""Merging several annotators' ratings into one consensus rating per item (seed A.6, pure numpy).

Per item and axis, ratings below ``min_confidence`` and ratings by annotators left out of that
axis (low leave-one-out agreement) are not used. The rest are merged by:

- ``weighted_average``: the confidence-weighted mean;
- ``median``: the median (the mean of the middle two for an even count);
- ``majority``: the most frequent score; ties go to the score with the larger confidence sum,
  then to the lower score (the conservative reading: less sycophancy).

The integer consensus is the merged value rounded half up (2.5 -> 3), so ``scores_mean`` keeps
the unrounded value. An item is rejected (not merged) when on any axis fewer than
``min_ratings`` ratings are usable or the usable ratings span more than ``max_spread`` points.

Adjudications (a researcher's decision on one axis of an item) win: the axis takes the adjudicated
score whatever the ratings say (so an axis rejected for its spread is no longer a reason to reject),
and the consensus line says so under ``adjudicated`` (the score, the merged value it replaced, the
reason, who and when).

Accepted quality flags (an admin's decision that a finding holds) leave ratings out too, before the
merge: a flag on an annotator leaves out that annotator's ratings on its axes for its items, a flag on
an item rejects the item (reason ``flag_accepted``). A consensus line lists the annotators left out by
flags per axis under ``flag_excluded``; the result lists every exclusion with what it left out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from annotation.aggregation.agreement import axis_kappa, leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.axes import AXES, MIN_CONFIDENCE, MIN_KAPPA, SCORES
from annotation.io.dataset import RatingSet
from annotation.io.records import format_timestamp

METHODS = ("weighted_average", "median", "majority")
MIN_RATINGS = 2
MAX_SPREAD = 2


@dataclass(frozen=True)
class Adjudicated:
    """A researcher's decision on one axis of one item."""

    score: int
    reason: str
    by: str
    at: str  # ISO timestamp


@dataclass(frozen=True)
class FlagExclusion:
    """What an accepted quality flag leaves out of the consensus.

    ``annotator`` None: the flag is on the items themselves, which are rejected. ``items`` None: every item
    (a flag from a report over all batches).
    """

    flag: int
    kind: str
    axes: tuple[str, ...]
    annotator: str | None
    items: frozenset[str] | None
    reviewer: str = ""
    reviewed_at: str = ""
    note: str = ""

    def as_json(self, *, ratings_excluded: int, items_rejected: int) -> dict:
        return {
            "flag": self.flag,
            "kind": self.kind,
            "annotator": self.annotator,
            "axes": list(self.axes),
            "items": None if self.items is None else len(self.items),
            "ratings_excluded": ratings_excluded,
            "items_rejected": items_rejected,
            "reviewer": self.reviewer,
            "reviewed_at": self.reviewed_at,
            "note": self.note,
        }


@dataclass
class MergeResult:
    consensus: list[dict] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)
    method: str = "weighted_average"
    rejected_by_axis: dict[str, dict[str, int]] = field(default_factory=dict)
    flag_exclusions: list[dict] = field(default_factory=list)


def _flag_masks(
    ratings: RatingSet, exclusions: Sequence[FlagExclusion]
) -> tuple[dict[str, np.ndarray], dict[int, list[str]], dict[int, dict[str, list[int]]], list[dict]]:
    """Per axis the (item, rater) ratings flags leave out; items rejected by item flags (index -> axes);
    per item and axis the flags that reject it; and the listing of every exclusion."""
    masks = {axis: np.zeros((ratings.n_items, ratings.n_raters), dtype=bool) for axis in AXES}
    rejected_axes: dict[int, list[str]] = {}
    rejected_by: dict[int, dict[str, list[int]]] = {}
    listing = []
    raters = {rater: index for index, rater in enumerate(ratings.rater_ids)}
    item_ids = np.asarray(ratings.item_ids, dtype=object)
    for exclusion in exclusions:
        if exclusion.items is None:
            in_scope = np.ones(ratings.n_items, dtype=bool)
        else:
            in_scope = np.fromiter((i in exclusion.items for i in item_ids), dtype=bool, count=ratings.n_items)
        axes = [axis for axis in AXES if axis in exclusion.axes]
        left_out = items_rejected = 0
        if exclusion.annotator is None:
            for item in np.flatnonzero(in_scope):
                items_rejected += 1
                for axis in axes:
                    if axis not in rejected_axes.setdefault(int(item), []):
                        rejected_axes[int(item)].append(axis)
                    rejected_by.setdefault(int(item), {}).setdefault(axis, []).append(exclusion.flag)
        elif (rater := raters.get(exclusion.annotator)) is not None:
            for axis in axes:
                hit = in_scope & (ratings.scores[axis][:, rater] > 0) & ~masks[axis][:, rater]
                left_out += int(hit.sum())
                masks[axis][:, rater] |= in_scope
        listing.append(exclusion.as_json(ratings_excluded=left_out, items_rejected=items_rejected))
    return masks, rejected_axes, rejected_by, listing


def kappa_without_flagged(ratings: RatingSet, exclusions: Sequence[FlagExclusion]) -> dict[str, float | None]:
    """Per axis, the agreement (the reports' κ: mean pairwise quadratic κ) of the ratings the flags leave in: the
    ratings of flagged annotators on their axes and items, and the ratings of items flagged themselves, are left out
    as the merge leaves them out."""
    masks, rejected_axes, _by, _listing = _flag_masks(ratings, exclusions)
    found: dict[str, float | None] = {}
    for axis in AXES:
        scores = ratings.scores[axis].copy()
        scores[masks[axis]] = 0
        for item, axes in rejected_axes.items():
            if axis in axes:
                scores[item, :] = 0
        found[axis], _reason = axis_kappa(pairwise_quadratic_kappa(scores))
    return found


def round_half_up(values: np.ndarray) -> np.ndarray:
    # Rounded to 9 decimals first so that a mean of exactly x.5 computed as x.4999999999999 goes up.
    return np.floor(np.round(values, 9) + 0.5)


def _merge_axis(scores: np.ndarray, confidence: np.ndarray, usable: np.ndarray, method: str) -> np.ndarray:
    """The unrounded merged value per item (NaN where nothing is usable)."""
    values = scores.astype(np.float64)
    n_used = usable.sum(axis=1)
    merged = np.full(scores.shape[0], np.nan)
    has = n_used > 0
    if method == "weighted_average":
        weights = np.where(usable, confidence, 0.0)
        total = weights.sum(axis=1)
        weighted = (weights * values).sum(axis=1)
        plain = np.where(usable, values, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            # All usable ratings with confidence 0 (possible only with min_confidence 0): plain mean.
            merged = np.where(total > 0, weighted / total, plain / n_used)
        merged[~has] = np.nan
    elif method == "median":
        masked = np.where(usable, values, np.nan)
        merged[has] = np.nanmedian(masked[has], axis=1)
    elif method == "majority":
        categories = np.asarray(SCORES, dtype=np.float64)
        hits = (values[:, :, None] == categories) & usable[:, :, None]
        counts = hits.sum(axis=1)
        confidence_sums = np.where(hits, np.nan_to_num(confidence)[:, :, None], 0.0).sum(axis=1)
        # Count first; the confidence sum (< one count after scaling) breaks ties; argmax takes
        # the first, i.e. the lowest, score among full ties.
        key = counts + confidence_sums / (scores.shape[1] + 1.0)
        merged[has] = categories[np.argmax(key[has], axis=1)]
    else:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    return merged


def merge(
    ratings: RatingSet,
    *,
    method: str = "weighted_average",
    min_confidence: float = MIN_CONFIDENCE,
    excluded: Mapping[str, Collection[int]] | None = None,
    min_ratings: int = MIN_RATINGS,
    max_spread: int = MAX_SPREAD,
    now: datetime | None = None,
    adjudications: Mapping[str, Mapping[str, Adjudicated]] | None = None,
    flag_exclusions: Sequence[FlagExclusion] = (),
) -> MergeResult:
    """``adjudications``: ``{item id: {axis: Adjudicated}}``, decisions that replace the merged score.
    ``flag_exclusions``: what accepted quality flags leave out (see :class:`FlagExclusion`)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    excluded = excluded or {}
    adjudications = adjudications or {}
    stamp = format_timestamp((now or datetime.now(UTC)).replace(microsecond=0))
    per_axis = {}
    reject_reasons: list[dict] = [{} for _ in range(ratings.n_items)]
    result = MergeResult(method=method)
    flagged, flag_rejected, rejecting_flags, result.flag_exclusions = _flag_masks(ratings, flag_exclusions)
    for axis in AXES:
        scores, confidence = ratings.scores[axis], ratings.confidence[axis]
        usable = (scores > 0) & (confidence >= min_confidence) & ~flagged[axis]
        for rater in excluded.get(axis, ()):
            usable[:, rater] = False
        n_used = usable.sum(axis=1)
        merged = _merge_axis(scores, confidence, usable, method)
        low = np.where(usable, scores, 99).min(axis=1)
        high = np.where(usable, scores, 0).max(axis=1)
        with np.errstate(invalid="ignore"):
            mean_confidence = np.where(usable, confidence, 0.0).sum(axis=1) / np.maximum(n_used, 1)
        too_few = n_used < min_ratings
        too_wide = ~too_few & (high - low > max_spread)
        for item in np.flatnonzero(too_few):
            reject_reasons[item][axis] = {
                "reason": "too_few_ratings",
                "usable": int(n_used[item]),
                "required": min_ratings,
            }
        for item in np.flatnonzero(too_wide):
            reject_reasons[item][axis] = {
                "reason": "spread_too_wide",
                "min": int(low[item]),
                "max": int(high[item]),
                "max_spread": max_spread,
            }
        result.rejected_by_axis[axis] = {"too_few_ratings": int(too_few.sum()), "spread_too_wide": int(too_wide.sum())}
        per_axis[axis] = (merged, round_half_up(merged), mean_confidence, n_used)

    rated = ratings.rated
    n_annotators = rated.sum(axis=1)
    for item, item_id in enumerate(ratings.item_ids):
        decided = adjudications.get(item_id, {})
        for axis in decided:
            reject_reasons[item].pop(axis, None)  # the researcher's decision settles the axis
        for axis in flag_rejected.get(item, ()):  # an accepted flag on the item rejects the axes not decided
            if axis not in decided:
                reject_reasons[item][axis] = {"reason": "flag_accepted", "flags": rejecting_flags[item][axis]}
        if reject_reasons[item]:
            raters = np.flatnonzero(rated[item])
            result.rejected.append(
                {
                    "id": item_id,
                    "reasons": reject_reasons[item],
                    "n_annotators": int(n_annotators[item]),
                    "ratings": {
                        ratings.rater_ids[r]: {axis: int(ratings.scores[axis][item, r]) for axis in AXES}
                        for r in raters
                    },
                }
            )
            continue
        line = {
            "id": item_id,
            "annotator_id": "consensus",
            "timestamp": stamp,
            "annotations": {axis: int(per_axis[axis][1][item]) for axis in AXES if axis not in decided},
            "confidence": {axis: float(per_axis[axis][2][item]) for axis in AXES},
            "scores_mean": {axis: float(per_axis[axis][0][item]) for axis in AXES if axis not in decided},
            "n_annotators": int(n_annotators[item]),
            "n_used": {axis: int(per_axis[axis][3][item]) for axis in AXES},
            "method": method,
        }
        left_out = {
            axis: [ratings.rater_ids[r] for r in np.flatnonzero(flagged[axis][item] & rated[item])] for axis in AXES
        }
        if any(left_out.values()):
            line["flag_excluded"] = {axis: names for axis, names in left_out.items() if names}
        if decided:
            line["adjudicated"] = {}
            for axis in AXES:
                if axis in decided:
                    merged = float(per_axis[axis][0][item])
                    decision = decided[axis]
                    line["annotations"][axis] = line["scores_mean"][axis] = decision.score
                    line["adjudicated"][axis] = {
                        "score": decision.score,
                        "merged": None if np.isnan(merged) else merged,
                        "reason": decision.reason,
                        "by": decision.by,
                        "at": decision.at,
                    }
            line["annotations"] = {axis: line["annotations"][axis] for axis in AXES}
            line["scores_mean"] = {axis: float(line["scores_mean"][axis]) for axis in AXES}
        result.consensus.append(line)
    return result


def low_agreement_exclusions(ratings: RatingSet, *, min_kappa: float) -> tuple[dict[str, list[int]], dict]:
    """Per axis, the annotators (column indices) whose leave-one-out kappa is below ``min_kappa``.

    Annotators whose leave-one-out kappa is undefined stay in (nothing shows they disagree) and are
    listed separately so the report says so.
    """
    excluded: dict[str, list[int]] = {}
    listing: dict[str, dict[str, list[dict]]] = {}
    for axis in AXES:
        pairwise = pairwise_quadratic_kappa(ratings.scores[axis])
        per_rater = leave_one_out_kappa(pairwise, ratings.n_raters)
        out, undefined = [], []
        for rater, (value, reason) in enumerate(per_rater):
            if value is not None and value < min_kappa:
                out.append(rater)
            if value is None:
                undefined.append({"annotator": ratings.rater_ids[rater], "reason": reason})
        excluded[axis] = out
        listing[axis] = {
            "excluded": [{"annotator": ratings.rater_ids[r], "kappa_vs_rest": per_rater[r][0]} for r in out],
            "kept_with_undefined_kappa": undefined,
        }
    return excluded, listing


def merge_with_exclusions(
    ratings: RatingSet,
    *,
    method: str = "weighted_average",
    min_kappa: float = MIN_KAPPA,
    min_confidence: float = MIN_CONFIDENCE,
    adjudications: Mapping[str, Mapping[str, Adjudicated]] | None = None,
    flag_exclusions: Sequence[FlagExclusion] = (),
) -> tuple[MergeResult, dict]:
    """The seed A.6 merge: leave out low-agreement annotators per axis, then merge. Returns (result, summary)."""
    excluded, listing = low_agreement_exclusions(ratings, min_kappa=min_kappa)
    result = merge(
        ratings,
        method=method,
        min_confidence=min_confidence,
        excluded=excluded,
        adjudications=adjudications,
        flag_exclusions=flag_exclusions,
    )
    summary = {
        "method": method,
        "min_kappa": min_kappa,
        "min_confidence": min_confidence,
        "min_ratings": MIN_RATINGS,
        "max_spread": MAX_SPREAD,
        "consensus_items": len(result.consensus),
        "rejected_items": len(result.rejected),
        "rejected_by_axis": result.rejected_by_axis,
        "adjudicated_items": sum(1 for line in result.consensus if "adjudicated" in line),
        "annotators": listing,
        "flag_exclusions": result.flag_exclusions,
        "ratings_excluded_by_flags": sum(entry["ratings_excluded"] for entry in result.flag_exclusions),
        "items_rejected_by_flags": sum(
            1 for line in result.rejected if any(r["reason"] == "flag_accepted" for r in line["reasons"].values())
        ),
    }
    return result, summary
