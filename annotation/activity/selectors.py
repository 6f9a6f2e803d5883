"""Reads for the per-annotator activity page: counts made by the database, then one load of the ratings.

The ratings are read as six columns into numpy matrices, not through ``annotation.selectors.stored_rating_set``:
that one builds a seed A.3 record per rating (with dialogue ids and names joined in) and takes about 1.2 s for
100,000 ratings on SQLite, where these columns take 0.2 s. The statistics are the agreement engine's either way.
"""

from __future__ import annotations

import itertools
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotation.activity.compute import Activity, RatingMatrices, build_activity, day_window, rating_matrices
from annotation.axes import AXES
from annotation.models import Annotation, Assignment, Batch

CHUNK = 5_000


def site_zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def _start_of(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time.min, tzinfo=zone)


def batch_ratings(batch: Batch) -> RatingMatrices | None:
    """The batch's scores and seconds spent, items x annotators (annotators named by username)."""
    columns = ["dialogue_id", "annotator_id", "seconds_spent", *[f"{axis}_score" for axis in AXES]]
    rows = list(
        Annotation.objects.filter(dialogue__batch=batch).order_by().values_list(*columns).iterator(chunk_size=CHUNK)
    )
    if not rows:
        return None
    items, raters, seconds, *scores = zip(*rows, strict=True)
    seconds = np.fromiter((np.nan if s is None else s for s in seconds), dtype=np.float64, count=len(rows))
    names = dict(get_user_model().objects.filter(pk__in=set(raters)).values_list("pk", "username"))
    return rating_matrices(np.asarray(items), np.asarray(raters), seconds, dict(zip(AXES, scores, strict=True)), names)


def batch_activity(*, batch: Batch, today: date | None = None) -> Activity:
    """Every annotator with ratings in ``batch``: per-day counts over the window, totals, time, skips, kappa.

    Days are calendar days in the site's time zone (``settings.TIME_ZONE``), as people there count them.
    """
    zone = site_zone()
    ratings = Annotation.objects.filter(dialogue__batch=batch)
    totals, last = {}, {}
    for name, n, latest in (
        ratings.values("annotator__username")
        .annotate(n=Count("id"), last=Max("created_at"))
        .values_list("annotator__username", "n", "last")
    ):
        totals[name], last[name] = n, latest
    today = today or timezone.localdate(timezone=zone)
    last_day = timezone.localtime(max(last.values()), zone).date() if last else None
    window = day_window(today=today, last_rating_day=last_day)
    daily = {}
    if totals:
        # One count per day, bounded by the day's midnights in the site's zone: plain comparisons that every
        # database runs natively (SQLite would call back into Python per row for a time zone date cast).
        bounds = [_start_of(window.first + timedelta(days=i), zone) for i in range(len(window.days) + 1)]
        per_day = {
            f"d{i}": Count("id", filter=Q(created_at__gte=start, created_at__lt=end))
            for i, (start, end) in enumerate(itertools.pairwise(bounds))
        }
        in_window = ratings.filter(created_at__gte=bounds[0], created_at__lt=bounds[-1])
        for row in in_window.values("annotator__username").annotate(**per_day):
            for i, day in enumerate(window.days):
                daily[(row["annotator__username"], day)] = row[f"d{i}"]
    queue = {
        name: (skipped, submitted)
        for name, skipped, submitted in Assignment.objects.filter(
            batch=batch, status__in=[Assignment.Status.SKIPPED, Assignment.Status.SUBMITTED]
        )
        .values("annotator__username")
        .annotate(
            skipped=Count("id", filter=Q(status=Assignment.Status.SKIPPED)),
            submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        )
        .values_list("annotator__username", "skipped", "submitted")
    }
    matrices = batch_ratings(batch) if totals else None
    if matrices is None:
        return Activity(window=window, annotators=())
    return build_activity(ratings=matrices, window=window, totals=totals, last_rating=last, daily=daily, queue=queue)
