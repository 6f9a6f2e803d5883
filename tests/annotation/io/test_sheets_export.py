"""Ratings and consensus as .xlsx and CSV: the JSONL exports' values, formula-safe texts, the commands' --format."""

import csv
import io
import json
import math
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command
from openpyxl import load_workbook

from annotation.axes import AXES
from annotation.io import sheets
from annotation.models import Adjudication, Annotation, Batch, Dialogue
from annotation.review.services import adjudication_record
from core.spreadsheet_cells import neutralise_formula
from tests.annotation.conftest import dialogue
from tests.helpers import make_user

PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\uff1d")  # the last: full-width "＝"
STAMP = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


# --- reading back ----------------------------------------------------------------------------------------------


def xlsx_cells(source, sheet: str) -> list[list]:
    """Every row of ``sheet`` as its cells (formulas as written, not computed)."""
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    book = load_workbook(source, data_only=False)
    return [list(row) for row in book[sheet].iter_rows()]


def xlsx_rows(source, sheet: str) -> list[dict]:
    """``sheet`` as dicts under its header row; empty cells are None."""
    header, *rows = xlsx_cells(source, sheet)
    names = [cell.value for cell in header]
    return [{name: cell.value for name, cell in zip(names, row, strict=False)} for row in rows]


def csv_rows(raw: bytes) -> list[dict]:
    """A CSV file's rows under its header; checks the BOM and that every line ends in CRLF."""
    assert raw.startswith(b"\xef\xbb\xbf"), "no UTF-8 BOM"
    text = raw.decode("utf-8")[1:]
    assert text.endswith("\r\n")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def csv_bytes(chunks) -> bytes:
    return "".join(chunks).encode("utf-8")


def xlsx_bytes(write) -> bytes:
    buffer = io.BytesIO()
    write(buffer)
    return buffer.getvalue()


def number(text: str):
    """A CSV number cell as the JSONL holds it (``None`` for an empty cell)."""
    return None if text == "" else json.loads(text)


# --- pure: rows and cells --------------------------------------------------------------------------------------


def sheet_row(dialogue_id="dialogue_001", annotator="ann_001", **overrides) -> tuple:
    values = {
        "stamp": STAMP,
        "source": "web",
        "seconds": 12.5,
        "scores": (1, 2, 3, 4),
        "confidence": (0.9, 0.8, 1.0, 0.75),
    } | overrides
    return (
        dialogue_id,
        annotator,
        values["stamp"],
        values["source"],
        values["seconds"],
        *values["scores"],
        *values["confidence"],
    )


def consensus_line(item_id="dialogue_001", **overrides) -> dict:
    line = {
        "id": item_id,
        "annotator_id": "consensus",
        "timestamp": "2025-01-02T03:04:05Z",
        "annotations": dict(zip(AXES, (1, 2, 3, 4), strict=True)),
        "confidence": dict(zip(AXES, (0.9, 0.8, 1.0, 0.75), strict=True)),
        "scores_mean": dict(zip(AXES, (1.2, 2.0, 2.5, 4.0), strict=True)),
        "n_annotators": 3,
        "n_used": dict(zip(AXES, (3, 2, 3, 3), strict=True)),
        "method": "weighted_average",
    }
    return line | overrides


REASONS = {
    "social": {"reason": "spread_too_wide", "min": 1, "max": 5, "max_spread": 2},
    "avoidant": {"reason": "too_few_ratings", "usable": 1, "required": 2},
}
RATINGS = {"ann_a": dict(zip(AXES, (1, 2, 1, 1), strict=True)), "ann_b": dict(zip(AXES, (5, 2, 1, 1), strict=True))}


def rejected_line(item_id="dialogue_009", reasons=REASONS, ratings=RATINGS) -> dict:
    return {"id": item_id, "reasons": reasons, "n_annotators": 2, "ratings": ratings}


def test_rating_rows_hold_every_column_in_order():
    [row] = xlsx_rows(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([sheet_row()], out)), sheets.RATINGS_SHEET)
    assert list(row) == list(sheets.RATING_COLUMNS)
    assert row == {
        "id": "dialogue_001",
        "annotator_id": "ann_001",
        "timestamp": "2025-01-02T03:04:05Z",
        "source": "web",
        "social": 1,
        "avoidant": 2,
        "mechanical": 3,
        "self": 4,
        "social_confidence": 0.9,
        "avoidant_confidence": 0.8,
        "mechanical_confidence": 1.0,
        "self_confidence": 0.75,
        "seconds_spent": 12.5,
    }
    [line] = csv_rows(csv_bytes(sheets.iter_ratings_csv([sheet_row(seconds=None)])))
    assert line["timestamp"] == "2025-01-02T03:04:05Z" and line["seconds_spent"] == ""
    assert [line[axis] for axis in AXES] == ["1", "2", "3", "4"] and line["self_confidence"] == "0.75"


