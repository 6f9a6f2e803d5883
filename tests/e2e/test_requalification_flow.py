"""Quarterly re-training in the browser (1366x768): an annotator whose qualification expired sees why, takes the
refresher and the re-qualification test, passes, and is handed items again; the notice before the expiry.

Time is injected through the stored qualification: it was passed 100 days ago (expired with the
default 92 valid days) or 85 days ago (expires in 7 days: the notice). Screenshots of the notice and
the expired pages, in Japanese and English, go to ``SHOTS`` (default tests/artifacts).
"""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.collection.gold_import import import_gold
from annotation.collection.qualification import qualification_of
from annotation.collection.training_demo import GOLD_FILE
from annotation.models import Annotation, Assignment, Batch, Dialogue
from annotation.models.training import GoldItem, QualificationAttempt
from tests.e2e.conftest import ARTIFACTS, log_in
from tests.helpers import PASSWORD, make_user

AXES = ("social", "avoidant", "mechanical", "self")
SHOTS = Path(os.environ.get("REQUALIFICATION_SHOTS", ARTIFACTS))


@pytest.fixture
def open_page(browser, live_server):
    """A 1366x768 page in the given language (Japanese unless told)."""
    contexts = []

    def make(language: str = "ja"):
        context = browser.new_context(base_url=live_server.url, locale="en-US", viewport={"width": 1366, "height": 768})
        context.set_default_timeout(10_000)
        if language != "ja":
            host = live_server.url.split("//", 1)[1].split(":")[0]
            context.add_cookies([{"name": "django_language", "value": language, "domain": host, "path": "/"}])
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _annotator(username: str, *, days_ago: int, items) -> None:
    user = make_user(username, "annotator")
    passed = timezone.now() - timedelta(days=days_ago)
    QualificationAttempt.objects.create(
        annotator=user, started_at=passed, finished_at=passed, passed=True, item_ids=[item.pk for item in items]
    )
    return user


@pytest.fixture
def world(settings, transactional_db):
    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0  # the minimum time per item has its own tests
    settings.QUALIFICATION_VALID_DAYS = 92
    settings.REQUALIFICATION_ITEMS = 6
    import_gold(paths=[GOLD_FILE])
    tests = list(GoldItem.objects.filter(set="test").order_by("position", "id"))
    batch = Batch.objects.create(name="四半期バッチ", annotations_per_item=2)
    for i in range(3):
        Dialogue.objects.create(external_id=f"q{i}", user_text=f"質問{i}", response_text=f"応答{i}", batch=batch)
    return batch, tests


def test_an_expired_annotator_re_trains_passes_and_gets_items_again(open_page, world):
    batch, tests = world
    seen = tests[:20]  # the last test asked these: the re-qualification draws from the other 10
    user = _annotator("ann_expired", days_ago=100, items=seen)
    page = open_page()
    log_in(page, "ann_expired", PASSWORD)

    # The queue explains, hands out nothing, and links to the re-training.
    page.goto("/annotate/")
    notice = page.locator("[data-qualification-notice=expired]")
    assert notice.is_visible() and "認定の有効期限が切れました" in notice.inner_text()
    assert page.locator(f"[data-batch-expired='{batch.name}']").is_visible()
    page.goto(f"/annotate/{batch.pk}/")
    assert page.locator("[data-assignment]").count() == 0 and not Assignment.objects.exists()
    assert page.locator("[data-batch-state=qualification-expired]").is_visible()
    _shot(page, "expired-rate-ja")

    page.locator("[data-qualification-notice=expired] [data-retraining-link]").click()
    page.wait_for_url("**/training/#retraining")
    assert page.locator("[data-retraining]").is_visible()
    assert page.locator("[data-qualification-state=expired]").count() == 1
    _shot(page, "retraining-ja")

    # Refresher: one practice item, answered with the keyboard, with the gold scores as feedback.
    page.click("[data-start-refresher]")
    page.wait_for_selector("#practice-panel input[name=item]", state="attached")
    for key in "2111":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-feedback]")
    page.goto("/training/")
    assert "1" in page.locator("[data-refresher]").inner_text()

    # The re-qualification test: 6 items, none of those asked last time, answered with the gold scores.
    page.click("[data-start-requalification]")
    page.wait_for_url("**/training/qualification/")
    attempt = QualificationAttempt.objects.get(annotator=user, finished_at__isnull=True)
    assert attempt.kind == "requalification" and len(attempt.item_ids) == 6
    assert not set(attempt.item_ids) & {item.pk for item in seen}
    for number in range(1, 7):
        item = GoldItem.objects.get(pk=int(page.locator("#test-panel input[name=item]").get_attribute("value")))
        assert item.pk not in {s.pk for s in seen}
        for axis in AXES:
            page.click(f"#test-panel fieldset[data-axis={axis}] label.level:has(input[value='{item.gold[axis]}'])")
        page.click("#test-panel button[type=submit]")
        if number < 6:
            page.wait_for_selector(f"#test-panel input[name=item]:not([value='{item.pk}'])", state="attached")
    page.wait_for_url("**/training/qualification/*/")
    assert page.locator("[data-result=passed]").count() == 1
    renewed = qualification_of(user)
    assert renewed.state == "valid" and renewed.expires > timezone.now() + timedelta(days=91)

    # Renewed: the queue hands items again, and no notice is shown.
    page.goto("/annotate/")
    assert page.locator("[data-qualification-notice]").count() == 0
    page.click(f"[data-batch='{batch.name}']")
    page.wait_for_selector("[data-assignment]")
    for key in "1111":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_function("() => !!document.querySelector('.message-success')")
    assert Annotation.objects.filter(annotator=user).count() == 1


