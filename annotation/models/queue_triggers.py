"""Triggers that keep one ``QueueEntry`` per dialogue, in the dialogue's batch (both backends).

An entry is created with its dialogue (count 0), follows it to another batch and is deleted with
it, whatever writes the dialogue. On PostgreSQL the triggers are statement-level: inserts and
deletes read transition tables (an import's COPY of 100,000 dialogues adds their entries with one
INSERT); moves read the moves noted by ``annotation_tally_note_move`` (``annotation.models.tally_postgresql``:
a row trigger that fires only for a dialogue whose batch changes) before the tallies' statement
trigger takes them out of the table. PostgreSQL fires the triggers of one event in alphabetical
order of their names, and ``annotation_queue_entries_moved`` sorts before
``annotation_tally_dialogues_moved``. (A transition table on dialogue updates would copy every
updated dialogue's texts twice: moving 100,000 dialogues took 1.6 s longer.) On SQLite they are
row triggers (SQLite has no other kind; it runs them in-process).

SQLite drops a table's triggers when Django rebuilds the table (an altered column of
``annotation_dialogue`` in a later migration): such a migration must run ``install`` again.
``tests/annotation/models/test_queue_entries.py`` checks on the migrated database that they are there.
Installed by migration 0012.
"""

from __future__ import annotations

TRIGGERS = ("annotation_queue_entries_added", "annotation_queue_entries_moved", "annotation_queue_entries_removed")

POSTGRESQL = """
CREATE OR REPLACE FUNCTION annotation_queue_entries_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO annotation_queueentry (dialogue_id, batch_id, taken_count) SELECT id, batch_id, 0 FROM queue_added;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotation_queue_entries_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotation_queueentry e SET batch_id = m.new_batch_id
    FROM annotation_tally_move m WHERE e.dialogue_id = m.dialogue_id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION annotation_queue_entries_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM annotation_queueentry e USING queue_removed r WHERE e.dialogue_id = r.id;
    RETURN NULL;
END $$;
CREATE TRIGGER annotation_queue_entries_added AFTER INSERT ON annotation_dialogue
REFERENCING NEW TABLE AS queue_added FOR EACH STATEMENT EXECUTE FUNCTION annotation_queue_entries_added();
CREATE TRIGGER annotation_queue_entries_moved AFTER UPDATE OF batch_id ON annotation_dialogue
FOR EACH STATEMENT EXECUTE FUNCTION annotation_queue_entries_moved();
CREATE TRIGGER annotation_queue_entries_removed AFTER DELETE ON annotation_dialogue
REFERENCING OLD TABLE AS queue_removed FOR EACH STATEMENT EXECUTE FUNCTION annotation_queue_entries_removed();
"""

POSTGRESQL_REMOVE = """
DROP TRIGGER IF EXISTS annotation_queue_entries_added ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_queue_entries_moved ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_queue_entries_removed ON annotation_dialogue;
DROP FUNCTION IF EXISTS annotation_queue_entries_added();
DROP FUNCTION IF EXISTS annotation_queue_entries_moved();
DROP FUNCTION IF EXISTS annotation_queue_entries_removed();
"""

SQLITE = (
    "CREATE TRIGGER IF NOT EXISTS annotation_queue_entries_added AFTER INSERT ON annotation_dialogue "
    "BEGIN INSERT INTO annotation_queueentry (dialogue_id, batch_id, taken_count) VALUES (NEW.id, NEW.batch_id, 0); "
    "END",
    "CREATE TRIGGER IF NOT EXISTS annotation_queue_entries_moved AFTER UPDATE OF batch_id ON annotation_dialogue "
    "WHEN NEW.batch_id IS NOT OLD.batch_id "
    "BEGIN UPDATE annotation_queueentry SET batch_id = NEW.batch_id WHERE dialogue_id = NEW.id; END",
    "CREATE TRIGGER IF NOT EXISTS annotation_queue_entries_removed AFTER DELETE ON annotation_dialogue "
    "BEGIN DELETE FROM annotation_queueentry WHERE dialogue_id = OLD.id; END",
)


def install(cursor, vendor: str) -> None:
    if vendor == "postgresql":
        cursor.execute(POSTGRESQL)
    else:
        for statement in SQLITE:
            cursor.execute(statement)


def remove(cursor, vendor: str) -> None:
    if vendor == "postgresql":
        cursor.execute(POSTGRESQL_REMOVE)
    else:
        for name in TRIGGERS:
            cursor.execute(f"DROP TRIGGER IF EXISTS {name}")


def installed(cursor, vendor: str) -> set[str]:
    """The names of this module's triggers that the database has."""
    if vendor == "postgresql":
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'annotation_dialogue'::regclass AND NOT tgisinternal"
        )
    else:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'annotation_dialogue'")
    return {name for (name,) in cursor.fetchall()} & set(TRIGGERS)