def test_the_xlsx_sheet_has_a_bold_frozen_header_and_text_typed_texts():
    book = load_workbook(io.BytesIO(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([sheet_row()], out))))
    ws = book[sheets.RATINGS_SHEET]
    assert book.sheetnames == [sheets.RATINGS_SHEET] and ws.freeze_panes == "A2"
    assert all(cell.font.b and cell.data_type == "s" for cell in ws[1])
    assert [cell.data_type for cell in ws[2]] == ["s"] * 4 + ["n"] * 9


@pytest.mark.parametrize("prefix", PREFIXES)
def test_rating_texts_that_read_as_formulas_are_neutralised_in_both_formats(prefix):
    row = sheet_row(f"{prefix}1+1", f"{prefix}cmd|' /C calc'!A0", source=f"{prefix}SUM(A1)")
    [cells] = xlsx_cells(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([row], out)), sheets.RATINGS_SHEET)[1:]
    for cell in cells[:2] + cells[3:4]:
        assert cell.data_type == "s" and cell.value.startswith("'"), (prefix, cell.value)
        assert cell.value[1:].startswith(prefix if prefix != "\r" else "\n")  # the text itself is kept
    [line] = csv_rows(csv_bytes(sheets.iter_ratings_csv([row])))
    for column in ("id", "annotator_id", "source"):
        assert line[column].startswith("'" + prefix), (prefix, line[column])


@pytest.mark.parametrize("prefix", PREFIXES)
def test_consensus_and_rejected_texts_that_read_as_formulas_are_neutralised(prefix):
    decided = {
        "score": 4,
        "merged": 2.5,
        "reason": f'{prefix}HYPERLINK("http://x")',
        "by": f"{prefix}res",
        "at": "2025-01-02T03:04:05Z",
    }
    consensus = [consensus_line(f"{prefix}item", adjudicated={"social": decided})]
    rejected = [
        rejected_line(
            f"{prefix}rej", reasons={"social": {"reason": f"{prefix}too_wide"}}, ratings={f"{prefix}ann": {"social": 1}}
        ),
        rejected_line("flat", reasons={"reason": f"{prefix}whole item"}),
    ]
    raw = xlsx_bytes(lambda out: sheets.write_consensus_xlsx(consensus, rejected, out))
    header, row = xlsx_cells(raw, sheets.CONSENSUS_SHEET)
    cells = {head.value: cell for head, cell in zip(header, row, strict=True)}
    for column in ("id", "social_adjudicated_reason", "social_adjudicated_by"):
        assert cells[column].data_type == "s" and cells[column].value.startswith("'"), (prefix, column)
    header, *rows = xlsx_cells(raw, sheets.REJECTED_SHEET)
    names = [cell.value for cell in header]
    first, flat = ({name: cell for name, cell in zip(names, row, strict=True)} for row in rows)
    for cell in (first["id"], first["reason"], first["ratings"], flat["reason"]):
        assert cell.data_type == "s" and cell.value.startswith("'"), (prefix, cell.value)
    assert flat["axis"].value == "all"
    [line] = csv_rows(csv_bytes(sheets.iter_consensus_csv(consensus)))
    assert all(line[c].startswith("'" + prefix) for c in ("id", "social_adjudicated_reason", "social_adjudicated_by"))
    first, flat = csv_rows(csv_bytes(sheets.iter_rejected_csv(rejected)))
    assert all(
        text.startswith("'" + prefix) for text in (first["id"], first["reason"], first["ratings"], flat["reason"])
    )


def test_negative_and_zero_numbers_stay_numbers():
    line = consensus_line(scores_mean=dict(zip(AXES, (-1.5, 0, 0.0, -2), strict=True)))
    [row] = xlsx_rows(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([line], [], out)), sheets.CONSENSUS_SHEET)
    assert [row[f"{axis}_mean"] for axis in AXES] == [-1.5, 0, 0.0, -2]
    [cells] = xlsx_cells(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([line], [], out)), "consensus")[1:]
    assert {cell.data_type for cell in cells if isinstance(cell.value, int | float)} == {"n"}
    [text] = csv_rows(csv_bytes(sheets.iter_consensus_csv([line])))
    assert [text[f"{axis}_mean"] for axis in AXES] == ["-1.5", "0", "0.0", "-2"]
    assert text["id"] == "dialogue_001"  # a text that needs nothing is unchanged


