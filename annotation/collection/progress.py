"""The rating page's progress bar: the annotator's ratings today and in the batch, and the batch's totals."""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from annotation.models import Annotation, Batch, Dialogue, tally_postgresql
from core.db import fetch

BATCH_TOTALS_SECONDS = 10  # the batch-wide part of the progress bar may lag this much


# Plain SQL: this runs on every rating, and building the ORM query cost more than running it.
_MINE_SQL = (
    "SELECT COUNT(*), COALESCE(SUM(CASE WHEN n.created_at >= %s THEN 1 ELSE 0 END), 0) "
    "FROM {annotation} n JOIN {dialogue} d ON d.id = n.dialogue_id WHERE n.annotator_id = %s AND d.batch_id = %s"
)


_TABLES = (("annotation", Annotation), ("dialogue", Dialogue))


def start_of_today():
    """Midnight of today in the current time zone: where the progress bar's "today" begins."""
    return timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)


def batch_progress(*, batch: Batch, annotator, mine: tuple[int, int] | None = None) -> dict:
    """What the progress bar shows: the annotator's ratings today and in the batch, and the batch total.

    The annotator's own counts are exact: on PostgreSQL read from the counts its triggers keep (two
    index lookups; ``mine`` = (total, today) when the next-item statement already read them),
    elsewhere counted (one indexed query). The batch totals are cached for a few seconds, since
    counting a large batch on every page view would cost more than the rest of it.
    """
    if mine is not None:
        done_total, done_today = mine
    elif connection.vendor == "postgresql":  # counts kept by triggers (annotation.models.tally_postgresql)
        params = {"annotator": annotator.pk, "batch": batch.pk, "since": start_of_today()}
        done_total, done_today = fetch(tally_postgresql.PROGRESS_SQL, params, one=True)
    else:
        done_total, done_today = fetch(
            _MINE_SQL.format(**{name: connection.ops.quote_name(m._meta.db_table) for name, m in _TABLES}),
            [connection.ops.adapt_datetimefield_value(start_of_today()), annotator.pk, batch.pk],
            one=True,
        )
    key = f"annotation:batch-totals:{batch.pk}"
    totals = cache.get(key)
    if totals is None:
        totals = Dialogue.objects.filter(batch=batch).aggregate(
            items=Count("pk", distinct=True), ratings_done=Count("annotations")
        )
        cache.set(key, totals, BATCH_TOTALS_SECONDS)
    return {
        "done_today": done_today,
        "done_total": done_total,
        "items": totals["items"],
        "ratings_needed": totals["items"] * batch.annotations_per_item,
        "ratings_done": totals["ratings_done"],
    }
