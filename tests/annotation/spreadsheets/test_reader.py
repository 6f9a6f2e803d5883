"""``read_sheet``: filled rating sheets (.xlsx and CSV) read, and every bad one named by sheet, row and column."""

import csv
import io
import math
import zipfile

import openpyxl
import pytest

from annotation.spreadsheets import layout, reader
from annotation.spreadsheets.reader import SheetProblem, read_sheet

SHEET = layout.RATINGS_SHEET
ID, CONTEXT, USER, RESPONSE = "A", "B", "C", "D"
SOCIAL, AVOIDANT, MECHANICAL, SELF = "E", "F", "G", "H"
SOCIAL_CONF, SELF_CONF, COMMENT = "I", "L", "M"


def row(i: int, **overrides) -> dict:
    """A rated row of dialogue ``i`` (keys: ``layout.KEYS``; a missing key is a blank cell)."""
    data = {
        "id": f"dialogue_{i:03d}",
        "context": "[-2] ai: 前の応答\n[-1] user: 前の発話",
        "user": f"質問 {i}",
        "response": f"回答 {i}",
        "social": 1,
        "avoidant": 2,
        "mechanical": 3,
        "self": 4,
        "social_confidence": 0.9,
        "avoidant_confidence": 0.8,
        "mechanical_confidence": 0.95,
        "self_confidence": 0.5,
    }
    data.update(overrides)
    return data


def unrated(i: int, **overrides) -> dict:
    """Row ``i`` as the template gives it: locked texts only."""
    return {key: value for key, value in row(i, **overrides).items() if key in layout.LOCKED_KEYS}


def cells(data) -> list:
    return list(data) if isinstance(data, (list, tuple)) else [data.get(key) for key in layout.KEYS]


def meta_rows(template_rows, *, version=layout.TEMPLATE_VERSION, batch_id=7, rows=None, checksum=None) -> list:
    template_rows = [
        data if isinstance(data, dict) else dict(zip(layout.KEYS, data, strict=False)) for data in template_rows
    ]
    digests = [
        (number, data["id"], layout.row_digest(data["id"], data["context"], data["user"], data["response"]))
        for number, data in enumerate(template_rows, start=2)
    ]
    values = {
        "template_version": version,
        "batch_id": batch_id,
        "batch": "batch-a",
        "annotator": "ann_001",
        "rows": len(digests) if rows is None else rows,
        "checksum": checksum or layout.sheet_checksum(digest for _, _, digest in digests),
    }
    return [[key, values[key]] for key in layout.META_KEYS] + [[], list(layout.ROW_DIGESTS_HEADER), *digests]


def make_xlsx(tmp_path, rows, *, template=None, headers=layout.HEADERS, sheet=SHEET, meta=True, name="r.xlsx", **kw):
    """A workbook like the template's: ``rows`` from row 2; the meta sheet describes ``template`` (default: rows)."""
    workbook = openpyxl.Workbook()
    ratings = workbook.active
    ratings.title = sheet
    ratings.append(list(headers))
    for data in rows:
        ratings.append(cells(data))
    if meta is True:
        meta = meta_rows(rows if template is None else template, **kw)
    if meta:
        hidden = workbook.create_sheet(layout.META_SHEET)
        hidden.sheet_state = "hidden"
        for values in meta:
            hidden.append(values)
    path = tmp_path / name
    workbook.save(path)
    return path


def make_csv(tmp_path, rows, *, headers=layout.HEADERS, bom=True, newline="\r\n", name="r.csv"):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=newline)
    writer.writerow(headers)
    for data in rows:
        writer.writerow(["" if value is None else value for value in cells(data)])
    path = tmp_path / name
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + buffer.getvalue().encode("utf-8"))
    return path


def located(content) -> list[tuple]:
    return [(p.sheet, p.row, p.column) for p in content.problems]


def only_problem(content) -> SheetProblem:
    assert len(content.problems) == 1, [str(p) for p in content.problems]
    return content.problems[0]