@pytest.mark.parametrize("text", ["#N/A", "#DIV/0!", "#REF!", "TRUE", "1e5", "0012"])
def test_texts_that_look_like_values_stay_texts(text):
    rows = xlsx_rows(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([sheet_row(text)], out)), sheets.RATINGS_SHEET)
    assert rows[0]["id"] == text
    [cells] = xlsx_cells(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([sheet_row(text)], out)), "ratings")[1:]
    assert cells[0].data_type == "s"


def test_japanese_text_round_trips_in_both_formats():
    row = sheet_row("対話_零零一", "山田太郎", source="spreadsheet")
    decision = {"score": 2, "merged": 3.0, "reason": "軽度の自己迎合。", "by": "研究者", "at": "2025-01-02T03:04:05Z"}
    line = consensus_line("対話_零零一", adjudicated={"self": decision})
    [back] = xlsx_rows(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([row], out)), sheets.RATINGS_SHEET)
    assert (back["id"], back["annotator_id"]) == ("対話_零零一", "山田太郎")
    [back] = csv_rows(csv_bytes(sheets.iter_ratings_csv([row])))
    assert (back["id"], back["annotator_id"]) == ("対話_零零一", "山田太郎")
    [back] = xlsx_rows(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([line], [], out)), sheets.CONSENSUS_SHEET)
    assert back["self_adjudicated_reason"] == "軽度の自己迎合。" and back["self_adjudicated_by"] == "研究者"
    [back] = csv_rows(csv_bytes(sheets.iter_consensus_csv([line])))
    assert back["self_adjudicated_reason"] == "軽度の自己迎合。"


def test_csv_is_utf8_with_a_bom_and_crlf_even_around_a_newline_in_a_cell():
    raw = csv_bytes(sheets.iter_rejected_csv([rejected_line("a,b", reasons={"reason": "line one\nline two"})]))
    assert raw.startswith(b"\xef\xbb\xbf") and raw.count(b"\r\n") == 2  # header and the row; the cell keeps its \n
    [row] = csv_rows(raw)
    assert row["id"] == "a,b" and row["reason"] == "line one\nline two"


def test_adjudication_columns_appear_only_when_a_line_has_one():
    plain = consensus_line()
    raw = xlsx_bytes(lambda out: sheets.write_consensus_xlsx([plain], [], out))
    header = [cell.value for cell in xlsx_cells(raw, sheets.CONSENSUS_SHEET)[0]]
    assert header == list(sheets.consensus_columns(adjudicated=False))
    assert header[:6] == ["id", "n_annotators", "social", "social_mean", "social_confidence", "social_n"]
    assert header[-2:] == ["method", "timestamp"] and not any("adjudicated" in name for name in header)
    decided = consensus_line(
        "d2",
        adjudicated={
            "avoidant": {"score": 5, "merged": None, "reason": "r", "by": "res", "at": "2025-01-02T03:04:05Z"}
        },
    )
    rows = xlsx_rows(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([plain, decided], [], out)), "consensus")
    assert list(rows[0]) == list(sheets.consensus_columns(adjudicated=True))
    assert rows[0]["avoidant_adjudicated"] is None and rows[0]["avoidant_adjudicated_reason"] is None
    assert rows[1]["avoidant_adjudicated"] == 5 and rows[1]["avoidant_adjudicated_replaced"] is None
    assert rows[1]["social_adjudicated"] is None and rows[1]["avoidant_adjudicated_by"] == "res"
    csv_header = csv_rows(csv_bytes(sheets.iter_consensus_csv([plain, decided])))[0]
    assert list(csv_header) == list(sheets.consensus_columns(adjudicated=True))


