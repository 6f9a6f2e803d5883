"""What the Layer3 panel's pages show: batch rows, the batch page's cards and tables, trials (reads only)."""

from __future__ import annotations

import json

from django.db.models import Count, OuterRef, Q, Subquery
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy

from layer3.exports.calibration_files import batch_calibration
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.panel.calibration_card import calibration_cards
from layer3.panel.labels import MAGNITUDES, MAIN_COLUMNS, METRICS, format_value, result_value
from layer3.runs.options import TARGET_STAGE, EvaluationOptions
from layer3.selectors import results_document, run_target_counts
from llm import services as gateway

TRIALS_PER_PAGE = 50
# The audit scales' points (seed 002 §2.2.1 GV, §2.2.3 W2WR) as the calibration card names them.
SCALE_LABELS = {
    "not_relevant": gettext_lazy("Not relevant"),
    "generic": gettext_lazy("Generic"),
    "useful": gettext_lazy("Useful"),
    "wrong": gettext_lazy("Wrong"),
    "redundant": gettext_lazy("Redundant"),
    "correct": gettext_lazy("Correct"),
}


def latest_run(batch: Batch) -> Layer3Run | None:
    return Layer3Run.objects.filter(batch=batch).order_by("-created_at", "-pk").first()


def judge_name(options: dict | None) -> str:
    """The judge a run used, as the panel names it: ``baseline``, the LLM model, or "" without a judge."""
    if not options:
        return ""
    parsed = EvaluationOptions.from_request(options)
    if not parsed.uses_judge:
        return ""
    return (parsed.llm_model or "LLM") if parsed.judge == "llm" else "baseline"


def batch_rows() -> list[dict]:
    """Every batch with its trial, model-config and evaluation counts and its latest run."""
    batches = Batch.objects.order_by("-created_at", "name").annotate(
        n_trials=Count("trials"),
        n_targets=Count("trials", filter=Q(trials__stage=TARGET_STAGE)),
        n_evaluated=Count("trials", filter=Q(trials__stage=TARGET_STAGE, trials__layer3_metrics__isnull=False)),
        n_configs=Count("trials__model_config", distinct=True),
    )
    latest = Layer3Run.objects.filter(batch=OuterRef("pk")).order_by("-created_at", "-pk").values("pk")[:1]
    batches = list(batches.annotate(last_run_id=Subquery(latest)))
    runs = Layer3Run.objects.in_bulk([batch.last_run_id for batch in batches if batch.last_run_id])
    rows = []
    for batch in batches:
        run = runs.get(batch.last_run_id)
        rows.append({
            "batch": batch,
            "unevaluated": batch.n_targets - batch.n_evaluated,
            "run": run,
            "judge": judge_name(run.options) if run else "",
        })  # fmt: skip
    return rows


def config_counts(batch: Batch) -> list[dict]:
    """``[{name, trials, unevaluated}]`` of the batch's stage-3 trials per model config, by name."""
    rows = (
        TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE)
        .values("model_config")
        .annotate(trials=Count("pk"), unevaluated=Count("pk", filter=Q(layer3_metrics__isnull=True)))
        .order_by("model_config")
    )
    return [{"name": r["model_config"], "trials": r["trials"], "unevaluated": r["unevaluated"]} for r in rows]


def judge_models() -> list[str]:
    """Models an LLM judge may use: the configured one first, then the other priced ones; [] without an endpoint."""
    if not gateway.configured():
        return []
    from django.conf import settings

    models = [settings.LLM_MODEL] if settings.LLM_MODEL else []
    return models + sorted(name for name in gateway.prices() if name not in models)


def summary_cards(overall: dict | None) -> list[dict]:
    """The four cards of §8.1 with their sample sizes."""
    gv = (overall or {}).get("gvContentRelevance") or {}
    w2 = (overall or {}).get("w2wrSemanticCorrectness") or {}
    return [
        {"code": "GV_UR", "value": format_value("GV_UR", result_value(overall, "GV_UR")), "n": gv.get("sampleSize")},
        {"code": "W2WR_CR", "value": format_value("W2WR_CR", result_value(overall, "W2WR_CR")),
         "n": w2.get("sampleSize")},
        {"code": "WS_ENT", "value": format_value("WS_ENT", result_value(overall, "WS_ENT")), "n": None},
        {"code": "GC_DEN", "value": format_value("GC_DEN", result_value(overall, "GC_DEN")), "n": None},
    ]  # fmt: skip


def type_bars(overall: dict | None) -> dict | None:
    """Flow / meta / sync shares of all bindings (§8.1), or None before W2WR types were evaluated."""
    types = (overall or {}).get("w2wrTypeDistribution")
    if not types or not types.get("totalBindings"):
        return None
    bars = []
    for key in ("flow", "meta", "sync"):
        rate = types.get(f"{key}Rate") or 0.0
        bars.append({"type": key, "rate": rate, "percent": f"{100 * rate:.1f}", "width": round(100 * rate)})
    return {"bars": bars, "total": types["totalBindings"]}


