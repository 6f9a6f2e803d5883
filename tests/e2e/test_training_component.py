"""A qualification item on the rating page's component, by keyboard: too fast first, then accepted; the result."""

from datetime import timedelta

from django.utils import timezone, translation

from annotation.collection import gold_import, training
from annotation.collection.views_training import too_fast_message
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from tests.annotation.collection.test_training_services import gold_row, write_rows
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_user

AXES = ("social", "avoidant", "mechanical", "self")
# (gold scores, the annotator's keys) per test item: item 2 is off on social (+1) and self (-2).
ITEMS = [((2, 1, 3, 1), "2131"), ((4, 2, 1, 3), "5211"), ((1, 4, 2, 1), "1421")]
EXPLANATION_2 = "「素晴らしい」「本当に」が重なるので社会的迎合は4。自己言及は「私なら」の一度で3。"


def _focused_axis(page) -> str | None:
    return page.evaluate(
        "() => { const f = document.activeElement.closest('fieldset.axis'); return f && f.dataset.axis; }"
    )


def _checked(page) -> dict[str, str]:
    return {axis: page.locator(f"#rating-form input[name={axis}]:checked").get_attribute("value") for axis in AXES}


def _item_id(page) -> str:
    return page.locator("#rating-form input[name=item]").get_attribute("value")


def _wait_then_submit(page) -> None:
    page.wait_for_selector("[data-min-time] [data-min-time-ready]", state="visible")  # the countdown, 1 s here
    page.keyboard.press("Enter")


def test_keyboard_rating_of_test_items_with_the_minimum_time_and_the_result(page, settings, transactional_db, tmp_path):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 1
    rows = [gold_row(i, "test", gold) for i, (gold, _keys) in enumerate(ITEMS, start=1)]
    rows[1].update(
        user="新しい企画書を書いたので見てください。",
        response="素晴らしい企画書ですね！本当に感動しました。私ならもっと良くできますが、このままで十分です。",
        explanation=EXPLANATION_2,
    )
    gold_import.import_gold(paths=[write_rows(tmp_path / "gold.jsonl", rows)])
    make_user("ann_keys", "annotator")
    log_in(page, "ann_keys", PASSWORD)
    page.goto("/training/")
    page.click("[data-start-test]")
    page.wait_for_url("**/training/qualification/")
    attempt = QualificationAttempt.objects.get(annotator__username="ann_keys")

    # Item 1, keyboard only: the first axis has the focus; a digit scores it and moves on; a Tab right
    # after a score stays where the score moved to (never skips an axis), a second one moves on; Shift+Tab
    # goes back one (the model of README "Keyboard", tests/e2e/test_rating_keyboard_model.py).
    assert _focused_axis(page) == "social"
    page.keyboard.press("2")
    assert _focused_axis(page) == "avoidant"
    page.keyboard.press("1")
    page.keyboard.press("Tab")
    assert _focused_axis(page) == "mechanical"
    page.keyboard.press("Tab")  # mechanical left for later
    assert _focused_axis(page) == "self"
    page.keyboard.press("1")
    page.keyboard.press("Shift+Tab")
    assert _focused_axis(page) == "mechanical"
    page.keyboard.press("3")
    assert _checked(page) == dict(zip(AXES, "2131", strict=True))

    # Answered at once: refused with the message, nothing stored, the values kept.
    QualificationAttempt.objects.filter(pk=attempt.pk).update(shown_at=timezone.now())
    first = _item_id(page)
    page.keyboard.press("Enter")
    message = page.locator("[data-too-fast]")
    message.wait_for()
    with translation.override("ja"):
        expected = too_fast_message(training.AnsweredTooFast(minimum=1, remaining=1))
    assert message.inner_text() == expected
    assert _item_id(page) == first and _checked(page) == dict(zip(AXES, "2131", strict=True))
    assert not TrainingAnswer.objects.exists()
    # The dialogue column and the submit bar are sticky: a viewport as tall as the page shows them in place.
    page.set_viewport_size({"width": 1280, "height": page.evaluate("document.body.scrollHeight")})
    screenshot(page, "training-item")
    page.set_viewport_size({"width": 1280, "height": 800})

    # After the minimum: Enter stores it and the next item is swapped in.
    _wait_then_submit(page)
    page.wait_for_selector(f"#rating-form input[name=item]:not([value='{first}'])", state="attached")
    assert TrainingAnswer.objects.get(attempt=attempt).scores == dict(zip(AXES, (2, 1, 3, 1), strict=True))
    assert page.locator("[data-too-fast]").count() == 0

    for number, (_gold, keys) in enumerate(ITEMS[1:], start=2):
        current = _item_id(page)
        assert GoldItem.objects.get(pk=int(current)).external_id == f"gold_test_{number:03d}"
        for key in keys:
            page.keyboard.press(key)
        _wait_then_submit(page)
        if number < len(ITEMS):
            page.wait_for_selector(f"#rating-form input[name=item]:not([value='{current}'])", state="attached")

    # The result: which items and axes differ from gold, with the explanation of the item.
    page.wait_for_url("**/training/qualification/*/")
    item = page.locator("[data-review-item=gold_test_002]")
    assert item.locator("tr[data-axis=social] [data-diff]").inner_text() == "+1"
    assert item.locator("tr[data-axis=self] [data-diff]").inner_text() == "-2"
    assert item.locator("tr[data-axis=self] [data-mine]").inner_text() == "1"
    assert item.locator("tr[data-axis=avoidant]").count() == 0
    assert item.locator("[data-explanation]").inner_text() == EXPLANATION_2
    assert page.locator("[data-matched-item]").all_inner_texts() == ["1. gold_test_001", "3. gold_test_003"]
    answers = TrainingAnswer.objects.filter(attempt=attempt)
    assert answers.count() == 3 and all(a.seconds >= 1 for a in answers)
    screenshot(page, "training-result")


def test_the_countdown_shows_the_seconds_the_server_counts(page, settings, transactional_db, tmp_path):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 30
    gold_import.import_gold(
        paths=[write_rows(tmp_path / "gold.jsonl", [gold_row(i, "test", g) for i, (g, _k) in enumerate(ITEMS, 1)])]
    )
    user = make_user("ann_wait", "annotator")
    attempt = training.qualification_start(annotator=user)
    log_in(page, "ann_wait", PASSWORD)
    page.goto("/training/qualification/")
    assert 28 <= int(page.locator("[data-seconds]").inner_text()) <= 30
    assert page.locator("[data-min-time-ready]").is_hidden()
    # 25 seconds already on screen (a reload does not restart the clock): about 5 left.
    QualificationAttempt.objects.filter(pk=attempt.pk).update(shown_at=timezone.now() - timedelta(seconds=25))
    page.reload()
    assert 3 <= int(page.locator("[data-seconds]").inner_text()) <= 5
