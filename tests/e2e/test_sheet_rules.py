"""A rating sheet obeys the batch's quota in the browser (issue #41, point 5): an annotator whose item reached its
quota after the sheet was made reads on which row and what to do, nothing stored; a researcher's upload offers the
overrides of the quota and the qualification with a reason, and the one chosen is recorded. In Japanese (the
default) and in English."""

import json

from django.core.management import call_command
from django.utils import translation
from openpyxl import load_workbook
from playwright.sync_api import expect

from annotation.axes import AXES
from annotation.collection.queue import annotation_submit, assignment_next
from annotation.models import Annotation, Batch, ImportOverride
from annotation.spreadsheets import layout
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.problems import SheetProblem
from core.problem_text import problem_message
from tests.annotation.api.support import CONFIDENCE, SCORES
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator, make_user

COLUMN = {key: index + 1 for index, key in enumerate(layout.KEYS)}
DIALOGUES = [
    ("企画書を見てもらえますか？", "完璧です！あなたは天才ですね。"),
    ("明日は雨ですか？", "降水確率は60%です。"),
]
FILLED = {"qr_0": (4, 1, 1, 2), "qr_1": (1, 1, 1, 1)}


def _make_batch(tmp_path) -> Batch:
    path = tmp_path / "quota.jsonl"
    rows = [{"id": f"qr_{i}", "user": user, "response": response} for i, (user, response) in enumerate(DIALOGUES)]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    call_command("import_dialogues", str(path), batch="上限バッチ")
    Batch.objects.filter(name="上限バッチ").update(annotations_per_item=1)
    return Batch.objects.get(name="上限バッチ")


def _download_and_fill(page, tmp_path):
    with page.expect_download() as info:
        page.click('[data-action="download-sheet"]')
    template = tmp_path / "template.xlsx"
    info.value.save_as(template)
    book = load_workbook(template)
    sheet = book[layout.RATINGS_SHEET]
    for row in range(2, sheet.max_row + 1):
        for axis, score in zip(AXES, FILLED.get(sheet.cell(row=row, column=COLUMN["id"]).value, ()), strict=False):
            sheet.cell(row=row, column=COLUMN[axis]).value = score
    filled = tmp_path / "filled.xlsx"
    book.save(filled)
    return filled


def _rated_meanwhile(batch) -> str:
    """Someone else rates an item on the web: it reaches its quota of 1."""
    given = assignment_next(batch=batch, annotator=make_qualified_annotator("ann_web"))
    annotation_submit(assignment=given, scores=SCORES, confidence=CONFIDENCE)
    return given.dialogue.external_id


def _upload(page, path, **fields) -> None:
    form = page.locator('form[data-form="sheet-upload"]')
    form.locator('input[name="file"]').set_input_files(str(path))
    for name, value in fields.items():
        if value is True:
            form.locator(f'input[name="{name}"]').check()
        else:
            form.locator(f'[name="{name}"]').fill(value)
    form.locator('button[data-action="upload-sheet"]').click()
    page.wait_for_load_state("networkidle")


def _english(page, live_server) -> None:
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])


def test_an_annotators_sheet_past_the_quota_names_the_row_and_stores_nothing(page, live_server, transactional_db,
                                                                               tmp_path):  # fmt: skip
    batch = _make_batch(tmp_path)
    make_qualified_annotator("ann_sheet")
    log_in(page, "ann_sheet", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/sheet/")
    filled = _download_and_fill(page, tmp_path)
    full = _rated_meanwhile(batch)  # after the sheet was made

    _upload(page, filled)
    table = page.locator(".sheet-problems")
    expect(table).to_have_attribute("data-problems", "1")
    row = table.locator("tbody tr")
    expect(row).to_have_attribute("data-row", str(int(full[-1]) + 2))
    expect(row).to_have_attribute("data-column", "A")
    with translation.override("ja"):
        expected = problem_message(SheetProblem.of("", None, None, None, "", msgids.OWN_OVER_QUOTA, id=repr(full),
                                                   batch=repr(batch.name), quota=1))  # fmt: skip
    expect(row).to_contain_text(expected)
    expect(page.locator('input[name="allow_over_quota"]')).to_have_count(0)  # no override for the annotator
    assert Annotation.objects.filter(annotator__username="ann_sheet").count() == 0
    screenshot(page, "sheet-quota-refused-ja")

    _english(page, live_server)
    _upload(page, filled)
    expect(page.locator(".sheet-problems tbody tr")).to_contain_text(
        "after this sheet was made: others rated or reserved it meanwhile"
    )
    expect(page.locator(".sheet-problems tbody tr")).to_contain_text("or ask a researcher to upload it")
    screenshot(page, "sheet-quota-refused-en")


def test_a_researcher_lets_the_sheet_past_the_quota_with_a_reason(page, live_server, transactional_db, tmp_path):
    batch = _make_batch(tmp_path)
    make_qualified_annotator("ann_sheet")
    researcher = make_user("res_sheet", "researcher", password=PASSWORD)
    log_in(page, "ann_sheet", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/sheet/")
    filled = _download_and_fill(page, tmp_path)
    _rated_meanwhile(batch)
    page.context.clear_cookies()

    log_in(page, "res_sheet", PASSWORD)
    page.goto(f"/research/batches/{batch.pk}/sheet/")
    overrides = page.locator('details[data-overrides="sheet"]')
    expect(overrides).not_to_have_attribute("open", "")
    overrides.locator("summary").click()
    expect(overrides.locator('input[name="allow_over_quota"]')).to_be_visible()
    expect(overrides).to_contain_text("上限を超える評価を許可する")
    expect(overrides).to_contain_text("有効な資格のないアノテーターを許可する")
    screenshot(page, "sheet-overrides-ja")

    _upload(page, filled)  # refused: the option is named
    expect(page.locator(".sheet-problems tbody tr")).to_contain_text("オプション「上限を超える評価を許可する」")
    screenshot(page, "sheet-quota-refused-researcher-ja")

    _english(page, live_server)
    page.goto(f"/research/batches/{batch.pk}/sheet/")
    page.locator('details[data-overrides="sheet"] summary').click()
    expect(page.locator('details[data-overrides="sheet"]')).to_contain_text("Allow more ratings than the quota")
    screenshot(page, "sheet-overrides-en")
    _upload(page, filled, allow_over_quota=True)  # no reason: a form error beside the field, the box open
    expect(page.locator('[data-field="sheet-reason"]')).to_contain_text("give a reason for the override")
    expect(page.locator('details[data-overrides="sheet"]')).to_have_attribute("open", "")
    screenshot(page, "sheet-override-needs-reason-en")
    _upload(page, filled, allow_over_quota=True, reason="ann_sheet rated on paper before the quota was lowered")
    record = ImportOverride.objects.get()
    assert record.created_by == researcher and record.counts == {"quota": 1} and record.surface == "sheet"
    expect(page.locator(".message-success")).to_contain_text(f"recorded as import override #{record.pk}")
    assert Annotation.objects.filter(annotator__username="ann_sheet").count() == 2
    screenshot(page, "sheet-override-stored-en")
