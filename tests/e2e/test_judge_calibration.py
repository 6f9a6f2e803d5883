"""The judge calibration loop end to end (issue 18): judge a Layer3 batch with an LLM, audit it, rate, read the card.

Everything runs through the real stack: trials imported and judged by ``evaluate_layer3 --judge llm``
against the fake OpenAI server, the audit drawn from the researcher's form on the Layer3 batch page,
two annotators rating its 12 items by keyboard, and the calibration card read back from the page.
The card's figures are then checked against scikit-learn on the scores the test itself typed.
"""

import re
import zlib
from collections import Counter

import pytest
from django.core.management import call_command
from playwright.sync_api import expect
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from annotation.models import AuditItem, AuditRating, JudgeAudit
from layer3.demo.generator import generate_trials
from layer3.models import Batch
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_audit_rating import _item, _rate_all
from tests.fakes.openai_server import Reply
from tests.helpers import PASSWORD, acknowledge_audit_guidelines, make_qualified_annotator, make_user
from tests.layer3.conftest import write_trials
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

BATCH = "calibration-e2e"
LABELS = [0, 1, 2]
GV_LABELS = ("not_relevant", "generic", "useful")
GENERATED = re.compile(r"生成されたサンプル値:\s*```\n(.*?)\n```", re.S)

# What annotators a and b give the four items the judge scored 0, 1 or 2, in (model config, item id) order:
# agreements and disagreements with the judge and with each other, so that no figure is trivial.
HUMAN_SCORES = {
    0: [(0, 0), (0, 0), (0, 1), (1, 1)],
    1: [(1, 1), (2, 1), (1, 2), (0, 0)],
    2: [(2, 2), (2, 1), (1, 1), (2, 2)],
}


def _verdict(request: dict) -> Reply:
    """A fake GV judge whose verdict is a fixed function of the item's text, so both configs get 0, 1 and 2."""
    text = GENERATED.search(request["messages"][-1]["content"]).group(1)
    score = zlib.crc32(text.encode()) % 3
    return Reply.json({"score": score, "label": GV_LABELS[score], "reasoning": f"fake verdict on {text}"})


@pytest.fixture
def judged_batch(transactional_db, fake_llm, settings, tmp_path):  # noqa: F811 - the fixture imported above
    """Six trials of model configs A and B, GV judged by the (fake) LLM; every (config, score) has ≥ 2 items."""
    settings.VAR_DIR = tmp_path
    trials = write_trials(tmp_path / "trials.jsonl", generate_trials(6, seed=7, model_configs="AB", broken_share=0))
    call_command("import_trials", str(trials), "--batch", BATCH)
    fake_llm.default_reply = _verdict
    call_command("evaluate_layer3", BATCH, "--judge", "llm", "--yes")
    batch = Batch.objects.get(name=BATCH)
    strata = Counter(
        (trial.model_config, evaluation["score"])
        for trial in batch.trials.all()
        for evaluation in trial.layer3_metrics["generatedValueRelevance"]["itemEvaluations"]
    )
    assert sorted(strata) == [(c, s) for c in "AB" for s in LABELS] and min(strata.values()) >= 2, strata
    return batch


def _planned_scores(audit: JudgeAudit) -> dict[int, tuple[int, int]]:
    """{item id: (a's score, b's score)} from ``HUMAN_SCORES``: the audit holds 2 items per (config, score)."""
    planned = {}
    for score, pairs in HUMAN_SCORES.items():
        items = AuditItem.objects.filter(audit=audit, judge_score=score).order_by("model_config", "pk")
        assert [item.model_config for item in items] == ["A", "A", "B", "B"]
        planned.update({item.pk: pair for item, pair in zip(items, pairs, strict=True)})
    return planned


def _scores_for(page, planned: dict[int, tuple[int, int]], rater: int):
    """The score ``rater`` (0: a, 1: b) gives each item, read off the page as the queue hands it out."""
    for _ in planned:
        yield planned[int(_item(page))][rater]


def _kappa(x, y) -> float:
    return cohen_kappa_score(x, y, weights="quadratic", labels=LABELS)


def _value(text: str) -> str:
    """``0.71`` from ``0.71 [0.64, 0.78]``, after checking the interval's form."""
    match = re.fullmatch(r"(-?\d\.\d\d) \[(-?\d\.\d\d), (-?\d\.\d\d)\]", " ".join(text.split()))
    assert match, text
    assert float(match[2]) <= float(match[3])
    return match[1]


def _rate_in_own_browser(browser, live_server, username, audit, scores_of) -> dict[int, int]:
    context = browser.new_context(base_url=live_server.url, locale="ja-JP", viewport={"width": 1280, "height": 800})
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        log_in(page, username, PASSWORD)
        typed = _rate_all(page, audit, scores_of(page))
        expect(page.locator("[data-audit-state=done]")).to_be_visible()
        return typed
    finally:
        context.close()


