"""A filled sheet back into the database: round trips (.xlsx and CSV), idempotence, history, and the
problems only the database can find (whose sheet, which batch, unknown ids, texts changed since)."""

import csv

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openpyxl import load_workbook

from annotation.axes import AXES
from annotation.models import Annotation, AnnotationEdit, Batch, Dialogue, ItemComment, QueueEntry
from annotation.spreadsheets import layout
from annotation.spreadsheets.imports import SheetRejected, sheet_import
from annotation.spreadsheets.services import template_write
from core.spreadsheet_cells import xlsx_cell_text
from tests.annotation.conftest import dialogue
from tests.annotation.spreadsheets.test_export_template import _user, batch  # noqa: F401
from tests.helpers import make_qualified_annotator

pytestmark = pytest.mark.django_db

SCORE = {axis: layout.KEYS.index(axis) + 1 for axis in AXES}
CONF = {axis: layout.KEYS.index(f"{axis}_confidence") + 1 for axis in AXES}
COMMENT = layout.KEYS.index("comment") + 1


def _export(batch, tmp_path, name="ann_x"):  # noqa: F811
    path = tmp_path / f"{name}.xlsx"
    template_write(path, batch=batch, annotator=_user(name))
    return path


def _fill(path, rows: dict[str, tuple], *, out=None, comment: dict[str, str] | None = None):
    """Fill the rows whose id is a key with (scores, confidences); returns the saved path."""
    book = load_workbook(path)
    sheet = book[layout.RATINGS_SHEET]
    for row in range(2, sheet.max_row + 1):
        key = sheet.cell(row=row, column=1).value
        if key in rows:
            scores, confidence = rows[key]
            for axis, score, value in zip(AXES, scores, confidence, strict=True):
                sheet.cell(row=row, column=SCORE[axis]).value = score
                sheet.cell(row=row, column=CONF[axis]).value = value
        if comment and key in comment:
            sheet.cell(row=row, column=COMMENT).value = comment[key]
    target = out or path
    book.save(target)
    return target


def _stored(name="ann_x") -> dict[str, tuple]:
    return {
        a.dialogue.external_id: (tuple(getattr(a, f"{x}_score") for x in AXES),
                                 tuple(getattr(a, f"{x}_confidence") for x in AXES), a.source)
        for a in Annotation.objects.filter(annotator__username=name).select_related("dialogue")
    }  # fmt: skip


FILLED = {
    "dialogue_000": ((5, 3, 1, 4), (1.0, 1.0, 1.0, 0.75)),  # ann_x's stored rating, social 2 -> 5
    "dialogue_002": ((3, 2, 1, 4), (0.8, 1.0, 0.9, 1.0)),
    "dialogue_004": ((1, 1, 1, 1), (1.0, 1.0, 1.0, 1.0)),
}


def test_an_xlsx_round_trip_stores_what_was_filled_and_a_second_upload_changes_nothing(batch, tmp_path):  # noqa: F811
    path = _fill(_export(batch, tmp_path), FILLED, comment={"dialogue_002": "応答が長すぎる"})
    summary = sheet_import(path=path)
    assert (summary.created, summary.updated, summary.unchanged, summary.skipped) == (2, 1, 0, 2)
    assert (summary.batch, summary.annotator, summary.comments) == ("sheet", "ann_x", 1)
    stored = _stored()
    for key, (scores, confidence) in FILLED.items():
        assert stored[key][:2] == (scores, confidence)
    assert stored["dialogue_002"][2] == "spreadsheet" and stored["dialogue_000"][2] == "import"
    edit = AnnotationEdit.objects.get(annotation__dialogue__external_id="dialogue_000")
    assert edit.old_values["social_score"] == 2 and edit.new_values["social_score"] == 5
    assert edit.reason == "spreadsheet ann_x.xlsx row 2" and edit.edited_by.username == "ann_x"
    assert QueueEntry.objects.get(dialogue__external_id="dialogue_002").taken_count == 2  # counts towards the quota
    assert ItemComment.objects.get().text == "応答が長すぎる"

    again = sheet_import(path=path)
    assert (again.created, again.updated, again.unchanged, again.comments) == (0, 0, 3, 0)
    assert _stored() == stored and AnnotationEdit.objects.count() == 1 and ItemComment.objects.count() == 1


def _as_csv(xlsx, target, *, bom=True, rows_override=None):
    sheet = load_workbook(xlsx)[layout.RATINGS_SHEET]
    rows = [["" if v is None else v for v in row] for row in sheet.iter_rows(values_only=True)]
    for fix in rows_override or []:
        rows.append(fix)
    with open(target, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)
    return target


