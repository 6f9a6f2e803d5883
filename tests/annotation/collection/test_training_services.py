"""Training services: practice, the qualification test and its kappa rule, gating (with the database)."""

import json
from pathlib import Path

import pytest
from django.contrib.messages import get_messages
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import timezone

from annotation.collection import gold_import, training
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from tests.helpers import make_user

AXES = ("social", "avoidant", "mechanical", "self")
# Gold scores of a small test set: every axis uses several levels, so kappa is defined.
TEST_GOLD = [
    (1, 1, 1, 1),
    (2, 1, 3, 1),
    (3, 2, 1, 2),
    (4, 3, 1, 1),
    (5, 1, 2, 3),
    (1, 4, 4, 1),
    (2, 5, 5, 4),
    (1, 2, 1, 5),
]


def gold_row(i: int, item_set: str = "test", scores=(1, 1, 1, 1), **overrides) -> dict:
    row = {
        "id": f"gold_{item_set}_{i:03d}",
        "user": f"質問 {i}",
        "response": f"応答 {i}",
        "context": [{"turn": -1, "speaker": "ai", "text": "前の応答"}],
        "gold": dict(zip(AXES, scores, strict=True)),
        "explanation": f"説明 {i}: 賞賛語なし",
        "set": item_set,
    }
    row.update(overrides)
    return row


def write_rows(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows))
    return path


def store_gold(tmp_path: Path, *, practice: int = 3, test_gold=TEST_GOLD) -> None:
    rows = [gold_row(i, "practice", (i % 5 + 1, 1, 1, 1)) for i in range(1, practice + 1)]
    rows += [gold_row(i, "test", gold) for i, gold in enumerate(test_gold, start=1)]
    gold_import.import_gold(paths=[write_rows(tmp_path / "gold.jsonl", rows)])


def answer_all(attempt, scores_for=lambda item: item.gold):
    for pk in attempt.item_ids:
        item = GoldItem.objects.get(pk=pk)
        attempt = training.qualification_answer_submit(
            attempt=attempt, gold_item=item, scores=scores_for(item), min_seconds=0
        )
    return attempt


# --------------------------------------------------------------------------- kappa rule (pure)


def _pairs(annotator, gold):
    return {axis: list(zip(annotator, gold, strict=True)) for axis in AXES}


def test_perfect_agreement_passes_with_kappa_1_on_every_axis():
    passed, kappas, reasons = training.gold_agreement(_pairs([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]))
    assert passed is True
    assert kappas == {axis: 1.0 for axis in AXES}
    assert reasons == {axis: None for axis in AXES}


