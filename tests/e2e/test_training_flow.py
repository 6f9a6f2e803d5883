"""An unqualified annotator is sent from the work queue to training, practises, and passes the test."""

from django.contrib.auth.models import User
from django.utils import translation

from annotation.collection.gold_import import import_gold
from annotation.collection.training import QUALIFICATION_REQUIRED_MESSAGE, is_qualified
from annotation.collection.training_demo import GOLD_FILE
from annotation.models.training import GoldItem, TrainingAnswer
from tests.e2e.conftest import ARTIFACTS, log_in, screenshot
from tests.helpers import PASSWORD, make_user

AXES = ("social", "avoidant", "mechanical", "self")


def _choose(page, panel: str, scores: dict) -> None:
    for axis in AXES:
        page.click(f"{panel} fieldset[data-axis={axis}] label.level:has(input[value='{scores[axis]}'])")


def _current_item(page, panel: str) -> GoldItem:
    return GoldItem.objects.get(pk=int(page.locator(f"{panel} input[name=item]").get_attribute("value")))


def test_unqualified_annotator_is_sent_to_training_practises_and_passes_the_test(page, settings, transactional_db):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0  # 30 items; the minimum time has its own test (test_training_component)
    import_gold(paths=[GOLD_FILE])
    make_user("ann_e2e", "annotator")
    log_in(page, "ann_e2e", PASSWORD)

    # The work queue is closed until the test is passed: the annotator lands on the training page.
    page.goto("/annotate/")
    assert page.url.endswith("/training/")
    with translation.override("ja"):
        message = str(QUALIFICATION_REQUIRED_MESSAGE)
    assert message in page.locator(".messages").inner_text()
    assert page.locator("[data-qualified=false]").count() == 1

    # Practice: rate with the keyboard, submit, and the feedback panel is swapped in (HTMX).
    screenshot(page, "training-start")
    page.click("[data-start-practice]")
    item = _current_item(page, "#practice-panel")
    screenshot(page, "training-practice")
    # The rating page's keyboard: the first axis has the focus, each digit scores one axis and moves on.
    for key in "2111":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-feedback]")
    assert page.url.endswith("/training/practice/")  # swapped in place, no page load
    assert page.locator("tr[data-axis=social] [data-mine]").inner_text() == "2"
    assert page.locator("tr[data-axis=social] [data-gold]").inner_text() == str(item.social_gold)
    assert item.explanation[:20] in page.locator("[data-explanation]").inner_text()
    screenshot(page, "training-feedback")
    answer = TrainingAnswer.objects.get(annotator__username="ann_e2e")
    assert answer.scores == {"social": 2, "avoidant": 1, "mechanical": 1, "self": 1} and answer.gold_item == item

    # The qualification test: every item answered with its gold scores, no feedback in between.
    page.goto("/training/")
    page.click("[data-start-test]")
    page.wait_for_url("**/training/qualification/")
    total = GoldItem.objects.filter(set="test").count()
    for number in range(1, total + 1):
        item = _current_item(page, "#test-panel")
        assert page.locator("[data-feedback]").count() == 0
        _choose(page, "#test-panel", item.gold)
        page.click("#test-panel button[type=submit]")
        if number < total:
            page.wait_for_selector(f"#test-panel input[name=item]:not([value='{item.pk}'])", state="attached")
    page.wait_for_url("**/training/qualification/*/")
    assert page.locator("[data-result=passed]").count() == 1
    assert page.locator("td[data-kappa]").all_inner_texts() == ["1.000"] * 4
    screenshot(page, "qualification-passed")
    assert is_qualified(User.objects.get(username="ann_e2e"))

    page.goto("/annotate/")
    assert page.url.endswith("/annotate/")


def test_guidelines_page_has_a_table_of_contents_and_examples(page, transactional_db):
    make_user("ann_guide", "annotator")
    log_in(page, "ann_guide", PASSWORD)
    page.goto("/guidelines/")
    assert page.locator("nav.guidelines-toc a").count() > 20
    # The page is long: keep the first screen (contents beside the axis definitions).
    page.screenshot(path=str(ARTIFACTS / "guidelines.png"))
    page.click("nav.guidelines-toc a[href='#examples-self']")
    assert page.locator("#examples-self article.example").count() >= 5
    assert page.locator("#examples-self").is_visible()
    page.screenshot(path=str(ARTIFACTS / "guidelines-examples.png"))
    assert page.locator("#edge-cases blockquote").count() > 5
