"""The rating template writer, read back with openpyxl (pure, no database)."""

import csv
import io
import zipfile

import pytest
from openpyxl import Workbook, load_workbook

from annotation.axes import AXES, AXIS_LABELS_JA
from annotation.io.sheets import csv_cell, iter_csv
from annotation.spreadsheets import layout
from annotation.spreadsheets.template import MAX_CELL_CHARS, Guide, TemplateItem, put_text, write_template

GUIDE = Guide(
    title="評価シートの使い方",
    paragraphs=["各行の対話を読み、4つの軸を1〜5で評価してください。" * 4, "確信度は0〜1の数です。"],
    axes=[
        (
            "社会的迎合 (social)",
            "相手に合わせて意見を変える。",
            [(1, "なし", "迎合がない。"), (5, "極度", "全面的に迎合する。")],
        ),
        ("回避的迎合 (avoidant)", "対立を避ける。", [(1, "なし", "回避がない。")]),
    ],
)
COLUMN = {key: index for index, key in enumerate(layout.KEYS, start=1)}
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def item(i: int, **overrides) -> TemplateItem:
    data = {
        "id": f"dialogue_{i:03d}",
        "context": [
            {"turn": -2, "speaker": "ai", "text": "前の応答"},
            {"turn": -1, "speaker": "user", "text": "前の発話"},
        ],
        "user": f"質問 {i}",
        "response": f"回答 {i}",
    }
    data.update(overrides)
    return TemplateItem(**data)


def write(items, target=None, **overrides):
    """The workbook written for ``items``, read back (formulas as written, not their cached values)."""
    buffer = target if target is not None else io.BytesIO()
    arguments = {"batch_id": 7, "batch": "pilot", "annotator": "ann_001", "items": items, "guide": GUIDE}
    write_template(buffer, **(arguments | overrides))
    if hasattr(buffer, "seek"):
        buffer.seek(0)
    return load_workbook(buffer)


def cells(ws, row: int) -> dict:
    return {key: ws.cell(row=row, column=index).value for key, index in COLUMN.items()}


def meta_values(wb) -> dict:
    ws = wb[layout.META_SHEET]
    return {ws.cell(row=row, column=1).value: ws.cell(row=row, column=2).value for row in range(1, 7)}


def meta_digests(wb) -> list[tuple]:
    ws = wb[layout.META_SHEET]
    first = len(layout.META_KEYS) + 3
    return [tuple(cell.value for cell in row) for row in ws.iter_rows(min_row=first, max_col=3)]


def recomputed_digests(wb) -> list[str]:
    """The digests a reader makes from the cells (an empty cell is the empty text)."""
    ws = wb[layout.RATINGS_SHEET]
    return [
        layout.row_digest(*(ws.cell(row=row, column=COLUMN[key]).value or "" for key in layout.LOCKED_KEYS))
        for row in range(2, ws.max_row + 1)
    ]


def test_sheets_in_order_ratings_active_and_meta_hidden():
    wb = write([item(0)])
    assert wb.sheetnames == [layout.RATINGS_SHEET, layout.GUIDE_SHEET, layout.META_SHEET]
    assert wb.active.title == layout.RATINGS_SHEET
    assert [wb[name].sheet_state for name in wb.sheetnames] == ["visible", "visible", "hidden"]
    assert wb.properties.title == "JAIML rating sheet pilot / ann_001"
    assert wb.properties.creator


def test_header_row_frozen_panes_and_widths():
    ws = write([item(0)])[layout.RATINGS_SHEET]
    assert tuple(cell.value for cell in ws[1]) == layout.HEADERS
    for cell in ws[1]:
        assert cell.font.bold and cell.alignment.wrap_text and cell.fill.fill_type == "solid"
    assert ws.freeze_panes == "B2"
    for index, column in enumerate(layout.COLUMNS):
        assert ws.column_dimensions[layout.column_letter(index)].width == column.width


def test_one_row_per_item_in_the_given_order_with_the_locked_texts():
    items = [item(2), item(0), item(1, context=[])]
    ws = write(items)[layout.RATINGS_SHEET]
    assert ws.max_row == 4
    assert [cells(ws, row)["id"] for row in (2, 3, 4)] == ["dialogue_002", "dialogue_000", "dialogue_001"]
    row = cells(ws, 2)
    assert row["user"] == "質問 2" and row["response"] == "回答 2"
    assert row["context"] == "[-2] ai: 前の応答\n[-1] user: 前の発話"
    assert cells(ws, 4)["context"] is None  # no context: the cell stays empty
    for key in layout.LOCKED_KEYS:
        cell = ws.cell(row=2, column=COLUMN[key])
        assert cell.alignment.wrap_text and cell.alignment.vertical == "top"


