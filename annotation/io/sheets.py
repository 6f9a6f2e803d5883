"""Stored ratings and a batch's consensus as spreadsheets: .xlsx and CSV (pure Python, no Django; openpyxl).

The same values as the JSONL exports (``annotation.io.exports``, the ``export_consensus`` files),
one row per line, one column per field, under a header row of the column names below.

Ratings (sheet ``RATINGS_SHEET``, ``RATING_COLUMNS``): ``id, annotator_id, timestamp, source``, the
four scores, the four confidences (``<axis>_confidence``) and ``seconds_spent``, from rows shaped as
``annotation.selectors.annotation_sheet_rows`` yields them. The timestamp is the ISO text of the
JSONL; ``source`` says how the rating came in (``web``, ``import``, ``spreadsheet``).

Consensus (sheet ``CONSENSUS_SHEET``, ``consensus_columns``): ``id, n_annotators``; per axis the
score, ``<axis>_mean`` (``scores_mean``), ``<axis>_confidence`` (mean confidence of the ratings used)
and ``<axis>_n`` (``n_used``); then, when any line carries ``adjudicated`` (the lines are looked
through before the header is written), per axis ``<axis>_adjudicated`` (the decided score),
``<axis>_adjudicated_reason``, ``_by``, ``_at`` and ``_replaced`` (the merged mean the decision
replaced), empty on axes nobody decided; when any line carries ``flag_excluded``, per axis
``<axis>_flag_excluded`` (the annotators accepted quality flags left out, ``ann_a, ann_b``); last
``method`` and ``timestamp`` (when the merge ran).
The constant ``annotator_id`` ("consensus") is left out.

Rejected (sheet ``REJECTED_SHEET``, ``REJECTED_COLUMNS``): a rejected line is
``{"id", "reasons": {axis: {"reason", ...numbers}}, "n_annotators", "ratings": {annotator: {axis:
score}}}``. It becomes one row per axis in ``reasons`` (axis order): ``axis``, the ``reason`` code
(``too_few_ratings``, ``spread_too_wide``, ``flag_accepted``), its numbers in ``usable, required``
(too few) or ``min, max, max_spread`` (too wide), ``n_annotators``, ``ratings``, that axis's scores as
text (``ann_a: 1, ann_b: 5``), and ``flags``, the ids of the accepted flags that rejected it.
The merge rejects per axis only; a line whose ``reasons`` is not a
mapping of axes (one ``{"reason": ...}``, a text, a list) or is empty becomes one row with axis
``all``, the reason(s) as text (a list joined with "; ") and every axis's scores in ``ratings``
(``ann_a: social 1, avoidant 2, ...; ann_b: ...``).

Cells: numbers stay numbers (a negative number is data); every text goes through
``neutralise_formula`` and, in .xlsx, into a cell forced to the string type (never a formula, nor
an error value such as ``#N/A``). ``None`` and empty texts are empty cells. In .xlsx a carriage
return becomes a line feed (the file's XML reads it back so anyway) and a control character XML
cannot hold becomes U+FFFD. A NaN or infinite number raises ``ValueError``, as the JSONL export does.
CSV is UTF-8 with a BOM (Excel then reads Japanese correctly), CRLF line ends, numbers as Python
writes them (as in the JSONL); consensus and rejected items make two CSV files.
Rows are streamed (100,000 ratings are never held as cells): openpyxl makes the workbook around them
(``write_xlsx`` says why the rows themselves are written here).
"""

from __future__ import annotations

import csv
import io
import math
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import BinaryIO, TextIO
from xml.sax.saxutils import escape

from annotation.axes import AXES
from annotation.io.records import format_timestamp
from core.spreadsheet_cells import UNWRITABLE_CHARACTERS, column_letter, neutralise_formula, xlsx_cell_text

RATINGS_SHEET = "ratings"
CONSENSUS_SHEET = "consensus"
REJECTED_SHEET = "rejected"
ALL_AXES = "all"  # the axis of a rejected row whose reason is not for one axis

