"""Reading and checking a filled rating sheet, .xlsx or UTF-8 CSV (pure Python, no Django).

The file's type is told by its content, not its name: a ZIP is read as an Excel workbook (in
openpyxl's read-only mode, formulas as written), anything else as CSV. Every problem is collected,
located by sheet, row, column letter and header, up to a limit: one upload shows them all.

What is checked: the header row (exactly ``layout.HEADERS``; when it differs, the data rows are
not read, since their meaning is unknown); on each data row the id, the four scores (integers
1–5, all four or none: a row with none is skipped, not rated), the four confidences (0–1, blank
means ``DEFAULT_CONFIDENCE``) and no formula where a value belongs. On a workbook, the hidden
meta sheet gives each template row's id and digest of its locked texts, compared by sheet row:
an edited id or text, a moved (sorted) row and an added row are problems. A template row that is
missing from the sheet is not one: deleted (or cleared) rows are simply not rated. A CSV has no
meta sheet, so its locked texts cannot be checked.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path

import openpyxl

from annotation.spreadsheets.layout import (
    CONFIDENCE_KEYS,
    DEFAULT_CONFIDENCE,
    HEADERS,
    KEYS,
    META_KEYS,
    META_SHEET,
    RATINGS_SHEET,
    ROW_DIGESTS_HEADER,
    SCORE_KEYS,
    TEMPLATE_VERSION,
    column_letter,
    row_digest,
    sheet_checksum,
)

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # legacy .xls (and other old Office files)
ACCEPTED = "accepted: .xlsx (Excel, Google Sheets, LibreOffice) or UTF-8 CSV"
MAX_SHOWN = 80  # characters of a value shown in a problem

_WIDTH = len(HEADERS)
_ID, _CONTEXT, _USER, _RESPONSE = (KEYS.index(key) for key in ("id", "context", "user", "response"))
_SCORES = tuple(KEYS.index(key) for key in SCORE_KEYS)
_CONFIDENCES = tuple(KEYS.index(key) for key in CONFIDENCE_KEYS)
_COMMENT = KEYS.index("comment")
_VALUE_COLUMNS = (_ID, *_SCORES, *_CONFIDENCES)  # where a formula is a problem
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


@dataclass(frozen=True)
class SheetProblem:
    sheet: str  # sheet name, or the file name (CSV, and problems with the whole file)
    row: int | None  # 1-based spreadsheet row (header = 1); None for file-level problems
    column: str | None  # column letter, e.g. "E"
    header: str | None  # that column's header text (the expected one)
    value: str  # the offending value as text ("" when blank), shortened to MAX_SHOWN characters
    message: str  # in English: what is wrong and what is accepted

    def __str__(self) -> str:
        where = self.sheet
        if self.row is not None:
            where += f"!{self.column}{self.row}" if self.column else f" row {self.row}"
        if self.header:
            where += f" ({self.header})"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class SheetRating:
    row: int
    id: str
    texts: tuple[str, str, str]  # (context as written, user, response): the locked texts as read
    scores: dict[str, int]  # the four axes
    confidence: dict[str, float]
    comment: str


@dataclass(frozen=True)
class SheetMeta:
    template_version: str
    batch_id: int | None
    batch: str
    annotator: str
    rows: int
    checksum: str
    digests: dict[int, tuple[str, str]]  # sheet row -> (id, digest)


@dataclass
class SheetContent:
    kind: str  # "xlsx" (a ZIP or legacy Excel file) or "csv" (anything else)
    meta: SheetMeta | None  # None for CSV, and for a workbook without a readable meta sheet
    ratings: list[SheetRating]  # the rated rows without problems
    skipped_rows: list[int]  # rows whose four scores are all blank (not rated)
    problems: list[SheetProblem]


def read_sheet(path: str | Path, *, name: str | None = None, max_problems: int = 200) -> SheetContent:
    """Read and check a filled rating sheet; ``name`` is how problems call the file (default: its name).

    At most ``max_problems`` problems are kept; when more were found, the last one kept says how many.
    Never raises for a bad file: an unreadable one gives a file-level problem.
    """
    if max_problems < 1:
        raise ValueError("max_problems must be at least 1")
    path = Path(path)
    name = path.name if name is None else name
    problems = _Problems(max_problems)
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(ZIP_MAGIC):
        content = SheetContent("xlsx", None, [], [], [])
        _read_xlsx(path, name, content, problems)
    elif data.startswith(OLE_MAGIC):
        content = SheetContent("xlsx", None, [], [], [])
        message = "not a spreadsheet this site reads: a legacy Excel .xls file; save it as .xlsx"
        problems.add(SheetProblem(name, None, None, None, "", f"{message} ({ACCEPTED})"))
    else:
        content = SheetContent("csv", None, [], [], [])
        _read_csv(data, name, content, problems)
    content.problems = problems.close(name)
    return content


class _Problems:
    """Keeps problems up to a limit and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept: list[SheetProblem] = []
        self.total = 0

    def add(self, problem: SheetProblem) -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(problem)

    def cell(self, sheet: str, row: int, index: int, value, message: str) -> None:
        header = HEADERS[index] if index < _WIDTH else None
        self.add(SheetProblem(sheet, row, column_letter(index), header, _shown(value), message))

    def close(self, name: str) -> list[SheetProblem]:
        if self.total <= self.limit:
            return self.kept
        shown = self.limit - 1
        message = f"{self.total - shown} more problem(s) not shown ({self.total} in all); fix these and read it again"
        return [*self.kept[:shown], SheetProblem(name, None, None, None, "", message)]