def test_the_notice_and_the_expired_page_in_japanese_and_english(open_page, world):
    batch, tests = world
    _annotator("ann_soon", days_ago=85, items=tests)
    _annotator("ann_gone", days_ago=100, items=tests)
    for language in ("ja", "en"):
        page = open_page(language)
        log_in(page, "ann_soon", PASSWORD)
        page.goto(f"/annotate/{batch.pk}/")
        banner = page.locator("[data-qualification-notice=expiring]")
        assert banner.is_visible() and page.locator("[data-assignment]").count() == 1
        box = banner.bounding_box()
        assert box["y"] + box["height"] <= 768  # seen without scrolling
        text = banner.inner_text()
        soon = timezone.localtime(timezone.now() - timedelta(days=85) + timedelta(days=92))
        assert (f"{soon.year}年{soon.month}月{soon.day}日" in text) if language == "ja" else (str(soon.year) in text)
        _shot(page, f"expiring-banner-{language}")
        page.goto("/annotate/")
        _shot(page, f"expiring-queue-{language}")

        page = open_page(language)
        log_in(page, "ann_gone", PASSWORD)
        page.goto("/annotate/")
        assert page.locator("[data-qualification-notice=expired]").is_visible()
        _shot(page, f"expired-queue-{language}")
        page.goto("/training/")
        _shot(page, f"retraining-{language}")


def test_a_researcher_sees_the_expiries_on_the_activity_page_and_extends_one_with_a_reason(open_page, world):
    batch, tests = world
    gone = _annotator("ann_gone", days_ago=100, items=tests)
    make_user("res_e2e", "researcher")
    page = open_page()
    log_in(page, "res_e2e", PASSWORD)
    page.goto(f"/research/batches/{batch.pk}/activity/")
    row = page.locator("tr[data-expiry-annotator=ann_gone]")
    assert row.get_attribute("data-state") == "expired"
    until = (timezone.localdate() + timedelta(days=30)).isoformat()
    row.locator("input[name=until]").fill(until)
    row.locator("input[name=reason]").fill("体調不良で再訓練を延期")
    row.locator("button[type=submit]").click()
    page.wait_for_selector("tr[data-expiry-annotator=ann_gone][data-state=valid]")
    row = page.locator("tr[data-expiry-annotator=ann_gone]")
    assert until in row.locator("[data-expires]").inner_text() and "体調不良で再訓練を延期" in row.inner_text()
    row.scroll_into_view_if_needed()
    _shot(page, "activity-expiries-ja")
    extension = gone.qualification_extensions.get()
    assert extension.extended_by.username == "res_e2e" and extension.reason == "体調不良で再訓練を延期"