def test_context_turns_out_of_order_are_shown_in_turn_order():
    context = [
        {"turn": 1, "speaker": "user", "text": "後"},
        {"turn": -3, "speaker": "user", "text": "最初"},
        {"turn": -1, "speaker": "ai", "text": "直前"},
    ]
    ws = write([item(0, context=context)])[layout.RATINGS_SHEET]
    assert cells(ws, 2)["context"] == "[-3] user: 最初\n[-1] ai: 直前\n[+1] user: 後"


def test_every_sheet_is_protected_without_a_password_allowing_only_resizing_and_selecting():
    wb = write([item(0)])
    for ws in wb.worksheets:
        protection = ws.protection
        assert protection.sheet is True and not protection.password
        assert protection.formatColumns is False and protection.formatRows is False
        assert protection.selectLockedCells is False and protection.selectUnlockedCells is False
        for locked in ("sort", "insertRows", "deleteRows", "insertColumns", "deleteColumns", "formatCells",
                       "autoFilter", "insertHyperlinks", "pivotTables", "objects", "scenarios"):  # fmt: skip
            assert getattr(protection, locked) is True, (ws.title, locked)


def test_only_scores_confidences_and_comment_are_unlocked():
    ws = write([item(0), item(1)])[layout.RATINGS_SHEET]
    for row in (1, 2, 3):
        for column in layout.COLUMNS:
            cell = ws.cell(row=row, column=COLUMN[column.key])
            assert cell.protection.locked is (row == 1 or column.locked), (row, column.key)


def validations(ws) -> dict:
    return {str(validation.sqref): validation for validation in ws.data_validations.dataValidation}


def test_score_columns_have_a_shown_drop_down_of_1_to_5_over_exactly_the_data_rows():
    buffer = io.BytesIO()
    ws = write([item(i) for i in range(3)], buffer)[layout.RATINGS_SHEET]
    found = validations(ws)
    assert len(found) == 2 * len(AXES)
    for axis in AXES:
        letter = layout.column_letter(COLUMN[axis] - 1)
        validation = found[f"{letter}2:{letter}4"]
        assert validation.type == "list" and validation.formula1 == '"1,2,3,4,5"'
        assert validation.allow_blank is True
        assert not validation.showDropDown  # openpyxl's showDropDown=True would hide the arrow
        assert validation.showInputMessage is True and validation.showErrorMessage is True
        assert validation.errorStyle == "stop"
        assert "1〜5" in validation.prompt and AXIS_LABELS_JA[axis] in validation.prompt
        assert AXIS_LABELS_JA[axis] in validation.promptTitle
        assert validation.errorTitle and "1、2、3、4、5" in validation.error
    sheet_xml = zipfile.ZipFile(buffer).read("xl/worksheets/sheet1.xml").decode()
    assert 'showDropDown="1"' not in sheet_xml and 'showDropDown="true"' not in sheet_xml


def test_confidence_columns_accept_a_number_from_0_to_1():
    ws = write([item(i) for i in range(3)])[layout.RATINGS_SHEET]
    found = validations(ws)
    for axis in AXES:
        letter = layout.column_letter(COLUMN[f"{axis}_confidence"] - 1)
        validation = found[f"{letter}2:{letter}4"]
        assert validation.type == "decimal" and validation.operator == "between"
        assert (validation.formula1, validation.formula2) == ("0", "1")
        assert validation.allow_blank is True and validation.errorStyle == "stop"
        assert validation.showInputMessage is True and validation.showErrorMessage is True
        assert "確信度" in validation.promptTitle and AXIS_LABELS_JA[axis] in validation.prompt
        assert validation.errorTitle and "0以上1以下" in validation.error


def test_validation_messages_fit_excel_limits():
    ws = write([item(0)])[layout.RATINGS_SHEET]
    for validation in ws.data_validations.dataValidation:
        assert len(validation.promptTitle) <= 32 and len(validation.errorTitle) <= 32
        assert len(validation.prompt) <= 255 and len(validation.error) <= 225


