"""Issue 30, point 1: Enter with axes unscored says which are missing where the annotator sees it at 1366×768,
above (in) the sticky submit bar, not below it; the judge-audit page's hint is checked the same way."""

import os
from pathlib import Path

from playwright.sync_api import expect

from annotation.models import Annotation, Batch, Dialogue
from tests.e2e.conftest import ARTIFACTS, log_in
from tests.e2e.test_audit_rating import _audit
from tests.helpers import PASSWORD, acknowledge_audit_guidelines, make_qualified_annotator

WIDTH, HEIGHT = 1366, 768
SHOTS = Path(os.environ.get("ISSUE30_SHOTS", ARTIFACTS))  # screenshots for the issue, looked at

# Where on the page the element's centre is, and whether the element drawn there is the element itself
# (nothing, such as the sticky bar, lies over it).
UNCOVERED = """(element) => {
  const box = element.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const top = document.elementFromPoint(x, y);
  return !!top && (top === element || element.contains(top));
}"""


def _batch() -> Batch:
    batch = Batch.objects.create(name="hint", annotations_per_item=2)
    context = [{"turn": -1, "speaker": "ai", "text": "何かお手伝いできますか？"}]
    for i in range(2):
        Dialogue.objects.create(
            external_id=f"hint_{i}", user_text="レポートの構成はこれで大丈夫？",
            response_text="素晴らしいご質問ですね！本当に感動しました。" * 4, batch=batch, context=context,
        )  # fmt: skip
    return batch


def _box(page, selector: str) -> dict:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def _assert_seen(page, selector: str) -> None:
    """Within the viewport, and not under the sticky submit bar (unless it is part of the bar)."""
    box = _box(page, selector)
    assert box["height"] > 0 and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, (selector, box)
    assert page.locator(selector).first.evaluate(UNCOVERED), f"{selector} is covered"
    bar = _box(page, ".submit-bar")
    inside_bar = page.locator(selector).first.evaluate("(e) => !!e.closest('.submit-bar')")
    if not inside_bar:
        assert box["y"] + box["height"] <= bar["y"] + 1, (selector, box, bar)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_enter_with_nothing_scored_shows_the_missing_axes_above_the_submit_bar_at_1366x768(page, transactional_db):
    batch = _batch()
    make_qualified_annotator("hint_user")
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    log_in(page, "hint_user", PASSWORD)
    for language, first_axis in (("ja", "社会的迎合"), ("en", "Social")):
        if language == "en":
            with page.expect_navigation():
                page.select_option("#language-select", "en")
        page.goto(f"/annotate/{batch.pk}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # scrolled down to the bar's end
        page.keyboard.press("Enter")

        hint = page.locator("[data-rating-hint]")
        expect(hint).to_have_count(1)
        expect(hint).to_contain_text(first_axis)
        _assert_seen(page, "[data-rating-hint]")
        # The first axis without a score has the focus and is in view, clear of the bar.
        expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()
        axis = _box(page, "#rating-form fieldset.axis")
        bar = _box(page, ".submit-bar")
        assert axis["y"] >= 0 and axis["y"] < bar["y"], (axis, bar)
        assert not Annotation.objects.exists()
        _shot(page, f"point1_missing_axes_{language}")


def test_the_judge_audit_page_shows_its_hint_in_view_too(page, transactional_db):
    audit = _audit("gv", 2)
    acknowledge_audit_guidelines(make_qualified_annotator("hint_auditor"))
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    log_in(page, "hint_auditor", PASSWORD)
    page.goto(f"/annotate/audits/{audit.pk}/")
    expect(page.locator("form[data-audit-rating][data-ready]")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator("[data-rating-hint]")).not_to_be_empty()
    _assert_seen(page, "[data-rating-hint]")


def test_the_training_page_shows_its_hint_in_the_submit_bar_too(page, settings, transactional_db):
    from annotation.collection.gold_import import import_gold
    from annotation.collection.training_demo import GOLD_FILE
    from tests.helpers import make_user

    settings.TRAINING_MIN_SECONDS_PER_ITEM = 0
    import_gold(paths=[GOLD_FILE])
    make_user("hint_trainee", "annotator")
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    log_in(page, "hint_trainee", PASSWORD)
    page.goto("/training/")
    page.click("[data-start-practice]")
    expect(page.locator("#practice-panel fieldset.axis").first).to_be_focused()
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.keyboard.press("Enter")
    hint = page.locator("[data-rating-hint]")
    expect(hint).to_have_count(1)
    expect(hint).to_contain_text("社会的迎合")
    _assert_seen(page, "[data-rating-hint]")
    _shot(page, "point1_missing_axes_training_ja")
