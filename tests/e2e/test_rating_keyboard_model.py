"""The rating page's one keyboard model (README "Keyboard", the page's shortcuts panel, static/js/rating.js):
a digit scores the focused axis and moves to the next; Tab (or ↓) right after a score stays where the score
moved to, so it never skips an axis; Shift+Tab (or ↑) goes back one. Every pattern the README and the panel
teach is typed with real key presses and must store what was typed, for every axis."""

import pytest
from playwright.sync_api import expect

from annotation.models import Annotation
from tests.e2e.conftest import ARTIFACTS, log_in, screenshot
from tests.e2e.test_rating_flow import _current_item, _make_batch, _wait_for_another_item
from tests.helpers import PASSWORD, make_qualified_annotator

PATTERNS = {
    # README: "3 2 1 1 Enter" (each digit moves on).
    "digits": ("3 2 1 1 Enter", {"social": 3, "avoidant": 2, "mechanical": 1, "self": 1}, {}),
    # README: "3 Tab 2 Tab 1 Tab 1 Enter" (a Tab right after a score does not move again).
    "digit-tab": ("3 Tab 2 Tab 1 Tab 1 Enter", {"social": 3, "avoidant": 2, "mechanical": 1, "self": 1}, {}),
    # README: "↓" works as Tab.
    "digit-down": (
        "3 ArrowDown 2 ArrowDown 1 ArrowDown 1 Enter",
        {"social": 3, "avoidant": 2, "mechanical": 1, "self": 1},
        {},
    ),
    # Tab after the last score stays on the last axis, so Enter still submits (not the shortcuts panel).
    "tab-after-last": ("4 Tab 5 Tab 3 Tab 2 Tab Enter", {"social": 4, "avoidant": 5, "mechanical": 3, "self": 2}, {}),
    # README: Shift+Tab (or ↑) goes back one axis to change its score.
    "shift-tab-back": (
        "3 2 Shift+Tab 4 1 ArrowUp 5 2 Enter",
        {"social": 3, "avoidant": 4, "mechanical": 5, "self": 2},
        {},
    ),
    # README: +/- change the focused axis' confidence, before its score (also after a Tab that stayed).
    "confidence": (
        "- 3 Tab - - 2 Tab 1 Tab - 1 Enter",
        {"social": 3, "avoidant": 2, "mechanical": 1, "self": 1},
        {"social": 0.9, "avoidant": 0.8, "mechanical": 1.0, "self": 0.9},
    ),
}


def _focused_axis(page) -> str | None:
    return page.evaluate("() => document.activeElement && document.activeElement.dataset.axis || null")


@pytest.mark.parametrize("name", list(PATTERNS))
def test_keyboard_pattern_stores_what_was_typed(page, transactional_db, name):
    keys, scores, confidences = PATTERNS[name]
    batch = _make_batch()
    user = make_qualified_annotator(f"kb_{name.replace('-', '_')}")
    log_in(page, user.username, PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    first = page.locator("#rating-form fieldset.axis").first
    expect(first).to_be_focused()  # the first axis has the focus on arrival
    item = _current_item(page)
    for key in keys.split():
        page.keyboard.press(key)
    _wait_for_another_item(page, item)
    stored = Annotation.objects.get(annotator=user, dialogue__external_id=item)
    assert stored.scores == scores
    for axis, value in confidences.items():
        assert getattr(stored, f"{axis}_confidence") == value, axis


def test_tab_never_skips_an_axis(page, transactional_db):
    """Where the focus is after each key of the Tab pattern: the axis to be scored next, never one further."""
    batch = _make_batch()
    make_qualified_annotator("kb_walk")
    log_in(page, "kb_walk", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()
    walk = [
        ("3", "avoidant"),
        ("Tab", "avoidant"),
        ("Tab", "mechanical"),  # a second Tab is a move of its own
        ("Shift+Tab", "avoidant"),
        ("2", "mechanical"),
        ("ArrowDown", "mechanical"),
        ("1", "self"),
        ("Tab", "self"),
        ("1", "self"),
        ("Tab", "self"),
    ]
    for key, axis in walk:
        page.keyboard.press(key)
        assert _focused_axis(page) == axis, (key, axis)
    # A click clears the "just scored" state: a Tab after it moves as usual.
    page.locator("#rating-form fieldset.axis[data-axis=social] legend").click()
    page.keyboard.press("Tab")
    assert _focused_axis(page) == "avoidant"


@pytest.mark.parametrize("language", ["ja", "en"])
def test_shortcuts_panel_teaches_the_model(page, transactional_db, language):
    batch = _make_batch()
    make_qualified_annotator(f"kb_panel_{language}")
    log_in(page, f"kb_panel_{language}", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    if language == "en":
        with page.expect_navigation():
            page.select_option("#language-select", "en")
    panel = page.locator("details.shortcuts")
    expected = {
        "ja": ("評点で移った軸にとどまります", "3、2、1、1"),
        "en": ("it stays where the score moved you", "3, 2, 1, 1"),
    }[language]
    for text in expected:
        expect(panel).to_contain_text(text)
    expect(panel.locator("[data-keys-example]")).to_contain_text("3 Tab 2 Tab 1 Tab 1 Enter")
    screenshot(page, f"rating-keyboard-page-{language}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / f"rating-keyboard-panel-{language}.png"))
