"""The rating spreadsheet template: one .xlsx per batch and annotator (pure Python, no Django; openpyxl).

Three sheets, in this order: ``RATINGS_SHEET`` to fill (active), ``GUIDE_SHEET`` with the instructions
and ``META_SHEET`` (hidden) with what the sheet was made for and the digests of its locked texts.
Every sheet is protected without a password: on the ratings sheet only the scores, the confidences
and the comment are unlocked, and rows cannot be inserted, deleted or sorted.

Every text goes into its cell exactly, as a string, never as a formula: the cell's type is forced to
text, and a text a spreadsheet could take for a formula (``core.spreadsheet_cells.is_formula_like``:
``=HYPERLINK(...)``, ``-2+3``, ``@SUM(A1)``) also gets the quote-prefix style, which is what Excel
gives a cell typed with a leading ``'``: the cell shows the text without a visible quote, and stays
text if someone edits it. No ``'`` is added to the text itself (templates made before did, and are
still read: ``annotation.spreadsheets.imports`` accepts both forms). Carriage returns become line
feeds, as the file's XML reads them back anyway, so that the digests, made from exactly the strings
written into the cells, are found again by a reader. A text that no cell can hold (over
``MAX_CELL_CHARS``, or with a control character XML refuses) raises ``ValueError`` naming the item
and the field; nothing is written then. An empty text leaves its cell empty: a reader takes an
empty cell for ``""``.
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Sequence
from typing import BinaryIO

from openpyxl import Workbook
from openpyxl.styles import DEFAULT_FONT, Alignment, Font, NamedStyle, PatternFill, Protection
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from annotation.axes import AXES, AXIS_LABELS_JA, SCORES
from annotation.spreadsheets.layout import (
    COLUMNS,
    DEFAULT_CONFIDENCE,
    GUIDE_SHEET,
    LOCKED_KEYS,
    MAX_CELL_CHARS,  # noqa: F401  (kept here for the template's readers)
    META_KEYS,
    META_SHEET,
    RATINGS_SHEET,
    ROW_DIGESTS_HEADER,
    TEMPLATE_VERSION,
    Guide,
    TemplateItem,
    cell_text,
    column_letter,
    context_text,
    row_digest,
    sheet_checksum,
)
from core.spreadsheet_cells import is_formula_like

BODY_FONT = DEFAULT_FONT  # Calibri 11, the workbook default (an empty <font/> is left to each program)
HEADER_FONT = Font(name=BODY_FONT.name, size=BODY_FONT.size, family=BODY_FONT.family, bold=True)
HEADER_FILL = PatternFill("solid", fgColor="DDEBF7")
HEADER_ALIGNMENT = Alignment(wrap_text=True, vertical="center")
INPUT_FILL = PatternFill("solid", fgColor="FFF8E1")  # the cells to fill
TEXT_ALIGNMENT = Alignment(wrap_text=True, vertical="top")
NUMBER_ALIGNMENT = Alignment(horizontal="center", vertical="top")
LOCKED = Protection(locked=True)
UNLOCKED = Protection(locked=False)
CONFIDENCE_FORMAT = "0.00"
# Cell styles by name: a named style costs a look-up per cell, a style object a hash of it.
HEADER_STYLE = "JAIML header"
LOCKED_TEXT_STYLE = "JAIML locked text"
SCORE_STYLE = "JAIML score"
CONFIDENCE_STYLE = "JAIML confidence"
COMMENT_STYLE = "JAIML comment"

GUIDE_WIDTHS = (12, 20, 80)  # level, label, description
GUIDE_TABLE_HEADERS = ("段階 (level)", "ラベル (label)", "説明 (description)")
GUIDE_TITLE_FONT = Font(name=BODY_FONT.name, size=14, family=BODY_FONT.family, bold=True)
GUIDE_AXIS_FONT = Font(name=BODY_FONT.name, size=12, family=BODY_FONT.family, bold=True)
GUIDE_LINE_HEIGHT = 18  # points per line of a merged paragraph (Excel does not fit merged rows itself)
META_WIDTHS = (18, 70, 70)


def write_template(
    target: str | os.PathLike[str] | BinaryIO,
    *,
    batch_id: int,
    batch: str,
    annotator: str,
    items: Sequence[TemplateItem],
    guide: Guide,
) -> None:
    """Write the rating template for ``annotator``'s ``items`` of ``batch`` to ``target`` (a path or a binary file)."""
    if isinstance(batch_id, bool) or not isinstance(batch_id, int):
        raise TypeError(f"batch_id must be an int, not {type(batch_id).__name__}")
    workbook = Workbook()
    add_styles(workbook)
    ratings = workbook.active
    ratings.title = RATINGS_SHEET
    digests = write_ratings(ratings, items)
    write_guide(workbook.create_sheet(GUIDE_SHEET), guide)
    meta = workbook.create_sheet(META_SHEET)
    write_meta(meta, batch_id=batch_id, batch=batch, annotator=annotator, digests=digests)
    meta.sheet_state = "hidden"
    workbook.active = 0
    workbook.properties.title = f"JAIML rating sheet {batch} / {annotator}"
    workbook.properties.creator = "JAIML"
    workbook.save(target)