# ---------------------------------------------------------------------------------------------- good sheets


def test_a_good_workbook_gives_values_defaults_skipped_rows_and_comments(tmp_path):
    rows = [
        row(0, comment="  とても丁寧  "),
        row(1, social=3.0, avoidant="2", mechanical=" 5 ", self="４", social_confidence=None, self_confidence="0.8"),
        unrated(2),
        unrated(3, self_confidence=0.3, comment="後で"),  # no scores: skipped, its confidence unchecked
        row(4, avoidant_confidence=".8", mechanical_confidence="1", self_confidence=0),
    ]
    path = make_xlsx(tmp_path, rows)

    content = read_sheet(path)

    assert content.problems == []
    assert content.kind == "xlsx"
    assert [r.row for r in content.ratings] == [2, 3, 6]
    assert content.skipped_rows == [4, 5]
    first, second, last = content.ratings
    assert first.id == "dialogue_000"
    assert first.texts == ("[-2] ai: 前の応答\n[-1] user: 前の発話", "質問 0", "回答 0")
    assert first.scores == {"social": 1, "avoidant": 2, "mechanical": 3, "self": 4}
    assert first.confidence == {"social": 0.9, "avoidant": 0.8, "mechanical": 0.95, "self": 0.5}
    assert first.comment == "とても丁寧"
    assert second.scores == {"social": 3, "avoidant": 2, "mechanical": 5, "self": 4}
    assert all(type(score) is int for score in second.scores.values())
    assert second.confidence == {"social": layout.DEFAULT_CONFIDENCE, "avoidant": 0.8, "mechanical": 0.95, "self": 0.8}
    assert second.comment == ""
    assert last.confidence == {"social": 0.9, "avoidant": 0.8, "mechanical": 1.0, "self": 0.0}
    meta = content.meta
    assert (meta.template_version, meta.batch_id, meta.batch, meta.annotator, meta.rows) == (
        "1",
        7,
        "batch-a",
        "ann_001",
        5,
    )
    assert meta.digests[4][0] == "dialogue_002"
    assert meta.checksum == layout.sheet_checksum(meta.digests[n][1] for n in range(2, 7))


def test_blank_rows_are_ignored_and_template_rows_left_out_of_the_sheet_are_fine(tmp_path):
    template = [unrated(i) for i in range(5)]
    path = make_xlsx(tmp_path, [row(0), {}, row(2)], template=template)  # row 3 cleared, rows 5-6 deleted

    content = read_sheet(path)

    assert content.problems == []
    assert [r.row for r in content.ratings] == [2, 4]
    assert content.skipped_rows == []


def test_a_workbook_with_no_meta_batch_id_reads_none(tmp_path):
    content = read_sheet(make_xlsx(tmp_path, [row(0)], batch_id=None))

    assert content.problems == []
    assert content.meta.batch_id is None


@pytest.mark.parametrize("bom", [True, False])
@pytest.mark.parametrize("newline", ["\r\n", "\n"])
def test_a_good_csv_with_or_without_bom_and_crlf_and_a_multiline_cell(tmp_path, bom, newline):
    rows = [
        row(0, comment='二行の\r\nコメント, "引用"'),
        {key: ("" if value is None else str(value)) for key, value in row(1, social_confidence=None).items()},
        unrated(2),
    ]
    path = make_csv(tmp_path, rows, bom=bom, newline=newline)

    content = read_sheet(path)

    assert content.problems == []
    assert content.kind == "csv"
    assert content.meta is None
    assert [r.row for r in content.ratings] == [2, 3]  # spreadsheet rows: a multi-line cell is one row
    assert content.skipped_rows == [4]
    first, second = content.ratings
    assert first.texts[0] == "[-2] ai: 前の応答\n[-1] user: 前の発話"
    assert first.comment == '二行の\r\nコメント, "引用"'
    assert first.scores == second.scores == {"social": 1, "avoidant": 2, "mechanical": 3, "self": 4}
    assert second.confidence["social"] == layout.DEFAULT_CONFIDENCE
    assert first.confidence["mechanical"] == 0.95


