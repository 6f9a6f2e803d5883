"""Per-annotator activity of a batch, from counts the database made and one load of the ratings (pure).

No Django import. The database counts ratings per annotator and day (in the site's time zone), the
totals, the last rating and the queue's skipped and submitted assignments; the ratings themselves are
read once into :class:`RatingMatrices` (or a :class:`~annotation.io.dataset.RatingSet`, which has the same
attributes), from which come the median seconds per item and
each annotator's agreement with the rest: the leave-one-out quadratic weighted kappa of
:func:`annotation.aggregation.agreement.leave_one_out_kappa` (the n_common-weighted mean of the annotator's
pair kappas, as in the agreement report's ``kappa_vs_rest``), per axis and as the mean over the axes where it
is defined.

The plot and the table of the activity page both read the :class:`Activity` built here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

from annotation.aggregation.agreement import leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.axes import AXES

WINDOW_DAYS = 30
NOT_LOADED = "this annotator's ratings arrived after the ratings were read; reload the page"


@dataclass(frozen=True)
class RatingMatrices:
    """What the activity needs of the ratings, items x annotators (the subset of a RatingSet it reads)."""

    rater_ids: Sequence[str]
    scores: Mapping[str, np.ndarray]  # per axis, int8, 0 = not rated
    seconds: np.ndarray  # float64, NaN = not rated or time unknown

    @property
    def n_raters(self) -> int:
        return len(self.rater_ids)

    @property
    def rated(self) -> np.ndarray:
        return self.scores[AXES[0]] > 0


def rating_matrices(
    items: np.ndarray, raters: np.ndarray, seconds: np.ndarray, scores: Mapping[str, np.ndarray], names: Mapping
) -> RatingMatrices:
    """Matrices from one row per rating: item key, rater key, seconds (NaN = unknown), a score per axis.

    ``names`` maps a rater key to the annotator's name. Raters come in key order.
    """
    item_keys, item_idx = np.unique(np.asarray(items), return_inverse=True)
    rater_keys, rater_idx = np.unique(np.asarray(raters), return_inverse=True)
    shape = (item_keys.size, rater_keys.size)

    def matrix(values, fill, dtype) -> np.ndarray:
        out = np.full(shape, fill, dtype=dtype)
        out[item_idx, rater_idx] = values
        return out

    return RatingMatrices(
        rater_ids=[str(names[key.item()]) for key in rater_keys],
        scores={axis: matrix(np.asarray(scores[axis]), 0, np.int8) for axis in AXES},
        seconds=matrix(np.asarray(seconds, dtype=np.float64), np.nan, np.float64),
    )


@dataclass(frozen=True)
class DayWindow:
    """The days the per-day counts cover, first to last inclusive.

    ``shifted``: nobody rated in the last ``WINDOW_DAYS`` days, so the window ends on the last day with a
    rating instead of today (a finished batch still shows its last month of work).
    """

    first: date
    last: date
    shifted: bool = False

    @property
    def days(self) -> tuple[date, ...]:
        return tuple(self.first + timedelta(days=i) for i in range((self.last - self.first).days + 1))


def day_window(*, today: date, last_rating_day: date | None, days: int = WINDOW_DAYS) -> DayWindow:
    """The ``days`` days up to today, or up to the last rating day when that lies before them."""
    if days < 1:
        raise ValueError(f"days must be at least 1; got {days!r}")
    end, shifted = today, False
    if last_rating_day is not None and last_rating_day < today - timedelta(days=days - 1):
        end, shifted = last_rating_day, True
    return DayWindow(end - timedelta(days=days - 1), end, shifted)


@dataclass(frozen=True)
class AxisKappa:
    axis: str
    value: float | None
    reason: str | None  # why the value is undefined (the engine's English reason), else None


@dataclass(frozen=True)
class AnnotatorActivity:
    name: str
    total: int  # all ratings in the batch
    per_day: tuple[int, ...]  # ratings on each day of the window
    last_rating: Any  # the time of the latest rating (whatever the caller passed: an aware datetime)
    median_seconds: float | None  # over the ratings with a known time spent
    n_timed: int
    skipped: int  # the batch's queue assignments this annotator skipped ...
    submitted: int  # ... and submitted
    kappa_axes: tuple[AxisKappa, ...]
    n_with_others: int  # items this annotator rated that someone else rated too

    @property
    def in_window(self) -> int:
        return sum(self.per_day)

    @property
    def skip_rate(self) -> float | None:
        """skipped / (skipped + submitted); None when the queue handed this annotator nothing (imports only)."""
        handled = self.skipped + self.submitted
        return self.skipped / handled if handled else None

    @property
    def kappa_defined(self) -> tuple[AxisKappa, ...]:
        return tuple(k for k in self.kappa_axes if k.value is not None)

    @property
    def kappa_mean(self) -> float | None:
        """Mean over the axes where the leave-one-out kappa is defined (None if on none)."""
        values = [k.value for k in self.kappa_defined]
        return float(np.mean(values)) if values else None


@dataclass(frozen=True)
class DayRow:
    day: date
    counts: tuple[int, ...]  # one per annotator, in the order of Activity.annotators

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class Activity:
    window: DayWindow
    annotators: tuple[AnnotatorActivity, ...]  # sorted by name

    @property
    def days(self) -> tuple[date, ...]:
        return self.window.days

    @property
    def day_rows(self) -> list[DayRow]:
        """The per-day counts as table rows: a day, its count per annotator."""
        return [DayRow(day, tuple(a.per_day[i] for a in self.annotators)) for i, day in enumerate(self.days)]

    @property
    def max_per_day(self) -> int:
        return max((max(a.per_day) for a in self.annotators), default=0)

    @property
    def total(self) -> int:
        return sum(a.total for a in self.annotators)

    @property
    def in_window(self) -> int:
        return sum(a.in_window for a in self.annotators)


def kappa_vs_rest(ratings: RatingMatrices) -> dict[str, tuple[AxisKappa, ...]]:
    """Per annotator name, the leave-one-out kappa of every axis (from the agreement engine)."""
    per_axis = {}
    for axis in AXES:
        pairwise = pairwise_quadratic_kappa(ratings.scores[axis])
        per_axis[axis] = leave_one_out_kappa(pairwise, ratings.n_raters)
    return {
        name: tuple(AxisKappa(axis, *per_axis[axis][r]) for axis in AXES) for r, name in enumerate(ratings.rater_ids)
    }


def seconds_medians(seconds: np.ndarray) -> list[tuple[float | None, int]]:
    """Per rater column of ``seconds`` (NaN = not rated or unknown), the median and how many values it used."""
    out = []
    for column in np.asarray(seconds, dtype=np.float64).T:
        known = column[~np.isnan(column)]
        out.append((float(np.median(known)) if known.size else None, int(known.size)))
    return out


def build_activity(
    *,
    ratings: RatingMatrices,
    window: DayWindow,
    totals: Mapping[str, int],
    last_rating: Mapping[str, Any],
    daily: Mapping[tuple[str, date], int],
    queue: Mapping[str, tuple[int, int]],
) -> Activity:
    """Every annotator of ``totals`` (those with ratings), by name.

    ``daily``: ratings per (name, day), days outside the window ignored; ``queue``: (skipped, submitted)
    assignments per name; ``ratings``: the batch's ratings, for the medians and the kappas.
    """
    kappas = kappa_vs_rest(ratings)
    medians = dict(zip(ratings.rater_ids, seconds_medians(ratings.seconds), strict=True))
    rated = ratings.rated
    shared = rated.sum(axis=1) >= 2
    with_others = dict(zip(ratings.rater_ids, (rated & shared[:, None]).sum(axis=0).tolist(), strict=True))
    days = window.days
    rows = []
    for name in sorted(totals, key=str):
        median, n_timed = medians.get(name, (None, 0))
        skipped, submitted = queue.get(name, (0, 0))
        rows.append(
            AnnotatorActivity(
                name=str(name),
                total=int(totals[name]),
                per_day=tuple(int(daily.get((name, day), 0)) for day in days),
                last_rating=last_rating.get(name),
                median_seconds=median,
                n_timed=n_timed,
                skipped=int(skipped),
                submitted=int(submitted),
                kappa_axes=kappas.get(name) or tuple(AxisKappa(axis, None, NOT_LOADED) for axis in AXES),
                n_with_others=int(with_others.get(name, 0)),
            )
        )
    return Activity(window=window, annotators=tuple(rows))
