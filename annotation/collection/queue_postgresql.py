"""The work queue's two hot statements on PostgreSQL, each one round trip.

Every rating runs "store it" and "hand out the next item". The portable code in ``annotation.collection.queue``
needs five to eight ORM queries for that; these two statements do the same with data-modifying
CTEs, under the same guarantees:

* submit: the assignment row is locked (``FOR UPDATE``) and must belong to the annotator and the
  batch; the rules of ``annotation.collection.queue.annotation_submit``: a rating of theirs already stored
  (a repeated submission, or one that arrived another way) is kept and reported, and an open
  reservation closed with its slot given back; a reservation given back (expired or skipped)
  takes a slot again only while the item is under its quota (its queue entry locked to check),
  else the rating is refused.
* next: the annotator's open reservation in the batch if there is one, else the item with the
  fewest ratings that they have not had, its queue entry locked with ``FOR UPDATE SKIP LOCKED`` (PostgreSQL
  re-checks ``taken_count < quota`` on the newest version of a row it locks, so an item can never
  go over quota); the reservation is inserted, and only when that succeeded is the count raised.
  A unique index allows one open reservation per annotator and batch, so racing tabs cannot
  both reserve. An open reservation whose item the annotator rated another way is passed over.
  An annotator whose qualification expired gets their open reservation only (``take_new``).

Table names come from the models' metadata; every value is a bound parameter.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

from django.db import connection

from annotation.axes import AXES
from annotation.collection.progress import BATCH_DONE_SQL
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry, tally_postgresql
from core.db import fetch, instance_from_row

DIALOGUE_COLUMNS = tuple(field.column for field in Dialogue._meta.concrete_fields)
BATCH_COLUMNS = tuple(field.column for field in Batch._meta.concrete_fields)
RESERVED = Assignment.Status.RESERVED.value


def _tables() -> dict[str, str]:
    models = {
        "dialogue": Dialogue,
        "assignment": Assignment,
        "annotation": Annotation,
        "batch": Batch,
        "entry": QueueEntry,
    }
    return {name: connection.ops.quote_name(model._meta.db_table) for name, model in models.items()}


@cache
def submit_sql() -> str:
    t = _tables()
    score_columns = ", ".join(f"{axis}_score, {axis}_confidence" for axis in AXES)
    score_values = ", ".join(f"%({axis})s, %({axis}_confidence)s" for axis in AXES)
    batch_columns = ", ".join(f"b.{column}" for column in BATCH_COLUMNS)
    return f"""