class _Unreadable(Exception):
    """openpyxl failed while reading a sheet's rows."""


def _text(value) -> str:
    """A cell's value as text: None → "", a whole float without ".0", booleans as the spreadsheet shows them."""
    if value is None:
        return ""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "TRUE" if value else "FALSE"
    if kind is float and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float, datetime, date, time)):
        return str(value)
    return str(getattr(value, "text", value))  # an array formula's text


def _shown(value) -> str:
    text = _text(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _blank(value) -> bool:
    return value is None or (type(value) is str and not value.strip())


# ---------------------------------------------------------------------------------------------- files


def _read_xlsx(path: Path, name: str, content: SheetContent, problems: _Problems) -> None:
    # A file object, not the path: openpyxl refuses paths whose extension is not .xlsx/.xlsm.
    with open(path, "rb") as handle:
        try:
            workbook = openpyxl.load_workbook(handle, read_only=True, data_only=False)
        except Exception as exc:  # a .docx, a corrupt ZIP, ...: whatever openpyxl trips over
            message = f"not a spreadsheet: a ZIP file that is not an Excel workbook ({_reason(exc)}); {ACCEPTED}"
            problems.add(SheetProblem(name, None, None, None, "", message))
            return
        try:
            _read_workbook(workbook, name, content, problems)
        except _Unreadable as exc:
            message = f"the workbook could not be read ({_reason(exc.__cause__)}); save it again as .xlsx"
            problems.add(SheetProblem(name, None, None, None, "", message))
        finally:
            workbook.close()


def _reason(exc: BaseException | None) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


def _rows(sheet, **bounds):
    """``sheet.iter_rows(**bounds)``, with openpyxl's own failures (broken XML inside the ZIP) as ``_Unreadable``."""
    sheet.reset_dimensions()  # a wrong <dimension> (some writers put "A1") would cut rows or columns off
    rows = sheet.iter_rows(**bounds)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except Exception as exc:
            raise _Unreadable from exc
        yield row


def _read_workbook(workbook, name: str, content: SheetContent, problems: _Problems) -> None:
    check_digests = False
    if META_SHEET in workbook.sheetnames:
        content.meta = _read_meta(_rows(workbook[META_SHEET], values_only=True), problems)
        if content.meta is not None:
            check_digests = content.meta.template_version == TEMPLATE_VERSION
            if not check_digests:
                message = (
                    f"template version {content.meta.template_version!r}, but this site reads version "
                    f"{TEMPLATE_VERSION!r}; download a new template and copy your ratings into it"
                )
                problems.add(SheetProblem(META_SHEET, None, None, None, _shown(content.meta.template_version), message))
    else:
        message = (
            f"no hidden sheet {META_SHEET!r}: the file was not made from the downloaded template, or was rewritten "
            "by a tool that drops hidden sheets; ids and locked texts cannot be checked. Fill the downloaded template"
        )
        problems.add(SheetProblem(name, None, None, None, "", message))
    if RATINGS_SHEET not in workbook.sheetnames:
        found = ", ".join(repr(sheet) for sheet in workbook.sheetnames) or "none"
        message = f"wrong sheet: no sheet named {RATINGS_SHEET!r} (found: {found}); rate in the template's sheet"
        problems.add(SheetProblem(name, None, None, None, "", message))
        return
    sheet = workbook[RATINGS_SHEET]
    header_row = next(_rows(sheet, max_row=1, values_only=True), ())
    if not _headers_match(header_row, RATINGS_SHEET, problems):
        return
    checker = _RowChecker(RATINGS_SHEET, content, problems, content.meta.digests if check_digests else None)
    for number, cells in enumerate(_rows(sheet, min_row=2), start=2):
        values = [cell.value for cell in cells]
        if len(values) < _WIDTH:
            values.extend([None] * (_WIDTH - len(values)))
        formulas = [i for i in _VALUE_COLUMNS if i < len(cells) and cells[i].data_type == "f"]
        checker.check(number, values, formulas)


def _read_csv(data: bytes, name: str, content: SheetContent, problems: _Problems) -> None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        message = (
            f"not a spreadsheet: neither an .xlsx workbook nor UTF-8 text (byte 0x{data[exc.start]:02x} at byte "
            f"{exc.start + 1}; a CSV from Excel must be saved as 'CSV UTF-8'); {ACCEPTED}"
        )
        problems.add(SheetProblem(name, None, None, None, "", message))
        return
    if "\x00" in text:
        message = f"not a spreadsheet: a binary file (it holds NUL bytes); {ACCEPTED}"
        problems.add(SheetProblem(name, None, None, None, "", message))
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header_row = next(reader, [])
        if len(header_row) == 1 and ("\t" in header_row[0] or ";" in header_row[0]):
            message = "not comma-separated (tabs or semicolons found): save as CSV with commas, UTF-8"
            problems.add(SheetProblem(name, 1, None, None, _shown(header_row[0]), message))
            return
        if not _headers_match(header_row, name, problems):
            return
        checker = _RowChecker(name, content, problems, None)
        for number, values in enumerate(reader, start=2):
            if len(values) < _WIDTH:
                values.extend([""] * (_WIDTH - len(values)))
            formulas = [i for i in _VALUE_COLUMNS if values[i].startswith("=")]
            checker.check(number, values, formulas)
    except csv.Error as exc:
        message = f"not a readable CSV near line {reader.line_num}: {exc}; {ACCEPTED}"
        problems.add(SheetProblem(name, None, None, None, "", message))


# ---------------------------------------------------------------------------------------------- checks


def _headers_match(row, sheet: str, problems: _Problems) -> bool:
    """Whether row 1 holds exactly ``HEADERS`` (surrounding whitespace aside); a problem per differing column."""
    found = [_text(value).strip() for value in row]
    while found and not found[-1]:
        found.pop()
    if tuple(found) == HEADERS:
        return True
    if not found:
        message = f"no header row: row 1 must hold the template's {_WIDTH} headers, from {HEADERS[0]!r} (column A)"
        problems.add(SheetProblem(sheet, 1, None, None, "", message))
        return False
    for index in range(max(len(found), _WIDTH)):
        got = found[index] if index < len(found) else ""
        expected = HEADERS[index] if index < _WIDTH else None
        if got == expected:
            continue
        if expected is None:
            last = column_letter(_WIDTH - 1)
            message = f"extra column {got!r}: the template's columns end at {last} ({HEADERS[-1]!r}); delete it"
        elif not got:
            message = f"missing header: expected {expected!r}"
        else:
            message = f"header {got!r} should be {expected!r}"
            if got in HEADERS:
                message += f" ({got!r} belongs in column {column_letter(HEADERS.index(got))})"
        message += "; the data rows are not read until the headers are the template's"
        problems.add(SheetProblem(sheet, 1, column_letter(index), expected, _shown(got), message))
    return False


class _RowChecker:
    """Checks data rows one by one, adding ratings, skipped rows and problems to a ``SheetContent``."""

    def __init__(self, sheet: str, content: SheetContent, problems: _Problems, digests) -> None:
        self.sheet = sheet
        self.content = content
        self.problems = problems
        self.digests: dict[int, tuple[str, str]] | None = digests
        self.rows_by_id = {entry[0]: row for row, entry in digests.items()} if digests else {}
        self.first_seen: dict[str, int] = {}

    def problem(self, row: int, index: int, value, message: str) -> None:
        self.problems.cell(self.sheet, row, index, value, message)

    def check(self, number: int, values: list, formulas: list[int]) -> None:
        """One row: ``values`` has at least ``_WIDTH`` cells; ``formulas`` lists the value columns holding one."""
        before = self.problems.total
        for index in range(_WIDTH, len(values)):
            if not _blank(values[index]):
                last = column_letter(_WIDTH - 1)
                message = f"a value outside the template's columns (they end at {last}); move it to the comment"
                self.problem(number, index, values[index], message)
        if all(_blank(value) for value in values[:_WIDTH]):
            return
        if not self.check_id(number, values, formulas):
            return
        scores = [values[index] for index in _SCORES]
        if all(_blank(value) for value in scores):
            self.content.skipped_rows.append(number)
            return
        parsed_scores = {}
        for key, index in zip(SCORE_KEYS, _SCORES, strict=True):
            value = values[index]
            if index in formulas:
                self.problem(number, index, value, f"a formula ({_shown(value)}); type the value itself")
            elif _blank(value):
                message = "blank on a partly filled row: rate all four axes or leave all four blank"
                self.problem(number, index, value, message)
            else:
                score = _score(value)
                if score is None:
                    self.problem(number, index, value, f"must be an integer from 1 to 5, got {_shown(value)!r}")
                parsed_scores[key] = score
        confidence = {}
        for key, index in zip(SCORE_KEYS, _CONFIDENCES, strict=True):
            value = values[index]
            if index in formulas:
                self.problem(number, index, value, f"a formula ({_shown(value)}); type the value itself")
                continue
            confidence[key] = _confidence(value)
            if confidence[key] is None:
                message = f"must be a number from 0 to 1 (blank means {DEFAULT_CONFIDENCE:g}), got {_shown(value)!r}"
                self.problem(number, index, value, message)
        if self.problems.total == before:
            texts = (_text(values[_CONTEXT]), _text(values[_USER]), _text(values[_RESPONSE]))
            comment = _text(values[_COMMENT]).strip()
            rating = SheetRating(number, _text(values[_ID]).strip(), texts, parsed_scores, confidence, comment)
            self.content.ratings.append(rating)

    def check_id(self, number: int, values: list, formulas: list[int]) -> bool:
        """The id and the locked texts; False when the row is not to be read further (an added row)."""
        raw = _text(values[_ID])
        dialogue_id = raw.strip()
        if self.digests is not None:
            entry = self.digests.get(number)
            if entry is None:
                rows = f"its rows are 2 to {max(self.digests)}" if self.digests else "it had no rows"
                message = (
                    f"a row the template did not have ({rows}); "
                    "rows cannot be added: delete it, or rate the dialogue in the row the template gave it"
                )
                self.problems.add(SheetProblem(self.sheet, number, None, None, _shown(dialogue_id), message))
                return False
        if _ID in formulas:
            self.problem(number, _ID, values[_ID], f"a formula ({_shown(values[_ID])}); type the value itself")
        elif self.digests is not None:
            template_id, digest = self.digests[number]
            if raw != template_id:
                message = f"id changed (the template had {template_id!r}); ids are locked: restore it"
                moved_from = self.rows_by_id.get(dialogue_id)
                if moved_from not in (None, number):
                    message = (
                        f"id changed (the template had {template_id!r} here, and {dialogue_id!r} on row "
                        f"{moved_from}): do not sort, move or delete rows; leave a row's scores blank to skip it"
                    )
                self.problem(number, _ID, raw, message)
            elif row_digest(raw, *(_text(values[index]) for index in (_CONTEXT, _USER, _RESPONSE))) != digest:
                message = (
                    "the locked texts of this row were changed (context, user or response); "
                    "restore them: only the scores, confidences and comment may be edited"
                )
                self.problems.add(SheetProblem(self.sheet, number, None, None, _shown(dialogue_id), message))
        elif not dialogue_id:
            self.problem(number, _ID, raw, "the id is blank; every rated row needs its dialogue's id from the template")
        if dialogue_id:
            first = self.first_seen.setdefault(dialogue_id, number)
            if first != number:
                self.problem(number, _ID, raw, f"duplicate id {dialogue_id!r} (first on row {first}); give each once")
        return True


def _score(value) -> int | None:
    """An integer 1–5 from an int, a whole float (3.0) or a string of digits; None for anything else."""
    kind = type(value)
    if kind is str:
        text = unicodedata.normalize("NFKC", value).strip()  # full-width digits from Japanese input
        number = int(text) if _DIGITS.fullmatch(text) else None
    elif kind is int:
        number = value
    elif kind is float and value.is_integer():
        number = int(value)
    else:
        return None  # bool, date, fraction, NaN, ...
    return number if number is not None and 1 <= number <= 5 else None


def _confidence(value) -> float | None:
    """A number 0–1 (blank: ``DEFAULT_CONFIDENCE``) from a number or a decimal string ("0.8", ".8", "1")."""
    if _blank(value):
        return DEFAULT_CONFIDENCE
    kind = type(value)
    if kind is str:
        text = unicodedata.normalize("NFKC", value).strip()
        number = float(text) if _DECIMAL.fullmatch(text) else None
    elif kind is int or kind is float:
        number = float(value)
    else:
        return None
    return number if number is not None and math.isfinite(number) and 0 <= number <= 1 else None


def _read_meta(rows, problems: _Problems) -> SheetMeta | None:
    """The hidden sheet: key/value rows from A1, a blank row, ``ROW_DIGESTS_HEADER`` and (row, id, digest) rows."""
    numbered = enumerate(rows, start=1)  # one pass: the key/value rows, then the digests
    pairs: dict[str, object] = {}
    for _, row in numbered:
        if all(_blank(value) for value in row):
            break
        pairs[_text(row[0]).strip()] = row[1] if len(row) > 1 else None
    digests: dict[int, tuple[str, str]] = {}
    header_seen = False
    damaged = [f"no {key!r}" for key in META_KEYS if key not in pairs]
    for number, row in numbered:
        cells = [_text(value).strip() for value in row[:3]] + [""] * (3 - len(row[:3]))
        if not any(cells):
            continue
        if not header_seen:
            header_seen = True
            if tuple(cells) != ROW_DIGESTS_HEADER:
                damaged.append(f"row {number} is not the header {ROW_DIGESTS_HEADER}")
                break
            continue
        sheet_row = _whole(row[0])
        if sheet_row is None or sheet_row < 2 or sheet_row in digests or not cells[2]:
            damaged.append(f"row {number} is not a (row, id, digest) entry")
            break
        digests[sheet_row] = (_text(row[1]), cells[2])
    if not header_seen:
        damaged.append(f"no {ROW_DIGESTS_HEADER} table of row digests")
    rows_count = _whole(pairs.get("rows"))
    batch_id = None if _blank(pairs.get("batch_id")) else _whole(pairs.get("batch_id"))
    if rows_count is None and "rows" in pairs:
        damaged.append("'rows' is not a number")
    if batch_id is None and not _blank(pairs.get("batch_id")):
        damaged.append("'batch_id' is not a number")
    if damaged:
        message = (
            f"the hidden sheet {META_SHEET!r} is damaged ({'; '.join(damaged)}); ids and locked texts cannot be "
            "checked. Fill a freshly downloaded template"
        )
        problems.add(SheetProblem(META_SHEET, None, None, None, "", message))
        return None
    meta = SheetMeta(
        template_version=_text(pairs["template_version"]).strip(),
        batch_id=batch_id,
        batch=_text(pairs["batch"]),
        annotator=_text(pairs["annotator"]),
        rows=rows_count,
        checksum=_text(pairs["checksum"]).strip(),
        digests=digests,
    )
    in_order = [digests[row][1] for row in sorted(digests)]
    if meta.rows != len(digests) or meta.checksum != sheet_checksum(in_order):
        message = (
            f"the hidden sheet {META_SHEET!r} was changed: its checksum or row count does not match its rows; "
            "fill a freshly downloaded template"
        )
        problems.add(SheetProblem(META_SHEET, None, None, None, "", message))
    return meta


def _whole(value) -> int | None:
    """An int from an int, a whole float or a string of digits; None otherwise."""
    kind = type(value)
    if kind is int:
        return value
    if kind is float and value.is_integer():
        return int(value)
    if kind is str and _DIGITS.fullmatch(value.strip()):
        return int(value.strip())
    return None
