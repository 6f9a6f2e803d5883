"""The researchers' Layer3 panel (seed 002 §8): batch list, batch page with the run modal, trials, figures.

Researchers only. The run modal posts here; its progress follows the API's SSE stream
(``layer3-progress``), and downloads are the API's exports and the figures drawn here.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.http import Http404, HttpResponse, HttpResponseBadRequest, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import content_disposition_header
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.permissions import researcher_required
from core.query_params import QueryParamError, whole_number
from layer3.exports.calibration import CALIBRATION_FORMATS, FORMAT_NAMES
from layer3.exports.calibration_files import calibration_export
from layer3.exports.files import ExportError
from layer3.exports.formats import FORMATS as EXPORT_FORMATS
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.panel import reads
from layer3.panel.labels import METRICS
from layer3.panel.run_dialog import dialog_defaults, plan_notes, plan_rows
from layer3.panel.run_form import JUDGED_FIELDS, METRIC_FIELDS, RunFormError, judge_value, parse_run_form
from layer3.panel.trial_graph import trial_graph
from layer3.runs.options import TARGET_STAGE
from layer3.runs.plan import requested_blocks, run_judge_labels
from layer3.runs.services import (
    RunInFlight,
    layer3_run_cancel,
    layer3_run_create,
    run_cost_estimate,
    run_judges,
    run_plan,
    runs_in_flight,
)
from layer3.selectors import current_results, evaluation_summary, metrics_by_model
from layer3.statistics import CORRECTIONS, DEFAULT_FAMILY, parse_family

PAGE = "layer3/panel/batch.html"
PROBLEM_TEXT = {
    "no_metric": gettext_lazy("Tick at least one metric."),
    "unknown_judge": gettext_lazy("Unknown judge %(value)s; choose one of the list."),
    "unknown_config": gettext_lazy("Unknown model config %(value)s; the batch has %(accepted)s."),
    "no_config": gettext_lazy("Tick at least one model config."),
    "bad_budget": gettext_lazy("Enter the budget in yen as a number such as 500 (you entered %(value)s)."),
}

MAX_PAGE = 10**9  # a page number beyond any listing (a larger one would overflow the query's OFFSET)


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))
    return response


def _fragment(request) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def _choice(request, name: str, accepted, default: str) -> str:
    value = request.GET.get(name, default)
    if value not in accepted:
        raise Http404(f"{name}: accepted {', '.join(accepted)}")
    return value


@researcher_required
@require_GET
def batches(request):
    context = {"rows": reads.batch_rows(), "audit_list_url": reads.audit_list_url()}
    return render(request, "layer3/panel/batches.html", context)


def _family(request) -> str | int:
    try:
        return parse_family(request.GET.get("family", DEFAULT_FAMILY))
    except ValueError as exc:
        raise Http404(f"family: {exc}") from None


@researcher_required
@require_GET
def batch_page(request, pk: int):
    # matplotlib and scipy (~1.5 s) load with the first figure page, not with the URLconf (issue 31)
    from layer3.figures import fonts
    from layer3.figures.render import FORMATS

    batch = current_results(get_object_or_404(Batch, pk=pk))
    metric = _choice(request, "metric", METRICS, "GV_UR")
    correction = _choice(request, "correction", CORRECTIONS, "bonferroni")
    family = _family(request)
    every = request.GET.get("columns") == "all"
    context = {"batch": batch, "metric": metric, "correction": correction, "family": family}
    part = request.GET.get("part") if _fragment(request) else None
    if part == "statistics":
        context |= _statistics_context(batch, metric=metric, correction=correction, family=family)
        return _vary(render(request, f"{PAGE}#statistics", context))
    if part == "models":
        context["models"] = reads.model_table(batch.layer3_by_model or [], every_metric=every)
        return _vary(render(request, f"{PAGE}#models", context))
    context |= _results_context(batch, metric=metric, correction=correction, family=family, every=every)
    if part == "results":  # after a run: the cards and tables again
        return _vary(render(request, f"{PAGE}#results", context))
    run = reads.latest_run(batch)
    judge_models = reads.judge_models()
    context |= {
        "run": run,
        "run_in_flight": run if run is not None and runs_in_flight(batch).filter(pk=run.pk).exists() else None,
        "configs": reads.config_counts(batch),
        "judge_models": [{"value": judge_value(m), "name": m} for m in judge_models],
        "dialog": dialog_defaults(batch, judge_models),
        "metric_fields": METRIC_FIELDS,
        "judged_fields": JUDGED_FIELDS,
        "export_formats": EXPORT_FORMATS,
        "figure_formats": FORMATS,
        # Japanese figures need a CJK font; without one they are drawn in English, and the menu says so.
        "figures_fall_back_to_english": not (get_language() or "ja").startswith("en") and fonts.find_cjk_font() is None,
        "summary": evaluation_summary(batch),
        "widget_types": reads.widget_types(batch),
        "calibration": reads.calibration(batch),
        "calibration_formats": [{"fmt": fmt, "name": FORMAT_NAMES[fmt]} for fmt in CALIBRATION_FORMATS],
        "audit_create_url": reads.audit_create_url(),
        "audit_list_url": reads.audit_list_url(),
    }
    return _vary(render(request, PAGE, context))


def _statistics_context(batch: Batch, *, metric: str, correction: str, family: str | int) -> dict:
    try:
        statistics = reads.statistics_table(batch, metric=metric, correction=correction, family=family)
    except ValueError as exc:  # a family smaller than the tests performed
        raise Http404(f"family: {exc}") from None
    return {"statistics": statistics, "metric_choices": METRICS.values(), "family_choices": reads.FAMILY_CHOICES}


def _results_context(batch: Batch, *, metric: str, correction: str, family: str | int, every: bool) -> dict:
    overall = batch.layer3_results
    return {
        "cards": reads.summary_cards(overall),
        "types": reads.type_bars(overall),
        "models": reads.model_table(batch.layer3_by_model or [], every_metric=every),
        "corrections": CORRECTIONS,
        **_statistics_context(batch, metric=metric, correction=correction, family=family),
    }


def _options(request, batch: Batch, data: QueryDict):
    configs = [row["name"] for row in reads.config_counts(batch)]
    return parse_run_form(dict(data.lists()), model_configs=configs, llm_models=reads.judge_models())


def _problems(error: RunFormError) -> dict[str, str]:
    return {field: PROBLEM_TEXT[code] % values for field, (code, values) in error.problems.items()}


@researcher_required
@require_GET
def run_estimate(request, pk: int):
    """The modal's cost line for the options as they are ticked now (the gateway's estimate, in JPY)."""
    batch = get_object_or_404(Batch, pk=pk)
    try:
        options = _options(request, batch, request.GET)
    except RunFormError as exc:
        return render(request, f"{PAGE}#estimate", {"problems": _problems(exc)})
    plan = run_plan(batch=batch, options=options)
    estimate = run_cost_estimate(batch=batch, options=options)
    asked = requested_blocks(options)
    labels = {block: label for block, label in run_judge_labels(run_judges(options)).items() if block in asked}
    context = {
        "options": options,
        "estimate": estimate,
        "counts": {"targets": plan.trials + plan.skipped, "skipped": plan.skipped, "pending": plan.trials},
        "plan_rows": plan_rows(plan),
        "notes": plan_notes(plan, options, labels),
        "judges": labels,
    }
    return render(request, f"{PAGE}#estimate", context)


@researcher_required
@require_POST
def run_start(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    try:
        options = _options(request, batch, request.POST)
        run = layer3_run_create(batch=batch, options=options, user=request.user, enqueue=True)
    except RunFormError as exc:
        return _run_refused(request, _problems(exc))
    except ValueError as exc:  # an LLM judge without an endpoint or model
        return _run_refused(request, {"judge": str(exc)})
    except RunInFlight as exc:
        run = exc.run
        note = _("A run of this batch is already in progress; showing it.")
        return _run_started(request, batch, run, note)
    return _run_started(request, batch, run, "")


def _run_refused(request, problems: dict[str, str]):
    if request.htmx:
        response = render(request, f"{PAGE}#run-problems", {"problems": problems})
        response["HX-Retarget"] = "#run-problems"
        return response
    return HttpResponseBadRequest("; ".join(f"{k}: {v}" for k, v in problems.items()))


def _run_started(request, batch: Batch, run: Layer3Run, note: str):
    if request.htmx:
        return render(request, f"{PAGE}#run-progress", {"batch": batch, "run_in_flight": run, "note": note})
    return redirect(reverse("layer3:batch", args=[batch.pk]))


@researcher_required
@require_POST
def run_cancel(request, pk: int, run_pk: int):
    run = get_object_or_404(Layer3Run, pk=run_pk, batch_id=pk)
    if run.status in Layer3Run.IN_FLIGHT:
        layer3_run_cancel(run=run)
    if request.htmx:
        return HttpResponse(_("Cancellation requested: the run stops after the chunk it is evaluating."))
    return redirect(reverse("layer3:batch", args=[pk]))


@researcher_required
@require_GET
def trials(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    configs = [row["name"] for row in reads.config_counts(batch)]
    model_config = request.GET.get("model", "")
    if model_config and model_config not in configs:
        raise Http404(f"model config {model_config!r} is not in this batch")
    only = _choice(request, "only", ("", "errors", "unevaluated"), "")
    try:
        page = whole_number(request.GET, "page", default=1, minimum=1, maximum=MAX_PAGE)
    except QueryParamError:
        raise Http404("page: a whole number") from None
    listing = reads.trials_page(batch, model_config=model_config, only=only, page=page)
    query = {"model": model_config, "only": only}
    context = {"batch": batch, "configs": configs, "model_config": model_config, "only": only, **listing,
               "query": urlencode({k: v for k, v in query.items() if v})}  # fmt: skip
    return render(request, "layer3/panel/trials.html", context)


@researcher_required
@require_GET
def trial(request, pk: int, trial_pk: int):
    trial = get_object_or_404(TrialLog.objects.select_related("batch"), pk=trial_pk, batch_id=pk)
    metrics = trial.layer3_metrics or {}
    context = {
        "batch": trial.batch,
        "trial": trial,
        "graph": trial_graph(trial.generated_data),
        "metrics": metrics,
        "figures": reads.trial_figures(trial.layer3_metrics),
        "gv": metrics.get("generatedValueRelevance"),
        "w2wr": metrics.get("w2wrSemanticCorrectness"),
        "types": metrics.get("w2wrTypeDistribution"),
        "diversity": metrics.get("widgetDiversity"),
        "complexity": metrics.get("graphComplexity"),
        "target": trial.stage == TARGET_STAGE,
        "raw": reads.pretty_json(trial.generated_data),
    }
    return render(request, "layer3/panel/trial.html", context)


@researcher_required
@require_GET
def figure(request, pk: int, name: str, fmt: str):
    """A figure for papers (model comparison with 95% CIs, or the W2WR type distribution) as a download."""
    from layer3.figures.render import FIGURES, FORMATS, render_figure

    batch = get_object_or_404(Batch, pk=pk)
    if name not in FIGURES or fmt not in FORMATS:
        raise Http404(f"figures: {', '.join(FIGURES)}; formats: {', '.join(FORMATS)}")
    metric = _choice(request, "metric", METRICS, "GV_UR")
    language = _choice(request, "lang", ("ja", "en"), "en" if (get_language() or "ja").startswith("en") else "ja")
    grouped = metrics_by_model(batch)
    if not grouped:
        raise Http404("this batch has no evaluated trials yet")
    body = render_figure(name, grouped, fmt=fmt, metric=metric, language=language, batch_label=batch.name)
    types = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}
    response = HttpResponse(body, content_type=types[fmt])
    suffix = f"-{metric}" if name == "model-comparison" else ""
    filename = re.sub(r"[^\w.-]", "_", f"{batch.name}-{name}{suffix}-{language}") + f".{fmt}"
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


@researcher_required
@require_GET
def calibration_download(request, pk: int, audit_id: int, fmt: str):
    """A judge audit's calibration report (issue 18) as JSON, Markdown or LaTeX, beside the Layer3 exports."""
    batch = get_object_or_404(Batch, pk=pk)
    if fmt not in CALIBRATION_FORMATS:
        raise Http404(f"formats: {', '.join(CALIBRATION_FORMATS)}")
    try:
        export = calibration_export(batch, fmt=fmt, audit_id=audit_id)
    except ExportError as exc:
        raise Http404(str(exc)) from None
    response = HttpResponse("".join(export.chunks), content_type=export.media_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=export.filename)
    return response
