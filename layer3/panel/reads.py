"""What the Layer3 panel's pages show: batch rows, the batch page's cards and tables, trials (reads only)."""

from __future__ import annotations

import json

from django.db.models import Count, OuterRef, Q, Subquery
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy

from layer3.exports.calibration_files import batch_calibration
from layer3.metrics.provenance import METRIC_JUDGE
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.panel.calibration_card import calibration_cards
from layer3.panel.labels import MAGNITUDES, MAIN_COLUMNS, METRICS, RESULT_PATHS, format_value, result_value
from layer3.panel.messages import statistics_reason_text, verdict_label_text
from layer3.runs.options import TARGET_STAGE
from layer3.selectors import results_document, widget_types_document
from layer3.statistics import DEFAULT_FAMILY
from llm import services as gateway

TRIALS_PER_PAGE = 50


def latest_run(batch: Batch) -> Layer3Run | None:
    return Layer3Run.objects.filter(batch=batch).order_by("-created_at", "-pk").first()


def batch_judges(overall: dict | None) -> list[str]:
    """The judge labels of a batch's judged figures (GV and W2WR semantic), sorted; [] when nothing was judged."""
    labels = set()
    for block in ("gvContentRelevance", "w2wrSemanticCorrectness"):
        labels.update(((overall or {}).get(block) or {}).get("judges") or ())
    return sorted(labels)


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
            "judges": batch_judges(batch.layer3_results),
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


FAMILY_CHOICES = (
    ("seed", gettext_lazy("Seed family (11 metrics × pairs)")),
    ("tests-run", gettext_lazy("Tests performed")),
)


def _judged_card(overall: dict | None, code: str, block_name: str) -> dict:
    block = (overall or {}).get(block_name) or {}
    judges = block.get("judges") or []
    return {
        "code": code,
        "value": format_value(code, result_value(overall, code)),
        "n": block.get("sampleSize"),
        "judge": block.get("judge"),
        "judges": judges,
        "mixed": len(judges) > 1,
        "by_judge": [
            {"judge": entry["judge"], "value": format_value(code, entry.get(RESULT_PATHS[code][1])),
             "n": entry.get("sampleSize")}
            for entry in block.get("byJudge") or ()
        ] if len(judges) > 1 else [],
    }  # fmt: skip


def summary_cards(overall: dict | None) -> list[dict]:
    """The four cards of §8.1 with their sample sizes, and for the judged ones who judged them."""
    return [
        _judged_card(overall, "GV_UR", "gvContentRelevance"),
        _judged_card(overall, "W2WR_CR", "w2wrSemanticCorrectness"),
        {"code": "WS_ENT", "value": format_value("WS_ENT", result_value(overall, "WS_ENT")), "n": None},
        {"code": "GC_DEN", "value": format_value("GC_DEN", result_value(overall, "GC_DEN")), "n": None},
    ]


def widget_types(batch: Batch) -> dict:
    """The batch's |W| (``available``), its catalogue's size and the types its trials use outside it, with counts."""
    document = widget_types_document(batch)
    return {
        "catalogue": document["catalogueSize"],
        "available": document["availableWidgetCount"],
        "outside": document["outOfCatalogue"],
    }


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
    """The per-model table; a judged cell of a config judged by several judges is marked, and ``judges``
    says per judged group which judge scored which configs (the footnote)."""
    codes = tuple(METRICS) if every_metric else MAIN_COLUMNS
    rows = []
    judges: dict[str, dict[str, list[str]]] = {"gv": {}, "w2wr": {}}
    for entry in by_model:
        layer3 = entry.get("layer3") or {}
        mixed = {}
        for key, block_name in (("gv", "gvContentRelevance"), ("w2wr", "w2wrSemanticCorrectness")):
            labels = (layer3.get(block_name) or {}).get("judges") or []
            mixed[key] = len(labels) > 1
            for label in labels:
                judges[key].setdefault(label, []).append(entry["modelConfig"])
        cells = []
        for code in codes:
            key = METRIC_JUDGE.get(code)
            cells.append({"text": format_value(code, result_value(layer3, code)), "mixed": bool(key and mixed[key])})
        rows.append({"config": entry["modelConfig"], "trials": entry.get("trialCount"),
                     "errors": entry.get("errorCount") or 0, "cells": cells})  # fmt: skip
    footnotes = [
        {"group": key, "judges": [{"label": label, "configs": configs} for label, configs in sorted(found.items())]}
        for key, found in judges.items()
        if found
    ]
    return {
        "columns": [METRICS[code] for code in codes],
        "rows": rows,
        "every_metric": every_metric,
        "judges": footnotes,
        "mixed": any(cell["mixed"] for row in rows for cell in row["cells"]),
    }


def statistics_table(batch: Batch, *, metric: str, correction: str, family: str | int = DEFAULT_FAMILY) -> dict:
    """The §8.1 statistics table for one metric: each pair's values, p, corrected p, mark, effect size, and for
    the proportion metrics the cluster-bootstrap interval of the difference beside the z-test's."""
    stats = results_document(batch, correction=correction, family=family)["statistics"] or {}
    rows = []
    proportion = METRICS[metric].kind == "rate"
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
            "reason": statistics_reason_text(c) if c.get("reason") else "",
            "n": (c.get("nA"), c.get("nB")),
            "judges": (c.get("judgeA"), c.get("judgeB")),
            "z_ci": _interval(c.get("zCi")),
            "bootstrap_ci": _interval(c.get("clusterBootstrapCi")),
            "design_effect": "–" if c.get("designEffect") is None else f"{c['designEffect']:.2f}",
            "difference": "–" if c.get("difference") is None else f"{100 * c['difference']:+.1f}",
        })  # fmt: skip
    summary = stats.get("summary") or {}
    judges = sorted({label for row in rows for label in row["judges"] if label})
    return {"metric": METRICS[metric], "rows": rows, "summary": summary, "correction": correction,
            "family": family, "proportion": proportion, "judges": judges}  # fmt: skip


def _interval(bounds) -> str:
    """A difference of rates as percentage points: ``[-3.1, +4.0]``; an en dash when undefined."""
    if not bounds or bounds[0] is None or bounds[1] is None:
        return "–"
    return f"[{100 * bounds[0]:+.1f}, {100 * bounds[1]:+.1f}]"


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


def pretty_json(value: object, limit: int = 200_000) -> str:
    """``value`` as indented JSON for reading, cut (and said so) beyond ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text if len(text) <= limit else text[:limit] + "\n…"


def calibration(batch: Batch) -> dict:
    """The judge-calibration cards (the newest audit of each kind) and the older audits, from annotation."""
    return calibration_cards(batch_calibration(batch), label_text=verdict_label_text)


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
