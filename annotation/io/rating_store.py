"""Storing checked ratings, whoever checked them: the imports, a rating sheet, an LLM rater.

New ratings go in with one bulk insert and their source; changed ones are updated with their old values kept
in the edit history; the work queue stays consistent (reservations of items rated this way are closed, the
items' taken counts recounted). And the accounts an import makes for annotator ids seen only in files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.utils import timezone

from annotation.axes import AXES
from annotation.collection.queue import close_reservations_rated_elsewhere, recount_taken
from annotation.models import Annotation, AnnotationEdit, AnnotatorProfile, schema_postgresql
from core.bulk import bulk_insert
from core.roles import ANNOTATOR

INSERT_BATCH = 2_000
VALUE_FIELDS = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]


class NewRating(NamedTuple):  # a tuple: made once per rating of a 300k-line import
    dialogue_pk: int
    annotator_pk: int
    values: tuple  # the four scores, then the four confidences (the order of VALUE_FIELDS)
    created_at: object  # a datetime
    seconds_spent: float | None = None


class ChangedRating(NamedTuple):
    pk: int
    old: dict
    new: dict
    reason: str  # kept in the edit history


def ratings_store(*, new: Sequence[NewRating], changed: Sequence[ChangedRating], source: str, edited_by=None) -> None:
    """Store checked ratings (call inside a transaction): new ones with ``source``, changed ones with their history.

    The queue stays consistent: an open reservation of an item its annotator now has a rating of is
    closed (the queue must not hand it out again), and the items' taken counts are recounted.
    """
    bulk_insert(
        Annotation,
        ["dialogue", "annotator", "created_at", "updated_at", "seconds_spent", "source", *VALUE_FIELDS],
        (
            (
                r.dialogue_pk,
                r.annotator_pk,
                r.created_at,
                r.created_at,
                r.seconds_spent,
                str(source),
                *r.values,
            )
            for r in new
        ),
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            schema_postgresql.check_now(cursor, table=Annotation._meta.db_table)
    close_reservations_rated_elsewhere((r.dialogue_pk, r.annotator_pk) for r in new)
    recount_taken(sorted({r.dialogue_pk for r in new}))
    now = timezone.now()
    Annotation.objects.bulk_update(
        [Annotation(pk=r.pk, updated_at=now, **r.new) for r in changed],
        [*VALUE_FIELDS, "updated_at"],
        batch_size=INSERT_BATCH,
    )
    AnnotationEdit.objects.bulk_create(
        [
            AnnotationEdit(
                annotation_id=r.pk,
                edited_by=edited_by,
                edited_at=now,
                old_values=r.old,
                new_values=r.new,
                reason=r.reason,
            )
            for r in changed
        ],
        batch_size=INSERT_BATCH,
    )


def imported_annotators_create(usernames: list[str]) -> dict[str, int]:
    """Accounts for annotator ids seen only in files: annotator group, no usable password."""
    if not usernames:
        return {}
    user_model = get_user_model()
    template = user_model()
    template.set_unusable_password()
    user_model.objects.bulk_create(
        [user_model(username=name, password=template.password) for name in usernames], batch_size=INSERT_BATCH
    )
    created = dict(user_model.objects.filter(username__in=usernames).values_list("username", "pk"))
    group, _ = Group.objects.get_or_create(name=ANNOTATOR)
    membership = user_model.groups.through
    membership.objects.bulk_create([membership(user_id=pk, group_id=group.pk) for pk in created.values()])
    AnnotatorProfile.objects.bulk_create([AnnotatorProfile(user_id=pk, imported=True) for pk in created.values()])
    return created