def test_two_annotators_rate_an_audit_and_the_calibration_card_equals_a_direct_computation(
    page, browser, live_server, transactional_db, judged_batch
):
    make_user("cal_researcher", "researcher")
    first, second = make_qualified_annotator("cal_a"), make_qualified_annotator("cal_b")
    for user in (first, second):
        acknowledge_audit_guidelines(user)  # the audit's own short guidelines, read once

    # The researcher draws a GV audit of 12 items, rated twice each, from the batch page
    log_in(page, "cal_researcher", PASSWORD)
    page.goto(f"/research/layer3/{judged_batch.pk}/")
    expect(page.locator("[data-calibration-empty]")).to_be_visible()
    form = page.locator("[data-audit-form]")
    form.locator("select[name=kind]").select_option("gv")
    form.locator("input[name=size]").fill("12")
    form.locator("input[name=per_item]").fill("2")
    form.locator("[data-action=create-audit]").click()
    page.wait_for_url(f"**/research/layer3/{judged_batch.pk}/#calibration")  # back where the form was
    expect(page.locator(".message-success")).to_have_count(1)
    expect(page.locator("[data-calibration=gv] [data-calibration-waiting]")).to_be_visible()  # nobody rated yet
    audit = JudgeAudit.objects.get()
    assert (audit.kind, audit.source_batch, audit.per_item) == ("gv", BATCH, 2)
    assert AuditItem.objects.filter(audit=audit).count() == 12
    assert {tuple(item.stratum) for item in audit.items.all()} == {(c, s) for c in "AB" for s in LABELS}
    assert {item.judge_model for item in audit.items.all()} == {"fake-model"}
    assert all(item.baseline_score is not None for item in audit.items.all())  # the floor

    # Two annotators rate every item by keyboard, each in a browser of their own
    planned = _planned_scores(audit)
    typed_a = _rate_in_own_browser(browser, live_server, "cal_a", audit, lambda p: _scores_for(p, planned, 0))
    typed_b = _rate_in_own_browser(browser, live_server, "cal_b", audit, lambda p: _scores_for(p, planned, 1))
    assert typed_a == {pk: pair[0] for pk, pair in planned.items()}
    assert typed_b == {pk: pair[1] for pk, pair in planned.items()}
    for user, typed in ((first, typed_a), (second, typed_b)):
        assert dict(AuditRating.objects.filter(annotator=user).values_list("item_id", "score")) == typed

    # The direct computation, over the items in one order
    items = list(audit.items.order_by("pk"))
    judge = [item.judge_score for item in items]
    floor = [item.baseline_score for item in items]
    a = [typed_a[item.pk] for item in items]
    b = [typed_b[item.pk] for item in items]
    human_kappa = _kappa(a, b)
    judge_kappa = (_kappa(judge, a) + _kappa(judge, b)) / 2  # both rated all 12: the n-weighted mean is plain
    floor_kappa = (_kappa(floor, a) + _kappa(floor, b)) / 2
    agreed = [(j, x) for j, x, y in zip(judge, a, b, strict=True) if x == y]  # two ratings: consensus iff equal
    on_consensus = [j for j, _ in agreed], [c for _, c in agreed]
    assert 0 < human_kappa < 1 and 0 < judge_kappa < 1 and 0 < len(agreed) < 12  # nothing trivial

    # The researcher's card shows the same figures
    page.goto(f"/research/layer3/{judged_batch.pk}/")
    card = page.locator("[data-calibration=gv]")
    expect(card).to_have_attribute("data-audit", str(audit.pk))
    assert _value(card.locator("[data-judge-kappa]").inner_text()) == f"{judge_kappa:.2f}"
    assert card.locator("[data-human-kappa]").inner_text().strip() == f"{human_kappa:.2f}"
    rows = card.locator("[data-judges] tbody tr")
    expect(rows).to_have_count(2)
    judge_row, floor_row = rows.nth(0).locator("td"), rows.nth(1).locator("td")
    assert _value(judge_row.nth(0).inner_text()) == f"{judge_kappa:.2f}"  # vs every human rating
    assert judge_row.nth(1).inner_text() == str(len(agreed))  # n: items with a consensus
    assert _value(judge_row.nth(2).inner_text()) == f"{_kappa(*on_consensus):.2f}"
    exact = sum(j == c for j, c in agreed) / len(agreed)
    assert judge_row.nth(4).inner_text().split(" [")[0] == f"{100 * exact:.1f}%"
    expect(rows.nth(1)).to_have_attribute("data-floor", "")
    # the floor's items are drawn at random: a tolerance instead of a rounding tie decided by the last bit
    assert float(_value(floor_row.nth(0).inner_text())) == pytest.approx(floor_kappa, abs=0.005 + 1e-9)
    pair = card.locator("[data-humans] .l3-cal-pair td")
    assert _value(pair.inner_text()) == f"{human_kappa:.2f}"
    for row, (name, scores) in enumerate((("cal_a", a), ("cal_b", b))):
        cells = card.locator("[data-annotators] tbody tr").nth(row)
        assert cells.locator("th").inner_text() == name
        assert _value(cells.locator("td").nth(1).inner_text()) == f"{_kappa(judge, scores):.2f}"
    counts = [int(n) for n in card.locator("[data-confusion] td[data-count]").evaluate_all(
        "cells => cells.map(cell => cell.dataset.count)"
    )]  # fmt: skip
    assert counts == confusion_matrix(*on_consensus, labels=LABELS).ravel().tolist()
    disagreeing = sum(j != x and j != y for j, x, y in zip(judge, a, b, strict=True))
    expect(card.locator("[data-disagreement]")).to_have_count(disagreeing)

    # Screenshots of the filled card in Japanese, then in English
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    card.scroll_into_view_if_needed()
    screenshot(page, "calibration_card_ja")
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert _value(page.locator("[data-calibration=gv] [data-judge-kappa]").inner_text()) == f"{judge_kappa:.2f}"
    screenshot(page, "calibration_card_en")