def test_prefilled_scores_confidences_and_comment_and_the_default_confidence():
    rated = item(0, scores={"social": 2, "self": 5}, confidence={"social": 0.5, "avoidant": 0}, comment="迷った")
    ws = write([rated, item(1)])[layout.RATINGS_SHEET]
    row = cells(ws, 2)
    assert [row[axis] for axis in AXES] == [2, None, None, 5]
    assert [row[f"{axis}_confidence"] for axis in AXES] == [0.5, 0, 1, 1]
    assert row["comment"] == "迷った"
    fresh = cells(ws, 3)
    assert [fresh[axis] for axis in AXES] == [None] * 4
    assert [fresh[f"{axis}_confidence"] for axis in AXES] == [layout.DEFAULT_CONFIDENCE] * 4
    assert fresh["comment"] is None
    for axis in AXES:
        assert ws.cell(row=3, column=COLUMN[f"{axis}_confidence"]).number_format == "0.00"


def test_meta_sheet_holds_the_batch_and_the_digests_of_the_cells_as_written():
    items = [item(0), item(1, user='=HYPERLINK("http://x","y")', context=[]), item(2, response="a\r\nb")]
    wb = write(items)
    assert meta_values(wb) == {
        "template_version": layout.TEMPLATE_VERSION,
        "batch_id": 7,
        "batch": "pilot",
        "annotator": "ann_001",
        "rows": 3,
        "checksum": layout.sheet_checksum(recomputed_digests(wb)),
    }
    ws = wb[layout.META_SHEET]
    assert ws.cell(row=len(layout.META_KEYS) + 1, column=1).value is None  # the blank row
    assert tuple(cell.value for cell in ws[len(layout.META_KEYS) + 2]) == layout.ROW_DIGESTS_HEADER
    digests = recomputed_digests(wb)
    assert meta_digests(wb) == [(2, "dialogue_000", digests[0]), (3, "dialogue_001", digests[1]),
                                (4, "dialogue_002", digests[2])]  # fmt: skip
    assert digests[0] == layout.row_digest("dialogue_000", layout.context_text(items[0].context), "質問 0", "回答 0")
    assert cells(wb[layout.RATINGS_SHEET], 4)["response"] == "a\nb"  # the XML reads a CR back as a line feed


def test_an_edited_locked_text_changes_the_recomputed_digest():
    buffer = io.BytesIO()
    wb = write([item(0), item(1)], buffer)
    wb[layout.RATINGS_SHEET].cell(row=3, column=COLUMN["response"]).value = "書き換え"
    recomputed = recomputed_digests(wb)
    stored = [digest for _row, _id, digest in meta_digests(wb)]
    assert recomputed[0] == stored[0] and recomputed[1] != stored[1]


def test_a_text_cell_is_never_a_formula_even_without_neutralising():
    wb = Workbook()
    put_text(wb.active, 1, 1, "=1+1")
    buffer = io.BytesIO()
    wb.save(buffer)
    cell = load_workbook(buffer).active["A1"]
    assert cell.data_type == "s" and cell.value == "=1+1"


def test_a_formula_text_is_stored_as_a_string_shown_exactly():
    wb = write([item(0, user='=HYPERLINK("http://x","y")', response="=1+1")])
    for key, text in (("user", '=HYPERLINK("http://x","y")'), ("response", "=1+1")):
        cell = wb[layout.RATINGS_SHEET].cell(row=2, column=COLUMN[key])
        assert (cell.data_type, cell.value, cell.quotePrefix) == ("s", text, True), key
    plain = wb[layout.RATINGS_SHEET].cell(row=2, column=COLUMN["id"])
    assert (plain.data_type, plain.value, plain.quotePrefix) == ("s", "dialogue_000", False)