def test_the_type_is_told_by_content_not_by_the_name(tmp_path):
    xlsx_named_csv = make_xlsx(tmp_path, [row(0)], name="ratings.csv")
    csv_named_xlsx = make_csv(tmp_path, [row(0)], name="ratings.xlsx")
    no_extension = make_xlsx(tmp_path, [row(0)], name="upload_tmp")

    assert read_sheet(xlsx_named_csv).kind == "xlsx"
    assert read_sheet(no_extension).kind == "xlsx"
    assert read_sheet(csv_named_xlsx).kind == "csv"
    for path in (xlsx_named_csv, csv_named_xlsx, no_extension):
        content = read_sheet(path)
        assert content.problems == [] and len(content.ratings) == 1


def test_a_problem_names_the_file_as_given(tmp_path):
    path = make_csv(tmp_path, [row(0, social=9)], name="upload_x1.csv")

    problem = only_problem(read_sheet(path, name="mine.csv"))

    assert (problem.sheet, problem.row, problem.column) == ("mine.csv", 2, SOCIAL)


# ---------------------------------------------------------------------------------------------- scores


@pytest.mark.parametrize(
    ("value", "shown"),
    [(7, "7"), (0, "0"), (6, "6"), (2.5, "2.5"), ("abc", "abc"), (True, "TRUE"), ("3.0", "3.0"), ("-1", "-1")],
)
def test_a_score_that_is_not_an_integer_from_1_to_5_is_named_by_its_cell(tmp_path, value, shown):
    path = make_xlsx(tmp_path, [row(0), row(1, mechanical=value)])

    content = read_sheet(path)

    problem = only_problem(content)
    assert (problem.sheet, problem.row, problem.column) == (SHEET, 3, MECHANICAL)
    assert problem.header == "機械的迎合 (mechanical) 1-5"
    assert problem.value == shown
    assert problem.message == f"must be an integer from 1 to 5, got {shown!r}"
    assert [r.row for r in content.ratings] == [2]  # the bad row is not a rating


def test_problem_str_shows_the_cell_its_header_and_the_message(tmp_path):
    problem = only_problem(read_sheet(make_xlsx(tmp_path, [row(0), row(1), row(2), row(3, social=7)])))

    assert str(problem) == "評価!E5 (社会的迎合 (social) 1-5): must be an integer from 1 to 5, got '7'"


def test_problem_str_without_a_column_or_a_row():
    assert str(SheetProblem("評価", 4, None, None, "x", "changed")) == "評価 row 4: changed"
    assert str(SheetProblem("a.csv", None, None, None, "", "not a spreadsheet")) == "a.csv: not a spreadsheet"


def test_a_partly_filled_row_gives_a_problem_per_blank_score(tmp_path):
    path = make_xlsx(tmp_path, [row(0, avoidant=None, self="  ")])

    content = read_sheet(path)

    assert located(content) == [(SHEET, 2, AVOIDANT), (SHEET, 2, SELF)]
    assert all("partly filled" in p.message and "all four" in p.message for p in content.problems)
    assert content.ratings == [] and content.skipped_rows == []


@pytest.mark.parametrize(("value", "shown"), [(1.2, "1.2"), (-0.1, "-0.1"), ("abc", "abc"), ("1.5", "1.5"),
                                              ("0,8", "0,8"), (math.inf, "inf"), (False, "FALSE")])  # fmt: skip
def test_a_confidence_that_is_not_a_number_from_0_to_1_is_named_by_its_cell(tmp_path, value, shown):
    path = make_csv(tmp_path, [row(0, self_confidence=value)]) if value is math.inf else None
    path = path or make_xlsx(tmp_path, [row(0, self_confidence=value)])

    problem = only_problem(read_sheet(path))

    assert (problem.row, problem.column, problem.header) == (2, SELF_CONF, "確信度 self (0-1)")
    assert problem.value == shown
    assert "a number from 0 to 1" in problem.message and repr(shown) in problem.message


