"""Weekly agreement of each annotator with the rest (seed 000 B.3.2: weekly kappa monitoring).

Pure Python + numpy; no Django import.

For an annotator ``r`` and an ISO week ``w``, take the items ``r`` rated during ``w`` (by the rating's own
timestamp). For every other annotator ``s`` who rated some of those items (at any time), compute the quadratic
weighted Cohen's kappa of ``r``'s ratings against ``s``'s on those common items, over the fixed categories 1..5
(``sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4, 5])``). The weekly value is
the mean of the defined pair kappas weighted by their common items: the leave-one-out kappa of
:func:`annotation.aggregation.agreement.leave_one_out_kappa`, restricted to one week of ``r``'s ratings.

A week in which the value is undefined (nothing rated, no other rating of the same items, every pair with too
few common items or with expected disagreement 0) is NaN with a reason, never 0: plots show it as a gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

import numpy as np

from annotation.aggregation.agreement.core import (
    CATEGORIES,
    MISSING,
    check_ratings,
    observed_entries,
    same_item_pairs,
)
from annotation.aggregation.agreement.kappa import quadratic_weights

NO_WEEK = np.iinfo(np.int64).min  # week code of a missing rating
_EPOCH = date(1970, 1, 1)
_DAY = 86_400


def _utc_offsets(seconds: np.ndarray, tz: tzinfo) -> np.ndarray:
    """UTC offset in seconds of ``tz`` at each POSIX time, exact across daylight-saving transitions.

    The zone is asked once per distinct hour (at its first and last second); only the entries of an hour that
    contains a transition are looked up one by one.
    """

    def offset(ts: int) -> int:
        return int(datetime.fromtimestamp(ts, UTC).astimezone(tz).utcoffset().total_seconds())

    hours, where = np.unique(seconds // 3600, return_inverse=True)
    start = np.array([offset(int(h) * 3600) for h in hours], dtype=np.int64)
    end = np.array([offset(int(h) * 3600 + 3599) for h in hours], dtype=np.int64)
    out = start[where]
    for k in np.flatnonzero(start[where] != end[where]):
        out[k] = offset(int(seconds[k]))
    return out


def week_codes(epoch: np.ndarray, *, tz: tzinfo = UTC) -> np.ndarray:
    """The ISO week of each timestamp, in the time zone ``tz``, as the day number (since 1970-01-01) of its Monday.

    ``epoch`` holds seconds since 1970 (any shape, NaN = no rating); the result has the same shape, int64, with
    :data:`NO_WEEK` where ``epoch`` is NaN. Codes sort in time order and differ by 7 between consecutive weeks.
    """
    epoch = np.asarray(epoch, dtype=np.float64)
    codes = np.full(epoch.shape, NO_WEEK, dtype=np.int64)
    given = ~np.isnan(epoch)
    seconds = np.floor(epoch[given]).astype(np.int64)
    if seconds.size:
        days = (seconds + _utc_offsets(seconds, tz)) // _DAY
        codes[given] = days - (days + 3) % 7  # 1970-01-01 was a Thursday (ISO weekday index 3)
    return codes


def week_monday(code: int) -> date:
    return _EPOCH + timedelta(days=int(code))


def week_label(code: int) -> str:
    """ISO 8601 week name, e.g. ``2025-W01`` (the ISO year can differ from the calendar year of the Monday)."""
    year, week, _ = week_monday(code).isocalendar()
    return f"{year}-W{week:02d}"


@dataclass(frozen=True, eq=False)
class WeeklyKappa:
    """Leave-one-out kappa of every annotator in every week that has at least one rating (of anyone).

    ``kappa[r, w]`` is NaN when undefined and then ``reasons[r][w]`` says why; ``n_common[r, w]`` counts the items
    annotator ``r`` rated in week ``w`` that another annotator also rated, ``n_rated[r, w]`` all items ``r`` rated
    in that week.
    """

    week_codes: np.ndarray  # (n_weeks,) int64 Monday day numbers, increasing
    rater_ids: list[Any]
    kappa: np.ndarray  # (n_raters, n_weeks) float64
    n_common: np.ndarray  # (n_raters, n_weeks) int64
    n_rated: np.ndarray  # (n_raters, n_weeks) int64
    reasons: list[list[str | None]]

    @property
    def week_labels(self) -> list[str]:
        return [week_label(code) for code in self.week_codes]

    def value(self, rater: int, week: int) -> float | None:
        k = self.kappa[rater, week]
        return None if np.isnan(k) else float(k)


def weekly_kappa_vs_rest(
    ratings: np.ndarray,
    weeks: np.ndarray,
    rater_ids: Sequence[Any],
    *,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    min_common: int = 2,
) -> WeeklyKappa:
    """Per annotator and week, the n_common-weighted mean of their pair kappas on that week's ratings.

    ``ratings`` is one axis, shape (n_items, n_raters), ``missing`` (0) = missing (see
    :mod:`annotation.aggregation.agreement`; a 0–2 scale passes ``missing=-1``); ``weeks`` has the same shape
    and gives the week code (:func:`week_codes`) of each given rating.

    All pair confusion matrices of all weeks come from one ``np.bincount`` over the codes
    (annotator, week, other annotator, category, other's category) that actually occur.
    """
    if int(min_common) != min_common or min_common < 1:
        raise ValueError(f"min_common must be a positive integer; got {min_common!r}")
    idx, cats = check_ratings(ratings, categories, missing=missing)
    weeks = np.asarray(weeks)
    if weeks.shape != idx.shape:
        raise ValueError(f"weeks must have the shape of ratings {idx.shape}; got {weeks.shape}")
    n_raters, k = idx.shape[1], cats.size
    if len(rater_ids) != n_raters:
        raise ValueError(f"got {len(rater_ids)} rater ids for {n_raters} rater columns")
    items, raters, cat = observed_entries(idx)
    entry_week = weeks[items, raters].astype(np.int64)
    if np.any(entry_week == NO_WEEK):
        bad = int(np.sum(entry_week == NO_WEEK))
        raise ValueError(f"{bad} given rating(s) have no week (NO_WEEK); every rating needs its timestamp")
    codes, week = np.unique(entry_week, return_inverse=True)
    n_weeks = codes.size
    cells = n_raters * n_weeks

    n_rated = np.bincount(raters * n_weeks + week, minlength=cells)
    per_item = np.bincount(items, minlength=idx.shape[0])
    shared = per_item[items] >= 2
    n_common = np.bincount(raters[shared] * n_weeks + week[shared], minlength=cells)

    # Every same-item pair of ratings counts twice: once for each annotator, in the week of their own rating.
    offsets = list(same_item_pairs(items))
    first = np.concatenate([f for _, f in offsets]) if offsets else np.zeros(0, dtype=np.int64)
    second = np.concatenate([f + d for d, f in offsets]) if offsets else np.zeros(0, dtype=np.int64)
    focus = np.concatenate([first, second])
    other = np.concatenate([second, first])
    pair_code = (raters[focus] * n_weeks + week[focus]) * n_raters + raters[other]
    triples, which = np.unique(pair_code, return_inverse=True)
    conf = np.bincount(which * k * k + cat[focus] * k + cat[other], minlength=triples.size * k * k)
    conf = conf.reshape(triples.size, k, k)

    w = quadratic_weights(k)
    n = conf.sum(axis=(1, 2))
    observed = np.einsum("pij,ij->p", conf, w)
    expected_n = np.einsum("pi,ij,pj->p", conf.sum(axis=2), w, conf.sum(axis=1))
    enough = n >= min_common
    defined = enough & (expected_n > 0)
    pair_kappa = np.zeros(n.shape)
    pair_kappa[defined] = 1.0 - n[defined] * observed[defined] / expected_n[defined]

    cell = triples // n_raters  # rater * n_weeks + week
    weight = np.where(defined, n, 0).astype(np.float64)
    total = np.bincount(cell, weights=weight, minlength=cells)
    summed = np.bincount(cell, weights=weight * pair_kappa, minlength=cells)
    kappa = np.full(cells, np.nan)
    kappa[total > 0] = summed[total > 0] / total[total > 0]
    few = np.bincount(cell, weights=~enough, minlength=cells).astype(np.int64)
    constant = np.bincount(cell, weights=enough & ~defined, minlength=cells).astype(np.int64)

    reasons = [
        _reason(int(n_rated[c]), int(n_common[c]), int(few[c]), int(constant[c]), min_common)
        if np.isnan(kappa[c])
        else None
        for c in range(cells)
    ]
    return WeeklyKappa(
        week_codes=codes,
        rater_ids=list(rater_ids),
        kappa=kappa.reshape(n_raters, n_weeks),
        n_common=n_common.reshape(n_raters, n_weeks),
        n_rated=n_rated.reshape(n_raters, n_weeks),
        reasons=[reasons[r * n_weeks : (r + 1) * n_weeks] for r in range(n_raters)],
    )


def _reason(n_rated: int, n_common: int, few: int, constant: int, min_common: int) -> str:
    if n_rated == 0:
        return "no ratings in this week"
    if n_common == 0:
        return f"no other annotator rated the {n_rated} item(s) rated in this week"
    parts = []
    if constant:
        parts.append(f"{constant} pair(s) with expected disagreement 0 (the same single score throughout)")
    if few:
        parts.append(f"{few} pair(s) with fewer than {min_common} common items")
    return "no pair has a defined kappa in this week: " + "; ".join(parts)
