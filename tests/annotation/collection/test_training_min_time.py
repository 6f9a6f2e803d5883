"""The minimum time per qualification item, timed by the server from when it showed the item.

Time is frozen by moving the stored "shown at" into the past, never by sleeping.
"""

import re
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.collection import training
from annotation.collection.views_training import too_fast_message
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from tests.annotation.collection.test_training_services import AXES, store_gold

HTMX = {"HX-Request": "true"}
URL = "/training/qualification/"
ENTERED = {"social": "4", "avoidant": "2", "mechanical": "3", "self": "1"}


@pytest.fixture
def attempt(db, tmp_path, annotator):
    store_gold(tmp_path, practice=1)
    return training.qualification_start(annotator=annotator)


@pytest.fixture
def first_item(attempt):
    return GoldItem.objects.get(pk=attempt.item_ids[0])


def _shown_ago(attempt, seconds: float) -> None:
    """Move the time the server showed the current item ``seconds`` into the past."""
    QualificationAttempt.objects.filter(pk=attempt.pk).update(shown_at=timezone.now() - timedelta(seconds=seconds))


def _post(item, scores=ENTERED, confidence=None):
    confidence = confidence or {}
    data = {"item": item.pk, **scores}
    data.update({f"{axis}_confidence": confidence.get(axis, "1.0") for axis in AXES})
    return data


def _expected_message(minimum, remaining) -> str:
    with translation.override("ja"):
        return too_fast_message(training.AnsweredTooFast(minimum=minimum, remaining=remaining))


# --------------------------------------------------------------------------- service


def test_an_answer_two_seconds_after_the_item_was_shown_is_refused_and_stores_nothing(attempt, first_item):
    training.qualification_item_shown(attempt=attempt, gold_item=first_item)
    _shown_ago(attempt, 2)
    with pytest.raises(training.AnsweredTooFast) as caught:
        training.qualification_answer_submit(attempt=attempt, gold_item=first_item, scores=first_item.gold)
    assert (caught.value.minimum, caught.value.remaining) == (5, 3)
    assert not TrainingAnswer.objects.exists()


def test_an_answer_six_seconds_after_is_stored_with_when_it_was_shown_and_the_confidences(attempt, first_item):
    training.qualification_item_shown(attempt=attempt, gold_item=first_item)
    _shown_ago(attempt, 6)
    confidence = {"social": 0.6, "avoidant": 1.0, "mechanical": 0.9, "self": 0.0}
    training.qualification_answer_submit(
        attempt=attempt, gold_item=first_item, scores=first_item.gold, confidence=confidence
    )
    answer = TrainingAnswer.objects.get(attempt=attempt)
    assert answer.scores == first_item.gold and answer.confidence == confidence
    assert 6 <= answer.seconds < 8
    assert answer.shown_at == QualificationAttempt.objects.get(pk=attempt.pk).shown_at


def test_the_setting_sets_the_threshold(attempt, first_item, settings):
    training.qualification_item_shown(attempt=attempt, gold_item=first_item)
    _shown_ago(attempt, 6)
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 10
    with pytest.raises(training.AnsweredTooFast) as caught:
        training.qualification_answer_submit(attempt=attempt, gold_item=first_item, scores=first_item.gold)
    assert (caught.value.minimum, caught.value.remaining) == (10, 4)
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 1.5
    _shown_ago(attempt, 2)
    training.qualification_answer_submit(attempt=attempt, gold_item=first_item, scores=first_item.gold)
    assert TrainingAnswer.objects.filter(attempt=attempt).count() == 1


def test_the_default_is_five_seconds_and_a_bad_setting_is_named(settings):
    del settings.TRAINING_MIN_SECONDS_PER_ITEM
    assert training.min_seconds_per_item() == 5
    for bad in (-1, "soon", float("nan"), True):
        settings.TRAINING_MIN_SECONDS_PER_ITEM = bad
        with pytest.raises(ImproperlyConfigured, match="TRAINING_MIN_SECONDS_PER_ITEM must be a number"):
            training.min_seconds_per_item()


def test_an_item_the_server_never_showed_has_been_shown_for_no_time(attempt, first_item):
    with pytest.raises(training.AnsweredTooFast) as caught:
        training.qualification_answer_submit(attempt=attempt, gold_item=first_item, scores=first_item.gold)
    assert caught.value.remaining == 5
    second = GoldItem.objects.get(pk=attempt.item_ids[1])
    training.qualification_item_shown(attempt=attempt, gold_item=second)
    _shown_ago(attempt, 60)  # the time of another item does not count for this one
    with pytest.raises(training.AnsweredTooFast):
        training.qualification_answer_submit(attempt=attempt, gold_item=first_item, scores=first_item.gold)


def test_showing_the_same_item_again_keeps_the_clock_and_a_new_item_restarts_it(attempt, first_item):
    first_time = training.qualification_item_shown(attempt=attempt, gold_item=first_item)
    _shown_ago(attempt, 3)
    earlier = QualificationAttempt.objects.get(pk=attempt.pk).shown_at
    assert earlier < first_time
    assert training.qualification_item_shown(attempt=attempt, gold_item=first_item) == earlier  # a reload
    second = GoldItem.objects.get(pk=attempt.item_ids[1])
    assert training.qualification_item_shown(attempt=attempt, gold_item=second) > earlier
    assert QualificationAttempt.objects.get(pk=attempt.pk).shown_item == second


