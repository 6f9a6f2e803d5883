"""Writes for the annotation app: stored agreement reports, quality flags and rating edits."""

from __future__ import annotations

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.aggregation.consensus import kappa_without_flagged
from annotation.aggregation.coverage_cache import report_ci_coverage
from annotation.aggregation.llm_agreement import llm_agreement
from annotation.aggregation.reports import CI_METHOD, N_BOOT, SEED, kappa_report
from annotation.axes import AXES, MIN_CONFIDENCE, MIN_KAPPA, TARGET_KAPPA
from annotation.io.dataset import RatingSet, rating_set
from annotation.models import (
    AgreementReport,
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Batch,
    Dialogue,
    QualityFlag,
)
from annotation.quality.consistency import check_consistency
from annotation.quality.outliers import detect_outliers
from annotation.review.selectors import accepted_flag_exclusions
from annotation.selectors import annotation_records, dialogue_records

_VALUE_FIELDS = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]


def annotation_values(annotation: Annotation) -> dict:
    return {name: getattr(annotation, name) for name in _VALUE_FIELDS}


def annotation_update(*, annotation: Annotation, values: dict, user, reason: str = "") -> Annotation:
    """Change scores/confidences of a stored rating, keeping the old values in the edit history."""
    unknown = set(values) - set(_VALUE_FIELDS)
    if unknown:
        raise ValueError(f"not rating fields: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        locked = Annotation.objects.select_for_update().get(pk=annotation.pk)
        old = annotation_values(locked)
        new = {**old, **values}
        if new == old:
            return locked
        for name, value in values.items():
            setattr(locked, name, value)
        locked.updated_at = timezone.now()
        locked.full_clean(exclude=["dialogue", "annotator"])
        locked.save(update_fields=[*values, "updated_at"])
        AnnotationEdit.objects.create(annotation=locked, edited_by=user, old_values=old, new_values=new, reason=reason)
    return locked


def _llm_raters_section(batch_name: str | None, humans: RatingSet, *, n_boot: int, seed: int) -> dict | None:
    """Each LLM rater's agreement with the humans of ``humans`` (``aggregation.llm_agreement``); None without any."""
    profiles = AnnotatorProfile.objects.exclude(llm_model="").select_related("user")
    labels = {p.user.get_username(): p.rater_label for p in profiles}
    ratings = Annotation.objects.filter(annotator__username__in=list(labels)).order_by("dialogue_id", "annotator_id")
    if batch_name is not None:
        ratings = ratings.filter(dialogue__batch__name=batch_name)
    rows = list(ratings.values_list("dialogue__external_id", "annotator__username", *(f"{a}_score" for a in AXES)))
    if not rows:
        return None
    items = list(dict.fromkeys(row[0] for row in rows))
    raters = sorted({row[1] for row in rows})
    item_row, rater_col = {item: i for i, item in enumerate(items)}, {r: c for c, r in enumerate(raters)}
    scores = {axis: np.zeros((len(items), len(raters)), dtype=np.int8) for axis in AXES}
    for item, rater, *values in rows:
        for axis, value in zip(AXES, values, strict=True):
            scores[axis][item_row[item], rater_col[rater]] = value
    return llm_agreement(
        humans.item_ids, humans.rater_ids, humans.scores, items, raters, scores,
        labels=labels, n_boot=n_boot, seed=seed,
    )  # fmt: skip


def _accepted_flags_section(batch: Batch | None, ratings: RatingSet) -> dict | None:
    """κ per axis of the ratings the accepted quality flags leave in (what the consensus merges), beside the
    report's κ over every rating: a flag review changes the first, never the second (None: no accepted flag)."""
    exclusions = accepted_flag_exclusions(batch)
    if not exclusions:
        return None
    return {
        "flags": len({exclusion.flag for exclusion in exclusions}),
        "kappa": kappa_without_flagged(ratings, exclusions),
    }


def agreement_report_create(
    *,
    batch: Batch | None = None,
    user=None,
    min_kappa: float = MIN_KAPPA,
    target_kappa: float = TARGET_KAPPA,
    min_confidence: float = MIN_CONFIDENCE,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    trigger: str | None = None,
    include_llm: bool = False,
    ci_method: str | None = None,
) -> AgreementReport:
    """Compute agreement over the stored ratings (one batch or all) and store it with its quality flags.

    ``trigger`` names what started a run other than a person (``"weekly"``: the monitoring schedule); it is kept
    in the report's parameters. LLM raters count only with ``include_llm`` (then kept in the parameters too).
    ``ci_method`` ("percentile" or "bca") is how the kappa intervals are computed; None keeps the method of the
    batch's latest report (a switch to BCa on the dashboard lasts), else the percentile interval. The report body
    keeps the simulated coverage of that interval at the batch's size (``ci_coverage``, see
    ``annotation.dashboard.ci_method``).
    """
    if ci_method is None:
        latest = AgreementReport.objects.filter(batch=batch).order_by("-created_at", "-pk").first() if batch else None
        ci_method = latest.parameters.get("ci_method", CI_METHOD) if latest else CI_METHOD
    batch_name = batch.name if batch else None
    records = annotation_records(batch_name=batch_name, include_llm=include_llm)
    if not records:
        raise ValueError(f"no ratings stored{f' in batch {batch_name}' if batch_name else ''}")
    ratings = rating_set(records)
    source = f"batch {batch_name}" if batch_name else "all batches"
    report = kappa_report(
        ratings,
        min_kappa=min_kappa,
        target_kappa=target_kappa,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        sources=[source],
    )
    report["ci_coverage"] = report_ci_coverage(report)
    if not include_llm:
        accepted = _accepted_flags_section(batch, ratings)
        if accepted is not None:
            report["accepted_flags"] = accepted
    if not include_llm:  # the LLM raters beside the humans, in a section of their own (the rest stays human)
        llm_section = _llm_raters_section(batch_name, ratings, n_boot=n_boot, seed=seed)
        if llm_section is not None:
            report["llm_raters"] = llm_section
    outliers = detect_outliers(ratings)
    dialogues = dialogue_records({r.id for r in records})
    consistency = [
        (record, issue)
        for record in records
        for issue in check_consistency(record.as_json(), dialogues[record.id], min_confidence=min_confidence)
    ]
    users = dict(get_user_model().objects.filter(username__in=ratings.rater_ids).values_list("username", "pk"))
    dialogue_pks = dict(Dialogue.objects.filter(external_id__in=list(dialogues)).values_list("external_id", "pk"))
    annotation_pks = {
        (d, a): pk
        for pk, d, a in Annotation.objects.filter(dialogue_id__in=list(dialogue_pks.values())).values_list(
            "pk", "dialogue_id", "annotator_id"
        )
    }
    with transaction.atomic():
        stored = AgreementReport.objects.create(
            created_by=user,
            batch=batch,
            source=source,
            parameters={
                "min_kappa": min_kappa,
                "target_kappa": target_kappa,
                "n_boot": n_boot,
                "seed": seed,
                "ci_method": ci_method,
                **({"trigger": trigger} if trigger else {}),
                **({"include_llm": True} if include_llm else {}),
            },
            passed=report["passed"],
            report=report,
        )
        flags = [
            QualityFlag(
                source=QualityFlag.Source.OUTLIER,
                kind=flag.kind,
                report=stored,
                annotator_id=users.get(flag.subject) if flag.subject_type == "annotator" else None,
                dialogue_id=dialogue_pks.get(flag.subject) if flag.subject_type == "item" else None,
                axis=flag.axis or "",
                statistic=flag.statistic,
                threshold=flag.threshold,
                message=flag.message,
                details=flag.details,
            )
            for flag in outliers
        ]
        for record, issue in consistency:
            dialogue_pk, annotator_pk = dialogue_pks[record.id], users[record.annotator_id]
            flags.append(
                QualityFlag(
                    source=QualityFlag.Source.CONSISTENCY,
                    kind=issue.rule_id,
                    report=stored,
                    annotator_id=annotator_pk,
                    dialogue_id=dialogue_pk,
                    annotation_id=annotation_pks.get((dialogue_pk, annotator_pk)),
                    axis=issue.axis or "",
                    message=issue.message,
                    details={**issue.details, "severity": issue.severity, "message_ja": issue.message_ja},
                )
            )
        _store_flags(flags, batch=batch)
    return stored


def _flag_key(flag: QualityFlag) -> tuple:
    return (flag.source, flag.kind, flag.annotator_id, flag.dialogue_id, flag.axis)


def _store_flags(flags: list[QualityFlag], *, batch: Batch | None) -> None:
    """Keep one flag per finding across recomputations of the same scope.

    A finding seen before keeps its review status and gets the new statistic; open flags whose
    finding is gone (the data changed) are removed, unless they were reviewed before (reopened); reviewed
    flags are kept as the record.
    """
    scope = QualityFlag.objects.filter(report__batch=batch) if batch else QualityFlag.objects.filter(report__batch=None)
    existing = {}
    for old in scope.order_by("created_at"):
        existing[_flag_key(old)] = old
    fresh, updated = [], []
    for flag in flags:
        old = existing.pop(_flag_key(flag), None)
        if old is None:
            fresh.append(flag)
            continue
        for name in ("report", "annotation_id", "statistic", "threshold", "message", "details"):
            setattr(old, name, getattr(flag, name))
        updated.append(old)
    QualityFlag.objects.bulk_create(fresh, batch_size=2_000)
    QualityFlag.objects.bulk_update(
        updated, ["report", "annotation_id", "statistic", "threshold", "message", "details"], batch_size=2_000
    )
    stale = [old.pk for old in existing.values() if old.status == QualityFlag.Status.OPEN]
    # A reopened flag has a review history: it stays as the record of those decisions.
    QualityFlag.objects.filter(pk__in=stale, reviews__isnull=True).delete()