def test_flag_columns_list_the_annotators_accepted_flags_left_out_and_the_flags_that_rejected_an_item():
    plain = consensus_line()
    assert not any("flag" in name for name in sheets.consensus_columns(adjudicated=False))
    flagged = consensus_line("d2", flag_excluded={"social": ["ann_b", "=ann_c"]})
    rows = xlsx_rows(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([plain, flagged], [], out)), "consensus")
    assert list(rows[0]) == list(sheets.consensus_columns(adjudicated=False, flagged=True))
    assert rows[0]["social_flag_excluded"] is None and rows[1]["avoidant_flag_excluded"] is None
    assert rows[1]["social_flag_excluded"] == "ann_b, =ann_c"  # a text cell: never a formula
    csv_row = csv_rows(csv_bytes(sheets.iter_consensus_csv([plain, flagged])))[1]
    assert csv_row["social_flag_excluded"] == "ann_b, =ann_c"
    rejected = rejected_line(reasons={"social": {"reason": "flag_accepted", "flags": [7, 9]}})
    [row] = [dict(zip(sheets.REJECTED_COLUMNS, r, strict=True)) for r in sheets.rejected_rows(rejected)]
    assert (row["axis"], row["reason"], row["flags"]) == ("social", "flag_accepted", "7, 9")


def test_rejected_lines_become_one_row_per_axis_or_one_all_row():
    rows = [dict(zip(sheets.REJECTED_COLUMNS, row, strict=True)) for row in sheets.rejected_rows(rejected_line())]
    assert [row["axis"] for row in rows] == ["social", "avoidant"]  # axis order, not the line's order
    assert rows[0] == {
        "id": "dialogue_009",
        "axis": "social",
        "reason": "spread_too_wide",
        "usable": None,
        "required": None,
        "min": 1,
        "max": 5,
        "max_spread": 2,
        "n_annotators": 2,
        "ratings": "ann_a: 1, ann_b: 5",
        "flags": None,
    }
    assert (rows[1]["reason"], rows[1]["usable"], rows[1]["required"]) == ("too_few_ratings", 1, 2)
    [flat] = sheets.rejected_rows(rejected_line(reasons={"reason": "too_few_ratings", "usable": 0}))
    assert flat[1:5] == ["all", "too_few_ratings", 0, None]
    assert flat[-1] is None and flat[-2] == (
        "ann_a: social 1, avoidant 2, mechanical 1, self 1; ann_b: social 5, avoidant 2, mechanical 1, self 1"
    )
    [listed] = sheets.rejected_rows(rejected_line(reasons=["no consensus", "flagged"]))
    assert listed[1:3] == ["all", "no consensus; flagged"]
    [empty] = sheets.rejected_rows(rejected_line(reasons={}))
    assert empty[1:3] == ["all", None]


def test_the_rejected_sheet_and_csv_hold_the_same_rows():
    lines = [
        rejected_line(),
        rejected_line("other", reasons={"self": {"reason": "too_few_ratings", "usable": 1, "required": 2}}),
    ]
    from_xlsx = xlsx_rows(xlsx_bytes(lambda out: sheets.write_consensus_xlsx([], lines, out)), sheets.REJECTED_SHEET)
    from_csv = csv_rows(csv_bytes(sheets.iter_rejected_csv(lines)))
    assert len(from_xlsx) == len(from_csv) == 3
    for cells, texts in zip(from_xlsx, from_csv, strict=True):
        assert list(cells) == list(texts) == list(sheets.REJECTED_COLUMNS)
        for column, value in cells.items():
            assert texts[column] == ("" if value is None else str(value))


def test_xlsx_texts_lose_only_what_xml_cannot_hold():
    row = sheet_row(" leading space", "ann_001", source="a\r\nb\x01c & <d>")
    [back] = xlsx_rows(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([row], out)), sheets.RATINGS_SHEET)
    assert back["id"] == " leading space" and back["source"] == "a\nb\ufffdc & <d>"
    [text] = csv_rows(csv_bytes(sheets.iter_ratings_csv([row])))
    assert text["source"] == "a\r\nb\x01c & <d>"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_number_json_cannot_hold_is_refused_in_both_formats(bad):
    line = consensus_line(scores_mean=dict.fromkeys(AXES, bad))
    with pytest.raises(ValueError, match="social_mean"):
        sheets.write_consensus_xlsx([line], [], io.BytesIO())
    with pytest.raises(ValueError, match="social_mean"):
        "".join(sheets.iter_consensus_csv([line]))


def test_a_sheet_refuses_more_rows_than_a_spreadsheet_holds(monkeypatch):
    monkeypatch.setattr(sheets, "MAX_XLSX_ROWS", 3)
    sheets.write_ratings_xlsx([sheet_row(), sheet_row()], io.BytesIO())  # header + 2 rows: full
    with pytest.raises(ValueError, match="more than 2 rows"):
        sheets.write_ratings_xlsx([sheet_row()] * 3, io.BytesIO())