def test_seconds_left_rounds_up_and_stops_at_zero():
    now = timezone.now()
    assert training.seconds_left(shown_at=now - timedelta(seconds=4.2), minimum=5, now=now) == 1
    assert training.seconds_left(shown_at=now - timedelta(seconds=5), minimum=5, now=now) == 0
    assert training.seconds_left(shown_at=None, minimum=5, now=now) == 5
    assert training.seconds_left(shown_at=None, minimum=0, now=now) == 0


def test_confidences_outside_0_to_1_are_refused(attempt, first_item):
    with pytest.raises(ValueError, match=r"self: expected a confidence from 0\.0 to 1\.0, got 1\.5"):
        training.qualification_answer_submit(
            attempt=attempt,
            gold_item=first_item,
            scores=first_item.gold,
            confidence={**dict.fromkeys(AXES, 1.0), "self": 1.5},
            min_seconds=0,
        )


# --------------------------------------------------------------------------- pages


@pytest.fixture
def annotator_client(client, annotator, attempt):
    client.force_login(annotator)
    return client


def test_too_fast_page_shows_the_message_and_keeps_the_entered_values(annotator_client, attempt, first_item):
    assert first_item.response_text in annotator_client.get(URL).content.decode()
    _shown_ago(attempt, 2)
    response = annotator_client.post(URL, _post(first_item, confidence={"social": "0.6"}))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'<p class="error too-fast has-error" role="alert" data-too-fast>{_expected_message(5, 3)}</p>' in html
    for axis, value in ENTERED.items():
        assert re.search(rf'name="{axis}" value="{value}" checked', html), axis
    assert '<option value="0.6" selected>' in html
    assert f'name="item" value="{first_item.pk}"' in html and first_item.response_text in html
    assert not TrainingAnswer.objects.exists()


def test_too_fast_message_reads_in_japanese_with_both_numbers():
    message = _expected_message(5, 3)
    assert "5" in message and "3" in message
    with translation.override("en"):
        english = too_fast_message(training.AnsweredTooFast(minimum=1, remaining=1))
    assert english == "Take at least 1 second to rate this item (1 second more)."


def test_too_fast_with_htmx_swaps_the_panel_with_the_message(annotator_client, attempt, first_item):
    annotator_client.get(URL)
    _shown_ago(attempt, 2)
    html = annotator_client.post(URL, _post(first_item), headers=HTMX).content.decode()
    assert html.lstrip().startswith('<div id="test-panel"') and "<html" not in html
    assert _expected_message(5, 3) in html
    assert 'data-min-time data-wait="3"' in html  # the countdown starts from what the server counts


def test_an_answer_after_six_seconds_is_accepted_and_the_next_item_shown(annotator_client, attempt, first_item):
    annotator_client.get(URL)
    _shown_ago(attempt, 6)
    response = annotator_client.post(URL, _post(first_item))
    assert response.status_code == 302 and response["Location"] == URL
    answer = TrainingAnswer.objects.get(attempt=attempt)
    assert answer.scores == {axis: int(value) for axis, value in ENTERED.items()}
    html = annotator_client.get(URL).content.decode()
    second = GoldItem.objects.get(pk=attempt.item_ids[1])
    assert second.response_text in html and "data-too-fast" not in html
    assert QualificationAttempt.objects.get(pk=attempt.pk).shown_item == second


def test_the_setting_changes_the_threshold_of_the_page(annotator_client, attempt, first_item, settings):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 10
    annotator_client.get(URL)
    _shown_ago(attempt, 6)
    assert _expected_message(10, 4) in annotator_client.post(URL, _post(first_item)).content.decode()
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 1
    _shown_ago(attempt, 2)
    assert annotator_client.post(URL, _post(first_item)).status_code == 302
    assert TrainingAnswer.objects.filter(attempt=attempt).count() == 1


def test_a_reload_does_not_restart_the_clock(annotator_client, attempt, first_item):
    annotator_client.get(URL)
    _shown_ago(attempt, 6)
    annotator_client.get(URL)  # the same item again
    assert annotator_client.post(URL, _post(first_item)).status_code == 302


def test_the_test_page_states_the_minimum(annotator_client, settings):
    html = annotator_client.get(URL).content.decode()
    assert "data-min-seconds" in html and 'data-min-time data-wait="5"' in html
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0
    html = annotator_client.get(URL).content.decode()
    assert "data-min-seconds" not in html and "data-min-time" not in html


def test_the_training_page_announces_the_minimum(annotator_client, settings):
    with translation.override("ja"):
        expected = _("Take at least %(minimum)s per item: an answer given sooner is not accepted.") % {
            "minimum": ngettext("%(n)s second", "%(n)s seconds", 5) % {"n": 5}
        }
    assert expected in annotator_client.get("/training/").content.decode()
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0
    assert expected not in annotator_client.get("/training/").content.decode()


def test_practice_has_no_minimum_time(annotator_client, annotator):
    item = GoldItem.objects.get(set="practice")
    assert "data-min-time" not in annotator_client.get("/training/practice/").content.decode()
    response = annotator_client.post("/training/practice/", _post(item))
    assert response.status_code == 302
    assert TrainingAnswer.objects.get(annotator=annotator, attempt=None).shown_at is None


def test_a_too_fast_answer_without_a_csrf_token_is_refused_before_anything(annotator, attempt, first_item):
    client = Client(enforce_csrf_checks=True)
    client.force_login(annotator)
    client.get(URL)
    _shown_ago(attempt, 60)
    assert client.post(URL, _post(first_item)).status_code == 403
    assert not TrainingAnswer.objects.exists()
