"""Issue 30, point 3: a researcher who chooses only one annotator for a batch with quota 2 is told, beside the quota
and by the Save button, that the batch would never complete, and saves it only with an explicit yes."""

import os
from pathlib import Path

from playwright.sync_api import expect

from annotation.models import Batch, Dialogue
from tests.e2e.conftest import ARTIFACTS, log_in
from tests.helpers import PASSWORD, make_qualified_annotator, make_user

SHOTS = Path(os.environ.get("ISSUE30_SHOTS", ARTIFACTS))  # screenshots for the issue, looked at


def _in_view(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768


def test_a_quota_over_the_chosen_annotators_is_warned_and_saved_only_when_confirmed(page, transactional_db):
    batch = Batch.objects.create(name="quota-trap", annotations_per_item=2)
    Dialogue.objects.create(external_id="q_0", user_text="質問", response_text="回答", batch=batch)
    annotator = make_qualified_annotator("annotator1")
    make_qualified_annotator("annotator2")
    make_user("res_quota", "researcher", password=PASSWORD)
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in(page, "res_quota", PASSWORD)
    for language in ("ja", "en"):
        if language == "en":
            with page.expect_navigation():
                page.select_option("#language-select", "en")
        page.goto(f"/research/batches/{batch.pk}/settings/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.check("input[name=restricted][value=True]")
        page.check(f"input[name=annotators][value='{annotator.pk}']")
        page.click("button[data-action=save-settings]")
        quota_error = page.locator("[data-field=annotations_per_item] .errorlist")
        expect(quota_error).to_contain_text("2" if language == "en" else "2 件")
        expect(page.locator("[data-warning=quota-confirm]")).to_be_visible()
        batch.refresh_from_db()
        assert not batch.restricted  # nothing saved without the yes
        page.locator("[data-warning=quota-confirm]").scroll_into_view_if_needed()
        assert _in_view(page, "[data-warning=quota-confirm]") and _in_view(page, "button[data-action=save-settings]")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"point3_quota_warning_{language}.png"))
        page.screenshot(path=str(SHOTS / f"point3_quota_warning_{language}_full.png"), full_page=True)

    page.check("input[name=confirm_quota]")
    page.click("button[data-action=save-settings]")
    page.wait_for_url(f"**/research/batches/{batch.pk}/")
    expect(page.locator("[data-warning=quota]")).to_be_visible()  # the batch page keeps saying so
    batch.refresh_from_db()
    assert batch.restricted and list(batch.annotators.all()) == [annotator] and batch.annotations_per_item == 2
