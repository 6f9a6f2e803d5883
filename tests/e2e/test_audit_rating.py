"""Two annotators audit the LLM judge with the keyboard only: 0/1/2 then Enter on each of 12 items.

The stored ratings must be exactly what each of them typed, item by item; the page must never show
the judge's verdict. Screenshots of a GV and a W2WR item in Japanese and in English.
"""

from playwright.sync_api import expect

from annotation.models import AuditItem, AuditRating, JudgeAudit
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, acknowledge_audit_guidelines, make_qualified_annotator

N_ITEMS = 12
JUDGE_SECRET = "JUDGE-REASONING-NEVER-SHOWN"
CONCERNS = ("転職すべきか迷っている", "引っ越し先を決めたい", "資格の勉強が続かない")
VALUES = ("転職先に求める条件を書き出す", "今日の天気を確認する", "メリットとデメリット", "通勤時間と家賃の上限")

# A key as a Japanese IME delivers it: the physical key in `code`, "Process" in `key`.
DISPATCH = """([code]) => {
  const target = document.activeElement || document.body;
  target.dispatchEvent(new KeyboardEvent('keydown', {code, key: 'Process', bubbles: true, cancelable: true}));
}"""


def _audit(kind: str, n_items: int) -> JudgeAudit:
    audit = JudgeAudit.objects.create(
        name=f"e2e {kind}", kind=kind, source_batch="e2e-layer3", per_item=2,
        requested_size=n_items, seed=7, population=10 * n_items,
    )  # fmt: skip
    for n in range(n_items):
        concern = CONCERNS[n % len(CONCERNS)]
        if kind == "gv":
            items = [{"id": f"i{k}", "text": VALUES[(n + k) % len(VALUES)], "isGenerated": True} for k in range(3)]
            widget = {"id": "w2", "component": "brainstorm_cards", "config": {"title": "ステップ2", "items": items}}
            context = {
                "concern": concern, "trialId": f"A-{n:05d}", "itemId": "i0", "widgetId": "w2",
                "widgetType": "brainstorm_cards", "portId": "items", "text": items[0]["text"], "widget": widget,
            }  # fmt: skip
        else:
            source = {"id": "w1", "component": "brainstorm_cards", "config": {"title": "発散", "items": []}}
            context = {
                "concern": concern, "trialId": f"B-{n:05d}", "bindingId": f"b{n}",
                "description": "ブレストで出したアイデアを優先度マトリクスで並べ替える",
                "source": {"widget": "w1", "type": "brainstorm_cards", "port": "items", "config": source},
                "target": {"widget": "w3", "type": "priority_matrix", "port": "input", "config": None},
            }  # fmt: skip
        AuditItem.objects.create(
            audit=audit, key=f"t{n}:u{n}", trial_id=f"t{n}", model_config="A", context=context,
            judge_model="judge", judge_prompt="p@1", judge_score=n % 3, judge_label="useful",
            judge_reasoning=JUDGE_SECRET, baseline_score=1, stratum=["A", n % 3], weight=3.5,
        )  # fmt: skip
    return audit


def _item(page) -> str:
    return page.locator("[data-item-id]").get_attribute("data-item-id")


def _rate_all(page, audit, scores: list[int], *, ime: bool = False) -> dict[int, int]:
    """Rate every item the queue hands out, typing the next score of ``scores`` then Enter; {item id: score}."""
    page.goto(f"/annotate/audits/{audit.pk}/")
    typed: dict[int, int] = {}
    for score in scores:
        item = _item(page)
        assert JUDGE_SECRET not in page.content()
        if ime:
            page.evaluate(DISPATCH, [f"Digit{score}"])
            page.evaluate(DISPATCH, ["Enter"])
        else:
            page.keyboard.press(str(score))
            page.keyboard.press("Enter")
        typed[int(item)] = score
        # the next item is swapped in, or the "nothing left" card
        expect(page.locator(f'[data-item-id="{item}"]')).to_have_count(0)
    return typed


def test_two_annotators_rate_an_audit_by_keyboard_and_the_ratings_are_what_they_typed(
    page, browser, live_server, transactional_db
):
    audit = _audit("gv", N_ITEMS)
    first, second = make_qualified_annotator("audit_a"), make_qualified_annotator("audit_b")
    for user in (first, second):
        acknowledge_audit_guidelines(user)
    scores_a = [n % 3 for n in range(N_ITEMS)]
    scores_b = [(2 * n + 1) % 3 for n in range(N_ITEMS)]

    log_in(page, "audit_a", PASSWORD)
    page.goto("/annotate/")
    expect(page.locator(f'a[data-audit="{audit.pk}"]')).to_be_visible()
    typed_a = _rate_all(page, audit, scores_a)
    expect(page.locator("[data-audit-state=done]")).to_be_visible()

    other = browser.new_context(base_url=live_server.url, locale="ja-JP", viewport={"width": 1280, "height": 800})
    other.set_default_timeout(10_000)
    page_b = other.new_page()
    try:
        log_in(page_b, "audit_b", PASSWORD)
        typed_b = _rate_all(page_b, audit, scores_b[:6])
        typed_b.update(_rate_all(page_b, audit, scores_b[6:], ime=True))  # the same keys with a Japanese IME on
        expect(page_b.locator("[data-audit-state=done]")).to_be_visible()
    finally:
        other.close()

    for user, typed in ((first, typed_a), (second, typed_b)):
        stored = {r.item_id: r.score for r in AuditRating.objects.filter(annotator=user)}
        assert len(typed) == N_ITEMS and stored == typed
        assert all(r.seconds_spent is not None for r in AuditRating.objects.filter(annotator=user))
    assert sorted(AuditItem.objects.filter(audit=audit).values_list("taken_count", flat=True)) == [2] * N_ITEMS


def test_screenshots_of_gv_and_w2wr_items_in_japanese_and_english(page, transactional_db):
    gv, w2wr = _audit("gv", 2), _audit("w2wr", 2)
    acknowledge_audit_guidelines(make_qualified_annotator("audit_shots"))
    log_in(page, "audit_shots", PASSWORD)
    for language in ("ja", "en"):
        if language == "en":
            with page.expect_navigation():
                page.select_option("#language-select", "en")
        for audit in (gv, w2wr):
            page.goto(f"/annotate/audits/{audit.pk}/")
            expect(page.locator("html")).to_have_attribute("lang", language)
            page.keyboard.press("1")
            expect(page.locator("fieldset.audit-scale input[value='1']")).to_be_checked()
            assert JUDGE_SECRET not in page.content()
            screenshot(page, f"audit_{audit.kind}_{language}")
        page.goto("/annotate/")
        screenshot(page, f"audit_queue_{language}")
    page.goto(f"/annotate/audits/{gv.pk}/")
    page.keyboard.press("Enter")  # no score chosen on this page yet: nothing is sent, the hint says why
    expect(page.locator("[data-rating-hint]")).not_to_be_empty()
    assert not AuditRating.objects.exists()
    item = _item(page)
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    expect(page.locator(f'[data-item-id="{item}"]')).to_have_count(0)
    page.goto("/annotate/audits/history/")
    page.click("[data-audit-rating-row] a[href$='/edit/']")
    expect(page.locator("form[data-audit-rating][data-ready]")).to_have_count(1)  # its keys are listened to
    page.keyboard.press("0")
    page.fill("input[name=reason]", "reconsidered")
    screenshot(page, "audit_edit_en")
    page.keyboard.press("Enter")
    page.wait_for_url("**/annotate/audits/history/#audit-rating-*")
    screenshot(page, "audit_history_en")
    assert list(AuditRating.objects.values_list("score", flat=True)) == [0]
