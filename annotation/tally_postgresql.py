"""Triggers that keep ``RatingTotal`` and ``RatingQuarter`` exact on PostgreSQL.

* A rating inserted adds one to its annotator's total in the dialogue's batch and to the
  quarter-hour (UTC) of its ``created_at``; a rating deleted takes one away; an update that
  changes the annotator, the dialogue or ``created_at`` does both.
* A dialogue moved to another batch moves its ratings' counts along.
* Decrements only update existing rows: a count is never created by a deletion.

Quarter-hours make "today" exact in every time zone whose offset from UTC is a multiple of 15
minutes (all of today's zones). Installed and removed by migration 0004 (PostgreSQL only).
"""

from __future__ import annotations

INSTALL = """
CREATE OR REPLACE FUNCTION annotation_tally_apply(p_annotator integer, p_batch bigint, p_at timestamptz,
                                                  p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_start timestamptz := date_bin('15 minutes', p_at, TIMESTAMPTZ '2000-01-01 00:00:00+00');
BEGIN
    IF p_delta > 0 THEN
        INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n) VALUES (p_annotator, p_batch, p_delta)
        ON CONFLICT (annotator_id, batch_id) DO UPDATE SET n = annotation_ratingtotal.n + EXCLUDED.n;
        INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
        VALUES (p_annotator, p_batch, v_start, p_delta)
        ON CONFLICT (annotator_id, batch_id, start) DO UPDATE SET n = annotation_ratingquarter.n + EXCLUDED.n;
    ELSE
        UPDATE annotation_ratingtotal SET n = n + p_delta WHERE annotator_id = p_annotator AND batch_id = p_batch;
        UPDATE annotation_ratingquarter SET n = n + p_delta
        WHERE annotator_id = p_annotator AND batch_id = p_batch AND start = v_start;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION annotation_tally_rating() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM annotation_tally_apply(OLD.annotator_id, d.batch_id, OLD.created_at, -1)
        FROM annotation_dialogue d WHERE d.id = OLD.dialogue_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM annotation_tally_apply(NEW.annotator_id, d.batch_id, NEW.created_at, 1)
        FROM annotation_dialogue d WHERE d.id = NEW.dialogue_id;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION annotation_tally_dialogue_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM annotation_tally_apply(n.annotator_id, OLD.batch_id, n.created_at, -1),
            annotation_tally_apply(n.annotator_id, NEW.batch_id, n.created_at, 1)
    FROM annotation_annotation n WHERE n.dialogue_id = NEW.id;
    RETURN NULL;
END $$;

CREATE TRIGGER annotation_tally_insert_delete AFTER INSERT OR DELETE ON annotation_annotation
FOR EACH ROW EXECUTE FUNCTION annotation_tally_rating();

CREATE TRIGGER annotation_tally_update AFTER UPDATE OF annotator_id, dialogue_id, created_at
ON annotation_annotation FOR EACH ROW
WHEN (OLD.annotator_id IS DISTINCT FROM NEW.annotator_id OR OLD.dialogue_id IS DISTINCT FROM NEW.dialogue_id
      OR OLD.created_at IS DISTINCT FROM NEW.created_at)
EXECUTE FUNCTION annotation_tally_rating();

CREATE TRIGGER annotation_tally_dialogue_moved AFTER UPDATE OF batch_id ON annotation_dialogue
FOR EACH ROW WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id)
EXECUTE FUNCTION annotation_tally_dialogue_moved();
"""

BACKFILL = """
DELETE FROM annotation_ratingtotal;
DELETE FROM annotation_ratingquarter;
INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n)
SELECT n.annotator_id, d.batch_id, count(*) FROM annotation_annotation n
JOIN annotation_dialogue d ON d.id = n.dialogue_id GROUP BY 1, 2;
INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
SELECT n.annotator_id, d.batch_id, date_bin('15 minutes', n.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), count(*)
FROM annotation_annotation n JOIN annotation_dialogue d ON d.id = n.dialogue_id GROUP BY 1, 2, 3;
"""

REMOVE = """
DROP TRIGGER IF EXISTS annotation_tally_dialogue_moved ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_tally_update ON annotation_annotation;
DROP TRIGGER IF EXISTS annotation_tally_insert_delete ON annotation_annotation;
DROP FUNCTION IF EXISTS annotation_tally_dialogue_moved();
DROP FUNCTION IF EXISTS annotation_tally_rating();
DROP FUNCTION IF EXISTS annotation_tally_apply(integer, bigint, timestamptz, integer);
"""

# "Today" and the total of one annotator in one batch: two index lookups, whatever their history.
PROGRESS_SQL = """
SELECT COALESCE((SELECT n FROM annotation_ratingtotal WHERE annotator_id = %(annotator)s AND batch_id = %(batch)s), 0),
       COALESCE((SELECT SUM(n) FROM annotation_ratingquarter
                 WHERE annotator_id = %(annotator)s AND batch_id = %(batch)s AND start >= %(since)s), 0)
"""
