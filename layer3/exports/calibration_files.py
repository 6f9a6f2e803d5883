"""A batch's judge-calibration reports, read from annotation and offered as files (issue 18).

Annotation computes a report per judge audit and offers them through ``core.judge_audits`` (apps
never import each other); Layer3 reads them here for its batch page, its API and its exports. The
download on the batch page, the API and ``manage.py export_layer3 --calibration`` serve the same
bytes from ``calibration_export``.
"""

from __future__ import annotations

import json

from core.judge_audits import calibration_reports
from layer3.exports.calibration import (
    CALIBRATION_FORMATS,
    calibration_filename,
    calibration_json,
    calibration_latex,
    calibration_markdown,
)
from layer3.exports.files import ExportError, ExportFile
from layer3.exports.formats import MEDIA_TYPES
from layer3.models import Batch


def batch_calibration(batch: Batch) -> list[dict]:
    """The calibration reports of the audits drawn from ``batch``, newest first; [] without any."""
    return list(calibration_reports(batch.name))


def calibration_export(batch: Batch, *, fmt: str, audit_id: int | str | None = None) -> ExportFile:
    """One audit's report (``audit_id``) or every audit's of the batch, as JSON, Markdown or LaTeX.

    JSON: the report itself, or ``{"batchId", "batchName", "audits": [reports, newest first]}`` (the API's body);
    Markdown and LaTeX: one section per report. ``ExportError`` names what was wrong and what exists.
    """
    if fmt not in CALIBRATION_FORMATS:
        raise ExportError(f"format {fmt!r}: the judge calibration is exported as {', '.join(CALIBRATION_FORMATS)}")
    reports = batch_calibration(batch)
    if not reports:
        raise ExportError(
            f"batch {batch.name} has no judge audit yet: create one on its Layer3 page or with "
            f"`python manage.py create_judge_audit {batch.name} --kind gv`"
        )
    if audit_id is not None:
        chosen = [r for r in reports if str((r.get("audit") or {}).get("id")) == str(audit_id)]
        if not chosen:
            known = ", ".join(str((r.get("audit") or {}).get("id")) for r in reports)
            raise ExportError(f"audit {audit_id}: the audits of batch {batch.name} are {known}")
        reports = chosen
    if fmt == "json":
        body = calibration_json(reports[0]) if audit_id is not None else _all_json(batch, reports)
    elif fmt == "markdown":
        body = "\n".join(calibration_markdown(report) for report in reports)
    else:
        body = "\n".join(calibration_latex(report) for report in reports)
    return ExportFile(calibration_filename(batch.name, fmt, audit_id), MEDIA_TYPES[fmt], iter((body,)))


def _all_json(batch: Batch, reports: list[dict]) -> str:
    body = {"batchId": str(batch.pk), "batchName": batch.name, "audits": reports}
    return json.dumps(body, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