# ---------------------------------------------------------------------------------------------- ids and locked texts


def test_an_edited_id_is_named_with_the_templates_id(tmp_path):
    template = [unrated(0), unrated(1)]
    path = make_xlsx(tmp_path, [row(0), row(1, id="dialogue_1")], template=template)

    problem = only_problem(read_sheet(path))

    assert (problem.sheet, problem.row, problem.column, problem.header) == (SHEET, 3, ID, "id")
    assert problem.value == "dialogue_1"
    assert problem.message.startswith("id changed (the template had 'dialogue_001')")


def test_sorted_rows_are_named_as_moved(tmp_path):
    template = [unrated(0), unrated(1)]
    path = make_xlsx(tmp_path, [row(1), row(0)], template=template)

    content = read_sheet(path)

    assert located(content) == [(SHEET, 2, ID), (SHEET, 3, ID)]
    assert "'dialogue_001' on row 3" in content.problems[0].message
    assert "do not sort" in content.problems[0].message


def test_an_edited_locked_text_is_named_by_its_row(tmp_path):
    template = [unrated(0), unrated(1), unrated(2)]
    path = make_xlsx(tmp_path, [row(0), row(1, response="回答 1 (直した)"), unrated(2, user="")], template=template)

    content = read_sheet(path)

    assert located(content) == [(SHEET, 3, None), (SHEET, 4, None)]
    assert all("locked texts of this row were changed" in p.message for p in content.problems)
    assert content.problems[0].value == "dialogue_001"
    assert [r.row for r in content.ratings] == [2]


def test_a_row_the_template_did_not_have_is_a_problem(tmp_path):
    path = make_xlsx(tmp_path, [row(0), row(1), row(9)], template=[unrated(0), unrated(1)])

    problem = only_problem(read_sheet(path))

    assert (problem.sheet, problem.row, problem.column) == (SHEET, 4, None)
    assert problem.value == "dialogue_009"
    assert "did not have" in problem.message and "rows are 2 to 3" in problem.message


def test_a_duplicate_id_is_named_on_the_second_row_with_the_first(tmp_path):
    path = make_csv(tmp_path, [row(0), row(1), unrated(0)])

    problem = only_problem(read_sheet(path))

    assert (problem.row, problem.column, problem.header, problem.value) == (4, ID, "id", "dialogue_000")
    assert "duplicate id 'dialogue_000' (first on row 2)" in problem.message


def test_a_blank_id_is_a_problem(tmp_path):
    problem = only_problem(read_sheet(make_csv(tmp_path, [row(0, id="  ")])))

    assert (problem.row, problem.column) == (2, ID)
    assert "id is blank" in problem.message


# ---------------------------------------------------------------------------------------------- headers


def headers_with(change) -> list:
    headers = list(layout.HEADERS)
    change(headers)
    return headers


@pytest.mark.parametrize("kind", ["xlsx", "csv"])
def test_a_renamed_header_is_named_and_the_rows_are_not_read(tmp_path, kind):
    headers = headers_with(lambda h: h.__setitem__(4, "social"))
    make = make_xlsx if kind == "xlsx" else make_csv
    content = read_sheet(make(tmp_path, [row(0, self=9)], headers=headers))

    problem = only_problem(content)
    assert (problem.row, problem.column, problem.header, problem.value) == (1, SOCIAL, layout.HEADERS[4], "social")
    assert f"header 'social' should be {layout.HEADERS[4]!r}" in problem.message
    assert content.ratings == [] and content.skipped_rows == []


def test_headers_are_matched_with_surrounding_whitespace_stripped(tmp_path):
    headers = [f" {header}\t" for header in layout.HEADERS] + [None, "  "]
    content = read_sheet(make_xlsx(tmp_path, [row(0)], headers=headers))

    assert content.problems == [] and len(content.ratings) == 1


