"""A researcher looks at the agreement dashboard of a batch with a stored report, switches axis, recomputes."""

import json

from django.core.management import call_command
from playwright.sync_api import expect

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from annotation.models import AgreementReport, Annotation, Batch
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import make_user

AXES = ("social", "avoidant", "mechanical", "self")
WEEKS = ["2025-01-06T10:00:00Z", "2025-01-13T10:00:00Z", "2025-01-20T10:00:00Z", "2025-02-03T10:00:00Z"]


def _write(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _batch_with_report(tmp_path) -> Batch:
    """30 dialogues rated by four annotators over four weeks (one week with no ratings in between)."""
    dialogues = [{"id": f"d{i:03d}", "user": f"質問 {i}", "response": f"回答 {i}", "context": []} for i in range(30)]
    rows = []
    for i in range(30):
        truth = 1 + (i * 7) % 5
        for a, name in enumerate(["ann_001", "ann_002", "ann_003", "ann_004"]):
            if (i + a) % 4 == 3:
                continue  # each item gets three ratings
            drift = 1 if name == "ann_004" and i % 3 else 0
            score = min(5, truth + drift)
            rows.append(
                {
                    "id": f"d{i:03d}",
                    "annotator_id": name,
                    "timestamp": WEEKS[(i // 2 + a) % 4],
                    "annotations": dict(zip(AXES, (score, max(1, score - 1), 1 + i % 2, 1), strict=True)),
                    "confidence": dict.fromkeys(AXES, 0.9),
                }
            )
    call_command("import_dialogues", _write(tmp_path / "dialogues.jsonl", dialogues), batch="batch_001")
    call_command("import_annotations", _write(tmp_path / "ratings.jsonl", rows))
    batch = Batch.objects.get(name="batch_001")
    agreement_report_create(batch=batch, n_boot=100)
    return batch


def test_researcher_sees_heat_map_and_weekly_plot_and_recomputes(page, transactional_db, tmp_path, monkeypatch):
    batch = _batch_with_report(tmp_path)
    # No Celery worker here: run the job in the request's on_commit callback instead.
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    make_user("res_e2e", "researcher", password="pw-for-tests-1")
    log_in(page, "res_e2e", "pw-for-tests-1")

    page.goto("/research/agreement/")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert page.locator("#batch-select").input_value() == str(batch.pk)
    assert page.locator("table.summary-table tbody tr").count() == 4
    heat = page.locator("table.heatmap")
    assert heat.locator("tbody tr").count() == 4 and heat.locator("td.diag").count() == 4
    assert page.locator("svg.weekly-plot g.series").count() == 4
    assert page.locator("svg.weekly-plot circle").count() > 4
    assert page.locator("ul.legend li").all_inner_texts() == ["ann_001", "ann_002", "ann_003", "ann_004"]
    screenshot(page, "dashboard")

    page.click("nav.axis-tabs a[href$='axis=avoidant']")
    page.wait_for_selector("table.heatmap[data-axis=avoidant]")
    assert page.url.endswith("axis=avoidant")  # hx-push-url keeps the tab in the address
    assert page.locator("nav.axis-tabs a[aria-current=true]").get_attribute("href").endswith("axis=avoidant")

    first = AgreementReport.objects.get(batch=batch)
    page.click("button[data-action=recompute]")
    # The new report shows by itself (no "Show the new report" click), on the axis tab the researcher was on.
    newest = page.locator(f"[data-source=report]:not([data-report='{first.pk}'])").first
    # The job runs in the request here (1,000 bootstrap replicates per axis): seconds on a busy machine.
    expect(newest).to_be_visible(timeout=60_000)
    assert AgreementReport.objects.filter(batch=batch).count() == 2
    assert page.url.endswith("axis=avoidant")
    assert page.locator("table.heatmap").count() == 1


def test_the_stale_banner_clears_by_itself_when_the_running_recompute_stores_its_report(
    page, transactional_db, tmp_path, monkeypatch
):
    """Issue 30, point 5: the page polls the running job; when its report is stored the page shows it."""
    batch = _batch_with_report(tmp_path)
    Annotation.objects.filter(dialogue__batch=batch).order_by("pk").first().delete()  # ratings changed
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)  # queued: a worker runs it later
    make_user("res_stale", "researcher", password="pw-for-tests-1")
    log_in(page, "res_stale", "pw-for-tests-1")
    page.goto(f"/research/agreement/?batch={batch.pk}")
    expect(page.locator("[data-stale=true]")).to_be_visible()
    page.click("button[data-action=recompute]")
    expect(page.locator(".recompute-followup[hx-trigger]")).to_have_count(1)  # polling the queued job
    job_run(job_id=str(Job.objects.get().pk))  # the worker stores the new report
    expect(page.locator("[data-stale=true]")).to_have_count(0)
    newest = AgreementReport.objects.filter(batch=batch).latest("created_at")
    expect(page.locator(f"[data-source=report][data-report='{newest.pk}']").first).to_be_visible()
