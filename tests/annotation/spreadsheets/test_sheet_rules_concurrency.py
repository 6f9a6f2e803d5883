"""A sheet's quota holds when the web queue hands its items out while the sheet is stored (PostgreSQL row locks).

The sheet counts the quota as every import does (``annotation.io.import_rules._over_quota_after_store``): once its
ratings are stored, in its own transaction, over the recounted queue entries. Both tests fail if the sheet checked
the quota before storing (the first) or read it from the first recount alone (the second, where that recount
waited for a reservation in flight and wrote a count without it).
"""

from __future__ import annotations

import io
import threading

import pytest
from django.core.management import call_command
from django.db import connection

from annotation.collection.queue import assignment_next
from annotation.models import Annotation, Assignment, Batch, QueueEntry
from annotation.spreadsheets import imports as sheet_imports
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.imports import SheetRejected, sheet_import
from annotation.spreadsheets.services import template_write
from tests.annotation.conftest import dialogue, rating
from tests.annotation.queue_races import WAIT, in_thread, reservation_in_flight, wait_until_blocked
from tests.annotation.spreadsheets.test_views import _fill
from tests.helpers import make_qualified_annotator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks between concurrent transactions are proven on PostgreSQL")


def _one_rated_item(jsonl, tmp_path):
    """Batch "c": one dialogue with one rating of two; ann_s's sheet rating it (made before anything happens)."""
    call_command("import_dialogues", str(jsonl([dialogue(0)])), batch="c")
    call_command("import_annotations", str(jsonl([rating(0, "ext_a")])))
    batch = Batch.objects.get(name="c")
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=2)
    buffer = io.BytesIO()
    template_write(buffer, batch=batch, annotator=make_qualified_annotator("ann_s"))
    path = tmp_path / "ann_s.xlsx"
    path.write_bytes(_fill(buffer.getvalue(), {"dialogue_000": (1, 2, 3, 4)}))
    return batch, path


def _sheet_in_thread(path, outcome: dict) -> threading.Thread:
    return in_thread(lambda: sheet_import(path=path), outcome)


def _refused_over_quota(outcome: dict) -> None:
    error = outcome.get("error")
    assert isinstance(error, SheetRejected), outcome
    assert [(p.row, p.column, p.template) for p in error.problems] == [(2, "A", msgids.OWN_OVER_QUOTA)]


def test_a_reservation_made_while_the_sheet_stores_counts_against_the_quota(jsonl, tmp_path, monkeypatch):
    batch, path = _one_rated_item(jsonl, tmp_path)
    holder = make_qualified_annotator("holder")
    inside, proceed = threading.Event(), threading.Event()
    original = sheet_imports.ratings_store

    def paused(**kwargs):  # inside the sheet's transaction, before its ratings are stored
        inside.set()
        assert proceed.wait(WAIT)
        return original(**kwargs)

    monkeypatch.setattr(sheet_imports, "ratings_store", paused)
    outcome: dict = {}
    thread = _sheet_in_thread(path, outcome)
    thread.start()
    assert inside.wait(WAIT)
    reserved = assignment_next(batch=batch, annotator=holder)  # the queue still sees 1 of 2: it hands the item out
    assert reserved is not None
    proceed.set()
    thread.join(WAIT)
    _refused_over_quota(outcome)
    assert Annotation.objects.count() == 1 and Assignment.objects.get().status == "reserved"
    assert QueueEntry.objects.get().taken_count == 2


def test_a_reservation_in_flight_during_the_recount_is_counted(jsonl, tmp_path):
    """The queue's statement holds the item's entry while the sheet's store recounts it: the recount waits, then
    writes a count made before the reservation committed; the sheet counts again before it decides."""
    batch, path = _one_rated_item(jsonl, tmp_path)
    holder = make_qualified_annotator("holder")
    entry = QueueEntry.objects.get()
    outcome: dict = {}
    with reservation_in_flight(entry, batch, holder):
        importer = _sheet_in_thread(path, outcome)
        importer.start()
        wait_until_blocked(outcome, importer)  # the sheet's recount waits for the row
    importer.join(WAIT)
    _refused_over_quota(outcome)
    assert Annotation.objects.count() == 1 and QueueEntry.objects.get().taken_count == 2
