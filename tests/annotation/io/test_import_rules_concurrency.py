"""The quota holds when the web queue hands out an import's items while the import runs (PostgreSQL row locks).

The import counts the quota once its ratings are stored, in its own transaction, over the recounted queue
entries (``annotation.io.import_rules._over_quota_after_store``). Both tests fail if the quota were checked before
storing (the first) or read from the first recount alone (the second, where that recount waited for a
reservation in flight and wrote a count without it).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotation.collection.queue import assignment_next
from annotation.io import imports
from annotation.io.imports import annotations_import
from annotation.io.records import InputError
from annotation.models import Annotation, Assignment, QueueEntry
from tests.annotation.api.support import make_batch
from tests.annotation.conftest import rating, write_jsonl
from tests.annotation.queue_races import WAIT, in_thread, reservation_in_flight, wait_until_blocked
from tests.helpers import make_qualified_annotator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks between concurrent transactions are proven on PostgreSQL")


def _one_rated_item(tmp_path, quota=2):
    batch = make_batch("c", n_items=1, quota=quota)
    annotations_import(paths=[write_jsonl(tmp_path / "first.jsonl", [rating(0, "ext_a", id="c_000")])])
    return batch


def _import_in_thread(path, outcome: dict) -> threading.Thread:
    return in_thread(lambda: annotations_import(paths=[path]), outcome)


def test_a_reservation_made_while_the_import_stores_counts_against_the_quota(tmp_path, monkeypatch):
    batch = _one_rated_item(tmp_path)
    holder = make_qualified_annotator("holder")
    inside, proceed = threading.Event(), threading.Event()
    original = imports.imported_annotators_create

    def paused(names):  # inside the import's transaction, before its ratings are stored
        inside.set()
        assert proceed.wait(WAIT)
        return original(names)

    monkeypatch.setattr(imports, "imported_annotators_create", paused)
    outcome: dict = {}
    thread = _import_in_thread(write_jsonl(tmp_path / "second.jsonl", [rating(0, "ext_b", id="c_000")]), outcome)
    thread.start()
    assert inside.wait(WAIT)
    reserved = assignment_next(batch=batch, annotator=holder)  # the queue still sees 1 of 2: it hands the item out
    assert reserved is not None
    proceed.set()
    thread.join(WAIT)
    error = outcome.get("error")
    assert isinstance(error, InputError), outcome
    assert "would have 3 ratings, more than the quota of batch 'c' (2 per item; 2 stored or reserved" in str(error)
    assert Annotation.objects.count() == 1 and Assignment.objects.get().status == "reserved"
    assert QueueEntry.objects.get().taken_count == 2


def test_a_reservation_in_flight_during_the_recount_is_counted(tmp_path):
    """The queue's statement holds the item's entry while the import recounts it: the recount waits, then writes
    a count made before the reservation committed; the import counts again before it decides."""
    batch = _one_rated_item(tmp_path)
    holder = make_qualified_annotator("holder")
    entry = QueueEntry.objects.get()
    outcome: dict = {}
    with reservation_in_flight(entry, batch, holder):
        importer = _import_in_thread(write_jsonl(tmp_path / "second.jsonl", [rating(0, "ext_b", id="c_000")]), outcome)
        importer.start()
        wait_until_blocked(outcome, importer)  # its recount waits for the row
    importer.join(WAIT)
    assert isinstance(outcome.get("error"), InputError), outcome
    assert "would have 3 ratings, more than the quota of batch 'c'" in str(outcome["error"])
    assert Annotation.objects.count() == 1 and QueueEntry.objects.get().taken_count == 2
