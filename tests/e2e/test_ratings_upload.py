"""A researcher uploads ratings on the batch page: a file with mistakes (every problem located, nothing stored),
then the mended file (stored, with a summary), in Japanese and in English; and a large file followed as a job."""

import json

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation.models import Annotation, Batch
from core.job_runner import job_run
from core.models import Job
from tests.e2e.conftest import browser_page, log_in, screenshot
from tests.helpers import PASSWORD, make_user

AXES = ("social", "avoidant", "mechanical", "self")


def _write(path, rows) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")  # fmt: skip
    return str(path)


def _rating(i: int, annotator: str, **overrides) -> dict:
    row = {"id": f"r{i}", "annotator_id": annotator, "timestamp": "2025-01-01T10:00:00Z",
           "annotations": dict.fromkeys(AXES, 2), "confidence": dict.fromkeys(AXES, 0.9)}  # fmt: skip
    row.update(overrides)
    return row


@pytest.fixture
def pilot(tmp_path, transactional_db) -> Batch:
    rows = [{"id": f"r{i}", "user": "この資料はどうですか？", "response": "とても良いと思います。", "context": []}
            for i in range(4)]  # fmt: skip
    call_command("import_dialogues", _write(tmp_path / "d.jsonl", rows), batch="pilot")
    Batch.objects.create(name="other").dialogues.create(external_id="x1", user_text="u", response_text="r")
    make_user("res_up", "researcher", password=PASSWORD)
    return Batch.objects.get(name="pilot")


@pytest.mark.parametrize("language", ["ja", "en"])
def test_bad_then_good_ratings_file_on_the_batch_page(browser, live_server, pilot, tmp_path, language):
    bad = _write(tmp_path / "評価.jsonl", [
        _rating(0, "ann_a"),
        _rating(1, "ann_a", annotations={**dict.fromkeys(AXES, 2), "social": 9}),
        _rating(0, "ann_b", id="x1"),
        '{"id": "r3", "annotator_id": ',
        _rating(2, "<script>alert(1)</script>"),
    ])  # fmt: skip
    good = _write(tmp_path / "評価_修正.jsonl", [_rating(i, a) for i in range(4) for a in ("ann_a", "ann_b")])
    with browser_page(browser, live_server, width=1366, height=900, locale="ja-JP") as page:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        dialogs = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        log_in(page, "res_up", PASSWORD)
        page.goto(f"/research/batches/{pilot.pk}/")
        card = page.locator('[data-card="ratings-upload"]')
        expect(card.locator("h2")).to_have_text(
            "評価をアップロード（JSONL）" if language == "ja" else "Upload ratings (JSONL)"
        )
        card.locator('input[name="ratings-file"]').set_input_files(bad)
        card.locator('button[data-action="upload-ratings"]').click()
        page.wait_for_load_state("networkidle")
        table = page.locator("#ratings-problems .ws-problem-table")
        expect(table.locator("tbody tr")).to_have_count(4)
        text = table.inner_text()
        assert "評価.jsonl:2" in text and "$.annotations.social" in text and "評価.jsonl:3" in text
        assert "<script>alert(1)</script>" in text and dialogs == []  # shown as text, never run
        assert ("バッチ 'pilot' ではなくバッチ 'other'" if language == "ja" else "belongs to batch 'other'") in text
        assert not Annotation.objects.exists()
        screenshot(page, f"ratings-upload-problems-{language}")

        card.locator('input[name="ratings-file"]').set_input_files(good)
        card.locator('input[name="ratings-dry_run"]').check()
        card.locator('button[data-action="upload-ratings"]').click()
        page.wait_for_load_state("networkidle")
        message = page.locator("ul.messages").inner_text()
        assert ("何も保存していません" if language == "ja" else "nothing was stored") in message
        assert not Annotation.objects.exists()

        card.locator('input[name="ratings-file"]').set_input_files(good)
        card.locator('button[data-action="upload-ratings"]').click()
        page.wait_for_load_state("networkidle")
        assert Annotation.objects.filter(dialogue__batch=pilot).count() == 8
        message = page.locator("ul.messages").inner_text()
        assert ("評価 8 件を保存" if language == "ja" else "8 ratings stored") in message
        expect(page.locator('[data-count="ratings"]')).to_have_text("8")
        screenshot(page, f"ratings-upload-stored-{language}")


def test_a_large_ratings_file_is_followed_as_a_job(browser, live_server, pilot, tmp_path, monkeypatch):
    monkeypatch.setattr("annotation.io.rating_uploads.LARGE_UPLOAD_LINES", 2)  # the live server runs in this process
    monkeypatch.setattr("core.services.run_job.delay", lambda job_id: None)  # the test runs the job
    rows = _write(tmp_path / "large.jsonl", [_rating(i, "ann_c") for i in range(4)])
    with browser_page(browser, live_server, width=1366, height=900, locale="en-US") as page:
        page.context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
        log_in(page, "res_up", PASSWORD)
        page.goto(f"/research/batches/{pilot.pk}/")
        card = page.locator('[data-card="ratings-upload"]')
        card.locator('input[name="ratings-file"]').set_input_files(rows)
        card.locator('button[data-action="upload-ratings"]').click()
        page.wait_for_url("**?job=**")
        expect(page.locator(".ws-upload-job .job")).to_be_visible()
        job = Job.objects.get(kind="annotation.ratings_upload")
        job_run(job_id=job.pk)  # what the worker does; the page polls, then reloads with the counts
        expect(page.locator('[data-count="ratings"]')).to_have_text("4", timeout=15_000)
        expect(page.locator("[data-job-summary]")).to_contain_text("large.jsonl: 4 ratings stored")
        screenshot(page, "ratings-upload-job-en")
