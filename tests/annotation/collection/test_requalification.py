"""Quarterly re-training: the re-qualification test's items (not seen last time), its per-axis threshold, renewal."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.collection import qualification, training
from annotation.models.training import GoldItem, QualificationAttempt
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
AXES = ("social", "avoidant", "mechanical", "self")
# 12 test items whose gold scores vary on every axis in any 4 of them drawn from 1-6 or 7-12.
GOLD = [(1 + i % 5, 1 + (i * 2) % 5, 1 + (i * 3) % 5, 1 + (i + 2) % 5) for i in range(12)]


@pytest.fixture
def gold():
    return [
        GoldItem.objects.create(
            external_id=f"t{i:02d}",
            user_text=f"u{i}",
            response_text=f"r{i}",
            explanation="e",
            set=GoldItem.Set.TEST,
            position=i,
            **{f"{axis}_gold": score for axis, score in zip(AXES, scores, strict=True)},
        )
        for i, scores in enumerate(GOLD)
    ]


@pytest.fixture
def expired(gold, settings):
    """An annotator whose full test (items t00-t05) was passed 100 days ago: expired with 92 valid days."""
    settings.QUALIFICATION_VALID_DAYS = 92
    settings.REQUALIFICATION_ITEMS = 4
    user = make_user("ann", "annotator")
    long_ago = timezone.now() - timedelta(days=100)
    QualificationAttempt.objects.create(
        annotator=user,
        started_at=long_ago,
        finished_at=long_ago,
        passed=True,
        item_ids=[item.pk for item in gold[:6]],
    )
    assert qualification.qualification_of(user).expired
    return user


def _answer(attempt, scores_for):
    for pk in attempt.item_ids:
        item = GoldItem.objects.get(pk=pk)
        attempt = training.qualification_answer_submit(
            attempt=attempt, gold_item=item, scores=scores_for(item), min_seconds=0
        )
    attempt.refresh_from_db()
    return attempt


def test_the_re_qualification_test_asks_only_items_not_seen_in_the_last_attempt(expired, gold):
    seen = {item.pk for item in gold[:6]}
    for seed in range(10):
        ids = qualification.requalification_items(annotator=expired, rng=random.Random(seed))
        assert len(ids) == 4 and not set(ids) & seen and len(set(ids)) == 4
    attempt = training.requalification_start(annotator=expired)
    assert attempt.kind == "requalification" and len(attempt.item_ids) == 4
    assert not set(attempt.item_ids) & seen
    assert training.requalification_start(annotator=expired) == attempt  # the open one is continued


def test_when_too_few_are_unseen_the_rest_are_the_items_answered_longest_ago(expired, gold, settings):
    settings.REQUALIFICATION_ITEMS = 8
    ids = qualification.requalification_items(annotator=expired)
    assert len(ids) == 8 and {item.pk for item in gold[6:]} <= set(ids)


def test_passing_the_re_qualification_test_renews_the_qualification(expired, gold):
    attempt = _answer(training.requalification_start(annotator=expired), lambda item: item.gold)
    assert attempt.passed is True and attempt.min_kappa == pytest.approx(0.60)
    renewed = qualification.qualification_of(expired)
    assert renewed.state == "valid" and renewed.passed_at == attempt.finished_at
    assert renewed.expires == attempt.finished_at + timedelta(days=92)
    assert training.is_qualified(expired)


def test_the_threshold_applies_to_every_axis(expired, gold, settings):
    def off_on_self(item):
        scores = item.gold
        return {**scores, "self": 6 - scores["self"]}  # perfect on three axes, reversed on one

    failed = _answer(training.requalification_start(annotator=expired), off_on_self)
    assert failed.passed is False
    assert failed.reasons["self"] and all(failed.reasons[axis] is None for axis in AXES[:3])
    assert qualification.qualification_of(expired).expired  # a failed test renews nothing


def test_the_threshold_is_the_setting(expired, gold, settings):
    settings.REQUALIFICATION_MIN_KAPPA = 0.99

    def one_off(item):  # one point off on one item of each axis: kappa below 0.99, above 0.60
        scores = dict(item.gold)
        if item.pk == attempt.item_ids[0]:
            scores = {axis: score + 1 if score < 5 else score - 1 for axis, score in scores.items()}
        return scores

    attempt = training.requalification_start(annotator=expired)
    assert attempt.min_kappa == pytest.approx(0.99)
    attempt = _answer(attempt, one_off)
    assert attempt.passed is False
    assert all(0.6 <= attempt.kappas[axis] < 0.99 for axis in AXES)


def test_someone_never_qualified_cannot_take_the_shorter_test(gold):
    with pytest.raises(training.TrainingUnavailable):
        training.requalification_start(annotator=make_user("new", "annotator"))