WITH locked AS (
    SELECT s.id, s.dialogue_id, s.status, s.reserved_at, s.batch_id FROM {t["assignment"]} s
    WHERE s.id = %(assignment)s AND s.annotator_id = %(annotator)s AND s.batch_id = %(batch)s
    FOR UPDATE OF s
), kept AS (  -- both columns of the unique index as values, so no plan walks the annotator's ratings
    SELECT n.id FROM {t["annotation"]} n
    WHERE n.dialogue_id = (SELECT dialogue_id FROM locked) AND n.annotator_id = %(annotator)s
), slot AS (
    SELECT e.dialogue_id FROM {t["entry"]} e JOIN locked ON e.dialogue_id = locked.dialogue_id
    JOIN {t["batch"]} b ON b.id = locked.batch_id
    WHERE locked.status <> %(reserved)s AND e.taken_count < b.annotations_per_item
    FOR UPDATE OF e
), inserted AS (
    INSERT INTO {t["annotation"]} (dialogue_id, annotator_id, {score_columns},
                                   created_at, updated_at, seconds_spent, source)
    SELECT dialogue_id, %(annotator)s, {score_values}, %(now)s, %(now)s,
           GREATEST(0, EXTRACT(EPOCH FROM (%(now)s - reserved_at)))::float8, %(source)s
    FROM locked WHERE NOT EXISTS (SELECT 1 FROM kept) AND (locked.status = %(reserved)s OR EXISTS (SELECT 1 FROM slot))
    ON CONFLICT (dialogue_id, annotator_id) DO NOTHING
    RETURNING id
), outcome AS (
    SELECT locked.id, locked.dialogue_id, CASE
        WHEN EXISTS (SELECT 1 FROM inserted) THEN 'stored'
        WHEN EXISTS (SELECT 1 FROM kept) AND locked.status = %(submitted)s THEN 'repeated'
        WHEN EXISTS (SELECT 1 FROM kept) THEN 'rated_elsewhere'
        WHEN NOT EXISTS (SELECT 1 FROM slot) AND locked.status <> %(reserved)s THEN 'refused'
        ELSE 'repeated' END AS name,
        locked.status AS was
    FROM locked
), finished AS (
    UPDATE {t["assignment"]} a SET status = CASE WHEN o.name = 'stored' THEN %(submitted)s ELSE %(closed)s END,
                                   finished_at = %(now)s
    FROM outcome o WHERE a.id = o.id AND (o.name = 'stored' OR (o.name = 'rated_elsewhere' AND o.was = %(reserved)s))
), recounted AS (
    -- a given-back reservation's rating takes a slot again; closing a reservation recounts the item
    -- (the rating kept may or may not have been counted, depending on how it arrived)
    UPDATE {t["entry"]} e SET taken_count = CASE WHEN o.name = 'stored' THEN e.taken_count + 1 ELSE
        (SELECT count(*) FROM {t["annotation"]} n WHERE n.dialogue_id = e.dialogue_id)
        + (SELECT count(*) FROM {t["assignment"]} s
           WHERE s.dialogue_id = e.dialogue_id AND s.status = %(reserved)s AND s.id <> o.id) END
    FROM outcome o WHERE e.dialogue_id = o.dialogue_id
    AND ((o.name = 'stored' AND o.was <> %(reserved)s) OR (o.name = 'rated_elsewhere' AND o.was = %(reserved)s))
)
SELECT outcome.name, COALESCE((SELECT id FROM inserted), (SELECT id FROM kept)), d.external_id, {batch_columns}
FROM outcome JOIN {t["dialogue"]} d ON d.id = outcome.dialogue_id JOIN {t["batch"]} b ON b.id = %(batch)s
"""  # noqa: S608 - table and column names from model metadata only


@cache
def next_sql() -> str:
    t = _tables()
    columns = ", ".join(DIALOGUE_COLUMNS)
    d_columns = ", ".join(f"d.{column}" for column in DIALOGUE_COLUMNS)
    return f"""