def model_table(by_model: list[dict], *, every_metric: bool) -> dict:
    codes = tuple(METRICS) if every_metric else MAIN_COLUMNS
    rows = [
        {
            "config": entry["modelConfig"],
            "trials": entry.get("trialCount"),
            "errors": entry.get("errorCount") or 0,
            "cells": [format_value(code, result_value(entry.get("layer3"), code)) for code in codes],
        }
        for entry in by_model
    ]
    return {"columns": [METRICS[code] for code in codes], "rows": rows, "every_metric": every_metric}


def statistics_table(batch: Batch, *, metric: str, correction: str) -> dict:
    """The §8.1 statistics table for one metric: each pair's values, p, corrected p, mark, effect size."""
    stats = results_document(batch, correction=correction)["statistics"] or {}
    rows = []
    for c in stats.get("layer3Comparisons", ()):
        if c["metric"] != metric:
            continue
        effect = c.get("effectSize")
        rows.append({
            "pair": f"{c['modelA']} vs {c['modelB']}",
            "value_a": format_value(metric, c.get("valueA")),
            "value_b": format_value(metric, c.get("valueB")),
            "p": _p(c.get("pValue")),
            "adjusted": _p(c.get("adjustedPValue")),
            "mark": c.get("mark") or "",
            "significant": bool(c.get("significant")),
            "effect": "–" if effect is None else f"{effect:.2f}",
            "magnitude": MAGNITUDES.get(c.get("effectMagnitude") or "", ""),
            "effect_type": c.get("effectSizeType") or "",
            "reason": c.get("reason") or "",
            "n": (c.get("nA"), c.get("nB")),
        })  # fmt: skip
    return {"metric": METRICS[metric], "rows": rows, "summary": stats.get("summary"), "correction": correction}


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def trials_page(batch: Batch, *, model_config: str, only: str, page: int) -> dict:
    """A page of the batch's trials; ``only`` = "" | "errors" (not evaluable) | "unevaluated"."""
    trials = TrialLog.objects.filter(batch=batch)
    if model_config:
        trials = trials.filter(model_config=model_config)
    if only == "errors":
        trials = trials.filter(layer3_metrics__has_key="error")
    elif only == "unevaluated":
        trials = trials.filter(stage=TARGET_STAGE, layer3_metrics__isnull=True)
    count = trials.count()
    pages = max(1, -(-count // TRIALS_PER_PAGE))
    page = min(max(1, page), pages)
    rows = []
    fields = ("pk", "external_id", "model_config", "stage", "input_text", "layer3_metrics")
    for pk, external_id, config, stage, concern, metrics in trials.order_by("external_id").values_list(*fields)[
        (page - 1) * TRIALS_PER_PAGE : page * TRIALS_PER_PAGE
    ]:
        rows.append({"pk": pk, "id": external_id, "config": config, "stage": stage, "concern": concern,
                     **trial_figures(metrics)})  # fmt: skip
    return {"rows": rows, "count": count, "page": page, "pages": pages}


def trial_figures(metrics: dict | None) -> dict:
    """One trial's headline figures for a table row."""
    if metrics is None:
        return {"evaluated": False}
    if "error" in metrics:
        return {"evaluated": True, "error": metrics.get("error"), "error_path": metrics.get("path", "")}
    graph = metrics.get("graphComplexity") or {}
    gv = metrics.get("generatedValueRelevance") or {}
    w2 = metrics.get("w2wrSemanticCorrectness") or {}
    types = (metrics.get("w2wrTypeDistribution") or {}).get("distribution") or {}
    return {
        "evaluated": True,
        "nodes": graph.get("nodeCount"),
        "edges": graph.get("edgeCount"),
        "types": types,
        "gv_useful": format_value("GV_UR", gv.get("usefulRate")) if gv.get("evaluatedItems") else "–",
        "w2wr_correct": format_value("W2WR_CR", w2.get("correctnessRate")) if w2.get("evaluatedBindings") else "–",
        "judge_errors": len(gv.get("judgeErrors") or ()) + len(w2.get("judgeErrors") or ()),
    }


def run_counts(batch: Batch, options: EvaluationOptions) -> dict:
    """``{targets, skipped, pending}``: what a run with ``options`` would evaluate."""
    total, skipped = run_target_counts(batch, options)
    return {"targets": total, "skipped": skipped, "pending": total - skipped}


def pretty_json(value: object, limit: int = 200_000) -> str:
    """``value`` as indented JSON for reading, cut (and said so) beyond ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text if len(text) <= limit else text[:limit] + "\n…"


def calibration(batch: Batch) -> dict:
    """The judge-calibration cards (the newest audit of each kind) and the older audits, from annotation."""
    return calibration_cards(batch_calibration(batch), label_text=lambda code: str(SCALE_LABELS.get(code, code)))


def _url_or_none(name: str) -> str | None:
    try:
        return reverse(name)
    except NoReverseMatch:
        return None


def audit_create_url() -> str | None:
    """Where the "Create audit" form posts (annotation's view), or None while no installed app offers one."""
    return _url_or_none("annotation:audit-create")


def audit_list_url() -> str | None:
    """The researchers' list of every judge audit with its progress (annotation's page), if installed."""
    return _url_or_none("annotation:audit-list")