def test_one_axis_below_the_minimum_fails_the_whole_test():
    pairs = _pairs([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    pairs["self"] = list(zip([5, 4, 3, 2, 1], [1, 2, 3, 4, 5], strict=True))
    passed, kappas, reasons = training.gold_agreement(pairs)
    assert passed is False
    assert kappas["self"] == pytest.approx(-1.0)
    assert "below the minimum 0.60" in reasons["self"]
    assert reasons["social"] is None


def test_kappa_exactly_at_the_minimum_passes_and_just_below_fails():
    # Quadratic kappa of these ratings is 0.6 up to rounding; the rule is >= 0.60.
    annotator, gold = [1, 1, 2, 2, 3], [1, 2, 2, 3, 3]
    _passed, kappas, _ = training.gold_agreement(_pairs(annotator, gold))
    value = kappas["social"]
    assert training.gold_agreement(_pairs(annotator, gold), min_kappa=value)[0] is True
    assert training.gold_agreement(_pairs(annotator, gold), min_kappa=value + 1e-9)[0] is False


def test_undefined_kappa_is_not_passed_and_says_why():
    # Gold and annotator both give 1 on every item: expected disagreement is 0, kappa undefined.
    pairs = _pairs([1, 2, 3], [1, 2, 3])
    pairs["mechanical"] = [(1, 1), (1, 1), (1, 1)]
    passed, kappas, reasons = training.gold_agreement(pairs)
    assert passed is False
    assert kappas["mechanical"] is None
    assert reasons["mechanical"].startswith("kappa is undefined: expected disagreement is 0")


def test_no_answers_at_all_is_undefined_not_passed():
    passed, kappas, reasons = training.gold_agreement({axis: [] for axis in AXES})
    assert passed is False
    assert set(kappas.values()) == {None}
    assert all("undefined" in reason for reason in reasons.values())


# --------------------------------------------------------------------------- gating


def test_is_qualified_only_with_a_passed_attempt(annotator):
    assert training.is_qualified(annotator) is False
    QualificationAttempt.objects.create(annotator=annotator, finished_at=timezone.now(), passed=False)
    assert training.is_qualified(annotator) is False
    QualificationAttempt.objects.create(annotator=annotator, finished_at=timezone.now(), passed=True)
    assert training.is_qualified(annotator) is True


def test_staff_users_count_as_qualified_and_anonymous_users_do_not(staff_user):
    from django.contrib.auth.models import AnonymousUser

    assert training.is_qualified(staff_user) is True
    assert training.is_qualified(AnonymousUser()) is False


def _request(user, *, htmx=False):
    request = RequestFactory().get("/annotate/", headers={"HX-Request": "true"} if htmx else {})
    SessionMiddleware(lambda r: None).process_request(request)
    request.session.save()
    from django.contrib.messages.storage.fallback import FallbackStorage

    request._messages = FallbackStorage(request)
    request.user = user
    request.htmx = htmx
    return request


@training.qualification_required
def _queue_view(request):
    return HttpResponse("the queue")


def test_qualification_required_redirects_unqualified_users_to_training_with_a_message(annotator):
    request = _request(annotator)
    response = _queue_view(request)
    assert response.status_code == 302
    assert response["Location"] == "/training/"
    (message,) = list(get_messages(request))
    assert message.tags == "warning" and message.message == str(training.QUALIFICATION_REQUIRED_MESSAGE)


def test_qualification_required_answers_htmx_with_a_client_redirect(annotator):
    response = _queue_view(_request(annotator, htmx=True))
    assert response["HX-Redirect"] == "/training/"


def test_qualification_required_lets_qualified_users_through(annotator):
    QualificationAttempt.objects.create(annotator=annotator, finished_at=timezone.now(), passed=True)
    assert _queue_view(_request(annotator)).content == b"the queue"


# --------------------------------------------------------------------------- practice


def test_practice_goes_through_the_items_in_order_then_starts_again(annotator, tmp_path):
    store_gold(tmp_path, practice=2)
    first = training.practice_next_item(annotator=annotator)
    assert first.external_id == "gold_practice_001"
    training.practice_answer_submit(annotator=annotator, gold_item=first, scores=first.gold)
    second = training.practice_next_item(annotator=annotator)
    assert second.external_id == "gold_practice_002"
    training.practice_answer_submit(annotator=annotator, gold_item=second, scores=second.gold)
    assert training.practice_next_item(annotator=annotator) == first
    assert training.practice_progress(annotator=annotator) == {"done": 2, "total": 2}
    assert TrainingAnswer.objects.filter(annotator=annotator, attempt__isnull=True).count() == 2


def test_practice_answers_are_stored_per_annotator(annotator, tmp_path):
    store_gold(tmp_path, practice=1)
    other = make_user("ann_002", "annotator")
    item = training.practice_next_item(annotator=annotator)
    training.practice_answer_submit(annotator=annotator, gold_item=item, scores=dict.fromkeys(AXES, 2))
    assert training.practice_next_item(annotator=other) == item
    assert training.practice_progress(annotator=other)["done"] == 0


def test_practice_refuses_test_items_and_bad_scores(annotator, tmp_path):
    store_gold(tmp_path, practice=1)
    test_item = GoldItem.objects.filter(set="test").first()
    with pytest.raises(training.TrainingUnavailable):
        training.practice_answer_submit(annotator=annotator, gold_item=test_item, scores=test_item.gold)
    practice_item = GoldItem.objects.get(set="practice")
    with pytest.raises(ValueError, match="social: expected a score from 1 to 5"):
        training.practice_answer_submit(
            annotator=annotator, gold_item=practice_item, scores={**practice_item.gold, "social": 6}
        )
    assert not TrainingAnswer.objects.exists()


# --------------------------------------------------------------------------- qualification test


def test_attempt_asks_the_test_items_in_their_fixed_order(annotator, tmp_path):
    store_gold(tmp_path)
    attempt = training.qualification_start(annotator=annotator)
    expected = list(GoldItem.objects.filter(set="test").order_by("position").values_list("pk", flat=True))
    assert attempt.item_ids == expected and len(expected) == len(TEST_GOLD)
    item, number = training.qualification_next_item(attempt=attempt)
    assert (item.pk, number) == (expected[0], 1)
    training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=item.gold, min_seconds=0)
    item, number = training.qualification_next_item(attempt=attempt)
    assert (item.pk, number) == (expected[1], 2)
    assert training.qualification_start(annotator=annotator) == attempt  # continues the open attempt


def test_answering_every_item_with_the_gold_scores_passes(annotator, tmp_path):
    store_gold(tmp_path)
    attempt = answer_all(training.qualification_start(annotator=annotator))
    attempt.refresh_from_db()
    assert attempt.passed is True and attempt.finished_at is not None
    assert attempt.kappas == {axis: 1.0 for axis in AXES}
    assert attempt.reasons == {axis: None for axis in AXES}
    assert attempt.answers.count() == len(TEST_GOLD)
    assert training.is_qualified(annotator)


def test_failing_keeps_the_result_and_a_retake_is_a_new_attempt(annotator, tmp_path):
    store_gold(tmp_path)
    first = answer_all(training.qualification_start(annotator=annotator), lambda item: dict.fromkeys(AXES, 3))
    first.refresh_from_db()
    assert first.passed is False
    assert all(reason for reason in first.reasons.values())
    assert not training.is_qualified(annotator)
    second = training.qualification_start(annotator=annotator)
    assert second.pk != first.pk and not second.is_finished
    answer_all(second)
    assert training.is_qualified(annotator)
    assert QualificationAttempt.objects.filter(annotator=annotator).count() == 2


def test_test_set_with_a_single_gold_level_gives_undefined_kappa_for_perfect_answers(annotator, tmp_path):
    store_gold(tmp_path, test_gold=[(1, 2, 1, 1), (2, 2, 3, 1), (3, 2, 1, 2)])
    attempt = answer_all(training.qualification_start(annotator=annotator))
    attempt.refresh_from_db()
    assert attempt.passed is False
    assert attempt.kappas["avoidant"] is None
    assert "undefined" in attempt.reasons["avoidant"]
    assert attempt.kappas["social"] == 1.0
    assert any(w.startswith("avoidant: every test item has gold score 2") for w in gold_import.gold_test_set_warnings())


def test_a_repeated_answer_is_ignored_and_a_finished_attempt_takes_no_more(annotator, tmp_path):
    store_gold(tmp_path)
    attempt = training.qualification_start(annotator=annotator)
    item = GoldItem.objects.get(pk=attempt.item_ids[0])
    training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=item.gold, min_seconds=0)
    training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=dict.fromkeys(AXES, 5))
    assert TrainingAnswer.objects.get(attempt=attempt, gold_item=item).scores == item.gold
    attempt = answer_all(attempt)
    with pytest.raises(training.TrainingUnavailable, match="already finished"):
        training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=item.gold)


