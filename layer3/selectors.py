"""Reads for the Layer3 app: finding a batch as users name it, and its results document."""

from __future__ import annotations

from collections.abc import Iterator

from layer3.metrics.jscompat import js_iso_timestamp
from layer3.models import Batch, TrialLog
from layer3.runs.options import TARGET_STAGE
from layer3.runs.reads import metric_summaries
from layer3.statistics import compare_model_configs


class BatchNotFound(LookupError):
    pass


def batch_get(identifier: str | int) -> Batch:
    """The batch named ``identifier``, else the batch with that id; ``BatchNotFound`` names both tries."""
    text = str(identifier).strip()
    batch = Batch.objects.filter(name=text).first()
    if batch is None and text.isdigit():
        batch = Batch.objects.filter(pk=int(text)).first()
    if batch is None:
        known = list(Batch.objects.order_by("name").values_list("name", flat=True)[:10])
        hint = f"; batches: {', '.join(known)}" if known else "; there are no batches yet (manage.py import_trials)"
        raise BatchNotFound(f"no batch named {text!r} and no batch with that id{hint}")
    return batch


def results_document(batch: Batch, *, model_config: str | None = None, correction: str = "bonferroni") -> dict:
    """``{"batchId", "experimentId", "evaluatedAt", "overall", "byModel", "statistics"}`` of the export and API.

    The stored figures (Bonferroni) are served as they are; another correction, or one model
    config, is computed from the stored trials (no metric is computed again, only the tests).
    """
    by_model = batch.layer3_by_model or []
    overall = batch.layer3_results
    statistics = batch.layer3_statistics
    if model_config is not None:
        by_model = [entry for entry in by_model if entry["modelConfig"] == model_config]
        overall = by_model[0]["layer3"] if by_model else None
        statistics = compare_model_configs({}, correction=correction)  # one model config: no pairs
    elif correction != "bonferroni" or statistics is None:
        statistics = compare_model_configs(metrics_by_model(batch), correction=correction)
    return {
        "batchId": batch.name,
        "experimentId": batch.experiment_id,
        "evaluatedAt": js_iso_timestamp(batch.layer3_evaluated_at) if batch.layer3_evaluated_at else None,
        "overall": overall,
        "byModel": by_model,
        "statistics": statistics,
    }


def metrics_by_model(batch: Batch) -> dict[str, list[dict]]:
    """The stored metrics (without per-item lists) of the batch's evaluated targets, per model config;
    trials whose data could not be evaluated are left out. What the statistics and the figures take."""
    grouped: dict[str, list[dict]] = {}
    trials = TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE, layer3_metrics__isnull=False)
    for model_config, metrics in metric_summaries(trials):
        if "error" not in metrics:
            grouped.setdefault(model_config, []).append(metrics)
    return grouped


def trials_for_export(batch: Batch, *, model_config: str | None = None) -> Iterator[dict]:
    """``{"id", "modelConfig", "layer3Metrics"}`` of every trial of the batch, streamed in id order."""
    trials = TrialLog.objects.filter(batch=batch)
    if model_config is not None:
        trials = trials.filter(model_config=model_config)
    rows = trials.order_by("external_id").values_list("external_id", "model_config", "layer3_metrics")
    for external_id, config, metrics in rows.iterator(chunk_size=2000):
        yield {"id": external_id, "modelConfig": config, "layer3Metrics": metrics}


def run_target_counts(batch: Batch, options) -> tuple[int, int]:
    """``(totalTargets, skippedCount)`` a run with ``options`` would have: targets, and those it would skip."""
    from layer3.runs.services import targets

    all_targets = targets(batch, options)
    total = all_targets.count()
    skipped = 0 if options.force else all_targets.filter(layer3_metrics__isnull=False).count()
    return total, skipped


def evaluation_summary(batch: Batch) -> dict:
    """The seed's ``summary``: evaluated and unevaluated targets, and the mean evaluation time per trial."""
    from layer3.models import Layer3Run

    trials = TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE)
    evaluated = trials.filter(layer3_metrics__isnull=False).count()
    runs = Layer3Run.objects.filter(batch=batch, elapsed_ms__isnull=False).exclude(status=Layer3Run.Status.FAILED)
    done = sum(run.evaluated_count + run.error_count for run in runs)
    spent = sum(run.elapsed_ms for run in runs if run.evaluated_count + run.error_count)
    return {
        "totalEvaluated": evaluated,
        "totalUnevaluated": trials.count() - evaluated,
        "avgEvaluationTimeMs": spent / done if done else None,
    }