def add_styles(workbook: Workbook) -> None:
    """The named cell styles of the template (hidden from the program's style list)."""
    styles = (
        (HEADER_STYLE, HEADER_FONT, HEADER_FILL, HEADER_ALIGNMENT, LOCKED, None),
        (LOCKED_TEXT_STYLE, BODY_FONT, None, TEXT_ALIGNMENT, LOCKED, None),
        (SCORE_STYLE, BODY_FONT, INPUT_FILL, NUMBER_ALIGNMENT, UNLOCKED, None),
        (CONFIDENCE_STYLE, BODY_FONT, INPUT_FILL, NUMBER_ALIGNMENT, UNLOCKED, CONFIDENCE_FORMAT),
        (COMMENT_STYLE, BODY_FONT, INPUT_FILL, TEXT_ALIGNMENT, UNLOCKED, None),
    )
    for name, font, fill, alignment, protection, number_format in styles:
        style = NamedStyle(name=name, font=font, fill=fill, alignment=alignment, protection=protection, hidden=True)
        style.number_format = number_format or "General"
        workbook.add_named_style(style)


def put_text(ws: Worksheet, row: int, column: int, text: str, style: str | None = None):
    """Write ``text`` (already ``cell_text``) as a string cell, empty when ``text`` is empty; the cell.

    ``style`` is the cell's named style, set first: setting a style later would drop the quote prefix
    a formula-like text gets.
    """
    cell = ws.cell(row=row, column=column)
    if style is not None:
        cell.style = style
    if text:
        cell.value = text
        cell.data_type = "s"  # after the value: openpyxl takes a text starting with "=" for a formula
        if is_formula_like(text):
            cell.quotePrefix = True
    return cell


def protect(ws: Worksheet) -> None:
    """Protect ``ws`` without a password; cells can be selected and columns and rows resized, nothing else."""
    protection = ws.protection
    protection.sheet = True
    protection.objects = True
    protection.scenarios = True
    protection.formatColumns = False
    protection.formatRows = False
    protection.selectLockedCells = False
    protection.selectUnlockedCells = False


