"""Insert and delete tally triggers: one statement each, joining the statement's ratings to their dialogues once."""

from django.db import migrations

from annotation.models import tally_postgresql

# The two-statement functions of migration 0005, for going back.
TWO_STATEMENTS = """
CREATE OR REPLACE FUNCTION annotation_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO annotation_ratingtotal (annotator_id, batch_id, n)
    SELECT a, b, n FROM (SELECT r.annotator_id AS a, d.batch_id AS b, count(*)::integer AS n FROM tally_new r JOIN annotation_dialogue d ON d.id = r.dialogue_id GROUP BY 1, 2 ORDER BY 1, 2) AS g
    ON CONFLICT (annotator_id, batch_id) DO UPDATE SET n = annotation_ratingtotal.n + EXCLUDED.n;
    INSERT INTO annotation_ratingquarter (annotator_id, batch_id, start, n)
    SELECT a, b, s, n FROM (SELECT r.annotator_id AS a, d.batch_id AS b, date_bin('15 minutes', r.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS s, count(*)::integer AS n FROM tally_new r JOIN annotation_dialogue d ON d.id = r.dialogue_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) AS g
    ON CONFLICT (annotator_id, batch_id, start) DO UPDATE SET n = annotation_ratingquarter.n + EXCLUDED.n;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotation_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotation_ratingtotal t SET n = t.n - g.n FROM (SELECT r.annotator_id AS a, d.batch_id AS b, count(*)::integer AS n FROM tally_old r JOIN annotation_dialogue d ON d.id = r.dialogue_id GROUP BY 1, 2 ORDER BY 1, 2) AS g
    WHERE t.annotator_id = g.a AND t.batch_id = g.b;
    UPDATE annotation_ratingquarter q SET n = q.n - g.n FROM (SELECT r.annotator_id AS a, d.batch_id AS b, date_bin('15 minutes', r.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS s, count(*)::integer AS n FROM tally_old r JOIN annotation_dialogue d ON d.id = r.dialogue_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) AS g
    WHERE q.annotator_id = g.a AND q.batch_id = g.b AND q.start = g.s;
    RETURN NULL;
END $$;
"""


def one_statement(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(tally_postgresql.RATING_FUNCTIONS)


def two_statements(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TWO_STATEMENTS)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0010_postgresql_cascades")]

    operations = [migrations.RunPython(one_statement, two_statements)]
