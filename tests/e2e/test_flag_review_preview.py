"""Issue 30, point 4: before accepting a "too fast" flag the reviewer sees, on the confirmation page, which items
leave (and join) the consensus and the consensus and κ figures now → after; the decision recomputes the report."""

import json
import os
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

import annotation.job_handlers  # noqa: F401  (registers the agreement report job)
from annotation.models import AgreementReport, Batch, QualityFlag
from core.job_runner import job_run
from tests.annotation.conftest import dialogue, rating
from tests.e2e.conftest import ARTIFACTS, log_in
from tests.helpers import PASSWORD, make_user

SHOTS = Path(os.environ.get("ISSUE30_SHOTS", ARTIFACTS))  # screenshots for the issue, looked at


def _batch(tmp_path) -> Batch:
    """30 items: ann_001 and ann_003 rate all, ann_002 the first 17; ann_003 was too fast."""
    path = tmp_path / "d.jsonl"
    path.write_text("".join(f"{json.dumps(dialogue(i), ensure_ascii=False)}\n" for i in range(30)))
    call_command("import_dialogues", str(path), batch="speed")
    rows = []
    for i in range(30):
        truth = (1 + i % 5, 1 + (2 * i) % 5, 1 + (i + 1) % 3, 1 + i % 2)
        for name in ("ann_001", "ann_002", "ann_003") if i < 17 else ("ann_001", "ann_003"):
            scores = truth
            if name == "ann_003" and i % 4 == 0:  # hurried: off by a point now and then
                scores = (min(5, truth[0] + 1), *truth[1:])
            rows.append(rating(i, name, scores=scores, conf=(1, 1, 1, 1)))
    path = tmp_path / "r.jsonl"
    path.write_text("".join(f"{json.dumps(row, ensure_ascii=False)}\n" for row in rows))
    call_command("import_annotations", str(path))
    return Batch.objects.get(name="speed")


def test_the_confirmation_page_lists_the_items_leaving_and_the_figures_before_and_after(
    page, transactional_db, tmp_path, monkeypatch
):
    batch = _batch(tmp_path)
    report = AgreementReport.objects.create(batch=batch, source="batch speed", passed=True, report={})
    flag = QualityFlag.objects.create(
        source="outlier", kind="too_fast", report=report, statistic=2.0, threshold=5.0, axis="",
        annotator=get_user_model().objects.get(username="ann_003"), details={"n_timed": 30, "share_under_3s": 0.9},
        message="ann_003: median 2.0 s",
    )  # fmt: skip
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    make_user("admin_e2e", staff=True, password=PASSWORD)
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in(page, "admin_e2e", PASSWORD)
    for language in ("ja", "en"):
        if language == "en":
            page.goto("/")
            with page.expect_navigation():
                page.select_option("#language-select", "en")
        page.goto("/admin/annotation/qualityflag/")
        page.check(f"input[name=_selected_action][value='{flag.pk}']")
        page.select_option("select[name=action]", "accept_flags")
        page.click("button[name=index]")
        preview = page.locator(f"[data-preview-batch='{batch.pk}']")
        expect(preview).to_be_visible()
        expect(preview.locator("[data-figure=consensus] td").nth(0)).to_have_text("30")
        expect(preview.locator("[data-figure=consensus] td").nth(1)).to_have_text("17")
        expect(preview.locator("[data-figure=left-out] td").nth(1)).to_have_text("120")  # 30 ratings × 4 axes
        expect(preview.locator("[data-preview=leaving] [data-item]")).to_have_count(13)
        expect(preview.locator("[data-figure=kappa]")).to_have_count(4)
        expect(preview.locator("[data-preview=leaving] [data-item='dialogue_017']")).to_contain_text(
            "全軸" if language == "ja" else "all axes"
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"point4_flag_preview_{language}.png"), full_page=True)
    page.click("#content-main input[type=submit]")
    expect(page.locator("ul.messagelist")).to_contain_text("recomputed")
    assert QualityFlag.objects.get(pk=flag.pk).status == "accepted"
    newest = AgreementReport.objects.filter(batch=batch).latest("created_at")
    assert newest.pk != report.pk and newest.parameters["trigger"] == "flag review"
    # The flag's own page previews the way back (dismissing it) the same way.
    page.goto(f"/admin/annotation/qualityflag/{flag.pk}/change/")
    expect(page.locator(f"[data-preview-batch='{batch.pk}'] [data-preview=joining] [data-item]")).to_have_count(13)
    page.screenshot(path=str(SHOTS / "point4_flag_page_en.png"), full_page=True)