def write_ratings(ws: Worksheet, items: Sequence[TemplateItem]) -> list[tuple[int, str, str]]:
    """The header and one row per item; the (row, id cell text, digest) of each row, in row order."""
    for index, column in enumerate(COLUMNS, start=1):
        put_text(ws, 1, index, cell_text(column.header, f"header {column.key}"), HEADER_STYLE)
        ws.column_dimensions[column_letter(index - 1)].width = column.width
    ws.freeze_panes = "B2"
    index_of = {column.key: index for index, column in enumerate(COLUMNS, start=1)}
    scores = [(axis, index_of[axis]) for axis in AXES]
    confidences = [(axis, index_of[f"{axis}_confidence"]) for axis in AXES]
    comment_column = index_of["comment"]
    digests: list[tuple[int, str, str]] = []
    seen: set[str] = set()
    for row, item in enumerate(items, start=2):
        where = f"item {item.id!r}"
        texts = {
            "id": cell_text(item.id, f"{where}, field 'id'"),
            "context": cell_text(context_text(item.context), f"{where}, field 'context'"),
            "user": cell_text(item.user, f"{where}, field 'user'"),
            "response": cell_text(item.response, f"{where}, field 'response'"),
        }
        if not texts["id"]:
            raise ValueError(f"{where}: the id is empty")
        if texts["id"] in seen:
            raise ValueError(f"{where}: the id appears twice")
        seen.add(texts["id"])
        for key in LOCKED_KEYS:
            put_text(ws, row, index_of[key], texts[key], LOCKED_TEXT_STYLE)
        item_scores = checked_scores(item, where)
        for axis, column in scores:
            ws.cell(row=row, column=column, value=item_scores.get(axis)).style = SCORE_STYLE
        item_confidence = checked_confidence(item, where)
        for axis, column in confidences:
            value = item_confidence.get(axis, DEFAULT_CONFIDENCE)
            ws.cell(row=row, column=column, value=value).style = CONFIDENCE_STYLE
        put_text(ws, row, comment_column, cell_text(item.comment, f"{where}, field 'comment'"), COMMENT_STYLE)
        digests.append((row, texts["id"], row_digest(texts["id"], texts["context"], texts["user"], texts["response"])))
    if digests:
        last = len(digests) + 1
        for axis, column in scores:
            add_validation(ws, score_validation(axis), column, last)
        for axis, column in confidences:
            add_validation(ws, confidence_validation(axis), column, last)
    protect(ws)
    return digests


def checked_scores(item: TemplateItem, where: str) -> dict[str, int]:
    """The item's prefilled scores; a ValueError for an unknown axis or a score outside 1–5."""
    for axis, score in (item.scores or {}).items():
        if axis not in AXES:
            raise ValueError(f"{where}: unknown axis {axis!r} in the scores")
        if isinstance(score, bool) or not isinstance(score, int) or score not in SCORES:
            raise ValueError(f"{where}: the {axis} score must be one of {', '.join(map(str, SCORES))}, not {score!r}")
    return item.scores or {}


def checked_confidence(item: TemplateItem, where: str) -> dict[str, float]:
    """The item's prefilled confidences as floats; a ValueError for an unknown axis or a value outside 0–1."""
    confidence = {}
    for axis, value in (item.confidence or {}).items():
        if axis not in AXES:
            raise ValueError(f"{where}: unknown axis {axis!r} in the confidences")
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ValueError(f"{where}: the {axis} confidence must be a number from 0 to 1, not {value!r}")
        confidence[axis] = float(value)
    return confidence


def score_validation(axis: str) -> DataValidation:
    """A drop-down of the scores for ``axis``'s column, with its prompt and error in Japanese."""
    label = AXIS_LABELS_JA[axis]
    choices = ",".join(map(str, SCORES))
    return DataValidation(
        type="list",
        formula1=f'"{choices}"',
        allow_blank=True,
        showDropDown=False,  # openpyxl's True hides the in-cell arrow
        showInputMessage=True,
        showErrorMessage=True,
        errorStyle="stop",
        promptTitle=f"{label} ({SCORES[0]}〜{SCORES[-1]})",
        prompt=f"{SCORES[0]}〜{SCORES[-1]}を選んでください（{label}）。未評価なら空欄のままにします。",
        errorTitle="入力できない値です",
        error=f"{label}のスコアは{'、'.join(map(str, SCORES))}のいずれかです。一覧から選んでください。",
    )


def confidence_validation(axis: str) -> DataValidation:
    """A number from 0 to 1 for ``axis``'s confidence column, with its prompt and error in Japanese."""
    label = AXIS_LABELS_JA[axis]
    return DataValidation(
        type="decimal",
        operator="between",
        formula1="0",
        formula2="1",
        allow_blank=True,
        showInputMessage=True,
        showErrorMessage=True,
        errorStyle="stop",
        promptTitle="確信度 (0〜1)",
        prompt=f"{label}の評価の確信度を0〜1の数で入力してください（例: 0.8）。",
        errorTitle="入力できない値です",
        error=f"{label}の確信度は0以上1以下の数です（例: 0.8）。",
    )