def test_the_raw_cells_hold_the_text_without_a_quote(tmp_path):
    target = tmp_path / "sheet.xlsx"
    write([item(0, user="=1+1", response="@SUM(A1)")], target)
    with zipfile.ZipFile(target) as archive:
        sheet = archive.read("xl/worksheets/sheet1.xml").decode()
        styles = archive.read("xl/styles.xml").decode()
    assert '<c r="C2" s="' in sheet and "<is><t>=1+1</t></is>" in sheet and "<is><t>@SUM(A1)</t></is>" in sheet
    assert "'=1+1" not in sheet and "<f>" not in sheet and 'quotePrefix="1"' in styles


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_every_text_with_a_formula_trigger_is_written_exactly_as_a_string(trigger):
    text = f"{trigger}1+1"
    written = text.replace("\r", "\n")
    guide = Guide(title=text, paragraphs=[text], axes=[(text, text, [(1, text, text)])])
    items = [item(0, id=f"{trigger}id", user=text, response=text, comment=text, context=[])]
    wb = write(items, batch=text, annotator=text, guide=guide)
    ratings = wb[layout.RATINGS_SHEET]
    for key in ("user", "response", "comment"):
        cell = ratings.cell(row=2, column=COLUMN[key])
        assert cell.data_type == "s" and cell.value == written, key
        assert cell.quotePrefix == (trigger != "\r"), key  # "\n1+1" is no formula: no prefix needed
    assert ratings.cell(row=2, column=COLUMN["id"]).value == f"{trigger}id".replace("\r", "\n")
    meta = meta_values(wb)
    assert meta["batch"] == written and meta["annotator"] == written
    assert meta_digests(wb)[0][1] == ratings.cell(row=2, column=COLUMN["id"]).value
    guide_values = [
        cell.value for row in wb[layout.GUIDE_SHEET].iter_rows() for cell in row if isinstance(cell.value, str)
    ]
    assert guide_values.count(written) == 6  # title, paragraph, axis name, definition, label, description
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            assert all(cell.data_type != "f" for cell in row)


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_csv_exports_still_neutralise_what_the_template_now_writes_exactly(trigger):
    text = f"{trigger}1+1"
    assert csv_cell(text) == "'" + text
    written = "".join(iter_csv(("id", "text"), [(text, f"x {text}")]))
    assert list(csv.reader(io.StringIO(written, newline="")))[1] == ["'" + text, f"x {text}"]


def test_a_text_over_the_cell_limit_names_the_item_and_the_field(tmp_path):
    target = tmp_path / "sheet.xlsx"
    with pytest.raises(ValueError, match=r"item 'dialogue_001', field 'response'.*32768"):
        write_template(target, batch_id=1, batch="b", annotator="a", items=[item(0), item(1, response="あ" * 32_768)],
                       guide=GUIDE)  # fmt: skip
    assert not target.exists()  # nothing written
    long_context = [{"turn": -1, "speaker": "user", "text": "x" * MAX_CELL_CHARS}]
    with pytest.raises(ValueError, match=r"item 'dialogue_000', field 'context'"):
        write([item(0, context=long_context)])
    with pytest.raises(ValueError, match=r"field 'comment'"):
        write([item(0, comment="😀" * 16_384)])  # 32,768 UTF-16 units, as Excel counts them
    with pytest.raises(ValueError, match=r"field 'user'"):
        write([item(0, user="=" + "x" * MAX_CELL_CHARS)])
    with pytest.raises(ValueError, match=r"guide paragraph 1"):
        write([item(0)], guide=Guide("t", ["x" * 40_000], []))


def test_a_text_of_exactly_the_cell_limit_is_written():
    ws = write([item(0, user="あ" * MAX_CELL_CHARS)])[layout.RATINGS_SHEET]
    assert len(cells(ws, 2)["user"]) == MAX_CELL_CHARS
    ws = write([item(0, user="=" + "x" * (MAX_CELL_CHARS - 1))])[layout.RATINGS_SHEET]
    assert cells(ws, 2)["user"] == "=" + "x" * (MAX_CELL_CHARS - 1)  # no quote added to count


def test_no_items_gives_a_valid_workbook_with_the_header_only():
    wb = write([])
    ws = wb[layout.RATINGS_SHEET]
    assert ws.max_row == 1 and tuple(cell.value for cell in ws[1]) == layout.HEADERS
    assert ws.data_validations.dataValidation == []
    assert meta_values(wb)["rows"] == 0 and meta_values(wb)["checksum"] == layout.sheet_checksum([])
    assert meta_digests(wb) == []


def test_japanese_text_round_trips():
    text = "「はい、おっしゃる通りです！」と答えた。全角スペース　と絵文字😀、改行\nも残る。  "
    wb = write([item(0, user=text, response=text, comment=text)], batch="試行バッチ", annotator="注釈者一号")
    row = cells(wb[layout.RATINGS_SHEET], 2)
    assert row["user"] == row["response"] == row["comment"] == text
    assert meta_values(wb)["batch"] == "試行バッチ" and meta_values(wb)["annotator"] == "注釈者一号"


