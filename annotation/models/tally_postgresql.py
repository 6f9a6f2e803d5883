"""Triggers that keep ``RatingTotal`` and ``RatingQuarter`` exact on PostgreSQL, one statement at a time.

The triggers are statement-level, with transition tables: whatever one statement writes (a rating
from the web form, 100,000 from an import's COPY, a batch's ratings deleted at once, 50 dialogues
moved to another batch by one UPDATE), its rows are grouped by annotator, batch and quarter-hour and
every group's count is applied by one set-based upsert, in a fixed order (two statements never lock
the same tally rows in opposite orders).

* Ratings inserted add to their annotator's total in the dialogue's batch and to the quarter-hour
  (UTC) of their ``created_at``; ratings deleted take away; an update that changes the annotator,
  the dialogue or ``created_at`` does both (the statement's net change per group is applied).
* Dialogues moved to another batch move their ratings' counts along: a row trigger that fires only
  when a dialogue's batch changes notes the move, a statement trigger applies the statement's moves
  at once. (Chosen when the queue's counts lived on the dialogue rows and a transition table on
  dialogues would have cost every rating; since 0012 they live in ``QueueEntry``, whose triggers
  on dialogues do use transition tables.)
* Decrements only update existing rows: a count is never created by a deletion (the tallies of a
  batch that is being deleted may be gone already).

PostgreSQL allows transition tables only on triggers with one event and no column list, so there
is one trigger per event on ratings, and the UPDATE trigger finds the rows whose tracked columns
changed itself (an update of scores applies nothing).
Quarter-hours make "today" exact in every time zone whose offset from UTC is a multiple of 15
minutes (all of today's zones). Installed by migration 0005 (PostgreSQL only), which replaced the
row-level triggers of 0004.
"""

from __future__ import annotations


def _quarter(at: str) -> str:
    return f"date_bin('15 minutes', {at}, TIMESTAMPTZ '2000-01-01 00:00:00+00')"


def _apply(groups: str) -> str:
    """A trigger function body applying ``groups`` (a query of annotator a, batch b, quarter s, signed n)."""
    return f"""
BEGIN
    PERFORM annotation_tally_apply_set(array_agg(a), array_agg(b), array_agg(s), array_agg(n))
    FROM ({groups}) AS g;
    RETURN NULL;
END"""


def _counted(rows: str) -> str:
    """``rows`` (a transition table of ratings) counted by annotator a, batch b and quarter-hour s."""
    return (
        f"SELECT r.annotator_id AS a, d.batch_id AS b, {_quarter('r.created_at')} AS s, count(*)::integer AS n "
        f"FROM {rows} r JOIN annotation_dialogue d ON d.id = r.dialogue_id GROUP BY 1, 2, 3"
    )


# Ratings inserted and deleted, the statements every rating and every import run: one statement
# each, which joins the rows to their dialogues once (an import's 100,000 rows were joined twice),
# and whose quarter-hour upsert waits for the totals' (``(SELECT count(*) FROM totals)``), so that every
# path locks totals before quarters (the general annotation_tally_apply_set does too).
_INSERTED = f"""
BEGIN
    WITH g AS MATERIALIZED ({_counted("tally_new")}),
         totals AS (INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n)
                    SELECT a, b, sum(n) FROM g GROUP BY a, b ORDER BY a, b
                    ON CONFLICT (annotator_id, batch_id) DO UPDATE SET n = annotation_ratingtotal.n + EXCLUDED.n
                    RETURNING 1)
    INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
    SELECT a, b, s, n FROM g WHERE (SELECT count(*) FROM totals) >= 0 ORDER BY a, b, s
    ON CONFLICT (annotator_id, batch_id, start) DO UPDATE SET n = annotation_ratingquarter.n + EXCLUDED.n;
    RETURN NULL;
END"""

_DELETED = f"""
BEGIN
    WITH g AS MATERIALIZED ({_counted("tally_old")}),
         totals AS (UPDATE annotation_ratingtotal t SET n = t.n - x.n
                    FROM (SELECT a, b, sum(n) AS n FROM g GROUP BY a, b) AS x
                    WHERE t.annotator_id = x.a AND t.batch_id = x.b
                    RETURNING 1)
    UPDATE annotation_ratingquarter q SET n = q.n - g.n FROM g
    WHERE q.annotator_id = g.a AND q.batch_id = g.b AND q.start = g.s AND (SELECT count(*) FROM totals) >= 0;
    RETURN NULL;
END"""