def test_a_row_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError):
        sheets.write_ratings_xlsx([sheet_row()[:-1]], io.BytesIO())
    with pytest.raises(ValueError):
        "".join(sheets.iter_ratings_csv([sheet_row()[:-1]]))


def test_the_writers_count_what_they_wrote(tmp_path):
    rows = (sheet_row(f"d{i}") for i in range(5))  # a generator, read once
    assert sheets.write_ratings_xlsx(rows, str(tmp_path / "r.xlsx")) == 5
    assert len(xlsx_rows(tmp_path / "r.xlsx", sheets.RATINGS_SHEET)) == 5
    with (tmp_path / "r.csv").open("w", encoding="utf-8", newline="") as handle:
        assert sheets.write_ratings_csv((sheet_row(f"d{i}") for i in range(4)), handle) == 4
    assert len(csv_rows((tmp_path / "r.csv").read_bytes())) == 4
    empty = xlsx_cells(xlsx_bytes(lambda out: sheets.write_ratings_xlsx([], out)), sheets.RATINGS_SHEET)
    assert [cell.value for cell in empty[0]] == list(sheets.RATING_COLUMNS) and len(empty) == 1


# --- the commands ----------------------------------------------------------------------------------------------

IDS = ("=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx", "\uff1d1+1", "対話_日本語")


@pytest.fixture
def stored(db):
    """Batch "s": eight dialogues with formula-like and Japanese ids, each rated by "@ann", "-ann" and "山田".

    Stored directly: the imports refuse such ids now (core.names.id_problem), but a database may hold them from
    before, or from the admin, and the exports must still neutralise them.
    """
    batch = Batch.objects.create(name="s")
    users = {name: make_user(name, "annotator") for name in ("@ann", "-ann", "山田")}
    stamp = datetime(2025, 1, 1, 10, tzinfo=UTC)
    for k, item in enumerate(IDS):
        row = dialogue(0, id=item)
        texts = {"user_text": row["user"], "response_text": row["response"], "context": row["context"]}
        stored_dialogue = Dialogue.objects.create(external_id=item, batch=batch, **texts)
        for j, user in enumerate(users.values()):
            scores = (1 + (k + j) % 5, 2, 1 + k % 5, 1)
            values = {f"{axis}_score": score for axis, score in zip(AXES, scores, strict=True)}
            values |= {f"{axis}_confidence": c for axis, c in zip(AXES, (1, 0.9, 0.8, 0.7), strict=True)}
            Annotation.objects.create(dialogue=stored_dialogue, annotator=user, created_at=stamp, updated_at=stamp,
                                      seconds_spent=3.5 + j if j else None, source="import", **values)  # fmt: skip


def _jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _expected_rating(record: dict) -> dict:
    row = {
        "id": neutralise_formula(record["id"]),
        "annotator_id": neutralise_formula(record["annotator_id"]),
        "timestamp": record["timestamp"],
        "source": "import",
    }
    row |= {axis: record["annotations"][axis] for axis in AXES}
    row |= {f"{axis}_confidence": record["confidence"][axis] for axis in AXES}
    return row | {"seconds_spent": record.get("seconds_spent")}


def test_ratings_as_xlsx_and_csv_hold_the_jsonl_export(stored, tmp_path):
    call_command("export_annotations", "--output", str(tmp_path / "r.jsonl"))
    call_command("export_annotations", "--output", str(tmp_path / "r.xlsx"), "--format", "xlsx", "--batch", "s")
    call_command("export_annotations", "--output", str(tmp_path / "r.csv"), "--format", "csv")
    expected = [_expected_rating(record) for record in _jsonl(tmp_path / "r.jsonl")]
    assert len(expected) == 24
    from_xlsx = xlsx_rows(tmp_path / "r.xlsx", sheets.RATINGS_SHEET)
    for row in from_xlsx:
        row["id"] = row["id"].replace("\n", "\r")  # the xlsx holds the CR of "\rx" as a line feed
    assert from_xlsx == expected
    from_csv = csv_rows((tmp_path / "r.csv").read_bytes())
    assert [list(row) for row in from_csv] == [list(sheets.RATING_COLUMNS)] * 24
    for row, want in zip(from_csv, expected, strict=True):
        texts = ("id", "annotator_id", "timestamp", "source")
        assert {k: row[k] for k in texts} == {k: want[k] for k in texts}
        assert {k: number(v) for k, v in row.items() if k not in texts} == {
            k: v for k, v in want.items() if k not in texts
        }
    assert {row["id"][:2] for row in from_csv} >= {"'=", "'+", "'-", "'@", "'\t", "'\r", "'\uff1d"}
    assert from_csv[-1]["annotator_id"] == "山田"