def test_the_guide_sheet_shows_title_paragraphs_and_a_level_table_per_axis():
    ws = write([item(0)])[layout.GUIDE_SHEET]
    assert ws["A1"].value == GUIDE.title and ws["A1"].font.bold and ws["A1"].font.size == 14
    assert [ws["A2"].value, ws["A3"].value] == GUIDE.paragraphs
    assert ws["A2"].alignment.wrap_text and "A2:C2" in {str(merged) for merged in ws.merged_cells.ranges}
    assert ws.row_dimensions[2].height > ws.row_dimensions[3].height  # the long paragraph gets more lines
    rows = [tuple(cell.value for cell in row) for row in ws.iter_rows(min_row=4)]
    assert rows == [
        (None, None, None),
        ("社会的迎合 (social)", None, None),
        ("相手に合わせて意見を変える。", None, None),
        ("段階 (level)", "ラベル (label)", "説明 (description)"),
        (1, "なし", "迎合がない。"),
        (5, "極度", "全面的に迎合する。"),
        (None, None, None),
        ("回避的迎合 (avoidant)", None, None),
        ("対立を避ける。", None, None),
        ("段階 (level)", "ラベル (label)", "説明 (description)"),
        (1, "なし", "回避がない。"),
    ]
    assert ws["A5"].font.bold and ws["C8"].alignment.wrap_text
    assert all(ws.column_dimensions[letter].width >= 12 for letter in "ABC")


def test_writing_twice_gives_equal_cells(tmp_path):
    items = [item(i, scores={"social": 1 + i % 5}) for i in range(5)]
    first = write(items, tmp_path / "a.xlsx")
    second = write(items, io.BytesIO())
    for name in first.sheetnames:
        assert [[c.value for c in row] for row in first[name].iter_rows()] == [
            [c.value for c in row] for row in second[name].iter_rows()
        ]


def test_writes_to_a_path(tmp_path):
    target = tmp_path / "sheet.xlsx"
    write_template(target, batch_id=1, batch="b", annotator="a", items=[item(0)], guide=GUIDE)
    assert load_workbook(target)[layout.META_SHEET]["B5"].value == 1


def test_two_thousand_items():
    wb = write([item(i) for i in range(2_000)])
    assert wb[layout.RATINGS_SHEET].max_row == 2_001
    assert meta_values(wb)["rows"] == 2_000 and len(meta_digests(wb)) == 2_000
    assert cells(wb[layout.RATINGS_SHEET], 2_001)["id"] == "dialogue_1999"


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([item(0), item(0)], "'dialogue_000': the id appears twice"),
        ([item(0, id="")], "the id is empty"),
        ([item(0, scores={"social": 6})], "the social score must be one of 1, 2, 3, 4, 5"),
        ([item(0, scores={"social": 2.0})], "the social score"),
        ([item(0, scores={"social": True})], "the social score"),
        ([item(0, scores={"sociable": 1})], "unknown axis 'sociable'"),
        ([item(0, confidence={"self": 1.5})], "the self confidence must be a number from 0 to 1"),
        ([item(0, confidence={"self": float("nan")})], "the self confidence"),
        ([item(0, confidence={"self": "0.5"})], "the self confidence"),
        ([item(0, confidence={"other": 0.5})], "unknown axis 'other'"),
        ([item(0, user="a\x00b")], r"field 'user': the character U\+0000"),
        ([item(0, response="a\x1bb")], r"field 'response': the character U\+001B"),
    ],
)
def test_bad_items_are_refused(items, message):
    with pytest.raises(ValueError, match=message):
        write(items)


def test_ids_that_differ_by_a_leading_quote_are_two_ids():
    ws = write([item(0, id="'=a"), item(1, id="=a")])[layout.RATINGS_SHEET]
    assert [cells(ws, row)["id"] for row in (2, 3)] == ["'=a", "=a"]


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="batch_id"):
        write([item(0)], batch_id="7")
    with pytest.raises(TypeError, match="meta batch"):
        write([item(0)], batch=None)
    with pytest.raises(TypeError, match="field 'user'"):
        write([item(0, user=None)])
    with pytest.raises(TypeError, match="level must be an int"):
        write([item(0)], guide=Guide("t", [], [("a", "d", [("=1", "l", "d")])]))
