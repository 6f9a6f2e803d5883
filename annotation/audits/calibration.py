"""Calibration reports of judge audits, read from the database (issue 18).

The statistics are the pure ``annotation.aggregation.calibration``; this selector only gathers its inputs:
the audit's facts, its items and every rating joined to the annotator's username. Layer3 asks for the
reports of a batch through ``core.judge_audits.calibration_reports`` (``batch_calibrations`` is registered
in ``AnnotationConfig.ready``). Nothing is cached: three queries and a vectorised bootstrap keep one report
of a 200-item audit rated three times well under a second.
"""

from __future__ import annotations

from typing import Any

from annotation.aggregation.calibration import calibration_report
from annotation.models import AuditItem, AuditRating, JudgeAudit

ITEM_FIELDS = {  # report key: model field
    "key": "key",
    "trialId": "trial_id",
    "modelConfig": "model_config",
    "judgeModel": "judge_model",
    "judgePrompt": "judge_prompt",
    "judgeScore": "judge_score",
    "judgeLabel": "judge_label",
    "judgeReasoning": "judge_reasoning",
    "baselineScore": "baseline_score",
    "stratum": "stratum",
    "weight": "weight",
    "context": "context",
}


def audit_calibration(audit: JudgeAudit, *, n_boot: int = 1000) -> dict[str, Any]:
    """The calibration report of one audit (shape in ``annotation.aggregation.calibration``)."""
    facts = {
        "id": audit.pk,
        "name": audit.name,
        "kind": audit.kind,
        "batch": audit.source_batch,
        "createdAt": audit.created_at.isoformat(),
        "perItem": audit.per_item,
        "seed": audit.seed,
        "requestedSize": audit.requested_size,
        "design": audit.design or {},
    }
    rows = AuditItem.objects.filter(audit=audit).order_by("key").values_list(*ITEM_FIELDS.values())
    items = [dict(zip(ITEM_FIELDS, row, strict=True)) for row in rows]
    ratings: dict[str, dict[str, int]] = {}
    given = AuditRating.objects.filter(item__audit=audit).values_list("item__key", "annotator__username", "score")
    for key, username, score in given:
        ratings.setdefault(key, {})[username] = score
    return calibration_report(facts, items, ratings, n_boot=n_boot)


def batch_calibrations(batch_name: str) -> list[dict[str, Any]]:
    """The reports of every audit drawn from the Layer3 batch ``batch_name``, newest first."""
    audits = JudgeAudit.objects.filter(source_batch=batch_name).order_by("-created_at", "-pk")
    return [audit_calibration(audit) for audit in audits]