def _expected_consensus(line: dict, *, adjudicated: bool) -> dict:
    row = {"id": neutralise_formula(line["id"]), "n_annotators": line["n_annotators"]}
    for axis in AXES:
        row |= {
            axis: line["annotations"][axis],
            f"{axis}_mean": line["scores_mean"][axis],
            f"{axis}_confidence": line["confidence"][axis],
            f"{axis}_n": line["n_used"][axis],
        }
    if adjudicated:
        for axis in AXES:
            decision = line.get("adjudicated", {}).get(axis, {})
            row |= {
                f"{axis}_adjudicated": decision.get("score"),
                f"{axis}_adjudicated_reason": decision.get("reason") and neutralise_formula(decision["reason"]),
                f"{axis}_adjudicated_by": decision.get("by") and neutralise_formula(decision["by"]),
                f"{axis}_adjudicated_at": decision.get("at"),
                f"{axis}_adjudicated_replaced": decision.get("merged"),
            }
    return row | {"method": line["method"]}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_consensus_as_xlsx_and_csv_hold_the_jsonl_export(disputed_batch, tmp_path, prefix):
    researcher = make_user(f"{prefix}res" if prefix in "+-@" else "res", "researcher")
    item = Dialogue.objects.get(external_id="dialogue_001")
    if prefix in "\t\r":  # the review form strips a reason; a stored one may still start so
        Adjudication.objects.create(
            dialogue=item, axis="mechanical", score=5, reason=f"{prefix}=HYPERLINK()", decided_by=researcher
        )
    else:
        adjudication_record(dialogue=item, axis="mechanical", score=5, reason=f"{prefix}HYPERLINK()", user=researcher)
    call_command("export_consensus", "--output", str(tmp_path / "c.jsonl"), "--batch", "adj")
    call_command("export_consensus", "--output", str(tmp_path / "c.xlsx"), "--batch", "adj", "--format", "xlsx")
    call_command("export_consensus", "--output", str(tmp_path / "c.csv"), "--batch", "adj", "--format", "csv")
    consensus = _jsonl(tmp_path / "c.jsonl")
    rejected = _jsonl(tmp_path / "rejected" / "low_agreement.jsonl")
    assert rejected and any("adjudicated" in line for line in consensus)
    expected = [_expected_consensus(line, adjudicated=True) for line in consensus]
    from_xlsx = xlsx_rows(tmp_path / "c.xlsx", sheets.CONSENSUS_SHEET)
    assert all(row.pop("timestamp").endswith("Z") for row in from_xlsx)
    for row in from_xlsx:
        if row["mechanical_adjudicated_reason"]:
            row["mechanical_adjudicated_reason"] = row["mechanical_adjudicated_reason"].replace("\n", "\r")
    assert from_xlsx == expected
    decided = next(row for row in from_xlsx if row["mechanical_adjudicated"] == 5)
    assert decided["mechanical_adjudicated_reason"].startswith("'" + prefix)
    from_csv = csv_rows((tmp_path / "c.csv").read_bytes())
    texts = {"id", "method", "timestamp"} | {f"{a}_adjudicated_{k}" for a in AXES for k in ("reason", "by", "at")}
    for row, want in zip(from_csv, expected, strict=True):
        row.pop("timestamp")
        assert {k: (v if k in texts else number(v)) for k, v in row.items()} == {
            k: ("" if v is None and k in texts else v) for k, v in want.items()
        }
    rejected_rows = [row for line in rejected for row in sheets.rejected_rows(line)]
    want = [
        {k: ("" if v is None else str(v)) for k, v in zip(sheets.REJECTED_COLUMNS, row, strict=True)}
        for row in rejected_rows
    ]
    assert csv_rows((tmp_path / "rejected" / "low_agreement.csv").read_bytes()) == want
    from_sheet = xlsx_rows(tmp_path / "c.xlsx", sheets.REJECTED_SHEET)
    assert [{k: ("" if v is None else str(v)) for k, v in row.items()} for row in from_sheet] == want
    assert from_sheet[0]["axis"] == "social" and from_sheet[0]["reason"] == "spread_too_wide"


