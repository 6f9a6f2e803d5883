"""The list endpoint builds its ratings from ``values()`` rows (``annotation.api.annotation_rows``): the JSON must be
``AnnotationSerializer``'s, key for key and value for value, on ratings with and without edits, every source, with
and without seconds spent, an editor deleted since, and in another time zone."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from annotation.api.annotation_rows import ROW_FIELDS, rating_dicts
from annotation.api.annotations import AnnotationSerializer, AnnotationViewSet
from annotation.axes import AXES
from annotation.models import Annotation, AnnotationEdit
from annotation.services import annotation_update
from tests.annotation.api.support import API, make_batch, walk
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def sample():
    batch = make_batch("rows", n_items=4)
    people = [make_user("ann_a", "annotator"), make_user("ann_b", "annotator")]
    items = list(batch.dialogues.order_by("pk"))
    sources = list(Annotation.Source.values)
    for i, item in enumerate(items):
        for j, person in enumerate(people):
            Annotation.objects.create(
                dialogue=item,
                annotator=person,
                source=sources[(i + j) % len(sources)],
                seconds_spent=None if j else 12.5 + i,
                created_at=datetime(2025, 1, 31, 0, 0, i, 123456, tzinfo=UTC),
                updated_at=datetime(2025, 1, 31, 0, 5, i, tzinfo=UTC),
                **{f"{axis}_score": 1 + (i + k) % 5 for k, axis in enumerate(AXES)},
                **{f"{axis}_confidence": (k + 1) / 4 for k, axis in enumerate(AXES)},
            )
    first = Annotation.objects.order_by("pk").first()
    annotation_update(annotation=first, values={"social_score": 5}, user=people[0], reason="<script>x</script>")
    annotation_update(annotation=first, values={"self_confidence": 0.5}, user=people[1], reason="二度目")
    gone = make_user("gone", "annotator")
    second = Annotation.objects.order_by("pk")[1]
    annotation_update(annotation=second, values={"avoidant_score": 4}, user=gone, reason="")
    get_user_model().objects.filter(pk=gone.pk).delete()  # the edit keeps edited_by null
    return batch


def _by_serializer() -> list[dict]:
    """The ratings as the serializer writes them, from the view's own queryset (edits prefetched), for a researcher."""
    view = AnnotationViewSet()
    view.request = type("R", (), {"user": make_user("res_rows", "researcher")})()
    return AnnotationSerializer(list(view.get_queryset()), many=True).data


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "UTC", "America/New_York"])
def test_the_rows_are_the_serializers_json(sample, zone):
    with timezone.override(zone):
        expected = _by_serializer()
        built = rating_dicts(list(Annotation.objects.order_by("-updated_at", "-pk").values(*ROW_FIELDS)))
    assert JSONRenderer().render(built) == JSONRenderer().render(expected)
    assert json.loads(JSONRenderer().render(built)) == json.loads(JSONRenderer().render(expected))
    assert any(row["edits"] for row in built) and any(row["seconds_spent"] is None for row in built)
    edited = next(row for row in built if len(row["edits"]) == 2)
    assert [e["reason"] for e in edited["edits"]] == ["二度目", "<script>x</script>"]
    assert next(row for row in built if len(row["edits"]) == 1)["edits"][0]["edited_by"] is None
    assert AnnotationEdit.objects.count() == 3


def test_the_list_answers_what_the_detail_answers(sample, res):
    listed = walk(res, f"{API}annotations/?page_size=3")
    assert len(listed) == 8
    for row in listed:
        assert res.get(f"{API}annotations/{row['id']}/").json() == row


def test_an_empty_page():
    assert rating_dicts([]) == []


def test_only_the_pages_own_edits_whether_its_ids_are_close_or_far_apart():
    batch = make_batch("ids", n_items=12)
    person = make_user("ann_ids", "annotator")
    values = {f"{axis}_score": 3 for axis in AXES} | {f"{axis}_confidence": 0.9 for axis in AXES}
    ratings = [Annotation.objects.create(dialogue=d, annotator=person, **values) for d in batch.dialogues.all()]
    for rating in ratings:
        annotation_update(annotation=rating, values={"social_score": 4}, user=person, reason=f"r{rating.pk}")

    def reasons(chosen):
        rows = Annotation.objects.filter(pk__in=[r.pk for r in chosen]).order_by("pk").values(*ROW_FIELDS)
        return [[edit["reason"] for edit in row["edits"]] for row in rating_dicts(list(rows))]

    close, far = [ratings[0], ratings[2]], [ratings[0], ratings[-1]]  # ids 2 apart (a range), 11 apart (a list)
    assert reasons(close) == [[f"r{ratings[0].pk}"], [f"r{ratings[2].pk}"]]
    assert reasons(far) == [[f"r{ratings[0].pk}"], [f"r{ratings[-1].pk}"]]
