"""Reads for the Layer3 app: finding a batch by its id (or name), and its results document."""

from __future__ import annotations

from collections.abc import Iterator

from core.query_params import parse_id
from layer3.metrics.batch import RESULTS_VERSION
from layer3.metrics.jscompat import js_iso_timestamp
from layer3.models import Batch, TrialLog
from layer3.runs.options import TARGET_STAGE
from layer3.runs.reads import metric_summaries
from layer3.statistics import DEFAULT_FAMILY, compare_model_configs

DEFAULT_CORRECTION = "bonferroni"


class BatchNotFound(LookupError):
    pass


def batch_get(identifier: str | int) -> Batch:
    """The batch whose id is ``identifier`` (all digits), else the batch of that name.

    Unambiguous by construction: a batch name may not be all digits (``check_batch_name`` refuses it
    at import), so ``"2"`` is always the batch with id 2, never a batch named "2".
    ``BatchNotFound`` says what was looked for and names some batches.
    """
    text = str(identifier).strip()
    if text.isascii() and text.isdigit():
        number = parse_id(text)
        batch = Batch.objects.filter(pk=number).first() if number is not None else None
        what = f"no batch with id {text}"
    else:
        batch = Batch.objects.filter(name=text).first()
        what = f"no batch named {text!r}"
    if batch is None:
        known = [f"{name} (id {pk})" for pk, name in Batch.objects.order_by("name").values_list("pk", "name")[:10]]
        hint = f"; batches: {', '.join(known)}" if known else "; there are no batches yet (manage.py import_trials)"
        raise BatchNotFound(f"{what}{hint}")
    return batch


def current_results(batch: Batch) -> Batch:
    """``batch`` with figures of the current definitions: figures an older release stored are recomputed once."""
    if batch.results_version < RESULTS_VERSION and batch.layer3_results is not None:
        from layer3.runs.services import batch_results_refresh

        batch_results_refresh(batch=batch)
    return batch


def results_document(
    batch: Batch,
    *,
    model_config: str | None = None,
    correction: str = DEFAULT_CORRECTION,
    family: str | int = DEFAULT_FAMILY,
) -> dict:
    """``{"batchId", "batchName", "experimentId", "evaluatedAt", "overall", "byModel", "statistics", "widgetTypes"}``.

    ``widgetTypes`` is the batch's widget denominator (``widget_types_document``).

    The stored figures (Bonferroni over the seed's family) are served as they are; another correction
    or family, or one model config, is computed from the stored trials (no metric is computed again,
    only the tests).
    """
    batch = current_results(batch)
    by_model = batch.layer3_by_model or []
    overall = batch.layer3_results
    statistics = batch.layer3_statistics
    if model_config is not None:
        by_model = [entry for entry in by_model if entry["modelConfig"] == model_config]
        overall = by_model[0]["layer3"] if by_model else None
        statistics = compare_model_configs({}, correction=correction, family=family)  # one model config: no pairs
    elif (correction, family) != (DEFAULT_CORRECTION, DEFAULT_FAMILY) or statistics is None:
        statistics = compare_model_configs(metrics_by_model(batch), correction=correction, family=family)
    return {
        "batchId": str(batch.pk),
        "batchName": batch.name,
        "experimentId": batch.experiment_id,
        "evaluatedAt": js_iso_timestamp(batch.layer3_evaluated_at) if batch.layer3_evaluated_at else None,
        "overall": overall,
        "byModel": by_model,
        "statistics": statistics,
        "widgetTypes": widget_types_document(batch),
    }


def widget_types_document(batch: Batch) -> dict:
    """The batch's widget denominator: ``{"catalogueSize", "availableWidgetCount", "outOfCatalogue"}``.

    ``availableWidgetCount`` is the batch's one ``|W|`` (its catalogue and every type its trials use
    outside it, ``layer3.metrics.widget_types``); ``outOfCatalogue`` lists those types as
    ``{"type", "trials", "widgets"}`` (trials of any stage that use it, and its widgets), sorted by type.
    """
    from layer3.runs.services import batch_catalogue, batch_widget_types

    return {
        "catalogueSize": len(batch_catalogue(batch)),
        "availableWidgetCount": len(batch_widget_types(batch)),
        "outOfCatalogue": [dict(entry) for entry in batch.widget_types_seen],
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
    """``(totalTargets, skippedCount)`` a run with ``options`` would have: targets, and those with nothing to do."""
    from layer3.runs.services import run_plan

    plan = run_plan(batch=batch, options=options)
    return plan.trials + plan.skipped, plan.skipped


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