@pytest.mark.parametrize("bom", [True, False])
def test_the_csv_of_a_filled_sheet_stores_the_same(batch, tmp_path, bom):  # noqa: F811
    filled = _fill(_export(batch, tmp_path), FILLED)
    path = _as_csv(filled, tmp_path / "ann_x.csv", bom=bom)
    with pytest.raises(SheetRejected, match="a CSV does not say whose ratings it holds"):
        sheet_import(path=path)
    summary = sheet_import(path=path, annotator=_user("ann_x"))
    assert (summary.created, summary.updated) == (2, 1)
    assert {key: value[:2] for key, value in _stored().items() if key in FILLED} == FILLED


def test_a_dry_run_checks_and_stores_nothing(batch, tmp_path):  # noqa: F811
    before = _stored()
    summary = sheet_import(path=_fill(_export(batch, tmp_path), FILLED), dry_run=True)
    assert summary.dry_run and (summary.created, summary.updated) == (2, 1)
    assert _stored() == before and not AnnotationEdit.objects.exists()


def _problems(**kwargs) -> list[str]:
    with pytest.raises(SheetRejected) as caught:
        sheet_import(**kwargs)
    return [str(problem) for problem in caught.value.problems]


def test_a_sheet_is_stored_only_for_its_own_annotator(batch, tmp_path):  # noqa: F811
    path = _fill(_export(batch, tmp_path), FILLED)
    assert _problems(path=path, annotator=_user("ann_y")) == [
        "ann_x.xlsx: this sheet was made for 'ann_x', not for 'ann_y'; upload your own sheet"
    ]
    assert "dialogue_002" not in _stored()


def test_a_dialogue_changed_since_the_sheet_was_made_is_named_by_its_row(batch, tmp_path):  # noqa: F811
    path = _fill(_export(batch, tmp_path), FILLED)
    Dialogue.objects.filter(external_id="dialogue_002").update(user_text="書き換えた質問")
    problems = _problems(path=path)
    assert len(problems) == 1 and problems[0].startswith("評価!A3 (id): the texts of this row differ from the stored")
    assert "dialogue_002" not in _stored()


def test_unknown_ids_and_several_batches_in_a_csv(batch, jsonl, tmp_path):  # noqa: F811
    filled = _fill(_export(batch, tmp_path), FILLED)
    unknown = ["nope", "", "u", "r", 1, 1, 1, 1, 1, 1, 1, 1, ""]
    problems = _problems(path=_as_csv(filled, tmp_path / "a.csv", rows_override=[unknown]), annotator=_user("ann_x"))
    assert problems == ["評価!A7 (id): unknown dialogue id: not a dialogue stored here"]

    call_command("import_dialogues", str(jsonl([dialogue(99)])), batch="other")
    extra = dialogue(99)
    context = layout.context_text(extra.get("context", []))
    row = [extra["id"], context, extra["user"], extra["response"], 1, 1, 1, 1, 1, 1, 1, 1, ""]
    problems = _problems(path=_as_csv(filled, tmp_path / "b.csv", rows_override=[row]), annotator=_user("ann_x"))
    assert problems == ["b.csv: the rows hold dialogues of several batches (other, sheet); one sheet holds one batch"]
    assert not Annotation.objects.filter(source="spreadsheet").exists()


def test_a_closed_or_restricted_batch_takes_no_sheet(batch, tmp_path):  # noqa: F811
    path = _fill(_export(batch, tmp_path), FILLED)
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.CLOSED)
    assert _problems(path=path) == ["ann_x.xlsx: batch 'sheet' is closed; it takes no more ratings"]
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.OPEN, restricted=True)
    assert "is open only to its chosen annotators" in _problems(path=path)[0]


def test_the_reader_s_problems_and_the_database_s_come_together(batch, tmp_path):  # noqa: F811
    path = _fill(_export(batch, tmp_path), {**FILLED, "dialogue_003": ((9, 1, 1, 1), (1.0, 1.0, 1.0, 1.0))})
    Dialogue.objects.filter(external_id="dialogue_002").update(user_text="書き換えた質問")
    problems = _problems(path=path)
    assert [p.split(" ")[0] for p in problems] == ["評価!E4", "評価!A3"]


