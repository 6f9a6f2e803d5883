"""The template after another spreadsheet program has rewritten it: LibreOffice Calc stands in for Google
Sheets and Excel (``soffice --headless --convert-to``). Validations, protection and the hidden sheet must
survive, and the converted sheet, filled in, must import exactly what was filled; so must Calc's CSV."""

import shutil
import subprocess

import pytest
from openpyxl import load_workbook

from annotation.axes import AXES
from annotation.spreadsheets import layout
from annotation.spreadsheets.imports import sheet_import
from tests.annotation.spreadsheets.test_export_template import _user, batch  # noqa: F401
from tests.annotation.spreadsheets.test_import import (  # noqa: F401  (formula_batch: a fixture)
    FILLED,
    FORMULA_FILLED,
    FORMULA_TEXTS,
    _export,
    _fill,
    _stored,
    formula_batch,
)

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"),
]


def _convert(source, folder, to: str):
    """``source`` rewritten by LibreOffice Calc into ``folder`` as ``to`` (a filter spec); the new path."""
    folder.mkdir(exist_ok=True)
    profile = folder / "profile"
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", to,
         "--outdir", str(folder), str(source)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    extension = to.split(":", 1)[0]
    return folder / f"{source.stem}.{extension}"


def test_validations_protection_and_the_hidden_sheet_survive_libreoffice(batch, tmp_path):  # noqa: F811
    converted = _convert(_export(batch, tmp_path), tmp_path / "calc", "xlsx")
    book = load_workbook(converted)
    assert book.sheetnames[0] == layout.RATINGS_SHEET and book[layout.META_SHEET].sheet_state == "hidden"
    sheet = book[layout.RATINGS_SHEET]
    assert sheet.protection.sheet  # (headless Calc drops the frozen header: view settings, not data)
    kinds = {}
    for validation in sheet.data_validations.dataValidation:
        for cells in validation.sqref.ranges:
            kinds[cells.coord.split(":")[0].rstrip("0123456789")] = (validation.type, validation.showErrorMessage)
    for axis in AXES:
        assert kinds[layout.column_letter(layout.KEYS.index(axis))] == ("list", True)
        assert kinds[layout.column_letter(layout.KEYS.index(f"{axis}_confidence"))] == ("decimal", True)
    assert sheet.cell(row=2, column=1).protection.locked
    assert not sheet.cell(row=2, column=layout.KEYS.index("social") + 1).protection.locked


def test_a_sheet_rewritten_by_libreoffice_and_filled_in_imports_what_was_filled(batch, tmp_path):  # noqa: F811
    converted = _convert(_export(batch, tmp_path), tmp_path / "calc", "xlsx")
    summary = sheet_import(path=_fill(converted, FILLED))
    assert (summary.created, summary.updated, summary.skipped) == (2, 1, 2)
    assert {key: value[:2] for key, value in _stored().items() if key in FILLED} == FILLED


def test_libreoffice_s_csv_of_a_filled_sheet_imports_the_same(batch, tmp_path):  # noqa: F811
    filled = _fill(_export(batch, tmp_path), FILLED)
    as_csv = _convert(filled, tmp_path / "calc", "csv:Text - txt - csv (StarCalc):44,34,76,1")
    summary = sheet_import(path=as_csv, annotator=_user("ann_x"))
    assert (summary.created, summary.updated) == (2, 1)
    assert {key: value[:2] for key, value in _stored().items() if key in FILLED} == FILLED


def test_formula_like_texts_survive_libreoffice_as_texts_and_import(formula_batch, tmp_path):  # noqa: F811
    converted = _convert(_export(formula_batch, tmp_path, "ann_f"), tmp_path / "calc", "xlsx")
    sheet = load_workbook(converted)[layout.RATINGS_SHEET]
    users = [sheet.cell(row=row, column=layout.KEYS.index("user") + 1) for row in (2, 3, 4)]
    assert [(cell.value, cell.data_type) for cell in users] == [(user, "s") for user, _ in FORMULA_TEXTS.values()]
    summary = sheet_import(path=_fill(converted, FORMULA_FILLED))
    assert summary.created == 3

    as_csv = _convert(_fill(_export(formula_batch, tmp_path, "ann_f"), FORMULA_FILLED), tmp_path / "csv",
                      "csv:Text - txt - csv (StarCalc):44,34,76,1")  # fmt: skip
    summary = sheet_import(path=as_csv, annotator=_user("ann_f"))
    assert (summary.created, summary.unchanged) == (0, 3)
    assert {key: value[:2] for key, value in _stored("ann_f").items()} == FORMULA_FILLED