# A rating whose annotator, dialogue or time stamp changed: -1 where it was counted, +1 where it is now.
_UPDATED = f"""SELECT side.a, d.batch_id AS b, {_quarter("side.at")} AS s, sum(side.n)::integer AS n
          FROM tally_old o JOIN tally_new c ON c.id = o.id
          CROSS JOIN LATERAL (VALUES (o.annotator_id, o.dialogue_id, o.created_at, -1),
                                     (c.annotator_id, c.dialogue_id, c.created_at, 1)) AS side(a, dialogue, at, n)
          JOIN annotation_dialogue d ON d.id = side.dialogue
          WHERE (o.annotator_id, o.dialogue_id, o.created_at) IS DISTINCT FROM
                (c.annotator_id, c.dialogue_id, c.created_at)
          GROUP BY 1, 2, 3 HAVING sum(side.n) <> 0"""

# Dialogues moved to another batch, as noted by the row trigger: each of their ratings -1 in the old
# batch, +1 in the new one. The noted moves are taken out of the table by the same statement.
_MOVED = f"""WITH moved AS (DELETE FROM annotation_tally_move RETURNING dialogue_id, old_batch_id, new_batch_id),
     g AS (SELECT r.annotator_id AS a, side.b, {_quarter("r.created_at")} AS s, sum(side.n)::integer AS n
           FROM moved m JOIN annotation_annotation r ON r.dialogue_id = m.dialogue_id
           CROSS JOIN LATERAL (VALUES (m.old_batch_id, -1), (m.new_batch_id, 1)) AS side(b, n)
           GROUP BY 1, 2, 3 HAVING sum(side.n) <> 0)
SELECT annotation_tally_apply_set(array_agg(a), array_agg(b), array_agg(s), array_agg(n)) INTO STRICT done FROM g"""

# The insert and delete trigger functions (installed by 0005, replaced by 0011).
RATING_FUNCTIONS = f"""
CREATE OR REPLACE FUNCTION annotation_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $${_INSERTED} $$;
CREATE OR REPLACE FUNCTION annotation_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $${_DELETED} $$;
"""

