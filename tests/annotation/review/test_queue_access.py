"""A batch hands out items only while open, and only to its chosen annotators when it has a list."""

import pytest
from django.core.management import call_command

from annotation.collection.queue import annotation_submit, assignment_next, batch_open_to, work_left
from annotation.models import Batch
from tests.annotation.conftest import dialogue
from tests.helpers import make_user

pytestmark = pytest.mark.django_db(transaction=True)

SCORES = dict.fromkeys(("social", "avoidant", "mechanical", "self"), 2)
CONFIDENCE = dict.fromkeys(("social", "avoidant", "mechanical", "self"), 1.0)


@pytest.fixture
def batch(jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(3)])), batch="access")
    return Batch.objects.get(name="access")


@pytest.mark.parametrize("status", [Batch.Status.PAUSED, Batch.Status.CLOSED])
def test_a_paused_or_closed_batch_hands_out_nothing_but_takes_open_work(batch, status):
    alice = make_user("alice", "annotator")
    held = assignment_next(batch=batch, annotator=alice)
    Batch.objects.filter(pk=batch.pk).update(status=status)
    batch.refresh_from_db()
    assert assignment_next(batch=batch, annotator=alice) is None
    assert assignment_next(batch=batch, annotator=make_user("bob", "annotator")) is None
    assert not work_left(batch=batch, annotator=alice)
    assert annotation_submit(assignment=held, scores=SCORES, confidence=CONFIDENCE).created  # nothing is lost
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.OPEN)
    batch.refresh_from_db()
    assert assignment_next(batch=batch, annotator=alice) is not None


def test_a_batch_with_chosen_annotators_hands_items_to_them_only(batch):
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    batch.restricted = True
    batch.save()
    batch.annotators.add(alice)
    assert batch_open_to(batch=batch, annotator=alice) and not batch_open_to(batch=batch, annotator=bob)
    assert assignment_next(batch=batch, annotator=alice) is not None
    assert assignment_next(batch=batch, annotator=bob) is None
    batch.restricted = False  # back to everyone
    batch.save()
    assert assignment_next(batch=batch, annotator=bob) is not None


def test_the_annotators_batch_list_hides_closed_and_others_restricted_batches(batch, client, jsonl):
    from tests.helpers import make_qualified_annotator

    call_command("import_dialogues", str(jsonl([dialogue(10)])), batch="paused-one")
    call_command("import_dialogues", str(jsonl([dialogue(11)])), batch="closed-one")
    call_command("import_dialogues", str(jsonl([dialogue(12)])), batch="theirs")
    Batch.objects.filter(name="paused-one").update(status=Batch.Status.PAUSED)
    Batch.objects.filter(name="closed-one").update(status=Batch.Status.CLOSED)
    Batch.objects.filter(name="theirs").update(restricted=True)
    Batch.objects.get(name="theirs").annotators.add(make_user("other", "annotator"))
    client.force_login(make_qualified_annotator("alice"))
    client.cookies["django_language"] = "en"
    html = client.get("/annotate/").content.decode()
    assert 'data-batch="access"' in html and 'data-batch-paused="paused-one"' in html
    assert "closed-one" not in html and "theirs" not in html
