"""The whole annotation workflow in the browser (issue #16): a researcher creates a batch by upload with
quota 2 and two chosen annotators; both rate every item by keyboard as a Japanese IME delivers keys; the
researcher adjudicates the disputed item and downloads the consensus with the adjudicated value marked."""

import json
from pathlib import Path

from playwright.sync_api import expect

from annotation.models import Annotation, Batch
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator, make_user

# A key as a Japanese IME delivers it: the physical key in `code`, "Process" in `key`.
IME_KEY = """(code) => {
  const target = document.activeElement || document.body;
  target.dispatchEvent(new KeyboardEvent('keydown', {code, key: 'Process', bubbles: true, cancelable: true}));
}"""

DIALOGUES = [
    {"id": "wf_001", "user": "企画書を見てもらえますか？", "response": "完璧です！あなたは天才ですね。", "context": []},
    {"id": "wf_002", "user": "明日は雨ですか？", "response": "降水確率は60%です。傘をお持ちください。", "context": []},
    {"id": "wf_003", "user": "この関数の計算量は？", "response": "O(n log n) です。", "context": []},
]


def _new_page(browser, live_server, width=1400, height=900):
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    return context, context.new_page()


def _rate_everything_by_ime_keys(page, batch: Batch, social_first: int) -> list[str]:
    """Rate each item handed out: the first one with ``social_first`` on the social axis, the rest all 1."""
    page.goto(f"/annotate/{batch.pk}/")
    page.wait_for_load_state("load")
    page.evaluate("() => { window.__samePage = true; }")  # survives in-page swaps, not a page load
    rated = []
    while page.locator("[data-item-id]").count():
        item = page.locator("[data-item-id]").inner_text()
        expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()
        social = social_first if not rated else 1
        for code in (f"Digit{social}", "Digit1", "Numpad1", "Digit1"):
            page.evaluate(IME_KEY, code)
        page.evaluate(IME_KEY, "Enter")
        expect(page.locator(f"[data-item-id]:text-is('{item}')")).to_have_count(0)  # the next item, or none
        rated.append(item)
    assert page.evaluate("() => window.__samePage === true"), "Enter submitted in the page, without a reload"
    return rated


def test_researcher_sets_up_a_batch_annotators_rate_by_keyboard_and_a_dispute_is_adjudicated(
    browser, live_server, transactional_db, tmp_path
):
    make_user("res_wf", "researcher", password=PASSWORD)
    make_qualified_annotator("ann_wf_a")
    make_qualified_annotator("ann_wf_b")
    make_qualified_annotator("ann_wf_other")  # qualified, but not chosen for this batch
    upload = tmp_path / "冬の対話.jsonl"
    upload.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in DIALOGUES), encoding="utf-8")

    # The researcher creates the batch by upload, with quota 2, then chooses the two annotators
    context, page = _new_page(browser, live_server)
    log_in(page, "res_wf", PASSWORD)
    page.click("[data-nav=batches]")
    page.goto("/research/batches/new/")
    page.fill('input[name="name"]', "冬の対話")
    page.fill('input[name="annotations_per_item"]', "2")
    page.fill('input[name="guidelines_version"]', "v1.2")
    page.set_input_files('input[name="file"]', str(upload))
    page.click('button[data-action="create-batch"]')
    page.wait_for_load_state("networkidle")
    batch = Batch.objects.get(name="冬の対話")
    assert (batch.annotations_per_item, batch.dialogues.count()) == (2, 3)
    assert page.url.endswith(f"/research/batches/{batch.pk}/")
    page.goto(f"/research/batches/{batch.pk}/settings/")
    page.check('input[name="restricted"][value="True"]')
    for name in ("ann_wf_a", "ann_wf_b"):
        page.check(f'label.ws-check:has-text("{name}") input')
    page.click('button[data-action="save-settings"]')
    page.wait_for_load_state("networkidle")
    batch.refresh_from_db()
    assert batch.restricted and sorted(batch.annotators.values_list("username", flat=True)) == ["ann_wf_a", "ann_wf_b"]

    # The annotator who was not chosen does not see the batch
    other_context, other = _new_page(browser, live_server)
    log_in(other, "ann_wf_other", PASSWORD)
    other.goto("/annotate/")
    assert other.locator('[data-batch="冬の対話"]').count() == 0
    other_context.close()

    # Both chosen annotators rate every item by keyboard; B finds the first item extremely sycophantic
    for name, social_first in (("ann_wf_a", 1), ("ann_wf_b", 5)):
        annotator_context, annotator = _new_page(browser, live_server, 1366, 768)
        log_in(annotator, name, PASSWORD)
        assert _rate_everything_by_ime_keys(annotator, batch, social_first) == ["wf_001", "wf_002", "wf_003"]
        annotator_context.close()
    assert Annotation.objects.filter(dialogue__batch=batch).count() == 6  # the quota of 2, nothing more
    disputed = Annotation.objects.get(dialogue__external_id="wf_001", annotator__username="ann_wf_b")
    assert (disputed.social_score, disputed.avoidant_score, disputed.mechanical_score, disputed.self_score) == (
        5, 1, 1, 1,
    )  # fmt: skip

    # The researcher finds the dispute, adjudicates it and downloads the consensus
    page.goto(f"/research/batches/{batch.pk}/items/?disputed=1")
    expect(page.locator("tr[data-item]")).to_have_count(1)
    page.click('tr[data-item="wf_001"] a')
    page.wait_for_load_state("networkidle")
    page.select_option('select[name="social"]', "3")
    page.fill('textarea[name="reason"]', "二人の評価が割れたため、ガイドラインの例2に照らして中程度とする。")
    page.click('button[data-action="adjudicate"]')
    expect(page.locator('[data-adjudicated="social"]')).to_have_count(1)
    screenshot(page, "workflow-adjudicated")
    page.goto(f"/research/batches/{batch.pk}/")
    with page.expect_download() as download:
        page.click('[data-download="consensus"]')
    lines = [json.loads(line) for line in Path(download.value.path()).read_text(encoding="utf-8").splitlines()]
    by_id = {line["id"]: line for line in lines}
    # (the two annotators' social kappa is low, so the undecided items go to the rejected file on that axis)
    assert "wf_001" in by_id and all("adjudicated" not in line for line in lines if line["id"] != "wf_001")
    assert by_id["wf_001"]["annotations"]["social"] == 3
    assert by_id["wf_001"]["adjudicated"]["social"]["score"] == 3
    assert by_id["wf_001"]["adjudicated"]["social"]["reason"].startswith("二人の評価が割れたため")
    assert by_id["wf_001"]["adjudicated"]["social"]["by"] == "res_wf"
    context.close()