RATING_COLUMNS: tuple[str, ...] = (
    "id",
    "annotator_id",
    "timestamp",
    "source",
    *AXES,
    *(f"{axis}_confidence" for axis in AXES),
    "seconds_spent",
)
REASON_NUMBERS = ("usable", "required", "min", "max", "max_spread")
REJECTED_COLUMNS: tuple[str, ...] = ("id", "axis", "reason", *REASON_NUMBERS, "n_annotators", "ratings", "flags")
ADJUDICATION_FIELDS = ("score", "reason", "by", "at", "merged")  # keys of a line's adjudicated[axis]
ADJUDICATION_SUFFIXES = ("", "_reason", "_by", "_at", "_replaced")  # their columns: <axis>_adjudicated<suffix>

BOM = "\ufeff"
CSV_CHUNK_ROWS = 1_000
XLSX_CHUNK_ROWS = 1_000
MAX_XLSX_ROWS = 1_048_576  # a sheet's rows, the header's included
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
# Characters the file's XML cannot hold (as openpyxl refuses them, plus lone surrogates, U+FFFE/U+FFFF).
WIDTHS = {"id": 18, "annotator_id": 14, "timestamp": 22, "ratings": 30, "reason": 16}


def consensus_columns(*, adjudicated: bool, flagged: bool = False) -> tuple[str, ...]:
    """The consensus sheet's columns; ``adjudicated`` adds the per-axis adjudication columns, ``flagged`` the
    per-axis annotators left out by accepted flags."""
    columns = ["id", "n_annotators"]
    for axis in AXES:
        columns += [axis, f"{axis}_mean", f"{axis}_confidence", f"{axis}_n"]
    if adjudicated:
        columns += [f"{axis}_adjudicated{suffix}" for axis in AXES for suffix in ADJUDICATION_SUFFIXES]
    if flagged:
        columns += [f"{axis}_flag_excluded" for axis in AXES]
    return (*columns, "method", "timestamp")


def has_flag_exclusions(consensus: Iterable[Mapping]) -> bool:
    return any(line.get("flag_excluded") for line in consensus)


def has_adjudications(consensus: Iterable[Mapping]) -> bool:
    return any(line.get("adjudicated") for line in consensus)


# --- rows (values before they become cells) --------------------------------------------------------------------


def rating_row(row: Sequence) -> list:
    """One rating's values in ``RATING_COLUMNS`` order, from ``(id, annotator, timestamp, source, seconds,
    4 scores, 4 confidences)``; the timestamp a datetime (written as the JSONL writes it) or its text."""
    dialogue_id, annotator, stamp, source, seconds, *values = row
    if isinstance(stamp, datetime):
        stamp = format_timestamp(stamp)
    return [dialogue_id, annotator, stamp, source, *values, seconds]


def consensus_row(line: Mapping, *, adjudicated: bool, flagged: bool = False) -> list:
    """One consensus line's values in ``consensus_columns(adjudicated=..., flagged=...)`` order."""
    scores, means = line.get("annotations") or {}, line.get("scores_mean") or {}
    confidence, used = line.get("confidence") or {}, line.get("n_used") or {}
    row = [line.get("id"), line.get("n_annotators")]
    for axis in AXES:
        row += [scores.get(axis), means.get(axis), confidence.get(axis), used.get(axis)]
    if adjudicated:
        decided = line.get("adjudicated") or {}
        for axis in AXES:
            decision = decided.get(axis) or {}
            row += [decision.get(key) for key in ADJUDICATION_FIELDS]
    if flagged:
        left_out = line.get("flag_excluded") or {}
        row += [_listing(left_out.get(axis)) for axis in AXES]
    return [*row, line.get("method"), line.get("timestamp")]