WITH existing AS (
    SELECT s.id AS assignment_id, s.reserved_at, s.expires_at, {d_columns}
    FROM {t["assignment"]} s JOIN {t["dialogue"]} d ON d.id = s.dialogue_id
    WHERE s.annotator_id = %(annotator)s AND s.batch_id = %(batch)s
    AND s.status = '{RESERVED}'  -- a literal, so that the plan can use the partial index of open reservations
    AND NOT EXISTS (SELECT 1 FROM {t["annotation"]} n                  -- rated another way meanwhile
                    WHERE n.dialogue_id = s.dialogue_id AND n.annotator_id = %(annotator)s)
    ORDER BY s.reserved_at LIMIT 1
), picked AS (
    SELECT e.dialogue_id AS id FROM {t["entry"]} e
    WHERE %(take_new)s AND NOT EXISTS (SELECT 1 FROM existing) AND e.batch_id = %(batch)s AND e.taken_count < %(quota)s
    AND NOT EXISTS (SELECT 1 FROM {t["assignment"]} s
                    WHERE s.dialogue_id = e.dialogue_id AND s.annotator_id = %(annotator)s OFFSET 0)
    AND NOT EXISTS (SELECT 1 FROM {t["annotation"]} n
                    WHERE n.dialogue_id = e.dialogue_id AND n.annotator_id = %(annotator)s OFFSET 0)
    ORDER BY e.taken_count, e.dialogue_id LIMIT 1 FOR UPDATE OF e SKIP LOCKED
), reserved AS (
    INSERT INTO {t["assignment"]} (dialogue_id, batch_id, annotator_id, status, reserved_at, expires_at, skip_reason)
    SELECT id, %(batch)s, %(annotator)s, %(reserved)s, %(now)s, %(expires)s, '' FROM picked
    ON CONFLICT DO NOTHING  -- this item already, or another open reservation in the batch (a racing tab)
    RETURNING id, dialogue_id
), taken AS (
    UPDATE {t["entry"]} e SET taken_count = e.taken_count + 1 FROM reserved
    WHERE e.dialogue_id = reserved.dialogue_id
    RETURNING reserved.id AS assignment_id, e.dialogue_id
), found AS (
    SELECT assignment_id, reserved_at, expires_at, {columns} FROM existing
    UNION ALL
    SELECT taken.assignment_id, %(now)s, %(expires)s, {d_columns}
    FROM taken JOIN {t["dialogue"]} d ON d.id = taken.dialogue_id
    UNION ALL
    SELECT NULL, NULL, NULL, {", ".join(f"d.{column}" for column in DIALOGUE_COLUMNS)}
    FROM picked JOIN {t["dialogue"]} d ON d.id = picked.id WHERE NOT EXISTS (SELECT 1 FROM reserved)
)
SELECT found.*, mine.*, ({BATCH_DONE_SQL}) FROM found, ({tally_postgresql.PROGRESS_SQL}) AS mine
"""  # noqa: S608 - table and column names from model metadata only


def submit(*, batch_id: int, assignment_id: int, annotator_id: int, scores, confidence, now: datetime):
    """Store a rating in one statement: ``(outcome, annotation id or None, external id, Batch)``.

    The outcome is one of ``annotation.collection.queue.Outcome``'s values; the annotation is the new rating
    or the one kept. None when the assignment does not exist or is not this annotator's in this batch.
    """
    params = {
        "assignment": assignment_id,
        "annotator": annotator_id,
        "batch": batch_id,
        "now": now,
        "source": Annotation.Source.WEB.value,
        "submitted": Assignment.Status.SUBMITTED.value,
        "closed": Assignment.Status.CLOSED.value,
        "reserved": RESERVED,
    }
    for axis in AXES:
        params[axis], params[f"{axis}_confidence"] = scores[axis], confidence[axis]
    row = fetch(submit_sql(), params, one=True)
    if row is None:
        return None
    outcome, annotation_id, external_id, *batch_values = row
    return outcome, annotation_id, external_id, instance_from_row(Batch, batch_values, using=connection.alias)


@cache
def batch_sql() -> str:
    return f"SELECT {', '.join(BATCH_COLUMNS)} FROM {_tables()['batch']} WHERE id = %s"  # noqa: S608 - metadata only


def batch_get(batch_id: int) -> Batch | None:
    row = fetch(batch_sql(), [batch_id], one=True)
    return None if row is None else instance_from_row(Batch, row, using=connection.alias)


class Conflict(Exception):
    """The same annotator asked twice at once and the other request reserved the picked item."""


def next_assignment(
    *, batch: Batch, annotator_id: int, now: datetime, minutes: int, since: datetime, take_new: bool = True
) -> Assignment | None:
    """The open reservation or a new one (see the module docstring); None when the statement found none.

    The assignment carries ``progress_counts``: the annotator's (total, since ``since``) ratings in
    the batch, and ``batch_ratings_done``: the batch's stored ratings, read by the same statement
    (``annotation.collection.progress.batch_progress`` takes them). With ``take_new`` false (an
    expired qualification) only the open reservation is returned: nothing new is reserved.

    One statement, so it needs no transaction of its own. Raises ``Conflict`` when the picked item
    could not be reserved (nothing was changed then).
    """
    expires = now + timedelta(minutes=minutes)
    params = {
        "annotator": annotator_id,
        "batch": batch.pk,
        "quota": batch.annotations_per_item,
        "reserved": RESERVED,
        "now": now,
        "expires": expires,
        "since": since,
        "take_new": take_new,
    }
    row = fetch(next_sql(), params, one=True)
    if row is None:
        return None
    if row[0] is None:
        raise Conflict
    assignment_id, reserved_at, expires_at, *values, done_total, done_today, batch_done = row
    dialogue = instance_from_row(Dialogue, values, using=connection.alias)
    assignment = Assignment(
        pk=assignment_id,
        dialogue_id=dialogue.pk,
        annotator_id=annotator_id,
        reserved_at=reserved_at,
        expires_at=expires_at,
        status=RESERVED,
    )
    assignment.dialogue = dialogue
    assignment.progress_counts = (done_total, done_today)
    assignment.batch_ratings_done = batch_done
    return assignment