def test_a_missing_header_is_named(tmp_path):
    headers = headers_with(lambda h: h.__setitem__(2, None))
    problem = only_problem(read_sheet(make_xlsx(tmp_path, [row(0)], headers=headers)))

    assert (problem.row, problem.column, problem.header, problem.value) == (1, USER, layout.HEADERS[2], "")
    assert f"missing header: expected {layout.HEADERS[2]!r}" in problem.message


def test_a_missing_column_names_each_shifted_column(tmp_path):
    headers = headers_with(lambda h: h.pop(1))  # no context column: every later header moves left
    content = read_sheet(make_csv(tmp_path, [list(cells(row(0)))[:1] + list(cells(row(0)))[2:]], headers=headers))

    assert [p.column for p in content.problems] == [layout.column_letter(i) for i in range(1, len(layout.HEADERS))]
    assert content.problems[0].message.startswith(f"header {layout.HEADERS[2]!r} should be {layout.HEADERS[1]!r}")
    assert "belongs in column C" in content.problems[0].message
    assert content.problems[-1].message.startswith(f"missing header: expected {layout.HEADERS[-1]!r}")


def test_an_extra_column_is_named(tmp_path):
    headers = [*layout.HEADERS, "メモ"]
    problem = only_problem(read_sheet(make_xlsx(tmp_path, [[*cells(row(0)), "x"]], headers=headers)))

    assert (problem.row, problem.column, problem.header, problem.value) == (1, "N", None, "メモ")
    assert "extra column 'メモ'" in problem.message and "end at M" in problem.message


def test_reordered_columns_name_both_places(tmp_path):
    headers = headers_with(lambda h: h.__setitem__(slice(4, 6), [h[5], h[4]]))
    content = read_sheet(make_xlsx(tmp_path, [row(0)], headers=headers))

    assert located(content) == [(SHEET, 1, SOCIAL), (SHEET, 1, AVOIDANT)]
    assert "belongs in column F" in content.problems[0].message
    assert "belongs in column E" in content.problems[1].message


def test_an_empty_sheet_or_file_has_no_header_row(tmp_path):
    empty_csv = tmp_path / "empty.csv"
    empty_csv.write_bytes(b"")
    workbook = openpyxl.Workbook()
    workbook.active.title = SHEET
    workbook.save(tmp_path / "empty.xlsx")

    for path in (empty_csv, tmp_path / "empty.xlsx"):
        problems = [p for p in read_sheet(path).problems if p.row == 1]
        assert len(problems) == 1 and "no header row" in problems[0].message


