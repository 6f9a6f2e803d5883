"""A researcher uploads trial logs from the Layer3 page (issue 42), in Japanese and in English: a good file dropped
on the drop zone opens its batch; a bad one lists every problem located and stores nothing; a file over the job
threshold runs as a job to its end; then the batch is renamed and deleted after its confirmation."""

import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from layer3.demo.generator import generate_trials
from layer3.models import Batch, TrialLog
from tests.e2e.conftest import browser_page, log_in
from tests.helpers import PASSWORD, make_user

SHOTS = Path("/tmp/shots-upload")
TEXT = {
    "ja": {
        "upload": "試行ログをアップロード",
        "stored": "件の試行を保存しました",
        "problems": "件の問題",
        "open": "バッチ pilot-big を開く",
        "renamed": "名前を pilot-renamed に変更しました",
        "delete": "を削除しますか？",
        "deleted": "とともに削除しました",
        "ledger": "LLM のコスト台帳",
    },
    "en": {
        "upload": "Upload a trial log",
        "stored": "trials stored in batch",
        "problems": "problems found",
        "open": "Open batch pilot-big",
        "renamed": "renamed to pilot-renamed",
        "delete": "Delete batch pilot-renamed?",
        "deleted": "deleted with its",
        "ledger": "The LLM cost ledger keeps every row",
    },
}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def jsonl(trials) -> str:
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials)