INSTALL = f"""
-- Signed counts per (annotator, batch, quarter-hour), as parallel arrays: increments are upserted
-- in key order, decrements only update rows that exist.
CREATE OR REPLACE FUNCTION annotation_tally_apply_set(p_annotator integer[], p_batch bigint[],
                                                      p_start timestamptz[], p_n integer[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_n IS NULL THEN
        RETURN;
    END IF;
    INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n)
    SELECT a, b, sum(n) FROM unnest(p_annotator, p_batch, p_n) AS u(a, b, n)
    GROUP BY a, b HAVING sum(n) > 0 ORDER BY a, b
    ON CONFLICT (annotator_id, batch_id) DO UPDATE SET n = annotation_ratingtotal.n + EXCLUDED.n;
    UPDATE annotation_ratingtotal t SET n = t.n + g.n
    FROM (SELECT a, b, sum(n) AS n FROM unnest(p_annotator, p_batch, p_n) AS u(a, b, n)
          GROUP BY a, b HAVING sum(n) < 0) AS g
    WHERE t.annotator_id = g.a AND t.batch_id = g.b;

    INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
    SELECT a, b, s, n FROM unnest(p_annotator, p_batch, p_start, p_n) AS u(a, b, s, n)
    WHERE n > 0 ORDER BY a, b, s
    ON CONFLICT (annotator_id, batch_id, start) DO UPDATE SET n = annotation_ratingquarter.n + EXCLUDED.n;
    UPDATE annotation_ratingquarter q SET n = q.n + u.n
    FROM unnest(p_annotator, p_batch, p_start, p_n) AS u(a, b, s, n)
    WHERE u.n < 0 AND q.annotator_id = u.a AND q.batch_id = u.b AND q.start = u.s;
END $$;

{RATING_FUNCTIONS}
CREATE OR REPLACE FUNCTION annotation_tally_updated() RETURNS trigger LANGUAGE plpgsql AS $${_apply(_UPDATED)} $$;

-- Moves noted by the row trigger (which fires only when a dialogue's batch really changes), applied
-- per statement. Other updates of dialogues (new texts) fire neither trigger. The queue entries'
-- statement trigger (annotation.models.queue_triggers) reads the noted moves first (its name sorts first).
CREATE UNLOGGED TABLE IF NOT EXISTS annotation_tally_move (dialogue_id bigint NOT NULL, old_batch_id bigint NOT NULL,
                                             new_batch_id bigint NOT NULL);
CREATE OR REPLACE FUNCTION annotation_tally_note_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO annotation_tally_move VALUES (NEW.id, OLD.batch_id, NEW.batch_id);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotation_tally_dialogues_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    done text;
BEGIN
    {_MOVED};
    RETURN NULL;
END $$;

CREATE TRIGGER annotation_tally_insert AFTER INSERT ON annotation_annotation
REFERENCING NEW TABLE AS tally_new FOR EACH STATEMENT EXECUTE FUNCTION annotation_tally_inserted();
CREATE TRIGGER annotation_tally_delete AFTER DELETE ON annotation_annotation
REFERENCING OLD TABLE AS tally_old FOR EACH STATEMENT EXECUTE FUNCTION annotation_tally_deleted();
CREATE TRIGGER annotation_tally_update AFTER UPDATE ON annotation_annotation
REFERENCING OLD TABLE AS tally_old NEW TABLE AS tally_new FOR EACH STATEMENT
EXECUTE FUNCTION annotation_tally_updated();
CREATE TRIGGER annotation_tally_note_move AFTER UPDATE OF batch_id ON annotation_dialogue
FOR EACH ROW WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id) EXECUTE FUNCTION annotation_tally_note_move();
CREATE TRIGGER annotation_tally_dialogues_moved AFTER UPDATE OF batch_id ON annotation_dialogue
FOR EACH STATEMENT EXECUTE FUNCTION annotation_tally_dialogues_moved();
"""

BACKFILL = f"""
DELETE FROM annotation_ratingtotal;
DELETE FROM annotation_ratingquarter;
INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n)
SELECT n.annotator_id, d.batch_id, count(*) FROM annotation_annotation n
JOIN annotation_dialogue d ON d.id = n.dialogue_id GROUP BY 1, 2;
INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
SELECT n.annotator_id, d.batch_id, {_quarter("n.created_at")}, count(*)
FROM annotation_annotation n JOIN annotation_dialogue d ON d.id = n.dialogue_id GROUP BY 1, 2, 3;
"""

REMOVE = """
DROP TRIGGER IF EXISTS annotation_tally_dialogues_moved ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_tally_note_move ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_tally_update ON annotation_annotation;
DROP TRIGGER IF EXISTS annotation_tally_delete ON annotation_annotation;
DROP TRIGGER IF EXISTS annotation_tally_insert ON annotation_annotation;
DROP FUNCTION IF EXISTS annotation_tally_dialogues_moved();
DROP FUNCTION IF EXISTS annotation_tally_note_move();
DROP TABLE IF EXISTS annotation_tally_move;
DROP FUNCTION IF EXISTS annotation_tally_updated();
DROP FUNCTION IF EXISTS annotation_tally_deleted();
DROP FUNCTION IF EXISTS annotation_tally_inserted();
DROP FUNCTION IF EXISTS annotation_tally_apply_set(integer[], bigint[], timestamptz[], integer[]);
"""

# "Today" and the total of one annotator in one batch: two index lookups, whatever their history.
PROGRESS_SQL = """
SELECT COALESCE((SELECT n FROM annotation_ratingtotal WHERE annotator_id = %(annotator)s AND batch_id = %(batch)s), 0),
       COALESCE((SELECT SUM(n) FROM annotation_ratingquarter
                 WHERE annotator_id = %(annotator)s AND batch_id = %(batch)s AND start >= %(since)s), 0)
"""
