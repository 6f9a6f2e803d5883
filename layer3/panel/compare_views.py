"""The comparison page (issue 42): two runs of one batch, or two batches, side by side; and two trials side by side.

Researchers only. ``compare`` reads ``kind`` (runs | batches), ``run_a``/``run_b`` or ``batch_a``/``batch_b``
(database ids), ``batch`` (from a batch page: only that batch's runs are offered) and ``sort`` (the changed
trials: delta, metric, trial). A choice that names nothing is a 404; an incomplete choice shows the form.
``compare_trial`` shows trial A and trial B (their figures as the runs left them, or their latest) next to each
other, reusing the trial page's graph.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from core.permissions import researcher_required
from core.query_params import QueryParamError, whole_number
from layer3.compare.selectors import (
    ComparisonRefused,
    batches_comparison,
    finished_runs,
    runs_comparison,
    trial_version,
)
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.panel import reads
from layer3.panel.messages import statistics_reason_text
from layer3.panel.trial_graph import trial_graph
from layer3.statistics import LAYER3_METRICS
from layer3.statistics.trial_values import trial_judges, trial_values
from layer3.statistics.versions import CHANGED_SORTS

KINDS = ("runs", "batches")
TEST_NAMES = {
    "wilcoxon_signed_rank": gettext_lazy("Wilcoxon signed-rank"),
    "mcnemar_exact": gettext_lazy("McNemar (exact binomial)"),
    "mcnemar_chi2": gettext_lazy("McNemar (chi-square, continuity-corrected)"),
    "mann_whitney_u": gettext_lazy("Mann–Whitney U (unpaired)"),
    "two_proportion_z": gettext_lazy("Two-proportion z (unpaired)"),
}
VERSION_REASONS = {
    "no_pairs": gettext_lazy("no pair has this figure in both A and B"),
    "all_differences_zero": gettext_lazy("all %(n)s differences are zero: nothing changed"),
    "no_discordant_pairs": gettext_lazy("no item changed its outcome among %(n)s"),
    "different_judges": gettext_lazy(
        "A was judged by %(judgeA)s and B by %(judgeB)s; figures of different judges are not compared"
    ),
    "mixed_judges": gettext_lazy(
        "%(model)s was judged by several judges (%(judges)s); figures of different judges are not compared"
    ),
}
SORT_NAMES = {
    "delta": gettext_lazy("|Δ| (largest first)"),
    "metric": gettext_lazy("metric"),
    "trial": gettext_lazy("trial id"),
}
EXPORTS = (("csv", "CSV"), ("markdown", "Markdown"), ("latex", "LaTeX"))
UNMATCHED_REASONS = {
    "no_counterpart": gettext_lazy("no counterpart"),
    "duplicate_key": gettext_lazy("several trials share its input text and model config"),
}


def reason_text(row: dict) -> str:
    """Why a row was not tested, in the reader's language."""
    code = row.get("reasonCode")
    if code not in VERSION_REASONS:
        return statistics_reason_text(row)
    params = dict(row.get("reasonParams") or {})
    params = {key: ", ".join(map(str, value)) if isinstance(value, list) else value for key, value in params.items()}
    try:
        return str(VERSION_REASONS[code]) % params
    except (KeyError, TypeError, ValueError):
        return row.get("reason") or ""


def _id(request, name: str) -> int | None:
    try:
        return whole_number(request.GET, name, minimum=1)
    except QueryParamError:
        raise Http404(f"{name}: a database id") from None


def _choice(request, name: str, accepted, default: str) -> str:
    value = request.GET.get(name, default)
    if value not in accepted:
        raise Http404(f"{name}: accepted {', '.join(accepted)}")
    return value


def _run_label(run: Layer3Run) -> str:
    judge = (run.options or {}).get("judge") or "none"
    text = _("#%(id)s · %(batch)s · %(when)s · %(status)s · judge %(judge)s") % {
        "id": run.pk, "batch": run.batch.name, "when": f"{run.created_at:%Y-%m-%d %H:%M}",
        "status": run.get_status_display(), "judge": judge,
    }  # fmt: skip
    return text if run.has_snapshot else f"{text} ({_('no snapshot')})"


def _run_choices(batch: Batch | None) -> list[dict]:
    batches = [batch] if batch is not None else Batch.objects.order_by("name")
    choices = []
    for each in batches:
        runs = list(finished_runs(each).select_related("batch")[:50])
        if runs:
            choices.append({"batch": each, "runs": [{"pk": run.pk, "label": _run_label(run)} for run in runs]})
    return choices