def test_practice_items_are_not_part_of_an_attempt(annotator, tmp_path):
    store_gold(tmp_path)
    attempt = training.qualification_start(annotator=annotator)
    practice_item = GoldItem.objects.filter(set="practice").first()
    with pytest.raises(training.TrainingUnavailable, match="not an item of this attempt"):
        training.qualification_answer_submit(attempt=attempt, gold_item=practice_item, scores=practice_item.gold)


def test_no_test_items_means_no_attempt(annotator):
    with pytest.raises(training.TrainingUnavailable):
        training.qualification_start(annotator=annotator)
    assert not QualificationAttempt.objects.exists()


def test_the_database_allows_one_open_attempt_per_annotator(annotator):
    QualificationAttempt.objects.create(annotator=annotator)
    with pytest.raises(IntegrityError), transaction.atomic():
        QualificationAttempt.objects.create(annotator=annotator)


def test_the_database_refuses_scores_outside_1_to_5(annotator, tmp_path):
    store_gold(tmp_path, practice=1)
    item = GoldItem.objects.get(set="practice")
    with pytest.raises(IntegrityError), transaction.atomic():
        TrainingAnswer.objects.create(
            annotator=annotator, gold_item=item, social_score=0, avoidant_score=1, mechanical_score=1, self_score=1
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        GoldItem.objects.filter(pk=item.pk).update(self_gold=6)


def test_researcher_overview_lists_annotators_with_their_attempts(annotator, tmp_path):
    store_gold(tmp_path)
    make_user("res_002", "researcher")
    answer_all(training.qualification_start(annotator=annotator))
    rows = {user.username: user for user in training.annotators_with_attempts()}
    assert set(rows) == {"ann_001"}
    assert len(rows["ann_001"].attempts) == 1 and rows["ann_001"].attempts[0].n_answers == len(TEST_GOLD)
