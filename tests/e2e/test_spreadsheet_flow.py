"""The spreadsheet round trip in the browser (issue #17): an annotator downloads their sheet, fills it in a
spreadsheet program (here openpyxl), uploads it and reads the summary; a sheet with three errors lists all
three, row by row, and stores nothing."""

import json

from django.core.management import call_command
from django.utils import translation
from openpyxl import load_workbook
from playwright.sync_api import expect

from annotation.axes import AXES
from annotation.models import Annotation, Batch, ItemComment
from annotation.spreadsheets import layout
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.problems import SheetProblem
from annotation.spreadsheets.uploads import sheet_summary_text
from core.problem_text import problem_message
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator, make_user

COLUMN = {key: index + 1 for index, key in enumerate(layout.KEYS)}
DIALOGUES = [
    ("企画書を見てもらえますか？", "完璧です！あなたは天才ですね。"),
    ("明日は雨ですか？", "降水確率は60%です。傘をお持ちください。"),
    ("この関数の計算量は？", "O(n log n) です。"),
    ("おすすめの本は？", "私は最先端のAIなので、どんな本でもご提案できます。"),
    ("会議の議事録を要約して", "承知しました。なるほど。ご質問ありがとうございます。"),
]


def _make_batch(tmp_path) -> Batch:
    path = tmp_path / "sheet_flow.jsonl"
    rows = [
        {"id": f"sf_{i}", "user": user, "response": response,
         "context": [{"turn": -1, "speaker": "ai", "text": "何かお手伝いできますか？"}]}
        for i, (user, response) in enumerate(DIALOGUES)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    call_command("import_dialogues", str(path), batch="表計算バッチ")
    return Batch.objects.get(name="表計算バッチ")


def _fill(source, target, scores: dict, *, user_text: dict | None = None, comment: dict | None = None):
    """Fill ``scores`` ({id: four scores, None for a blank}) into a copy of the downloaded sheet."""
    book = load_workbook(source)
    sheet = book[layout.RATINGS_SHEET]
    for row in range(2, sheet.max_row + 1):
        key = sheet.cell(row=row, column=COLUMN["id"]).value
        for axis, score in zip(AXES, scores.get(key, ()), strict=False):
            sheet.cell(row=row, column=COLUMN[axis]).value = score
        if user_text and key in user_text:
            sheet.cell(row=row, column=COLUMN["user"]).value = user_text[key]
        if comment and key in comment:
            sheet.cell(row=row, column=COLUMN["comment"]).value = comment[key]
    book.save(target)
    return target


def _stored() -> dict:
    return {
        a.dialogue.external_id: tuple(getattr(a, f"{axis}_score") for axis in AXES)
        for a in Annotation.objects.filter(annotator__username="ann_sheet").select_related("dialogue")
    }


def _in_japanese(template: str, **params) -> str:
    """A sheet problem's message as the page shows it (Japanese, the default language)."""
    with translation.override("ja"):
        return problem_message(SheetProblem.of("", None, None, None, "", template, **params))


def _upload(page, path, *, check_only: bool = False) -> None:
    page.set_input_files('form[data-form="sheet-upload"] input[name="file"]', str(path))
    if check_only:
        page.check('form[data-form="sheet-upload"] input[name="dry_run"]')
    page.click('button[data-action="upload-sheet"]')
    page.wait_for_load_state("networkidle")


def test_an_annotator_rates_in_a_spreadsheet_and_a_sheet_with_errors_stores_nothing(
    page, live_server, transactional_db, tmp_path
):
    batch = _make_batch(tmp_path)
    make_qualified_annotator("ann_sheet")
    log_in(page, "ann_sheet", PASSWORD)

    # From the batch list to the spreadsheet page
    page.goto("/annotate/")
    screenshot(page, "sheet-batch-list")
    page.click(f'a[data-sheet="{batch.name}"]')
    expect(page).to_have_url(f"{live_server.url}/annotate/{batch.pk}/sheet/")
    screenshot(page, "sheet-page")

    with page.expect_download() as info:
        page.click('[data-action="download-sheet"]')
    download = info.value
    assert download.suggested_filename == f"{batch.name}-ann_sheet.xlsx"
    template = tmp_path / "template.xlsx"
    download.save_as(template)
    ids = [row[0] for row in load_workbook(template)[layout.RATINGS_SHEET].iter_rows(min_row=2, values_only=True)]
    assert ids == [f"sf_{i}" for i in range(5)]

    # A good sheet: three rows rated, two left blank, one comment
    good = {"sf_0": (5, 1, 1, 2), "sf_1": (1, 1, 1, 1), "sf_3": (2, 3, 4, 5)}
    _upload(page, _fill(template, tmp_path / "good.xlsx", good, comment={"sf_3": "自己宣伝が強い"}))
    with translation.override("ja"):  # the page's language; the text as the catalogue holds it
        expected = sheet_summary_text(created=3, updated=0, unchanged=0, skipped=2, comments=1)
    expect(page.locator(".message-success")).to_have_text(expected)
    assert _stored() == good
    assert ItemComment.objects.get().text == "自己宣伝が強い"
    screenshot(page, "sheet-stored")

    # Three errors: a score 7, a partly filled row, an edited locked text; its good rows are not stored either
    bad = {**good, "sf_0": (4, 1, 1, 2), "sf_1": (7, 1, 1, 1), "sf_2": (1, 2, 3, None), "sf_4": (3, 3, 3, 3)}
    _upload(page, _fill(template, tmp_path / "errors.xlsx", bad, user_text={"sf_4": "書き換えた発話"}))
    table = page.locator(".sheet-problems")
    expect(table).to_have_attribute("data-problems", "3")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_have_attribute("data-row", "3")
    expect(rows.nth(0)).to_have_attribute("data-column", "E")
    score = {"accepted_text": msgids.SCORE_ACCEPTED, "low": 1, "high": 5, "value": "'7'"}
    expect(rows.nth(0)).to_contain_text(_in_japanese(msgids.MUST_BE, **score))
    expect(rows.nth(1)).to_have_attribute("data-row", "4")
    expect(rows.nth(1)).to_have_attribute("data-column", "H")
    expect(rows.nth(1)).to_contain_text(_in_japanese(msgids.PARTLY_FILLED))
    expect(rows.nth(2)).to_have_attribute("data-row", "6")
    expect(rows.nth(2)).to_contain_text(_in_japanese(msgids.LOCKED_TEXTS_CHANGED))
    assert _stored() == good, "nothing of the sheet with errors was stored"
    screenshot(page, "sheet-problems")
    # The table fits the page, on a phone too: it scrolls inside its box, the page does not scroll sideways
    fits = "() => document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(fits)
    page.set_viewport_size({"width": 400, "height": 800})
    assert page.evaluate(fits)
    screenshot(page, "sheet-problems-narrow")


def test_a_researcher_downloads_an_annotators_sheet_and_uploads_it_from_the_batch_page(
    page, live_server, transactional_db, tmp_path
):
    batch = _make_batch(tmp_path)
    make_qualified_annotator("ann_sheet")
    make_user("res_sheet", "researcher", password=PASSWORD)
    log_in(page, "res_sheet", PASSWORD)
    page.goto(f"/research/batches/{batch.pk}/")
    card = page.locator('[data-card="spreadsheets"]')
    card.scroll_into_view_if_needed()
    screenshot(page, "sheet-batch-card")

    card.locator('select[name="annotator"]').first.select_option(label="ann_sheet")
    with page.expect_download() as info:
        card.locator('[data-action="download-template"]').click()
    template = tmp_path / "template.xlsx"
    info.value.save_as(template)
    assert info.value.suggested_filename == f"{batch.name}-ann_sheet.xlsx"

    # A workbook names its annotator: no choice needed. Checked first, then stored.
    filled = _fill(template, tmp_path / "filled.xlsx", {"sf_2": (3, 3, 3, 3)})
    card.locator('input[name="file"]').set_input_files(str(filled))
    card.locator('input[name="dry_run"]').check()
    card.locator('[data-action="upload-sheet"]').click()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".message-info")).to_be_visible()
    assert not Annotation.objects.exists()
    card = page.locator('[data-card="spreadsheets"]')
    card.locator('input[name="file"]').set_input_files(str(filled))
    card.locator('[data-action="upload-sheet"]').click()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".message-success")).to_contain_text("ann_sheet")
    assert _stored() == {"sf_2": (3, 3, 3, 3)}

    # The same sheet with another annotator chosen: a problem, shown on the batch's spreadsheet page
    other = make_qualified_annotator("ann_other")
    page.reload()
    card = page.locator('[data-card="spreadsheets"]')
    card.locator('input[name="file"]').set_input_files(str(_fill(template, tmp_path / "x.xlsx", {"sf_3": (1,) * 4})))
    card.locator('select[name="annotator"]').nth(1).select_option(value=str(other.pk))
    card.locator('[data-action="upload-sheet"]').click()
    page.wait_for_load_state("networkidle")
    expect(page).to_have_url(f"{live_server.url}/research/batches/{batch.pk}/sheet/")
    expect(page.locator(".sheet-problems")).to_have_attribute("data-problems", "1")
    assert _stored() == {"sf_2": (3, 3, 3, 3)} and not Annotation.objects.filter(annotator=other).exists()
    screenshot(page, "sheet-researcher-problems")
