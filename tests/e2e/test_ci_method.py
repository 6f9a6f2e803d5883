"""A researcher reads how the dashboard's CIs were computed, sees the coverage warning and switches to BCa."""

import json
import os
from pathlib import Path

import numpy as np
from django.core.management import call_command

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from annotation.aggregation.agreement.coverage import simulate_ratings
from annotation.models import AgreementReport, Batch
from annotation.services import agreement_report_create
from core.job_runner import job_run
from tests.e2e.conftest import log_in
from tests.helpers import make_user

AXES = ("social", "avoidant", "mechanical", "self")
SHOTS = Path(os.environ.get("CI_METHOD_SHOTS", Path(__file__).resolve().parent.parent / "artifacts"))


def _write(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _batch(tmp_path) -> Batch:
    """80 items, each rated by 3 of 5 annotators (the issue's design), with a stored report of 1,000 replicates."""
    n = 80
    dialogues = [{"id": f"d{i:03d}", "user": f"質問 {i}", "response": f"回答 {i}", "context": []} for i in range(n)]
    rng = np.random.default_rng(11)
    social = simulate_ratings(rng, n, 5, 3)
    scores = {axis: social for axis in AXES}  # every axis as the model rates it
    rated = social > 0
    rows = [
        {
            "id": f"d{i:03d}",
            "annotator_id": f"ann_{r + 1:03d}",
            "timestamp": "2025-01-06T10:00:00Z",
            "annotations": {axis: max(1, int(scores[axis][i, r])) for axis in AXES},
            "confidence": dict.fromkeys(AXES, 0.9),
        }
        for i in range(n)
        for r in range(5)
        if rated[i, r]
    ]
    call_command("import_dialogues", _write(tmp_path / "dialogues.jsonl", dialogues), batch="batch_080")
    call_command("import_annotations", _write(tmp_path / "ratings.jsonl", rows))
    batch = Batch.objects.get(name="batch_080")
    agreement_report_create(batch=batch)
    return batch


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # the statement 300 px below the top of the window, with the axis table above it
    page.evaluate(
        "window.scrollTo(0, document.querySelector('.ci-method').getBoundingClientRect().top + scrollY - 300)"
    )
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_the_dashboard_states_the_ci_method_warns_and_switches_to_bca(browser, live_server, transactional_db,
                                                                      tmp_path, monkeypatch):  # fmt: skip
    batch = _batch(tmp_path)
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    make_user("res_ci", "researcher", password="pw-for-tests-1")
    context = browser.new_context(base_url=live_server.url, locale="en-US", viewport={"width": 1366, "height": 768})
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        log_in(page, "res_ci", "pw-for-tests-1")
        page.goto(f"/research/agreement/?batch={batch.pk}")
        statement = page.locator("[data-ci-statement]")
        assert "κ の 95% 信頼区間：パーセンタイル・ブートストラップ、反復 1000 回" in statement.inner_text()
        warning = page.locator("[data-ci-warning]")
        assert warning.is_visible() and "93.0% 未満" in warning.inner_text()
        coverage = float(page.locator("[data-ci-coverage]").get_attribute("data-ci-coverage"))
        assert 0.87 <= coverage <= 0.91
        _shot(page, "dashboard-ci-method-ja")

        context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
        page.goto(f"/research/agreement/?batch={batch.pk}")
        assert "95% CI of κ: percentile bootstrap, 1000 replicates, resampling unit: items" in statement.inner_text()
        assert "is under 93.0%" in warning.inner_text()
        _shot(page, "dashboard-ci-method-en")

        before = AgreementReport.objects.filter(batch=batch).count()
        page.click("button[data-action=ci-bca]")
        page.wait_for_selector("#recompute-result a.button-link")
        assert AgreementReport.objects.filter(batch=batch).count() == before + 1
        page.click("#recompute-result a.button-link")
        page.wait_for_selector(".ci-method[data-ci-method=bca]")
        assert "BCa bootstrap (bias-corrected and accelerated), 1000 replicates" in statement.inner_text()
        assert page.locator("button[data-action=ci-percentile]").is_visible()
        _shot(page, "dashboard-ci-method-bca-en")
        context.add_cookies([{"name": "django_language", "value": "ja", "url": live_server.url}])
        page.reload()
        assert "BCa ブートストラップ（バイアス補正・加速）" in statement.inner_text()
        _shot(page, "dashboard-ci-method-bca-ja")
    finally:
        context.close()
