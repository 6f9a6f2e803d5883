"""The rating page's progress bar: the annotator's ratings today and in the batch, and the batch's totals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotation.models import Annotation, Batch, Dialogue, tally_postgresql
from core.db import fetch

BATCH_TOTALS_SECONDS = 10  # the batch-wide counts cached this long (others' ratings may lag this much)
# A count started this soon after one's own latest rating may have missed it (read before that
# rating committed): it is counted again, so that one's own submission always shows in the bar.
COMMIT_SLACK = timedelta(seconds=2)

# The batch's stored ratings on PostgreSQL: the sum of its annotators' totals, which the triggers keep
# exact (annotation.models.tally_postgresql); one index range of a few rows per annotator of the batch.
# People's ratings: an LLM rater's (a profile with an ``llm_model``) are not progress.
BATCH_DONE_SQL = (
    "SELECT COALESCE(SUM(t.n), 0) FROM annotation_ratingtotal t WHERE t.batch_id = %(batch)s AND NOT EXISTS "
    "(SELECT 1 FROM annotation_annotatorprofile p WHERE p.user_id = t.annotator_id AND p.llm_model <> '')"
)
_PROGRESS_POSTGRESQL = f"SELECT mine.*, ({BATCH_DONE_SQL}) FROM ({tally_postgresql.PROGRESS_SQL}) AS mine"  # noqa: S608 - constants

# Plain SQL: this runs on every rating, and building the ORM query cost more than running it.
_MINE_SQL = (
    "SELECT COUNT(*), COALESCE(SUM(CASE WHEN n.created_at >= %s THEN 1 ELSE 0 END), 0), MAX(n.created_at) "
    "FROM {annotation} n JOIN {dialogue} d ON d.id = n.dialogue_id WHERE n.annotator_id = %s AND d.batch_id = %s"
)


_TABLES = (("annotation", Annotation), ("dialogue", Dialogue))


def start_of_today():
    """Midnight of today in the current time zone: where the progress bar's "today" begins."""
    return timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)


def batch_progress(
    *, batch: Batch, annotator, mine: tuple[int, int] | None = None, batch_done: int | None = None
) -> dict:
    """What the progress bar shows: the annotator's ratings today and in the batch, and the batch total.

    The annotator's own counts are exact: on PostgreSQL read from the counts its triggers keep (two
    index lookups; ``mine`` = (total, today) and ``batch_done`` when the next-item statement already
    read them), elsewhere counted (one indexed query). The batch's stored ratings include the
    annotator's own latest one: on PostgreSQL read from the same tallies; elsewhere counted and
    cached for a few seconds, and counted again when the cached count may predate the annotator's
    latest rating. The number of items is cached (it changes with imports only).
    """
    latest = None
    if connection.vendor == "postgresql":  # counts kept by triggers (annotation.models.tally_postgresql)
        if mine is None or batch_done is None:
            params = {"annotator": annotator.pk, "batch": batch.pk, "since": start_of_today()}
            done_total, done_today, batch_done = fetch(_PROGRESS_POSTGRESQL, params, one=True)
        else:
            done_total, done_today = mine
        return _progress(batch, done_total, done_today, _items(batch), batch_done)
    if mine is not None:
        done_total, done_today = mine
    else:
        done_total, done_today, latest = fetch(
            _MINE_SQL.format(**{name: connection.ops.quote_name(m._meta.db_table) for name, m in _TABLES}),
            [connection.ops.adapt_datetimefield_value(start_of_today()), annotator.pk, batch.pk],
            one=True,
        )
    key = f"annotation:batch-totals:v2:{batch.pk}"
    totals = cache.get(key)
    latest = _aware(latest)
    if totals is None or (latest is not None and latest >= totals["as_of"] - COMMIT_SLACK):
        as_of = timezone.now()
        totals = Dialogue.objects.filter(batch=batch).aggregate(
            items=Count("pk", distinct=True),
            ratings_done=Count("annotations", filter=~Q(annotations__source=Annotation.Source.LLM)),  # people's
        )
        totals["as_of"] = as_of
        cache.set(key, totals, BATCH_TOTALS_SECONDS)
    return _progress(batch, done_total, done_today, totals["items"], totals["ratings_done"])


def _items(batch: Batch) -> int:
    key = f"annotation:batch-items:{batch.pk}"
    items = cache.get(key)
    if items is None:
        items = Dialogue.objects.filter(batch=batch).count()
        cache.set(key, items, BATCH_TOTALS_SECONDS)
    return items


def _aware(value) -> datetime | None:
    """A time stamp read by plain SQL: SQLite gives text in UTC."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)
    return value


def _progress(batch: Batch, done_total: int, done_today: int, items: int, ratings_done: int) -> dict:
    return {
        "done_today": done_today,
        "done_total": done_total,
        "items": items,
        "ratings_needed": items * batch.annotations_per_item,
        "ratings_done": ratings_done,
    }


def quota_shortfall(*, restricted, quota, chosen) -> tuple[int, int] | None:
    """``(quota, chosen annotators)`` when only the chosen annotators may work and they are fewer than the quota
    (each rates an item at most once, so no item could reach its quota); else None."""
    if not restricted or not chosen or not quota:
        return None
    n_chosen = len(chosen)
    return (quota, n_chosen) if quota > n_chosen else None