def add_validation(ws: Worksheet, validation: DataValidation, column: int, last_row: int) -> None:
    """Apply ``validation`` to ``column``'s data rows (2 to ``last_row``)."""
    letter = column_letter(column - 1)
    validation.add(f"{letter}2:{letter}{last_row}")
    ws.add_data_validation(validation)


def write_guide(ws: Worksheet, guide: Guide) -> None:
    """The title, the paragraphs, then per axis its name, definition and table of levels."""
    for index, width in enumerate(GUIDE_WIDTHS):
        ws.column_dimensions[column_letter(index)].width = width
    row = 1
    title = put_text(ws, row, 1, cell_text(guide.title, "guide title"))
    title.font = GUIDE_TITLE_FONT
    for number, paragraph in enumerate(guide.paragraphs, start=1):
        row += 1
        write_paragraph(ws, row, cell_text(paragraph, f"guide paragraph {number}"))
    for name, definition, levels in guide.axes:
        row += 2
        where = f"guide axis {name!r}"
        put_text(ws, row, 1, cell_text(name, f"{where}, name")).font = GUIDE_AXIS_FONT
        row += 1
        write_paragraph(ws, row, cell_text(definition, f"{where}, definition"))
        row += 1
        for column, header in enumerate(GUIDE_TABLE_HEADERS, start=1):
            put_text(ws, row, column, cell_text(header, "guide table header"), HEADER_STYLE)
        for level, label, description in levels:
            row += 1
            if isinstance(level, bool) or not isinstance(level, int):
                raise TypeError(f"{where}: a level must be an int, not {type(level).__name__}")
            ws.cell(row=row, column=1, value=level).alignment = NUMBER_ALIGNMENT
            put_text(ws, row, 2, cell_text(label, f"{where}, level {level} label")).alignment = TEXT_ALIGNMENT
            description_text = cell_text(description, f"{where}, level {level} description")
            put_text(ws, row, 3, description_text).alignment = TEXT_ALIGNMENT
    protect(ws)


def write_paragraph(ws: Worksheet, row: int, text: str) -> None:
    """``text`` wrapped across the guide's columns, the row tall enough for its lines."""
    put_text(ws, row, 1, text).alignment = TEXT_ALIGNMENT
    ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=len(GUIDE_WIDTHS))
    ws.row_dimensions[row].height = GUIDE_LINE_HEIGHT * line_count(text, sum(GUIDE_WIDTHS))


def line_count(text: str, width: float) -> int:
    """How many lines ``text`` takes wrapped at ``width`` character units (full-width characters count two)."""
    lines = 0
    for line in text.split("\n"):
        units = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)
        lines += max(1, math.ceil(units / (width * 0.9)))  # a margin for proportional fonts
    return lines


def write_meta(
    ws: Worksheet, *, batch_id: int, batch: str, annotator: str, digests: list[tuple[int, str, str]]
) -> None:
    """The ``META_KEYS`` rows from A1, a blank row, then the per-row digests under ``ROW_DIGESTS_HEADER``."""
    values = {
        "template_version": cell_text(TEMPLATE_VERSION, "meta template_version"),
        "batch_id": batch_id,
        "batch": cell_text(batch, "meta batch"),
        "annotator": cell_text(annotator, "meta annotator"),
        "rows": len(digests),
        "checksum": sheet_checksum(digest for _, _, digest in digests),
    }
    for index, width in enumerate(META_WIDTHS):
        ws.column_dimensions[column_letter(index)].width = width
    for row, key in enumerate(META_KEYS, start=1):
        put_text(ws, row, 1, cell_text(key, "meta key"))
        value = values[key]
        if isinstance(value, str):
            put_text(ws, row, 2, value)
        else:
            ws.cell(row=row, column=2, value=value)
    row = len(META_KEYS) + 2
    for column, header in enumerate(ROW_DIGESTS_HEADER, start=1):
        put_text(ws, row, column, cell_text(header, "meta header"))
    for sheet_row, dialogue_id, digest in digests:
        row += 1
        ws.cell(row=row, column=1, value=sheet_row)
        put_text(ws, row, 2, dialogue_id)
        put_text(ws, row, 3, digest)
    protect(ws)