def test_the_command(batch, tmp_path, capsys):  # noqa: F811
    path = _fill(_export(batch, tmp_path), FILLED)
    call_command("import_spreadsheet", str(path), "--dry-run")
    assert "would store 2 new and 1 changed ratings by ann_x (batch sheet)" in capsys.readouterr().out
    call_command("import_spreadsheet", str(path))
    assert "stored 2 new and 1 changed ratings by ann_x (batch sheet); 0 unchanged, 2 rows left blank" in (
        capsys.readouterr().out
    )
    with pytest.raises(CommandError, match="--annotator: no user named 'nobody'"):
        call_command("import_spreadsheet", str(path), "--annotator", "nobody")
    with pytest.raises(CommandError, match="nothing was stored: 1 problem"):
        call_command("import_spreadsheet", str(path), "--annotator", "ann_y")
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_spreadsheet", str(tmp_path / "missing.xlsx"))


# ---------------------------------------------------------------------------------------------- formula-like texts

FORMULA_TEXTS = {
    "dialogue_000": ("=1+1", "-2+3 だと思います"),
    "dialogue_001": ('=HYPERLINK("http://x","y")', "@SUM(A1)"),
    "+dialogue_002": ("\t=cmd|' /C calc'!A0", "＝同じです"),
}
FORMULA_FILLED = {key: ((2, 2, 2, 2), (1.0, 1.0, 1.0, 1.0)) for key in FORMULA_TEXTS}


@pytest.fixture
def formula_batch(jsonl):
    """Batch "formulas" whose user and response texts (and one id) a spreadsheet could take for formulas.

    The formula-like id is stored directly: the imports refuse such ids now (core.names.id_problem), but a
    database may hold one from before, and its sheets must still round-trip.
    """
    lines = [dialogue(i, id=key, user=user, response=response)
             for i, (key, (user, response)) in enumerate(FORMULA_TEXTS.items()) if not key.startswith("+")]  # fmt: skip
    call_command("import_dialogues", str(jsonl(lines)), batch="formulas")
    formulas = Batch.objects.get(name="formulas")
    for key, (user, response) in FORMULA_TEXTS.items():
        if key.startswith("+"):
            Dialogue.objects.create(external_id=key, user_text=user, response_text=response, batch=formulas,
                                    context=dialogue(0)["context"])  # fmt: skip
    make_qualified_annotator("ann_f")  # a live annotator: the qualification rule applies
    return formulas


def _old_template(batch, tmp_path, monkeypatch, name="ann_f"):  # noqa: F811
    """The sheet as the template made it before texts were written exactly: a quote before a formula-like text."""
    with monkeypatch.context() as patched:
        patched.setattr(layout, "xlsx_string", xlsx_cell_text)  # what cell_text writes
        path = _export(batch, tmp_path, name)
    return path


@pytest.mark.parametrize("made_by", ["template", "old template"])
def test_formula_like_texts_round_trip_through_xlsx_and_csv(formula_batch, tmp_path, monkeypatch, made_by):
    if made_by == "old template":
        made, written = _old_template(formula_batch, tmp_path, monkeypatch), xlsx_cell_text
    else:
        made, written = _export(formula_batch, tmp_path, "ann_f"), str
    path = _fill(made, {written(key): values for key, values in FORMULA_FILLED.items()})
    sheet = load_workbook(path)[layout.RATINGS_SHEET]
    assert [sheet.cell(row=row, column=1).value for row in (2, 3, 4)] == [written(key) for key in FORMULA_TEXTS]
    users = [sheet.cell(row=row, column=3).value for row in (2, 3, 4)]
    assert users == [written(user) for user, _ in FORMULA_TEXTS.values()]

    summary = sheet_import(path=path, dry_run=True)
    assert (summary.created, summary.annotator) == (3, "ann_f")
    as_csv = _as_csv(path, tmp_path / "ann_f.csv")
    summary = sheet_import(path=as_csv, annotator=_user("ann_f"))
    assert summary.created == 3
    assert {key: value[:2] for key, value in _stored("ann_f").items()} == FORMULA_FILLED


def test_formula_like_comments_are_stored_neutralised_and_formulas_refused(formula_batch, tmp_path):
    comments = {"dialogue_000": "- 文脈が不明", "dialogue_001": "@田中 確認", "+dialogue_002": "良い"}
    path = _fill(_export(formula_batch, tmp_path, "ann_f"), FORMULA_FILLED, comment=comments)
    summary = sheet_import(path=path)
    assert summary.comments == 3
    assert sorted(ItemComment.objects.values_list("text", flat=True)) == ["'- 文脈が不明", "'@田中 確認", "良い"]
    assert sheet_import(path=path).comments == 0  # the same comments again: nothing new

    refused = _fill(path, {}, comment={"dialogue_001": '=HYPERLINK("http://x","y")'})
    problems = _problems(path=refused)
    assert problems == ['評価!M3 (コメント (comment)): a formula (=HYPERLINK("http://x","y")); type the value itself']
    assert ItemComment.objects.count() == 3