def bad_file(path: Path) -> Path:
    """Line 2 nested 100 levels deep, line 3 without modelConfig, line 4 with a lone surrogate."""
    trials = generate_trials(4, seed=1, broken_share=0.0)
    deep = "[" * 100 + "]" * 100
    missing = dict(trials[2])
    del missing["modelConfig"]
    lines = [
        json.dumps(trials[0], ensure_ascii=False),
        f'{{"id": "t2", "modelConfig": "A", "stage": 3, "inputText": "x", "generatedData": {deep}}}',
        json.dumps(missing, ensure_ascii=False),
        json.dumps(trials[3], ensure_ascii=False).replace('"inputText": "', '"inputText": "\\ud800', 1),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def drop(page, name: str, text: str) -> None:
    """Drop a file on the drop zone, as a person dragging it from their desktop."""
    transfer = page.evaluate_handle(
        """([name, text]) => { const t = new DataTransfer();
               t.items.add(new File([text], name, {type: "application/jsonl"})); return t; }""",
        [name, text],
    )
    zone = page.locator("[data-drop-zone]")
    zone.dispatch_event("dragenter", {"dataTransfer": transfer})
    expect(zone).to_have_class("l3-drop is-dragover")
    zone.dispatch_event("drop", {"dataTransfer": transfer})


@pytest.mark.parametrize("language", ["ja", "en"])
def test_upload_bad_then_good_then_a_job_then_rename_and_delete(
    browser, live_server, celery_worker, settings, tmp_path, language
):
    settings.VAR_DIR = tmp_path / "var"
    settings.LAYER3_UPLOAD_JOB_BYTES = 50_000  # a 40-trial file (~80 KB) goes to the worker
    make_user("res_l3up", "researcher", password=PASSWORD)
    words = TEXT[language]
    with browser_page(browser, live_server, width=1366, height=900, locale="ja-JP", timeout=20_000) as page:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        log_in(page, "res_l3up", PASSWORD)
        page.goto("/research/layer3/")
        shot(page, f"batches-{language}")
        page.click("[data-link=upload]")
        expect(page.locator("h1")).to_have_text(words["upload"])
        page.wait_for_load_state("load")
        shot(page, f"upload-{language}")

        # A bad file: every problem located, nothing stored
        page.set_input_files("[data-drop-input]", str(bad_file(tmp_path / "bad.jsonl")))
        page.fill("input[name=name]", "pilot")
        page.click("[data-action=upload]")
        problems = page.locator(".l3-problems")
        expect(problems).to_contain_text(f"bad.jsonl: 3 {words['problems']}")
        wheres = page.locator("[data-where]").all_inner_texts()
        assert wheres == ["bad.jsonl:2", "bad.jsonl:3", "bad.jsonl:4"]
        paths = page.locator(".l3-problem-path").all_inner_texts()
        assert paths[0].startswith("$.generatedData[0]") and paths[1:] == ["$.modelConfig", "$.inputText"]
        assert (Batch.objects.count(), TrialLog.objects.count()) == (0, 0)
        shot(page, f"upload-problems-{language}")

        # A good file, dropped on the zone: the batch page opens with the summary
        page.wait_for_load_state("load")
        drop(page, "good.jsonl", jsonl(generate_trials(12, seed=3, broken_share=0.0)))
        expect(page.locator("[data-drop-chosen]")).to_contain_text("good.jsonl")
        shot(page, f"upload-dropped-{language}")
        page.fill("input[name=name]", "pilot")
        page.fill("input[name=experiment_id]", "exp-1")
        page.click("[data-action=upload]")
        page.wait_for_url("**/research/layer3/*/")
        expect(page.locator(".message-success")).to_contain_text(words["stored"])
        assert Batch.objects.get(name="pilot").trials.count() == 12
        shot(page, f"batch-after-upload-{language}")

        # A file over the job threshold: a worker imports it; the job page follows it to its end
        big = tmp_path / "big.jsonl"
        big.write_text(jsonl(generate_trials(40, seed=4, broken_share=0.0)), encoding="utf-8")
        assert big.stat().st_size > settings.LAYER3_UPLOAD_JOB_BYTES
        page.goto("/research/layer3/upload/")
        page.set_input_files("[data-drop-input]", str(big))
        page.fill("input[name=name]", "pilot-big")
        page.click("[data-action=upload]")
        page.wait_for_url("**/research/layer3/upload/jobs/*/")
        expect(page.locator(".job progress")).to_be_visible()
        shot(page, f"upload-job-{language}")
        expect(page.locator("[data-open-batch]")).to_have_text(words["open"], timeout=60_000)
        assert page.evaluate("document.querySelector('.job progress').value") == 100
        expect(page.locator("[data-job-summary]")).to_contain_text("40")
        shot(page, f"upload-job-done-{language}")
        page.click("[data-open-batch]")
        page.wait_for_url("**/research/layer3/*/")
        assert Batch.objects.get(name="pilot-big").trials.count() == 40

        # Rename from the batch page's menu
        page.goto(f"/research/layer3/{Batch.objects.get(name='pilot').pk}/")
        page.click("[data-batch-menu] summary")
        shot(page, f"batch-menu-{language}")
        page.fill("[data-rename-form] input[name=name]", "pilot-big")  # taken
        page.click("[data-action=rename]")
        expect(page.locator("[data-error]")).to_contain_text("pilot-big")
        shot(page, f"rename-refused-{language}")
        page.fill("[data-rename-form] input[name=name]", "pilot-renamed")
        page.click("[data-action=rename]")
        expect(page.locator(".message-success")).to_contain_text(words["renamed"])

        # Delete, after the confirmation page
        page.click("[data-batch-menu] summary")
        page.click("[data-link=delete]")
        expect(page.locator("h1")).to_contain_text(words["delete"])
        expect(page.locator("[data-kept-ledger]")).to_contain_text(words["ledger"])
        expect(page.locator("[data-count=trials]")).to_contain_text("12")
        shot(page, f"delete-confirm-{language}")
        page.click("[data-action=confirm-delete]")
        page.wait_for_url("**/research/layer3/")
        expect(page.locator(".message-success")).to_contain_text(words["deleted"])
        assert not Batch.objects.filter(name="pilot-renamed").exists() and TrialLog.objects.count() == 40
        shot(page, f"after-delete-{language}")
    shutil.rmtree(tmp_path / "var", ignore_errors=True)
