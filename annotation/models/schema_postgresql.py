"""What Django's models cannot say about the annotation tables on PostgreSQL, for the bulk paths.

Foreign-key actions: PostgreSQL checks a foreign key once per deleted row. With Django's default constraints
(``NO ACTION``, deferred to the commit) that is two queries per row and constraint: a batch of
100,000 dialogues and ratings pays about a million of them. The database does the same work
cheaper when told what Django does anyway: ``ON DELETE CASCADE`` where the model says CASCADE
(one query per row), ``RESTRICT`` where it says PROTECT (one query, and no deletion can slip
through). The ORM still deletes the dependents itself, so nothing changes for it; inserts and
updates are still checked at commit.

Django does not know these actions (``db_on_delete`` arrives in Django 6.1): altering one of these
fields in a later migration would put back the default constraint. ``tests/annotation/
test_batch_delete.py`` checks the actions, so that would not go unnoticed; run ``apply`` again then.

No ``varchar_pattern_ops`` index on ``Dialogue.external_id``: Django adds one to every unique
CharField for ``LIKE 'x%'`` lookups, which nothing here makes (the admin's search is a
case-insensitive ``contains``, which cannot use it), and every write of a dialogue row would keep it
up to date.
"""

from __future__ import annotations

# (table, column): the action on delete of the referenced row.
ACTIONS = {
    ("annotation_annotationedit", "annotation_id"): "CASCADE",
    ("annotation_qualityflag", "annotation_id"): "CASCADE",
    ("annotation_qualityflag", "dialogue_id"): "CASCADE",
    ("annotation_assignment", "dialogue_id"): "CASCADE",
    ("annotation_dialoguerevision", "dialogue_id"): "CASCADE",
    ("annotation_annotation", "dialogue_id"): "RESTRICT",
}

_FIND = """
SELECT c.conname, r.relname, c.confdeltype
FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
WHERE c.contype = 'f' AND t.relname = %s AND a.attname = %s AND array_length(c.conkey, 1) = 1
"""


def apply(cursor, *, actions: dict[tuple[str, str], str] = ACTIONS) -> None:
    """Re-create each foreign key of ``actions`` with its action (``NO ACTION`` puts Django's back)."""
    quote = '"{}"'.format
    for (table, column), action in actions.items():
        cursor.execute(_FIND, [table, column])
        found = cursor.fetchone()
        if found is None:
            raise LookupError(f"no foreign key on {table}.{column}")
        name, referenced, _action = found
        cursor.execute(
            f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}, "
            f"ADD CONSTRAINT {quote(name)} FOREIGN KEY ({quote(column)}) REFERENCES {quote(referenced)} (id) "
            f"ON DELETE {action} DEFERRABLE INITIALLY DEFERRED"
        )


def current(cursor) -> dict[tuple[str, str], str]:
    """The action on delete of each foreign key of ``ACTIONS``, as the database has it."""
    names = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
    found = {}
    for table, column in ACTIONS:
        cursor.execute(_FIND, [table, column])
        found[table, column] = names[cursor.fetchone()[2]]
    return found


_PATTERN_INDEX = (
    "SELECT indexname FROM pg_indexes WHERE tablename = 'annotation_dialogue' "
    "AND indexdef LIKE '%%(external_id varchar_pattern_ops)%%'"
)


def pattern_indexes(cursor) -> list[str]:
    cursor.execute(_PATTERN_INDEX)
    return [name for (name,) in cursor.fetchall()]


def drop_pattern_index(cursor) -> None:
    for name in pattern_indexes(cursor):
        cursor.execute(f'DROP INDEX "{name}"')


def create_pattern_index(cursor) -> None:
    cursor.execute(
        "CREATE INDEX IF NOT EXISTS annotation_dialogue_external_id_like "
        "ON annotation_dialogue (external_id varchar_pattern_ops)"
    )


def check_now(cursor, *, table: str) -> None:
    """Check the foreign keys of rows written to ``table`` so far in this transaction now, not at commit.

    Worth it after a bulk insert into ``table`` when the referenced rows are updated next: checked
    now, each check finds one row version instead of two.
    """
    cursor.execute(
        "SELECT conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
        "WHERE c.contype = 'f' AND c.condeferrable AND t.relname = %s",
        [table],
    )
    names = ", ".join(f'"{name}"' for (name,) in cursor.fetchall())
    if names:
        cursor.execute(f"SET CONSTRAINTS {names} IMMEDIATE")  # checks what is pending
        cursor.execute(f"SET CONSTRAINTS {names} DEFERRED")  # and later rows at commit again
