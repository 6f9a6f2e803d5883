"""Calibration reports of judge audits, read from the database (issue 18).

The statistics are the pure ``annotation.aggregation.calibration``; this selector only gathers its inputs:
the audit's facts, its items and every rating joined to the annotator's username. Layer3 asks for the
reports of a batch through ``core.judge_audits.calibration_reports`` (``batch_calibrations`` is registered
in ``AnnotationConfig.ready``). A report takes 0.25–0.33 s for a 200-item audit rated three times (mostly
the bootstrap), and the Layer3 page and API ask for every audit of a batch on each view; so a report is kept
in Django's cache under a key that changes with anything it is computed from (the ratings' count, latest
change and highest id, the audit's name): a new or corrected rating gives a new report at once.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max

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


CACHE_SECONDS = 24 * 3600


def audit_calibration(audit: JudgeAudit, *, n_boot: int = 1000) -> dict[str, Any]:
    """The calibration report of one audit (shape in ``annotation.aggregation.calibration``), cached."""
    state = AuditRating.objects.filter(item__audit=audit).aggregate(
        n=Count("pk"), last=Max("updated_at"), top=Max("pk")
    )
    last = state["last"].timestamp() if state["last"] else 0
    name = hashlib.sha256(audit.name.encode()).hexdigest()[:12]
    key = f"judge-audit-calibration:{audit.pk}:{n_boot}:{state['n']}:{last}:{state['top']}:{name}"
    report = cache.get(key)
    if report is None:
        report = _computed(audit, n_boot)
        cache.set(key, report, CACHE_SECONDS)
    return report


def _computed(audit: JudgeAudit, n_boot: int) -> dict[str, Any]:
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
