"""Issue 30 points 2 and 7 as a person sees them at 1366×768.

An annotator who has not passed the sycophancy qualification finds the open judge audit on /annotate/,
reads its guidelines once and rates (README, Judge calibration); the item is numbered "項目 n / N"; the
skip reason is the skip's (labelled and grouped with its button, apart from 送信), on the audit page and
on the sycophancy rating page.
"""

from playwright.sync_api import expect

from annotation.models import Assignment, AuditItem, AuditRating, Batch, Dialogue, JudgeAudit
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator, make_user

N_ITEMS = 30


def _w2wr_audit() -> JudgeAudit:
    JudgeAudit.objects.create(
        name="older", kind="gv", source_batch="x", per_item=1, requested_size=1, seed=1, population=1,
        status=JudgeAudit.Status.CLOSED,
    )  # fmt: skip
    audit = JudgeAudit.objects.create(
        name="demo · W2WR audit", kind="w2wr", source_batch="x", per_item=2, requested_size=N_ITEMS, seed=1,
        population=100,
    )  # fmt: skip
    for n in range(N_ITEMS):
        context = {
            "concern": "引っ越し先を決めたい", "trialId": f"B-{n:05d}", "bindingId": f"b{n}",
            "description": "ブレストで出したアイデアを優先度マトリクスで並べ替える",
            "source": {"widget": "w1", "type": "brainstorm_cards", "port": "items", "config": None},
            "target": {"widget": "w3", "type": "priority_matrix", "port": "input", "config": None},
        }  # fmt: skip
        AuditItem.objects.create(
            audit=audit, key=f"t{n}:b{n}", trial_id=f"t{n}", model_config="A", context=context, judge_model="j",
            judge_prompt="p@1", judge_score=n % 3, stratum=["A", n % 3], weight=1.0, position=n + 1,
        )  # fmt: skip
    return audit


def _skip_group_is_apart_from_submit(page) -> None:
    """The reason's label reads スキップの理由（任意）, and label, box and スキップ share one box right of 送信."""
    label = page.locator("#skip-form label[data-skip-reason]")
    expect(label).to_have_text("スキップの理由（任意）")
    expect(label).to_be_visible()
    submit = page.locator("#submit-rating").bounding_box()
    group = page.locator("#skip-form").bounding_box()
    box = page.locator("#skip-reason").bounding_box()
    skip = page.locator("#skip-form button[type=submit]").bounding_box()
    # not between 送信 and スキップ any more: the whole group after 送信 (beside it, or on the row below)
    assert group["x"] >= submit["x"] + submit["width"] or group["y"] >= submit["y"] + submit["height"]
    for inner in (box, skip, label.bounding_box()):
        assert group["x"] <= inner["x"] and inner["x"] + inner["width"] <= group["x"] + group["width"] + 0.5
    assert page.locator("#skip-reason").evaluate("e => e.labels[0].textContent") == "スキップの理由（任意）"


def test_an_annotator_not_qualified_reads_the_audit_guidelines_and_rates_item_n_of_30(laptop_page, transactional_db):
    page = laptop_page
    audit = _w2wr_audit()
    user = make_user("annotator2", "annotator")
    log_in(page, "annotator2", PASSWORD)
    page.goto("/annotate/")
    expect(page.locator("[data-qualification-needed]")).to_be_visible()
    screenshot(page, "e_annotate_unqualified_ja")
    page.click(f'a[data-audit="{audit.pk}"]')
    expect(page.locator("[data-audit-guidelines-page]")).to_be_visible()
    screenshot(page, "e_audit_guidelines_ja")
    page.click("[data-guidelines-read]")
    expect(page.locator("[data-item-position]")).to_have_text("1")
    expect(page.locator(".item-line")).to_have_text("項目 1 / 30")
    _skip_group_is_apart_from_submit(page)
    screenshot(page, "e_audit_item_ja")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    expect(page.locator(".item-line")).to_have_text("項目 2 / 30")
    assert AuditRating.objects.get(annotator=user).item.position == 1
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    expect(page.locator(".item-line")).to_have_text("Item 2 of 30")
    expect(page.locator("#skip-form label[data-skip-reason]")).to_have_text("Reason for skipping (optional)")
    screenshot(page, "e_audit_item_en")


def test_the_skip_reason_on_the_sycophancy_rating_page_belongs_to_the_skip(laptop_page, transactional_db):
    page = laptop_page
    batch = Batch.objects.create(name="syco")
    for n in (1, 2):
        Dialogue.objects.create(external_id=f"d-00{n}", user_text="転職すべきか迷っています",
                                response_text="素晴らしい考えです", batch=batch)  # fmt: skip
    make_qualified_annotator("ann")
    log_in(page, "ann", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    first = page.locator("[data-item-id]").inner_text()
    _skip_group_is_apart_from_submit(page)
    screenshot(page, "e_queue_skip_ja")
    page.fill("#skip-reason", "文脈が足りない")
    page.click("#skip-form button[type=submit]")
    expect(page.locator("[data-toast] [data-undo]")).to_be_visible()
    assert Assignment.objects.get(dialogue__external_id=first).skip_reason == "文脈が足りない"
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    page.goto(f"/annotate/{batch.pk}/")
    expect(page.locator("#skip-form label[data-skip-reason]")).to_have_text("Reason for skipping (optional)")
    screenshot(page, "e_queue_skip_en")