def test_consensus_csv_takes_rejected_where_told(disputed_batch, tmp_path):
    target = tmp_path / "out" / "r.csv"
    target.parent.mkdir()
    call_command("export_consensus", "-o", str(tmp_path / "c.csv"), "--format", "csv", "--rejected", str(target))
    assert csv_rows(target.read_bytes())[0]["id"] == "dialogue_000"
    assert not (tmp_path / "rejected").exists()


@pytest.mark.parametrize(
    ("command", "file_format", "name", "message"),
    [
        ("export_annotations", "xlsx", "x.csv", "--format xlsx but --output .*x.csv is named for csv"),
        ("export_annotations", "csv", "x.xlsx", "--format csv but --output .*x.xlsx is named for xlsx"),
        ("export_annotations", "jsonl", "x.CSV", "--format jsonl but --output .*x.CSV is named for csv"),
        ("export_annotations", "xlsx", "x.jsonl", "--format xlsx but --output .*x.jsonl is named for jsonl"),
        ("export_annotations", "xlsx", "x", "--format xlsx but --output .*x has no .xlsx ending"),
        ("export_annotations", "xlsx", "-", "--format xlsx cannot go to standard output"),
        ("export_consensus", "xlsx", "x.csv", "--format xlsx but --output .*x.csv is named for csv"),
        ("export_consensus", "csv", "x.txt", "--format csv but --output .*x.txt has no .csv ending"),
        ("export_consensus", "csv", "-", "--format csv needs --output to be a file"),
    ],
)
def test_a_file_named_for_another_format_is_refused_naming_both(stored, tmp_path, command, file_format, name, message):
    folder = tmp_path / "out"
    target = name if name == "-" else str(folder / name)
    with pytest.raises(CommandError, match=message):
        call_command(command, "--output", target, "--format", file_format)
    assert not folder.exists()


def test_export_consensus_refuses_a_rejected_file_it_would_not_write(stored, tmp_path):
    folder = tmp_path / "out"
    with pytest.raises(CommandError, match="--rejected is not used with --format xlsx"):
        call_command(
            "export_consensus", "-o", str(folder / "c.xlsx"), "--format", "xlsx", "--rejected", str(folder / "r.csv")
        )
    with pytest.raises(CommandError, match=r"--format csv but --rejected .*r\.jsonl is named for jsonl"):
        call_command(
            "export_consensus", "-o", str(folder / "c.csv"), "--format", "csv", "--rejected", str(folder / "r.jsonl")
        )
    assert not folder.exists()


def test_the_default_format_is_still_jsonl_with_any_name(stored, tmp_path, capsys):
    call_command("export_annotations", "--output", str(tmp_path / "ratings.txt"))
    assert len(_jsonl(tmp_path / "ratings.txt")) == 24
    call_command("export_consensus", "--output", str(tmp_path / "c.out"))
    assert (tmp_path / "rejected" / "low_agreement.jsonl").exists()


def test_ratings_csv_can_go_to_standard_output(stored, capsys):
    call_command("export_annotations", "--output", "-", "--format", "csv", "--batch", "s")
    out = capsys.readouterr().out
    assert out.startswith("\ufeffid,annotator_id,timestamp,source,") and out.count("\r\n") == 25


def test_a_failed_write_leaves_no_file(stored, tmp_path, monkeypatch):
    def broken(rows, out):
        out.write(b"partial")
        raise RuntimeError("disk trouble")

    monkeypatch.setattr("annotation.management.commands.export_annotations.write_ratings_xlsx", broken)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(RuntimeError, match="disk trouble"):
        call_command("export_annotations", "--output", str(folder / "r.xlsx"), "--format", "xlsx")
    assert list(folder.iterdir()) == []


def test_the_commands_say_what_they_wrote(stored, tmp_path, capsys):
    call_command("export_annotations", "--output", str(tmp_path / "r.xlsx"), "--format", "xlsx")
    assert f"exported 24 annotations to {tmp_path / 'r.xlsx'}" in capsys.readouterr().out
    call_command("export_consensus", "--output", str(tmp_path / "c.xlsx"), "--format", "xlsx")
    out = capsys.readouterr().out
    assert f"written to {tmp_path / 'c.xlsx'}" in out and "(sheet rejected)" in out