def test_a_semicolon_separated_csv_is_named(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text(";".join(layout.HEADERS) + "\n", encoding="utf-8")

    problem = only_problem(read_sheet(path))

    assert problem.row == 1 and "not comma-separated" in problem.message


def test_a_value_outside_the_templates_columns_is_named(tmp_path):
    content = read_sheet(make_xlsx(tmp_path, [row(0), [*cells(row(1)), None, "メモ"]]))

    problem = only_problem(content)
    assert (problem.row, problem.column, problem.header, problem.value) == (3, "O", None, "メモ")
    assert "outside the template's columns" in problem.message


# ---------------------------------------------------------------------------------------------- sheets and meta


def test_a_wrong_sheet_name_names_the_sheets_found(tmp_path):
    path = make_xlsx(tmp_path, [row(0)], sheet="Sheet1")

    problem = only_problem(read_sheet(path, name="up.xlsx"))

    assert (problem.sheet, problem.row, problem.column) == ("up.xlsx", None, None)
    assert "wrong sheet" in problem.message and "'Sheet1', '_meta'" in problem.message


def test_a_missing_meta_sheet_is_a_problem_and_the_rows_are_still_checked(tmp_path):
    content = read_sheet(make_xlsx(tmp_path, [row(0), row(1, social=0)], meta=None), name="up.xlsx")

    assert located(content) == [("up.xlsx", None, None), (SHEET, 3, SOCIAL)]
    assert "no hidden sheet '_meta'" in content.problems[0].message
    assert "not made from the downloaded template" in content.problems[0].message
    assert content.meta is None
    assert [r.row for r in content.ratings] == [2]


def test_a_wrong_template_version_is_a_file_level_problem(tmp_path):
    content = read_sheet(make_xlsx(tmp_path, [row(0)], version="0"))

    problem = only_problem(content)
    assert (problem.sheet, problem.row, problem.column, problem.value) == (layout.META_SHEET, None, None, "0")
    assert "template version '0'" in problem.message and f"version {layout.TEMPLATE_VERSION!r}" in problem.message
    assert content.meta.template_version == "0"


def test_a_meta_sheet_whose_checksum_does_not_match_its_rows_is_named(tmp_path):
    problem = only_problem(read_sheet(make_xlsx(tmp_path, [row(0)], checksum="0" * 64)))

    assert problem.sheet == layout.META_SHEET and "was changed" in problem.message


@pytest.mark.parametrize(
    "meta",
    [
        [["template_version", "1"]],  # keys missing
        [*meta_rows([unrated(0)])[:7], ["row", "id"]],  # wrong digests header
        [*meta_rows([unrated(0)])[:8], ["two", "dialogue_000", "abc"]],  # a digest row without a row number
    ],
)
def test_a_damaged_meta_sheet_is_named_and_the_rows_are_still_checked(tmp_path, meta):
    content = read_sheet(make_xlsx(tmp_path, [row(0, social=8)], meta=meta))

    assert located(content) == [(layout.META_SHEET, None, None), (SHEET, 2, SOCIAL)]
    assert "is damaged" in content.problems[0].message
    assert content.meta is None


# ---------------------------------------------------------------------------------------------- not a spreadsheet


def docx_like(path):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archive.writestr("word/document.xml", "<document/>")
    return path


@pytest.mark.parametrize(
    ("name", "make", "expected"),
    [
        ("random.xlsx", lambda p: p.write_bytes(bytes(range(128, 256)) * 8), ["not a spreadsheet", "UTF-8"]),
        ("binary.csv", lambda p: p.write_bytes(b"id,\x00\x01\x02"), ["not a spreadsheet", "binary"]),
        ("sjis.csv", lambda p: p.write_bytes(",".join(layout.HEADERS).encode("cp932")), ["CSV UTF-8"]),
        ("report.docx", docx_like, ["not a spreadsheet", "ZIP file that is not an Excel workbook"]),
        ("broken.xlsx", lambda p: p.write_bytes(b"PK\x03\x04" + b"\x00" * 200), ["not a spreadsheet"]),
        ("old.xls", lambda p: p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504), ["save it as .xlsx"]),
    ],
)
def test_a_file_that_is_not_a_spreadsheet_is_one_file_level_problem(tmp_path, name, make, expected):
    path = tmp_path / name
    make(path)

    content = read_sheet(path)

    problem = only_problem(content)
    assert (problem.sheet, problem.row, problem.column) == (name, None, None)
    for text in expected:
        assert text in problem.message
    assert "accepted: .xlsx (Excel, Google Sheets, LibreOffice) or UTF-8 CSV" in problem.message
    assert content.ratings == []


def test_a_workbook_whose_sheet_xml_is_broken_is_a_problem_not_an_exception(tmp_path):
    good = make_xlsx(tmp_path, [row(0)])
    broken = tmp_path / "broken.xlsx"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith("sheet1.xml"):
                data = data[: data.index(b'<row r="2"') + 20]  # cut off within row 2
            target.writestr(item, data)

    problem = only_problem(read_sheet(broken))

    assert problem.row is None and "could not be read" in problem.message


