"""What raters see of the audits: open audits with progress, their own history, and everyone's ratings by item."""

import pytest
from django.contrib.auth.models import User

from annotation.audits.queue import next_assignment, rating_edit, skip, submit
from annotation.audits.selectors import audit_ratings, audits_for_rater, rating_history
from annotation.audits.services import judge_audit_close
from annotation.models import AuditRating

pytestmark = pytest.mark.django_db


def rate(audit, rater, score, times=1):
    for _ in range(times):
        submit(next_assignment(audit, rater), rater, score)


def test_open_audits_with_complete_items_and_what_is_left_for_the_rater(audit_of):
    audit = audit_of(size=12, per_item=2)
    closed = audit_of(size=12, per_item=2, name="closed")
    judge_audit_close(closed)
    ann, bob, newcomer = (User.objects.create(username=name) for name in ("ann", "bob", "new"))
    rate(audit, ann, 1, times=12)
    rate(audit, bob, 2, times=2)  # two items complete
    skip(next_assignment(audit, bob), bob)
    next_assignment(audit, bob)  # an open reservation: that item is full for now
    [progress] = audits_for_rater(bob)
    assert progress.audit == audit and progress.items == 12 and progress.complete_items == 2
    assert progress.rated_by_user == 2
    assert progress.available_to_user == 12 - 2 - 1  # not the rated nor the skipped; the open one counts
    [fresh] = audits_for_rater(newcomer)
    assert (fresh.rated_by_user, fresh.available_to_user) == (0, 12 - 2 - 1)  # neither complete nor reserved
    assert [p.rated_by_user for p in audits_for_rater(ann)] == [12]


def test_history_is_the_raters_own_newest_first_and_by_audit(audit_of):
    first, second = audit_of(name="one"), audit_of(name="two")
    ann, bob = User.objects.create(username="ann"), User.objects.create(username="bob")
    rate(first, ann, 0)
    rate(second, ann, 1)
    rate(first, bob, 2)
    history = list(rating_history(ann))
    assert [r.score for r in history] == [1, 0] and history[0].item.audit == second
    assert [r.item.audit.name for r in rating_history(ann, first)] == ["one"]


def test_audit_ratings_maps_item_keys_to_each_raters_score(audit_of):
    audit = audit_of(size=12, per_item=2)
    ann, bob = User.objects.create(username="ann"), User.objects.create(username="bob")
    rate(audit, ann, 0, times=12)
    rate(audit, bob, 2)
    rating_edit(AuditRating.objects.get(annotator=bob), bob, 1)
    both = AuditRating.objects.get(annotator=bob).item.key
    ratings = audit_ratings(audit)
    assert set(ratings) == set(audit.items.values_list("key", flat=True))
    assert ratings[both] == {"ann": 0, "bob": 1}
    assert all(scores == {"ann": 0} for key, scores in ratings.items() if key != both)
