"""A researcher runs a Layer3 evaluation of the demo batch from the panel and follows it over SSE (issue #14)."""

import csv
import io
import time
from pathlib import Path

import pytest

import layer3.runs.job_handlers  # noqa: F401  (registers the layer3.evaluate job kind)
from layer3.demo.load import BATCH, load
from layer3.models import Batch, Layer3Run
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

PASSWORD = "pw-for-tests-1"


@pytest.fixture
def slow_chunks(monkeypatch, settings):
    """Small judged chunks that take a moment each, so the run lasts a few seconds and progress is visible."""
    import layer3.runs.job_handlers as handlers

    store = handlers.store_chunk

    def slowly(run, outcome):
        time.sleep(0.5)
        store(run, outcome)

    settings.LAYER3_JUDGED_CHUNK_SIZE = 10
    monkeypatch.setattr(handlers, "store_chunk", slowly)


def test_researcher_runs_the_baseline_judge_from_the_modal_and_watches_it(
    page, celery_worker, slow_chunks, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    load()  # the demo batch, evaluated once already
    batch = Batch.objects.get(name=BATCH)
    make_user("res_l3", "researcher", password=PASSWORD)
    log_in(page, "res_l3", PASSWORD)

    page.click("[data-nav=layer3]")
    assert page.locator(f"a:text-is('{BATCH}')").count() == 1
    screenshot(page, "layer3-batches")
    page.click(f"a:text-is('{BATCH}')")
    page.wait_for_load_state("load")  # the dialog's script and htmx are bound once the page has loaded
    assert page.locator("[data-card=GV_UR] .l3-card-value").inner_text().endswith("%")
    screenshot(page, "layer3-panel")

    # The run modal: baseline judge (no endpoint here), both judged metrics, re-evaluate everything
    page.click("[data-action=open-run]")
    page.check("input[name=evaluateGV]")
    page.check("input[name=evaluateW2WRSemantic]")
    page.check("input[name=forceReEvaluate]")
    page.wait_for_selector("#estimate:has-text('125') [data-cost]")
    assert page.locator("#estimate [data-cost]").inner_text() == "¥0"
    assert page.locator("#judge-select").input_value() == "baseline"
    page.click("[data-action=start-run]")

    progress = page.locator(".l3-progress")
    page.wait_for_function("() => Number(document.querySelector('.l3-progress')?.dataset.progressEvents || 0) >= 1")
    screenshot(page, "layer3-modal-in-progress")
    page.wait_for_selector("[data-summary]:not([hidden])", timeout=60_000)
    events = int(progress.get_attribute("data-progress-events"))
    assert events >= 2, "the bar advanced in steps over SSE"
    assert page.evaluate("document.querySelector('[data-progress]').value") == 100
    seen = [float(value) for value in progress.get_attribute("data-progress-seen").split()]
    assert seen[0] < 100 and seen == sorted(seen) and seen[-1] == 100  # the bar advanced, never backwards
    assert progress.get_attribute("data-status") == "succeeded"
    assert page.locator("[data-error-count]").inner_text() == "2"  # the demo's two damaged trials, as they happened
    shown = page.locator("[data-errors] li").all_inner_texts()
    assert len(shown) == 2 and all("受け付ける形式" in text and "accepted" not in text for text in shown), shown
    assert page.locator("[data-summary-value=GV_UR]").inner_text().endswith("%")
    screenshot(page, "layer3-modal-complete")
    run = Layer3Run.objects.filter(batch=batch).latest("pk")
    assert (run.status, run.evaluated_count + run.error_count) == ("succeeded", 125)

    # Back on the page: cards and tables are filled; switch the statistics metric
    page.click("[data-done-link]")
    page.wait_for_load_state("load")
    assert page.locator("[data-card=W2WR_CR] .l3-card-value").inner_text().endswith("%")
    assert page.locator("#models tbody tr").count() == 5
    page.select_option("#metric-select", "WS_ENT")
    page.wait_for_selector("table[data-statistics=WS_ENT]")
    assert page.locator("table[data-statistics=WS_ENT] tbody tr").count() == 10

    # Downloads: the CSV export and a figure
    page.click(".l3-menu summary")
    with page.expect_download() as csv_download:
        page.click("[data-export=csv]")
    rows = list(csv.reader(io.StringIO(Path(csv_download.value.path()).read_text(encoding="utf-8-sig"))))
    assert len(rows) > 1 and len({len(row) for row in rows}) == 1
    with page.expect_download() as figure_download:
        page.click("[data-figure=model-comparison-svg]")
    assert figure_download.value.suggested_filename.endswith(".svg")
    assert Path(figure_download.value.path()).read_bytes().lstrip().startswith(b"<?xml")

    # The drill-down of the first trial
    page.goto(f"/research/layer3/{batch.pk}/trials/")
    page.click("tbody tr th a >> nth=0")
    assert page.locator(".trial-graph svg, svg").first.is_visible()
    assert page.locator("[data-table=gv-items] tbody tr").count() >= 1
    screenshot(page, "layer3-trial")
