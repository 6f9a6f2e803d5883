"""The overview of a month as CSV, every text cell formula-neutralised (core.spreadsheet_cells)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from annotation.axes import AXES
from annotation.dashboard.ci_method import CiMethod
from annotation.feedback.rows import overview_rows
from annotation.models import QualityFlag
from core.spreadsheet_cells import neutralise_formula

COLUMNS = [
    "month",
    "annotator",
    "ratings",
    "items_rated_with_others",
    "kappa_vs_consensus_mean",
    *[f"kappa_vs_consensus_{axis}" for axis in AXES],
    *[f"kappa_vs_consensus_{axis}_ci_low" for axis in AXES],
    *[f"kappa_vs_consensus_{axis}_ci_high" for axis in AXES],
    "kappa_vs_rest_mean",
    *[f"kappa_vs_rest_{axis}" for axis in AXES],
    *[f"bias_{axis}" for axis in AXES],
    "straight_lining_axes",
    "median_seconds",
    "share_under_fast_threshold",
    "flags",
    "flags_open",
    "flags_accepted",
    "flags_dismissed",
    "ci_method",
    "ci_replicates",
    "ci_unit",
    "ci_level",
    "ci_coverage",
    "ci_statement",
]


def _number(value) -> str:
    return "" if value is None else repr(float(value)) if isinstance(value, float) else str(value)


def _text(value: str) -> str:
    return neutralise_formula(str(value))


def overview_csv(
    month: str, content: dict | None, flags: Mapping[str, Sequence[QualityFlag]], ci: CiMethod | None = None
) -> str:
    """UTF-8 with a BOM (spreadsheets then read Japanese right), CRLF rows; an empty cell is an undefined value.
    Every row repeats how the intervals were computed (``ci``: method, replicates, unit, level, simulated coverage
    and the statement in the active language), so a row taken alone still says what its CI means."""
    method = (
        [ci.method, _number(ci.replicates), "items", _number(ci.level),
         _number(ci.coverage["rate"] if ci.coverage else None), _text(ci.statement)]
        if ci is not None
        else ["", "", "", "", "", ""]
    )  # fmt: skip
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in overview_rows(content, flags) if content else []:
        consensus = row["consensus"]
        writer.writerow(
            [
                _text(month),
                _text(row["name"]),
                _number(row["n_ratings"]),
                _number(row["n_shared"]),
                _number(row["kappa_consensus_mean"]),
                *[_number(c["kappa"]) for c in consensus],
                *[_number(c["ci95"][0] if c["ci95"] else None) for c in consensus],
                *[_number(c["ci95"][1] if c["ci95"] else None) for c in consensus],
                _number(row["kappa_rest_mean"]),
                *[_number(k) for k in row["rest"]],
                *[_number(b) for b in row["bias"]],
                _text(" ".join(row["straight_axes"])),
                _number(row["median_seconds"]),
                _number(row["fast_share"]),
                *[_number(row["flags"][key]) for key in ("total", "open", "accepted", "dismissed")],
                *method,
            ]
        )
    return buffer.getvalue()
