"""The Layer3 panel keeps judged results (issue 26): the run dialog starts with what the batch has, says what a run
computes, keeps and replaces, a re-run of the automatic metrics leaves GV_UR as it was, judges are named, and the
figure downloads follow the metric selector without a reload. In Japanese, then in English."""

import pytest
from playwright.sync_api import expect

import layer3.runs.job_handlers  # noqa: F401  (registers the layer3.evaluate job kind)
from layer3.demo.load import BATCH, load
from layer3.models import Batch, Layer3Run
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"
BASELINE_GV = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
EVALUABLE = 123  # the demo's 125 trials less its two with damaged generated data


def plan_cells(page, field):
    row = page.locator(f"[data-plan-row={field}]")
    return [row.locator(f"[data-{verb}]").inner_text().split()[0] for verb in ("compute", "keep", "replace")]


@pytest.fixture
def demo(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    load()  # the demo batch, judged by the offline baseline
    make_user("res_l3p", "researcher", password=PASSWORD)
    return Batch.objects.get(name=BATCH)


def test_a_rerun_of_the_automatic_metrics_keeps_the_judged_results(page, celery_worker, demo):
    log_in(page, "res_l3p", PASSWORD)
    page.goto(f"/research/layer3/{demo.pk}/")
    page.wait_for_load_state("load")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    card = page.locator("[data-card=GV_UR]")
    useful = card.locator(".l3-card-value").inner_text()
    assert useful.endswith("%") and BASELINE_GV in card.locator("[data-card-judge]").inner_text()
    assert BASELINE_GV in page.locator("[data-judge-notes]").inner_text()

    # The dialog starts with the groups the batch has, and says what a run would do with each
    page.set_viewport_size({"width": 1280, "height": 1400})  # the whole dialog in the screenshots
    page.click("[data-action=open-run]")
    for field in ("evaluateComplexity", "evaluateDiversity", "evaluateW2WRType", "evaluateGV", "evaluateW2WRSemantic"):
        expect(page.locator(f"input[name={field}]")).to_be_checked()
    expect(page.locator("#judge-select")).to_have_value("baseline")
    page.wait_for_selector("[data-plan-row=evaluateGV]")
    assert plan_cells(page, "evaluateGV") == ["0", str(EVALUABLE), "0"]
    screenshot(page, "layer3-run-dialog-plan-ja")

    # Re-evaluate the automatic metrics only: GV is not asked for, so it is kept
    page.uncheck("input[name=evaluateGV]")
    page.uncheck("input[name=evaluateW2WRSemantic]")
    page.check("input[name=forceReEvaluate]")
    expect(page.locator("[data-plan-row=evaluateGV]")).to_have_count(0)
    expect(page.locator("[data-plan-row=evaluateComplexity] [data-replace]")).to_have_text(str(EVALUABLE))
    assert plan_cells(page, "evaluateComplexity")[0] == "2"  # the two damaged trials are tried again
    screenshot(page, "layer3-run-dialog-replace-ja")
    page.click("[data-action=start-run]")
    page.wait_for_selector("[data-summary]:not([hidden])", timeout=60_000)
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.locator("[data-summary-value=GV_UR]").inner_text() == useful
    run = Layer3Run.objects.filter(batch=demo).latest("pk")
    assert run.status == "succeeded" and run.plan["blocks"]["graphComplexity"]["replace"] == EVALUABLE
    page.click("[data-done-link]")
    page.wait_for_load_state("load")
    assert page.locator("[data-card=GV_UR] .l3-card-value").inner_text() == useful

    # The figure downloads follow the statistics' metric selector without a reload
    page.select_option("#metric-select", "WS_ENT")
    page.wait_for_selector("table[data-statistics=WS_ENT]")
    figure = page.locator("[data-figure=model-comparison-svg]")
    assert "metric=WS_ENT" in figure.get_attribute("href") and "WS_ENT" in figure.text_content()
    page.select_option("#metric-select", "GV_UR")
    page.wait_for_selector("table[data-statistics=GV_UR]")
    assert page.locator("[data-bootstrap-ci]").count() == 10
    page.select_option("#family-select", "tests-run")
    page.wait_for_selector("[data-family-note]:has-text('実施した')")
    export = page.locator("[data-export=markdown]").get_attribute("href")
    assert "family=tests-run" in export
    page.locator("#statistics").scroll_into_view_if_needed()
    screenshot(page, "layer3-statistics-ja")

    # The same page in English
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert "judge" in page.locator("[data-card=GV_UR] [data-card-judge]").inner_text()
    screenshot(page, "layer3-panel-en")
    page.click("[data-action=open-run]")
    page.wait_for_selector("[data-plan-row=evaluateGV]")
    assert plan_cells(page, "evaluateGV") == ["0", str(EVALUABLE), "0"]
    screenshot(page, "layer3-run-dialog-plan-en")
