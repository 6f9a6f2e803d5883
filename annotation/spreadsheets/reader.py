"""Reading and checking a filled rating sheet, .xlsx or UTF-8 CSV (pure Python, no Django).

The file's type is told by its content, not its name: a ZIP is read as an Excel workbook (in
openpyxl's read-only mode, formulas as written), anything else as CSV. Every problem is collected,
located by sheet, row, column letter and header, up to a limit: one upload shows them all. Their
messages are the templates of ``annotation.spreadsheets.problems`` (English, translated where shown).

What is checked: the header row (exactly ``layout.HEADERS``; when it differs, the data rows are
not read, since their meaning is unknown); on each data row the id, the four scores (integers
1–5, all four or none: a row with none is skipped, not rated), the four confidences (0–1, blank
means ``DEFAULT_CONFIDENCE``) and no formula where a value belongs. On a workbook, the hidden
meta sheet gives each template row's id and digest of its locked texts, compared by sheet row:
an edited id or text, a moved (sorted) row and an added row are problems. A template row that is
missing from the sheet is not one: deleted (or cleared) rows are simply not rated. A CSV has no
meta sheet, so its locked texts cannot be checked.

Formulas. In a workbook a formula is a formula cell (read as written, ``=...``); in a CSV, which has
no cell types, it is a cell starting with ``=``. A formula in the id, a score or a confidence is a
problem (``FORMULA``), and so is one in the comment, on every row read (a row left unrated too): a
comment is text, and the same problem says to type it rather than a formula. A formula cell in a
locked text column (context, user, response) is a changed locked text, even when it reads as the
template's text; a CSV's locked texts are compared, never stored, so ``=`` there is only text (the
template writes a formula-like text exactly, and a program saving it as CSV writes it so). A comment
that is text but that a spreadsheet could take for a formula (``core.spreadsheet_cells``' list: a
first character ``= + - @``, their full-width forms, a tab or a carriage return, also after leading
whitespace; e.g. ``- unclear``, ``@SUM(A1)``, or ``=1+1`` typed with a leading ``'``) is kept, since
such comments are legitimate, but neutralised on the way in: the comment, stripped of surrounding
whitespace, gets a leading ``'`` (``neutralise_formula``), so no comment read starts with a formula
trigger and wherever it is shown or exported later it is not run.
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

from annotation.spreadsheets import problems as msgids
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
from annotation.spreadsheets.problems import SheetProblem
from core.spreadsheet_cells import neutralise_formula

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # legacy .xls (and other old Office files)
MAX_SHOWN = 80  # characters of a value shown in a problem

_WIDTH = len(HEADERS)
_ID, _CONTEXT, _USER, _RESPONSE = (KEYS.index(key) for key in ("id", "context", "user", "response"))
_SCORES = tuple(KEYS.index(key) for key in SCORE_KEYS)
_CONFIDENCES = tuple(KEYS.index(key) for key in CONFIDENCE_KEYS)
_COMMENT = KEYS.index("comment")
_LOCKED_TEXTS = (_CONTEXT, _USER, _RESPONSE)
_CSV_FORMULA_COLUMNS = (_ID, *_SCORES, *_CONFIDENCES, _COMMENT)  # where a CSV cell starting with "=" is a problem
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


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
        problems.whole(name, msgids.LEGACY_XLS, accepted_text=msgids.ACCEPTED_FILES)
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

    def cell(self, sheet: str, row: int, index: int, value, template: str, /, **params) -> None:
        """A problem with the cell in column ``index`` of ``row``."""
        header = HEADERS[index] if index < _WIDTH else None
        self.add(SheetProblem.of(sheet, row, column_letter(index), header, _shown(value), template, **params))

    def whole(self, sheet: str, template: str, /, **params) -> None:
        """A problem with the whole file (``sheet`` its name) or the whole sheet."""
        self.add(SheetProblem.of(sheet, None, None, None, "", template, **params))

    def close(self, name: str) -> list[SheetProblem]:
        if self.total <= self.limit:
            return self.kept
        shown = self.limit - 1
        more = SheetProblem.of(name, None, None, None, "", msgids.MORE_NOT_SHOWN, more=self.total - shown,
                               total=self.total)  # fmt: skip
        return [*self.kept[:shown], more]


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
    import openpyxl  # only where a workbook is read, not at Django start-up (issue 31)

    # A file object, not the path: openpyxl refuses paths whose extension is not .xlsx/.xlsm.
    with open(path, "rb") as handle:
        try:
            workbook = openpyxl.load_workbook(handle, read_only=True, data_only=False)
        except Exception as exc:  # a .docx, a corrupt ZIP, ...: whatever openpyxl trips over
            problems.whole(name, msgids.NOT_A_WORKBOOK, reason=_reason(exc), accepted_text=msgids.ACCEPTED_FILES)
            return
        try:
            _read_workbook(workbook, name, content, problems)
        except _Unreadable as exc:
            problems.whole(name, msgids.UNREADABLE_WORKBOOK, reason=_reason(exc.__cause__))
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
                version = content.meta.template_version
                problems.add(SheetProblem.of(META_SHEET, None, None, None, _shown(version), msgids.OLD_TEMPLATE_VERSION,
                                             found=repr(version), expected=repr(TEMPLATE_VERSION)))  # fmt: skip
    else:
        problems.whole(name, msgids.NO_META_SHEET, meta=repr(META_SHEET))
    if RATINGS_SHEET not in workbook.sheetnames:
        if workbook.sheetnames:
            found = ", ".join(repr(sheet) for sheet in workbook.sheetnames)
            problems.whole(name, msgids.NO_RATINGS_SHEET, expected=repr(RATINGS_SHEET), found=found)
        else:
            problems.whole(name, msgids.NO_SHEETS, expected=repr(RATINGS_SHEET))
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
        formulas = [i for i in range(min(len(cells), _WIDTH)) if cells[i].data_type == "f"]
        checker.check(number, values, formulas)


def _read_csv(data: bytes, name: str, content: SheetContent, problems: _Problems) -> None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.whole(name, msgids.NOT_UTF8, byte=f"0x{data[exc.start]:02x}", position=exc.start + 1,
                       accepted_text=msgids.ACCEPTED_FILES)  # fmt: skip
        return
    if "\x00" in text:
        problems.whole(name, msgids.BINARY, accepted_text=msgids.ACCEPTED_FILES)
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header_row = next(reader, [])
        if len(header_row) == 1 and ("\t" in header_row[0] or ";" in header_row[0]):
            problems.add(SheetProblem.of(name, 1, None, None, _shown(header_row[0]), msgids.NOT_COMMA_SEPARATED))
            return
        if not _headers_match(header_row, name, problems):
            return
        checker = _RowChecker(name, content, problems, None)
        for number, values in enumerate(reader, start=2):
            if len(values) < _WIDTH:
                values.extend([""] * (_WIDTH - len(values)))
            formulas = [i for i in _CSV_FORMULA_COLUMNS if values[i].startswith("=")]
            checker.check(number, values, formulas)
    except csv.Error as exc:
        where = {"line": reader.line_num, "accepted_text": msgids.ACCEPTED_FILES}
        if str(exc).startswith("field larger than field limit"):  # mostly a quote left open: the rest is one cell
            problems.whole(name, msgids.CSV_CELL_TOO_LONG, limit=f"{csv.field_size_limit():,}", **where)
        else:
            problems.whole(name, msgids.UNREADABLE_CSV, reason=str(exc), **where)


# ---------------------------------------------------------------------------------------------- checks


def _headers_match(row, sheet: str, problems: _Problems) -> bool:
    """Whether row 1 holds exactly ``HEADERS`` (surrounding whitespace aside); a problem per differing column."""
    found = [_text(value).strip() for value in row]
    while found and not found[-1]:
        found.pop()
    if tuple(found) == HEADERS:
        return True
    if not found:
        problems.add(SheetProblem.of(sheet, 1, None, None, "", msgids.NO_HEADER_ROW, count=_WIDTH,
                                     first=repr(HEADERS[0])))  # fmt: skip
        return False
    for index in range(max(len(found), _WIDTH)):
        got = found[index] if index < len(found) else ""
        expected = HEADERS[index] if index < _WIDTH else None
        if got == expected:
            continue
        params = {"found": repr(got), "then_text": msgids.ROWS_NOT_READ}
        if expected is None:
            template = msgids.EXTRA_COLUMN
            params |= {"last": column_letter(_WIDTH - 1), "last_header": repr(HEADERS[-1])}
        elif not got:
            template = msgids.MISSING_HEADER
        elif got in HEADERS:
            template = msgids.MISPLACED_HEADER
            params |= {"column": column_letter(HEADERS.index(got))}
        else:
            template = msgids.WRONG_HEADER
        if expected is not None:
            params["expected"] = repr(expected)
        problems.add(SheetProblem.of(sheet, 1, column_letter(index), expected, _shown(got), template, **params))
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

    def problem(self, row: int, index: int, value, template: str, /, **params) -> None:
        self.problems.cell(self.sheet, row, index, value, template, **params)

    def row_problem(self, row: int, value: str, template: str, /, **params) -> None:
        """A problem with the whole row (no column); ``value`` is its id."""
        self.problems.add(SheetProblem.of(self.sheet, row, None, None, _shown(value), template, **params))

    def check(self, number: int, values: list, formulas: list[int]) -> None:
        """One row: ``values`` has at least ``_WIDTH`` cells; ``formulas`` lists the template's columns holding one."""
        before = self.problems.total
        for index in range(_WIDTH, len(values)):
            if not _blank(values[index]):
                self.problem(number, index, values[index], msgids.OUTSIDE_COLUMNS, last=column_letter(_WIDTH - 1))
        if all(_blank(value) for value in values[:_WIDTH]):
            return
        if not self.check_id(number, values, formulas):
            return
        scores = [values[index] for index in _SCORES]
        if all(_blank(value) for value in scores):
            self.check_comment(number, values, formulas)  # a row left unrated too: a formula is never a comment
            self.content.skipped_rows.append(number)
            return
        parsed_scores = {}
        for key, index in zip(SCORE_KEYS, _SCORES, strict=True):
            value = values[index]
            if index in formulas:
                self.problem(number, index, value, msgids.FORMULA, formula=_shown(value))
            elif _blank(value):
                self.problem(number, index, value, msgids.PARTLY_FILLED)
            else:
                score = _score(value)
                if score is None:
                    self.problem(number, index, value, msgids.MUST_BE, accepted_text=msgids.SCORE_ACCEPTED, low=1,
                                 high=5, value=repr(_shown(value)))  # fmt: skip
                parsed_scores[key] = score
        confidence = {}
        for key, index in zip(SCORE_KEYS, _CONFIDENCES, strict=True):
            value = values[index]
            if index in formulas:
                self.problem(number, index, value, msgids.FORMULA, formula=_shown(value))
                continue
            confidence[key] = _confidence(value)
            if confidence[key] is None:
                self.problem(number, index, value, msgids.MUST_BE, accepted_text=msgids.CONFIDENCE_ACCEPTED, low=0,
                             high=1, default=f"{DEFAULT_CONFIDENCE:g}", value=repr(_shown(value)))  # fmt: skip
        self.check_comment(number, values, formulas)
        if self.problems.total == before:
            texts = (_text(values[_CONTEXT]), _text(values[_USER]), _text(values[_RESPONSE]))
            comment = neutralise_formula(_text(values[_COMMENT]).strip())
            rating = SheetRating(number, _text(values[_ID]).strip(), texts, parsed_scores, confidence, comment)
            self.content.ratings.append(rating)

    def check_comment(self, number: int, values: list, formulas: list[int]) -> None:
        """A formula in the comment is a problem (a formula-like text is neutralised when the rating is made)."""
        if _COMMENT in formulas:
            self.problem(number, _COMMENT, values[_COMMENT], msgids.FORMULA, formula=_shown(values[_COMMENT]))

    @staticmethod
    def locked_texts_changed(raw_id: str, values: list, formulas: list[int], digest: str) -> bool:
        """Whether the locked texts differ from the template's digest, or one is a formula (even reading the same)."""
        if any(index in formulas for index in _LOCKED_TEXTS):
            return True
        return row_digest(raw_id, *(_text(values[index]) for index in _LOCKED_TEXTS)) != digest

    def check_id(self, number: int, values: list, formulas: list[int]) -> bool:
        """The id and the locked texts; False when the row is not to be read further (an added row)."""
        raw = _text(values[_ID])
        dialogue_id = raw.strip()
        if self.digests is not None:
            entry = self.digests.get(number)
            if entry is None:
                if self.digests:
                    rows = {"rows_text": msgids.TEMPLATE_ROWS, "last_row": max(self.digests)}
                else:
                    rows = {"rows_text": msgids.TEMPLATE_WITHOUT_ROWS}
                self.row_problem(number, dialogue_id, msgids.ROW_ADDED, **rows)
                return False
        if _ID in formulas:
            self.problem(number, _ID, values[_ID], msgids.FORMULA, formula=_shown(values[_ID]))
        elif self.digests is not None:
            template_id, digest = self.digests[number]
            if raw != template_id:
                moved_from = self.rows_by_id.get(dialogue_id)
                if moved_from not in (None, number):
                    self.problem(number, _ID, raw, msgids.ID_MOVED, template_id=repr(template_id),
                                 id=repr(dialogue_id), moved_from=moved_from)  # fmt: skip
                else:
                    self.problem(number, _ID, raw, msgids.ID_CHANGED, template_id=repr(template_id))
            elif self.locked_texts_changed(raw, values, formulas, digest):
                self.row_problem(number, dialogue_id, msgids.LOCKED_TEXTS_CHANGED)
        elif not dialogue_id:
            self.problem(number, _ID, raw, msgids.BLANK_ID)
        if dialogue_id:
            first = self.first_seen.setdefault(dialogue_id, number)
            if first != number:
                self.problem(number, _ID, raw, msgids.DUPLICATE_ID, id=repr(dialogue_id), first=first)
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
    # What is wrong, in reading order; the problem names the first (a fresh template mends them all).
    damaged: list[dict] = []
    if missing := [key for key in META_KEYS if key not in pairs]:
        damaged.append({"damage_text": msgids.META_KEYS_MISSING, "keys": ", ".join(repr(key) for key in missing)})
    for number, row in numbered:
        cells = [_text(value).strip() for value in row[:3]] + [""] * (3 - len(row[:3]))
        if not any(cells):
            continue
        if not header_seen:
            header_seen = True
            if tuple(cells) != ROW_DIGESTS_HEADER:
                damaged.append({"damage_text": msgids.META_NOT_DIGESTS_HEADER, "row": number})
                break
            continue
        sheet_row = _whole(row[0])
        if sheet_row is None or sheet_row < 2 or sheet_row in digests or not cells[2]:
            damaged.append({"damage_text": msgids.META_NOT_DIGEST_ENTRY, "row": number})
            break
        digests[sheet_row] = (_text(row[1]), cells[2])
    if not header_seen:
        damaged.append({"damage_text": msgids.META_NO_DIGESTS})
    rows_count = _whole(pairs.get("rows"))
    batch_id = None if _blank(pairs.get("batch_id")) else _whole(pairs.get("batch_id"))
    if rows_count is None and "rows" in pairs:
        damaged.append({"damage_text": msgids.META_NOT_A_NUMBER, "key": repr("rows")})
    if batch_id is None and not _blank(pairs.get("batch_id")):
        damaged.append({"damage_text": msgids.META_NOT_A_NUMBER, "key": repr("batch_id")})
    if damaged:
        header = repr(ROW_DIGESTS_HEADER)  # the digests table's, as some damages name it
        problems.whole(META_SHEET, msgids.META_DAMAGED, meta=repr(META_SHEET), header=header, **damaged[0])
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
        problems.whole(META_SHEET, msgids.META_CHANGED, meta=repr(META_SHEET))
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