def rejected_rows(line: Mapping) -> list[list]:
    """One rejected line's rows in ``REJECTED_COLUMNS`` order: one per axis, or one ``all`` row."""
    reasons = line.get("reasons", line.get("reason"))
    ratings = line.get("ratings") or {}
    head, n_annotators = line.get("id"), line.get("n_annotators")
    if isinstance(reasons, Mapping) and reasons and all(isinstance(value, Mapping) for value in reasons.values()):
        order = [axis for axis in AXES if axis in reasons] + sorted(str(k) for k in reasons if k not in AXES)
        return [
            [head, axis, _text(reasons[axis].get("reason")), *(reasons[axis].get(key) for key in REASON_NUMBERS),
             n_annotators, _axis_ratings(ratings, axis), _listing(reasons[axis].get("flags"))]
            for axis in order
        ]  # fmt: skip
    numbers = reasons if isinstance(reasons, Mapping) else {}
    reason = reasons.get("reason") if isinstance(reasons, Mapping) else reasons
    return [[head, ALL_AXES, _text(reason), *(numbers.get(key) for key in REASON_NUMBERS), n_annotators,
             _all_ratings(ratings), _listing(numbers.get("flags"))]]  # fmt: skip


def _text(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return "; ".join(str(part) for part in value)
    return str(value)


def _listing(values) -> str | None:
    """Flag ids or annotator names as one cell (``3, 7``); None for none."""
    return ", ".join(str(value) for value in values) if values else None


def _axis_ratings(ratings: Mapping, axis: str) -> str:
    return ", ".join(f"{who}: {scores[axis]}" for who, scores in ratings.items() if axis in (scores or {}))


def _all_ratings(ratings: Mapping) -> str:
    return "; ".join(
        f"{who}: " + ", ".join(f"{axis} {scores[axis]}" for axis in AXES if axis in (scores or {}))
        for who, scores in ratings.items()
    )


def _number(value: int | float, column: str):
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{column}: {value} is not a number a spreadsheet (or JSON) can hold")
    return value


# --- .xlsx -----------------------------------------------------------------------------------------------------


def xlsx_text(value: str) -> str:
    """A text as its .xlsx cell holds it: neutralised, CR as LF, unwritable characters as U+FFFD."""
    return UNWRITABLE_CHARACTERS.sub("\ufffd", xlsx_cell_text(value))


def write_xlsx(out: BinaryIO | str, sheets: Sequence[tuple[str, Sequence[str], Iterable[Sequence]]]) -> list[int]:
    """A workbook of ``(title, columns, rows)`` sheets to ``out`` (a path or a binary file); rows per sheet.

    openpyxl makes the workbook (a write-only one: the bold header row, widths, the frozen header),
    then every sheet's data rows are streamed into its XML here, since openpyxl's own per-cell
    writer needs 7 s for 100,000 ratings (without lxml) and these rows 1.2 s. Texts are inline
    strings (``t="inlineStr"``: a string, whatever it reads like), numbers ``<v>`` values.
    """
    from openpyxl import Workbook  # only where a workbook is written, not with the URLconf (issue 31)

    header_only = io.BytesIO()
    workbook = Workbook(write_only=True)
    for title, columns, _rows in sheets:
        _header_sheet(workbook, title, columns)
    workbook.save(header_only)
    counts = []
    with zipfile.ZipFile(header_only) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        data = {f"xl/worksheets/sheet{index}.xml": sheet for index, sheet in enumerate(sheets, start=1)}
        missing = data.keys() - set(source.namelist())
        if missing:  # an openpyxl that names its sheet files otherwise
            raise RuntimeError(f"openpyxl wrote no {', '.join(sorted(missing))}")
        for info in source.infolist():
            if info.filename not in data:
                target.writestr(info, source.read(info.filename))
                continue
            _title, columns, rows = data[info.filename]
            head, tail = _split_sheet(source.read(info.filename).decode("utf-8"), info.filename)
            with target.open(info.filename, "w", force_zip64=True) as handle:
                handle.write(head.encode("utf-8"))
                counts.append(_write_rows(handle, columns, rows))
                handle.write(tail.encode("utf-8"))
    return counts


def _header_sheet(workbook, title: str, columns: Sequence[str]) -> None:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    ws = workbook.create_sheet(title)
    ws.freeze_panes = "A2"
    for index, column in enumerate(columns):
        ws.column_dimensions[column_letter(index)].width = WIDTHS.get(column, max(10, len(column) + 2))
    header = []
    for column in columns:
        cell = WriteOnlyCell(ws, column)
        cell.data_type, cell.font = "s", Font(bold=True)
        header.append(cell)
    ws.append(header)


def _split_sheet(xml: str, name: str) -> tuple[str, str]:
    """The sheet's XML before and after the place of the data rows (the end of ``sheetData``)."""
    end = xml.find("</sheetData>")
    if end < 0:
        raise RuntimeError(f"{name}: no sheetData in openpyxl's sheet")
    return xml[:end], xml[end:]


def _write_rows(handle, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    letters = [column_letter(index) for index in range(len(columns))]
    block: list[str] = []
    count = 0
    for row_number, values in enumerate(rows, start=2):
        if row_number > MAX_XLSX_ROWS:
            raise ValueError(f"more than {MAX_XLSX_ROWS - 1} rows: a sheet holds no more; export as CSV")
        block.append(_row_xml(row_number, values, letters, columns))
        count += 1
        if len(block) >= XLSX_CHUNK_ROWS:
            handle.write("".join(block).encode("utf-8"))
            block.clear()
    handle.write("".join(block).encode("utf-8"))
    return count


def _row_xml(number: int, values: Sequence, letters: Sequence[str], columns: Sequence[str]) -> str:
    if len(values) != len(columns):
        raise ValueError(f"row {number}: {len(values)} values for {len(columns)} columns")
    parts = [f'<row r="{number}">']
    for letter, value, column in zip(letters, values, columns, strict=True):
        if value is None or value == "":
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            text = xlsx_text(value if isinstance(value, str) else str(value))
            space = ' xml:space="preserve"' if text != text.strip() else ""
            parts.append(f'<c r="{letter}{number}" t="inlineStr"><is><t{space}>{escape(text)}</t></is></c>')
        else:
            parts.append(f'<c r="{letter}{number}" t="n"><v>{_number(value, column)!r}</v></c>')
    parts.append("</row>")
    return "".join(parts)


def write_ratings_xlsx(rows: Iterable[Sequence], out: BinaryIO | str) -> int:
    """Ratings (rows as ``rating_row`` takes them) as a one-sheet workbook to ``out``; the number of ratings."""
    return write_xlsx(out, [(RATINGS_SHEET, RATING_COLUMNS, (rating_row(row) for row in rows))])[0]


def write_consensus_xlsx(consensus: Sequence[Mapping], rejected: Sequence[Mapping], out: BinaryIO | str) -> None:
    """Consensus lines and rejected lines as one workbook of two sheets, ``CONSENSUS_SHEET`` and ``REJECTED_SHEET``."""
    adjudicated, flagged = has_adjudications(consensus), has_flag_exclusions(consensus)
    write_xlsx(
        out,
        [
            (
                CONSENSUS_SHEET,
                consensus_columns(adjudicated=adjudicated, flagged=flagged),
                (consensus_row(line, adjudicated=adjudicated, flagged=flagged) for line in consensus),
            ),
            (REJECTED_SHEET, REJECTED_COLUMNS, (row for line in rejected for row in rejected_rows(line))),
        ],
    )


# --- CSV -------------------------------------------------------------------------------------------------------


def csv_cell(value, column: str = "") -> str:
    """A CSV cell: empty for None, numbers as Python (and the JSONL) write them, texts neutralised."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(_number(value, column))
    return neutralise_formula(value if isinstance(value, str) else str(value))


def iter_csv(columns: Sequence[str], rows: Iterable[Sequence]) -> Iterator[str]:
    """A BOM and the header row, then the rows in chunks of ``CSV_CHUNK_ROWS`` (CRLF line ends)."""
    cells = ([csv_cell(value, column) for value, column in zip(values, columns, strict=True)] for values in rows)
    return _iter_rows_csv(columns, cells)


def _csv_text(buffer: io.StringIO, writer, block: list[list[str]]) -> str:
    buffer.seek(0)
    buffer.truncate()
    writer.writerows(block)
    block.clear()
    return buffer.getvalue()


def iter_ratings_csv(rows: Iterable[Sequence]) -> Iterator[str]:
    """``iter_csv(RATING_COLUMNS, rating_row(row) ...)``, with the cells a rater's name, a time, a source and a set
    of scores and confidences give written once however many ratings share them (100,000 ratings of one import
    share a handful)."""
    return _iter_rows_csv(RATING_COLUMNS, _rating_cells(rows))


def _rating_cells(rows: Iterable[Sequence]) -> Iterator[list[str]]:
    texts: dict = {}
    numbers: dict[tuple, list[str]] = {}
    columns = RATING_COLUMNS[4:]
    for dialogue_id, annotator, stamp, source, seconds, *values in rows:
        head = []
        for value, column in ((annotator, "annotator_id"), (stamp, "timestamp"), (source, "source")):
            key = (value, type(value), value.utcoffset() if isinstance(value, datetime) else None)
            if (cell := texts.get(key)) is None:
                shown = format_timestamp(value) if isinstance(value, datetime) else value
                cell = texts[key] = csv_cell(shown, column)
            head.append(cell)
        values.append(seconds)
        key = (*values, *map(type, values))  # 1 and 1.0 are equal keys but written differently
        if (cells := numbers.get(key)) is None:
            cells = numbers[key] = [csv_cell(value, column) for value, column in zip(values, columns, strict=True)]
        yield [csv_cell(dialogue_id, "id"), *head, *cells]


def _iter_rows_csv(columns: Sequence[str], cells: Iterable[list[str]]) -> Iterator[str]:
    """As ``iter_csv`` for rows already made of cells."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    yield BOM + buffer.getvalue()
    block: list[list[str]] = []
    for row in cells:
        block.append(row)
        if len(block) >= CSV_CHUNK_ROWS:
            yield _csv_text(buffer, writer, block)
    if block:
        yield _csv_text(buffer, writer, block)


def iter_consensus_csv(consensus: Sequence[Mapping]) -> Iterator[str]:
    """The consensus sheet as CSV (adjudication and flag columns as in the workbook)."""
    adjudicated, flagged = has_adjudications(consensus), has_flag_exclusions(consensus)
    rows = (consensus_row(line, adjudicated=adjudicated, flagged=flagged) for line in consensus)
    return iter_csv(consensus_columns(adjudicated=adjudicated, flagged=flagged), rows)


def iter_rejected_csv(rejected: Iterable[Mapping]) -> Iterator[str]:
    return iter_csv(REJECTED_COLUMNS, (row for line in rejected for row in rejected_rows(line)))


def write_ratings_csv(rows: Iterable[Sequence], out: TextIO) -> int:
    """Ratings as CSV to a text handle opened with ``newline=""`` or ``"\\n"``; the number of ratings."""
    count = [0]
    _write(iter_ratings_csv(_counted(rows, count)), out)
    return count[0]


def write_consensus_csv(consensus: Sequence[Mapping], out: TextIO) -> int:
    _write(iter_consensus_csv(consensus), out)
    return len(consensus)


def write_rejected_csv(rejected: Sequence[Mapping], out: TextIO) -> int:
    """Rejected items as CSV (one row per rejected axis); the number of items."""
    _write(iter_rejected_csv(rejected), out)
    return len(rejected)


def _write(chunks: Iterable[str], out: TextIO) -> None:
    for chunk in chunks:
        out.write(chunk)


def _counted(items: Iterable, counter: list[int]) -> Iterator:
    for item in items:
        counter[0] += 1
        yield item
