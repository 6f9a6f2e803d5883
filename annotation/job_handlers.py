"""Job kinds of the annotation app, run by a Celery worker through the core job system."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.aggregation.reports import N_BOOT, SEED
from annotation.llm_rater import llm_rate
from annotation.models import Batch
from annotation.services import agreement_report_create
from core.job_display import register_job_display
from core.jobs import job_handler
from llm.services import Budget

AGREEMENT_REPORT = "annotation.agreement_report"
LLM_RATE = "annotation.llm_rate"
MAX_N_BOOT = 10_000


@job_handler(AGREEMENT_REPORT)
def agreement_report(job, progress) -> dict:
    """Recompute and store the agreement report of one batch; params ``{"batch_id": int, "n_boot": int}``."""
    batch_id = job.params.get("batch_id")
    n_boot = int(job.params.get("n_boot", N_BOOT))
    if not 0 <= n_boot <= MAX_N_BOOT:
        raise ValueError(f"params.n_boot must be from 0 to {MAX_N_BOOT}; got {n_boot}")
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {batch_id!r} (deleted?)")
    progress(0, 1, f"computing agreement of batch {batch.name} ({n_boot} bootstrap replicates)", force=True)
    report = agreement_report_create(batch=batch, user=job.created_by, n_boot=n_boot, seed=SEED)
    progress(1, 1, f"stored agreement report {report.pk}")
    return {"report_id": report.pk, "batch_id": batch.pk, "passed": report.passed}


def _report_summary(result: dict) -> tuple[str, str | None]:
    verdict = _("passed") if result["passed"] else _("not passed")
    text = _("Agreement report #%(id)s saved (%(verdict)s).") % {"id": result["report_id"], "verdict": verdict}
    return text, f"{reverse('annotation:dashboard')}?{urlencode({'batch': result['batch_id']})}"


register_job_display(AGREEMENT_REPORT, gettext_lazy("Agreement report"), _report_summary)


@job_handler(LLM_RATE)
def llm_rate_batch(job, progress) -> dict:
    """Rate one batch with an LLM rater (``annotation.llm_rater``); params ``{"batch_id": int, "model": str,
    "budget": number or null, "currency": "JPY" | "USD", "force": bool}``. Offline the job fails saying why."""
    params = job.params
    batch = Batch.objects.filter(pk=params.get("batch_id")).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {params.get('batch_id')!r} (deleted?)")
    amount = params.get("budget")
    budget = None if amount is None else Budget(float(amount), str(params.get("currency", "JPY")).upper())

    def report(done: int, total: int) -> None:
        progress(done, total, f"batch {batch.name}: {done} of {total} dialogues rated by the LLM")

    progress(0, None, f"batch {batch.name}: rating with {params.get('model') or 'the default model'}", force=True)
    summary = llm_rate(
        batch=batch, model=params.get("model") or None, budget=budget, progress=report,
        force=bool(params.get("force")), user=job.created_by,
    )  # fmt: skip
    return {**summary.as_dict(), "batch_id": batch.pk}


def _llm_rate_summary(result: dict) -> tuple[str, str | None]:
    text = _(
        "%(rater)s rated batch %(batch)s: %(rated)s new, %(updated)s changed, %(failed)s failed, "
        "%(skipped)s left out by the budget."
    ) % {
        "rater": result["rater"], "batch": result["batch"], "rated": result["rated"], "updated": result["updated"],
        "failed": len(result["failed"]), "skipped": result["skipped"],
    }  # fmt: skip
    return text, f"{reverse('annotation:dashboard')}?{urlencode({'batch': result['batch_id']})}"


register_job_display(LLM_RATE, gettext_lazy("LLM rating"), _llm_rate_summary)