def _present(document: dict) -> dict:
    for side in (document["a"], document["b"]):
        status = side.get("runStatus")
        side["statusText"] = Layer3Run.Status(status).label if status in Layer3Run.Status.values else status
    for row in document["rows"]:
        row["testName"] = TEST_NAMES.get(row["test"], row["test"])
        row["note"] = reason_text(row) if row["reason"] else ""
    for row in document["unmatched"]:
        row["reasonText"] = UNMATCHED_REASONS.get(row["reason"], row["reason"])
    return document


@researcher_required
@require_GET
def compare(request):
    kind = _choice(request, "kind", KINDS, "runs")
    sort = _choice(request, "sort", CHANGED_SORTS, "delta")
    batch_pk = _id(request, "batch")
    batch = get_object_or_404(Batch, pk=batch_pk) if batch_pk is not None else None
    chosen = {name: _id(request, name) for name in ("run_a", "run_b", "batch_a", "batch_b")}
    context = {
        "kind": kind, "sort": sort, "sorts": CHANGED_SORTS, "batch": batch, "chosen": chosen,
        "run_choices": (choices := _run_choices(batch)), "run_count": sum(len(g["runs"]) for g in choices),
        "batches": Batch.objects.order_by("name"), "export_formats": EXPORTS,
        "sort_links": [(key, SORT_NAMES[key]) for key in CHANGED_SORTS],
    }  # fmt: skip
    comparison = None
    try:
        if kind == "runs" and chosen["run_a"] and chosen["run_b"]:
            runs = Layer3Run.objects.select_related("batch")
            run_a = get_object_or_404(runs, pk=chosen["run_a"])
            run_b = get_object_or_404(runs, pk=chosen["run_b"])
            comparison = runs_comparison(run_a=run_a, run_b=run_b)
            query = {"kind": kind, "run_a": run_a.pk, "run_b": run_b.pk}
            context["api_url"] = f"/api/experiment/batch/{run_a.batch_id}/runs/{run_a.pk}/compare/{run_b.pk}"
        elif kind == "batches" and chosen["batch_a"] and chosen["batch_b"]:
            batch_a = get_object_or_404(Batch, pk=chosen["batch_a"])
            batch_b = get_object_or_404(Batch, pk=chosen["batch_b"])
            comparison = batches_comparison(batch_a=batch_a, batch_b=batch_b)
            query = {"kind": kind, "batch_a": batch_a.pk, "batch_b": batch_b.pk}
            context["api_url"] = f"/api/experiment/batch/{batch_a.pk}/compare-batch/{batch_b.pk}"
    except ComparisonRefused as exc:
        context["refused"] = _("Run %(b)s is of another batch than run %(a)s: compare runs of one batch.") % {
            "a": chosen["run_a"],
            "b": chosen["run_b"],
        }
        context["refused_field"] = exc.field
        return render(request, "layer3/panel/compare.html", context, status=400)
    if comparison is not None:
        document = _present(comparison.as_dict(sort=sort))
        runs = {"run_a": document["a"].get("runId"), "run_b": document["b"].get("runId")}
        context |= {
            "result": document,
            "query": urlencode(query),
            "trial_query": urlencode({k: v for k, v in runs.items() if v}),
        }
    return render(request, "layer3/panel/compare.html", context)


def _side(trial: TrialLog, run: Layer3Run | None, other_values: dict) -> dict:
    metrics, from_snapshot = trial_version(trial, run)
    values = trial_values(metrics)
    metrics = metrics or {}
    return {
        "trial": trial,
        "run": run,
        "from_snapshot": from_snapshot,
        "metrics": metrics,
        "figures": reads.trial_figures(metrics or None),
        "values": [
            {"metric": metric, "value": values[metric], "changed": values[metric] != other_values.get(metric)}
            for metric in LAYER3_METRICS
        ],
        "judges": trial_judges(metrics),
        "gv": metrics.get("generatedValueRelevance"),
        "w2wr": metrics.get("w2wrSemanticCorrectness"),
        "graph": trial_graph(trial.generated_data),
        "raw": reads.pretty_json(trial.generated_data),
    }


@researcher_required
@require_GET
def compare_trial(request, trial_a: int, trial_b: int):
    trials = TrialLog.objects.select_related("batch")
    a, b = get_object_or_404(trials, pk=trial_a), get_object_or_404(trials, pk=trial_b)
    run_ids = {name: _id(request, name) for name in ("run_a", "run_b")}
    runs = {}
    for name, trial in (("run_a", a), ("run_b", b)):
        pk = run_ids[name]
        runs[name] = get_object_or_404(Layer3Run, pk=pk, batch_id=trial.batch_id) if pk is not None else None
    values_a = trial_values(trial_version(a, runs["run_a"])[0])
    values_b = trial_values(trial_version(b, runs["run_b"])[0])
    context = {"sides": [("A", _side(a, runs["run_a"], values_b)), ("B", _side(b, runs["run_b"], values_a))]}
    return render(request, "layer3/panel/compare_trial.html", context)