def test_the_workbook_is_closed_even_when_reading_fails(tmp_path, monkeypatch):
    closed = []
    load = openpyxl.load_workbook

    def spying_load(*args, **kwargs):
        workbook = load(*args, **kwargs)
        original = workbook.close
        workbook.close = lambda: (closed.append(True), original())
        return workbook

    def failing(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(openpyxl, "load_workbook", spying_load)
    path = make_xlsx(tmp_path, [row(0)])
    read_sheet(path)
    assert closed == [True]
    monkeypatch.setattr(reader, "_read_workbook", failing)
    with pytest.raises(RuntimeError):
        read_sheet(path)
    assert closed == [True, True]


# ---------------------------------------------------------------------------------------------- formulas


def test_a_formula_where_a_value_belongs_is_named_and_in_the_comment_too(tmp_path):
    rows = [row(0, social="=1+2", comment="=良い"), row(1, avoidant_confidence="=0.5*2"), row(2, id='="dialogue_002"')]
    path = make_xlsx(tmp_path, rows, template=[unrated(0), unrated(1), unrated(2)])

    content = read_sheet(path)

    assert located(content) == [(SHEET, 2, SOCIAL), (SHEET, 2, COMMENT), (SHEET, 3, "J"), (SHEET, 4, ID)]
    assert all("a formula" in p.message and "type the value itself" in p.message for p in content.problems)
    assert content.problems[0].value == "=1+2" and content.problems[1].value == "=良い"


def test_a_formula_like_text_in_a_csv_score_is_named(tmp_path):
    problem = only_problem(read_sheet(make_csv(tmp_path, [row(0, self="=SUM(1,2)")])))

    assert (problem.row, problem.column) == (2, SELF) and "a formula" in problem.message


FORMULAS = ('=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "=+1+1", "=-2+3", "=@SUM(A1)", "=1+1")


def _string_cells(path, texts: dict[tuple[int, str], str]):
    """``path`` with the cells at (row, column letter) holding ``texts`` as string cells (never formulas)."""
    book = openpyxl.load_workbook(path)
    for (number, letter), text in texts.items():
        cell = book[SHEET][f"{letter}{number}"]
        cell.value = text
        cell.data_type = "s"
    book.save(path)
    return path


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_formula_cell_in_the_comment_is_refused_like_one_in_a_score(tmp_path, formula):
    content = read_sheet(make_xlsx(tmp_path, [row(0), row(1, comment=formula)]))

    problem = only_problem(content)
    assert (problem.sheet, problem.row, problem.column, problem.header) == (SHEET, 3, COMMENT, layout.HEADERS[-1])
    assert problem.template == reader.msgids.FORMULA and problem.value == formula
    assert [r.row for r in content.ratings] == [2]


def test_a_formula_cell_in_the_comment_of_a_row_left_unrated_is_refused_too(tmp_path):
    problem = only_problem(read_sheet(make_xlsx(tmp_path, [row(0), {**unrated(1), "comment": "=1+1"}])))

    assert (problem.row, problem.column) == (3, COMMENT) and "a formula" in problem.message


@pytest.mark.parametrize("formula", ['=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "=1+1"])
def test_a_formula_in_a_csv_comment_is_refused_like_one_in_a_score(tmp_path, formula):
    content = read_sheet(make_csv(tmp_path, [row(0, comment=formula), {**unrated(1), "comment": formula}]))

    assert located(content) == [(content.problems[0].sheet, 2, COMMENT), (content.problems[0].sheet, 3, COMMENT)]
    assert all(p.template == reader.msgids.FORMULA and p.value == formula for p in content.problems)
    assert content.ratings == []


# Texts a spreadsheet could take for a formula, as a comment cell holds them, and as they are stored.
FORMULA_LIKE_COMMENTS = [
    ("+1+1", "'+1+1"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("- unclear", "'- unclear"),
    ("\t=1+1", "'=1+1"),
    ("  -1 ", "'-1"),
    ("＝同上", "'＝同上"),
    ("'=1+1", "'=1+1"),  # neutralised already: left as it is
    ("e-mail", "e-mail"),
]


@pytest.mark.parametrize(("text", "stored"), FORMULA_LIKE_COMMENTS)
def test_a_formula_like_comment_in_a_csv_is_read_neutralised(tmp_path, text, stored):
    content = read_sheet(make_csv(tmp_path, [row(0, comment=text)]))

    assert content.problems == [] and content.ratings[0].comment == stored


@pytest.mark.parametrize(
    ("text", "stored"), [*FORMULA_LIKE_COMMENTS, ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")')]
)
def test_a_formula_like_text_comment_in_a_workbook_is_read_neutralised(tmp_path, text, stored):
    path = _string_cells(make_xlsx(tmp_path, [row(0)]), {(2, COMMENT): text})

    content = read_sheet(path)

    assert content.problems == [] and content.ratings[0].comment == stored


def test_a_formula_cell_in_a_locked_column_is_a_changed_text_even_when_it_reads_the_same(tmp_path):
    template = [unrated(0, user="=1+1"), unrated(1, user="=1+1")]
    path = _string_cells(make_xlsx(tmp_path, [row(0, user="=1+1"), row(1, user="=1+1")], template=template),
                         {(2, USER): "=1+1"})  # fmt: skip

    content = read_sheet(path)

    problem = only_problem(content)  # row 3's user cell is a formula whose text is the template's
    assert (problem.row, problem.column, problem.template) == (3, None, reader.msgids.LOCKED_TEXTS_CHANGED)
    assert [r.row for r in content.ratings] == [2] and content.ratings[0].texts[1] == "=1+1"


def test_a_formula_like_locked_text_in_a_csv_is_read_as_it_is(tmp_path):
    content = read_sheet(make_csv(tmp_path, [row(0, user="=1+1", response="-2+3")]))

    assert content.problems == [] and content.ratings[0].texts[1:] == ("=1+1", "-2+3")


# ---------------------------------------------------------------------------------------------- many problems


def test_all_problems_are_collected_in_one_pass(tmp_path):
    rows = [row(0), row(1, social=7), row(2), row(3, avoidant=None), row(4, mechanical_confidence="abc")]
    content = read_sheet(make_xlsx(tmp_path, rows))

    assert located(content) == [(SHEET, 3, SOCIAL), (SHEET, 5, AVOIDANT), (SHEET, 6, "K")]
    assert [r.row for r in content.ratings] == [2, 4]


def test_problems_are_kept_up_to_the_limit_and_the_last_says_how_many_more(tmp_path):
    rows = [row(i, social=9, avoidant=9) for i in range(10)]  # 20 problems

    content = read_sheet(make_xlsx(tmp_path, rows), name="up.xlsx", max_problems=5)

    assert len(content.problems) == 5
    assert located(content)[:4] == [(SHEET, 2, SOCIAL), (SHEET, 2, AVOIDANT), (SHEET, 3, SOCIAL), (SHEET, 3, AVOIDANT)]
    assert content.problems[-1].sheet == "up.xlsx" and content.problems[-1].row is None
    assert "16 more problem(s) not shown (20 in all)" in content.problems[-1].message
    assert len(read_sheet(make_xlsx(tmp_path, rows), max_problems=20).problems) == 20
    with pytest.raises(ValueError):
        read_sheet(make_xlsx(tmp_path, rows), max_problems=0)


def test_a_long_value_is_shortened(tmp_path):
    problem = only_problem(read_sheet(make_csv(tmp_path, [row(0, social="x" * 200)])))

    assert problem.value == "x" * 79 + "…"


def test_two_thousand_rows_are_read_with_their_counts(tmp_path):
    rows = [row(i) if i % 4 else unrated(i) for i in range(2000)]
    rows[1234] = row(1234, social=6)

    content = read_sheet(make_xlsx(tmp_path, rows))

    assert located(content) == [(SHEET, 1236, SOCIAL)]
    assert len(content.ratings) == 1499
    assert len(content.skipped_rows) == 500
    assert len(content.meta.digests) == 2000
