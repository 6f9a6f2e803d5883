"""One queue entry per dialogue, in the dialogue's batch, kept by database triggers on both backends."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from annotation.collection.queue import recount_taken
from annotation.io.batch_delete import batch_delete
from annotation.models import Batch, Dialogue, QueueEntry
from annotation.models import queue_triggers as queue_entries
from core.bulk import bulk_insert


def _dialogues(batch: Batch, n: int, prefix: str = "d") -> list[Dialogue]:
    return Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{prefix}{i}", user_text="u", response_text="r", batch=batch) for i in range(n)
    )


def _entries() -> dict[int, tuple[int, int]]:
    return {e.dialogue_id: (e.batch_id, e.taken_count) for e in QueueEntry.objects.all()}


def _dialogue_batches() -> dict[int, int]:
    return dict(Dialogue.objects.values_list("pk", "batch_id"))


@pytest.mark.django_db
def test_the_migrated_database_has_the_triggers():
    with connection.cursor() as cursor:
        assert queue_entries.installed(cursor, connection.vendor) == set(queue_entries.TRIGGERS)


@pytest.mark.django_db
def test_every_way_of_adding_dialogues_adds_their_entries():
    batch = Batch.objects.create(name="b")
    Dialogue.objects.create(external_id="one", user_text="u", response_text="r", batch=batch)
    _dialogues(batch, 5)
    at = timezone.now()
    rows = [(f"c{i}", "u", "r", "[]", batch.pk, at) for i in range(300)]
    bulk_insert(Dialogue, ["external_id", "user_text", "response_text", "context", "batch", "created_at"], rows)
    assert _entries() == {pk: (batch.pk, 0) for pk in _dialogue_batches()}
    assert len(_entries()) == 306


@pytest.mark.django_db
def test_one_statement_moving_many_dialogues_moves_their_entries_and_keeps_the_counts():
    source, target = Batch.objects.create(name="a"), Batch.objects.create(name="b")
    moved = _dialogues(source, 50)
    staying = _dialogues(source, 5, prefix="s")
    QueueEntry.objects.filter(pk=moved[0].pk).update(taken_count=2)
    Dialogue.objects.filter(pk__in=[d.pk for d in moved]).update(batch=target)
    Dialogue.objects.filter(pk=staying[0].pk).update(user_text="new text")  # not a move
    entries = _entries()
    assert {pk: batch for pk, (batch, _n) in entries.items()} == _dialogue_batches()
    assert entries[moved[0].pk] == (target.pk, 2)
    assert sum(1 for batch, _n in entries.values() if batch == target.pk) == 50


@pytest.mark.django_db
def test_deleting_dialogues_deletes_their_entries():
    batch, other = Batch.objects.create(name="a"), Batch.objects.create(name="b")
    doomed = _dialogues(batch, 20)
    kept = _dialogues(other, 3, prefix="k")
    doomed[0].delete()  # through the ORM's collector
    Dialogue.objects.filter(pk__in=[d.pk for d in doomed[1:5]]).delete()
    assert set(_entries()) == set(_dialogue_batches())
    batch_delete(batch)
    assert set(_entries()) == {d.pk for d in kept}


@pytest.mark.django_db
def test_recount_writes_the_entries():
    batch = Batch.objects.create(name="b")
    dialogue = _dialogues(batch, 1)[0]
    QueueEntry.objects.filter(pk=dialogue.pk).update(taken_count=7)
    recount_taken([dialogue.pk])
    assert QueueEntry.objects.get(pk=dialogue.pk).taken_count == 0


@pytest.mark.django_db(transaction=True)
def test_migration_0012_moves_the_counts_and_back():
    executor = MigrationExecutor(connection)
    before, after = [("annotation", "0011_rating_tally_one_statement")], [("annotation", "0012_queue_entries")]
    executor.migrate(before)
    executor.loader.build_graph()
    old = executor.loader.project_state(before).apps
    batch = old.get_model("annotation", "Batch").objects.create(name="m")
    OldDialogue = old.get_model("annotation", "Dialogue")
    made = [
        OldDialogue.objects.create(external_id=f"m{i}", user_text="u", response_text="r", batch=batch, taken_count=i)
        for i in range(4)
    ]
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        assert _entries() == {d.pk: (batch.pk, i) for i, d in enumerate(made)}
        with connection.cursor() as cursor:
            assert queue_entries.installed(cursor, connection.vendor) == set(queue_entries.TRIGGERS)
        QueueEntry.objects.filter(pk=made[0].pk).update(taken_count=3)
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        assert sorted(OldDialogue.objects.values_list("taken_count", flat=True)) == [1, 2, 3, 3]
        with connection.cursor() as cursor:
            assert queue_entries.installed(cursor, connection.vendor) == set()
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
