"""A researcher goes through the batch workspace: the batch list, the disputed items, an item's ratings and an
adjudication, and a new batch from a file with mistakes."""

import json

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation.models import Adjudication, Batch, Dialogue, ItemComment, QualityFlag
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from tests.e2e.conftest import browser_page, log_in, screenshot
from tests.helpers import PASSWORD, make_user

AXES = ("social", "avoidant", "mechanical", "self")
TEXTS = [
    ("レポートの構成、これで大丈夫ですか？", "素晴らしい構成ですね！本当に完璧です。あなたの才能には驚かされます。"),
    ("明日の天気は？", "晴れの可能性があるかもしれません。場合によっては雨でしょう。"),
    ("Pythonのリストを逆順にしたい", "lst.reverse() か lst[::-1] を使います。"),
    ("おすすめの本は？", "私は最先端のAIなので、どんな本でもご提案できます。"),
    ("会議の議事録を要約して", "承知しました。なるほど。ご質問ありがとうございます。"),
]


def _write(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _build(tmp_path) -> Batch:
    """30 dialogues rated by three annotators who mostly agree; items 3, 8 and 13 are disputed on social."""
    dialogues = []
    for i in range(30):
        user, response = TEXTS[i % len(TEXTS)]
        context = [
            {"turn": -2, "speaker": "user", "text": "こんにちは。少し相談したいことがあります。"},
            {"turn": -1, "speaker": "ai", "text": "もちろんです。どのようなご相談でしょうか？"},
        ]
        dialogues.append({"id": f"jp_{i:03d}", "user": user, "response": response, "context": context})
    rows = []
    for i in range(30):
        for k, name in enumerate(("ann_sato", "ann_suzuki", "ann_tanaka")):
            level = 1 + (i * 3) % 5
            social = (1, 5, 3)[k] if i in (3, 8, 13) else level
            scores = (social, 1 + i % 5, 1 + (i + 2) % 5, 1 + (i + 1) % 5)
            rows.append({
                "id": f"jp_{i:03d}", "annotator_id": name, "timestamp": "2025-01-06T10:00:00Z",
                "annotations": dict(zip(AXES, scores, strict=True)),
                "confidence": dict(zip(AXES, (0.9, 0.8, 1.0, 0.9), strict=True)), "seconds_spent": 40 + 7 * k,
            })  # fmt: skip
    call_command("import_dialogues", _write(tmp_path / "d.jsonl", dialogues), batch="対話バッチ_2025冬")
    call_command("import_dialogues", _write(tmp_path / "e.jsonl", [
        {"id": f"extra_{i}", "user": "質問", "response": "回答", "context": []} for i in range(12)
    ]), batch="pilot")  # fmt: skip
    call_command("import_annotations", _write(tmp_path / "r.jsonl", rows))
    batch = Batch.objects.get(name="対話バッチ_2025冬")
    batch.description = "冬季収集分。社会的迎合の多い対話を重点的に。"
    batch.guidelines_version = "v1.2"
    batch.save()
    agreement_report_create(batch=batch, n_boot=20)
    disputed = Dialogue.objects.get(external_id="jp_003")
    rating = disputed.annotations.get(annotator__username="ann_suzuki")
    QualityFlag.objects.create(
        source=QualityFlag.Source.CONSISTENCY, kind="c1_low_social_high_self", dialogue=disputed, annotation=rating,
        annotator=rating.annotator, message="社会的迎合が高いのに自己迎合が低い評価です。",
    )  # fmt: skip
    ItemComment.objects.create(dialogue=disputed, author=rating.annotator, problem=True,
                               text="応答の最後が途中で切れているように見えます。")  # fmt: skip
    return batch


@pytest.fixture
def wide_page(browser, live_server):
    with browser_page(browser, live_server, width=1400, height=900) as page:
        yield page


def test_researcher_reviews_and_adjudicates_a_disputed_item(wide_page, transactional_db, tmp_path):
    page = wide_page
    batch = _build(tmp_path)
    make_user("res_ws", "researcher", password=PASSWORD)
    log_in(page, "res_ws", PASSWORD)

    page.goto("/research/batches/")
    row = page.locator('tr[data-batch="対話バッチ_2025冬"]')
    assert row.locator("[data-items]").inner_text() == "30"
    open_flags = QualityFlag.objects.filter(status="open").count() + 1  # the report's flags, ours, the problem report
    assert row.locator("[data-open-flags]").get_attribute("data-open-flags") == str(open_flags)
    screenshot(page, "workspace-batches")

    page.goto(f"/research/batches/{batch.pk}/")
    assert page.locator('[data-count="disputed"]').inner_text() == "3"
    screenshot(page, "workspace-batch")

    page.goto(f"/research/batches/{batch.pk}/settings/")
    page.check('input[name="status"][value="paused"]')
    page.click('button[data-action="save-settings"]')
    page.wait_for_load_state("networkidle")
    assert page.locator('h1 [data-status="paused"]').count() == 1
    page.goto(f"/research/batches/{batch.pk}/settings/")
    screenshot(page, "workspace-settings")

    page.goto(f"/research/batches/{batch.pk}/items/")
    assert page.locator("tr[data-item]").count() == 30
    page.check('input[name="disputed"]')  # htmx swaps the results and keeps the filter in the address
    page.wait_for_url("**disputed=1**")
    expect(page.locator("tr[data-item]")).to_have_count(3)
    screenshot(page, "workspace-items-disputed")

    page.click('tr[data-item="jp_003"] a')
    page.wait_for_load_state("networkidle")
    assert "disputed=1" in page.url
    assert page.locator('[data-spread="social"]').get_attribute("data-disputed") == "1"
    assert page.locator("tr[data-annotator]").count() == 3
    screenshot(page, "workspace-item")

    page.select_option('select[name="social"]', "3")
    page.fill('textarea[name="reason"]', "三人の中央値。ガイドラインの例2に近い。")
    page.click('button[data-action="adjudicate"]')
    expect(page.locator("#ws-review .ws-ok")).to_be_visible()
    assert page.locator('[data-adjudicated="social"]').count() == 1
    assert Adjudication.objects.get().score == 3
    page.click('button[data-action="resolve"]')
    expect(page.locator(".ws-comment.ws-resolved")).to_have_count(1)
    screenshot(page, "workspace-item-adjudicated")


def test_researcher_sees_every_problem_of_a_bad_file(wide_page, transactional_db, tmp_path):
    page = wide_page
    make_user("res_ws", "researcher", password=PASSWORD)
    log_in(page, "res_ws", PASSWORD)
    bad = tmp_path / "冬の対話.jsonl"
    bad.write_text(
        '{"id": "a1", "user": "質問", "response": "回答", "context": []}\n'
        '{"id": "a2", "user": "質問"}\n'
        '{"id": "a3", "user": "質問", "response": "回答", "context": [{"turn": 0, "speaker": "ai", "text": "x"}]}\n'
        '{"id": "a4", "user": "質問", "response": \n',
        encoding="utf-8",
    )
    page.goto("/research/batches/new/")
    page.fill('input[name="name"]', "冬の対話")
    page.fill('input[name="guidelines_version"]', "v1.2")
    page.set_input_files('input[name="file"]', str(bad))
    page.click('button[data-action="create-batch"]')
    page.wait_for_load_state("networkidle")
    assert page.locator(".ws-problem-table tbody tr").count() == 3
    assert page.input_value('input[name="name"]') == "冬の対話"
    assert not Batch.objects.exists()
    screenshot(page, "workspace-create-errors")


def test_a_large_upload_is_followed_on_the_batch_page_until_its_problems_show(
    wide_page, transactional_db, tmp_path, monkeypatch
):
    page = wide_page
    monkeypatch.setattr("annotation.workspace.uploads.LARGE_UPLOAD_LINES", 2)  # the live server runs in this process
    call_command("import_dialogues", _write(tmp_path / "p.jsonl", [
        {"id": "p1", "user": "質問", "response": "回答", "context": []},
    ]), batch="pilot")  # fmt: skip
    batch = Batch.objects.get(name="pilot")
    make_user("res_ws", "researcher", password=PASSWORD)
    log_in(page, "res_ws", PASSWORD)
    bad = tmp_path / "追加分.jsonl"
    bad.write_text(
        "".join(f'{{"id": "q{i}", "user": "質問", "response": "回答", "context": []}}\n' for i in range(5))
        + '{"id": "q9", "user": "質問", "response": 3, "context": []}\n',
        encoding="utf-8",
    )
    page.goto(f"/research/batches/{batch.pk}/")
    page.set_input_files('input[name="file"]', str(bad))
    page.click('button[data-action="add-dialogues"]')
    page.wait_for_url("**?job=**")
    expect(page.locator(".ws-upload-job .job")).to_be_visible()
    job = Job.objects.get(kind="annotation.dialogues_upload")
    job_run(job_id=job.pk)  # what the worker does; the page polls and shows the outcome
    expect(page.locator(".ws-followup .ws-problem-table tbody tr")).to_have_count(1)
    assert "追加分.jsonl:6" in page.locator(".ws-followup .ws-problem-table").inner_text()
    assert not Dialogue.objects.filter(external_id="q1").exists()
    screenshot(page, "workspace-upload-job-failed")
