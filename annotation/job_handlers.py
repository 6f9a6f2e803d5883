"""Job kinds of the annotation app, run by a Celery worker through the core job system."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.aggregation.agreement import CI_METHODS
from annotation.aggregation.reports import N_BOOT, SEED
from annotation.models import Batch
from annotation.services import agreement_report_create
from core.chunks import ChunkWork, Summary, chunk_results, chunked, chunks_create, work_on
from core.job_display import register_job_display, register_job_messages
from core.jobs import job_handler
from core.models import Job
from llm import budgets

AGREEMENT_REPORT = "annotation.agreement_report"
LLM_RATE = "annotation.llm_rate"
MAX_N_BOOT = 10_000


@job_handler(AGREEMENT_REPORT, kept=gettext_lazy("No report was stored; the batch's earlier reports are unchanged."))
def agreement_report(job, progress) -> dict:
    """Recompute and store the agreement report of one batch; params ``{"batch_id": int, "n_boot": int}``,
    optionally ``"ci_method"`` ("percentile" or "bca"; unset keeps the method of the batch's latest report) and
    ``"trigger"`` (kept in the report's parameters)."""
    batch_id = job.params.get("batch_id")
    n_boot = int(job.params.get("n_boot", N_BOOT))
    if not 0 <= n_boot <= MAX_N_BOOT:
        raise ValueError(f"params.n_boot must be from 0 to {MAX_N_BOOT}; got {n_boot}")
    ci_method = job.params.get("ci_method")
    if ci_method not in (None, *CI_METHODS):
        raise ValueError(f"params.ci_method must be one of {CI_METHODS}; got {ci_method!r}")
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {batch_id!r} (deleted?)")
    progress(0, 1, f"computing agreement of batch {batch.name} ({n_boot} bootstrap replicates)", force=True)
    trigger = job.params.get("trigger")  # e.g. "flag review": a decision queued it
    report = agreement_report_create(
        batch=batch, user=job.created_by, n_boot=n_boot, seed=SEED, ci_method=ci_method, trigger=trigger
    )
    progress(1, 1, f"stored agreement report {report.pk}")
    return {"report_id": report.pk, "batch_id": batch.pk, "passed": report.passed}


def _report_summary(result: dict) -> tuple[str, str | None]:
    verdict = _("passed") if result["passed"] else _("not passed")
    text = _("Agreement report #%(id)s saved (%(verdict)s).") % {"id": result["report_id"], "verdict": verdict}
    return text, f"{reverse('annotation:dashboard')}?{urlencode({'batch': result['batch_id']})}"


register_job_display(AGREEMENT_REPORT, gettext_lazy("Agreement report"), _report_summary)


@job_handler(
    LLM_RATE,
    kept=gettext_lazy(
        "Dialogues rated in parts that were stored keep their LLM ratings (and their cost in the ledger); run "
        "the rater again to rate the rest: answers already paid for come from the cache."
    ),
)
def llm_rate_batch(job, progress):
    """Rate one batch with an LLM rater (``annotation.llm_rater``); params ``{"batch_id": int, "model": str,
    "budget": number or null, "currency": "JPY" | "USD", "force": bool}``. Offline the job fails saying why.

    The dialogues to rate are split into chunks (``core.chunks``) that every worker takes, under one
    budget for the job (``llm.budgets``); whoever stores the last chunk adds up the summary.
    """
    # the LLM gateway (openai, scikit-learn through llm.baseline): where a batch is rated, not at start-up (issue 31)
    from annotation.llm_rater import llm_rate_start
    from llm.services import Budget

    params = job.params
    batch = Batch.objects.filter(pk=params.get("batch_id")).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {params.get('batch_id')!r} (deleted?)")
    amount = params.get("budget")
    budget = None if amount is None else Budget(float(amount), str(params.get("currency", "JPY")).upper())
    progress(0, None, f"batch {batch.name}: rating with {params.get('model') or 'the default model'}", force=True)
    _account, dialogues, summary = llm_rate_start(batch=batch, model=params.get("model") or None, force=_force(job))
    progress(0, len(dialogues), f"batch {batch.name}: {len(dialogues)} dialogues to rate", force=True)
    if not dialogues:
        return {**summary.as_dict(), "batch_id": batch.pk}
    if budget is not None:
        budgets.shared_budget(_budget_key(job), budget.amount, budget.currency)
    size = settings.LLM_RATE_CHUNK_SIZE
    start = summary.as_dict()
    payloads = [
        {
            "model": summary.model,
            "dialogues": [d.pk for d in dialogues[at : at + size]],
            "start": start if at == 0 else None,
        }
        for at in range(0, len(dialogues), size)
    ]
    chunks_create(job, payloads)
    return work_on(job.pk)


def _force(job) -> bool:
    return bool(job.params.get("force"))


def _budget_key(job) -> str:
    return f"annotation.llm_rate:{job.pk}"


def _rate_chunk(job, payload) -> ChunkWork:
    from annotation.llm_rater import RateSummary, llm_rate_part, llm_rater_account, to_rate_by_pk
    from llm.services import Budget

    params = job.params
    account = llm_rater_account(model=payload["model"])
    dialogues = to_rate_by_pk(payload["dialogues"])
    budget = None
    if params.get("budget") is not None:
        currency = str(params.get("currency", "JPY")).upper()
        budget = Budget(float(params["budget"]), currency, ledger=_budget_key(job))
    part = RateSummary(batch="", model=payload["model"], prompt="", rater="", username="", guidelines="")
    store = llm_rate_part(part, account, dialogues, budget=budget, force=_force(job), user=job.created_by)
    result: dict = {}

    def store_and_count() -> None:
        store()
        result.update(part.as_dict())

    return ChunkWork(store=store_and_count, items=len(dialogues), result=result,
                     message=f"{len(dialogues)} dialogues rated by the LLM")  # fmt: skip


_ADDED = ("rated", "updated", "unchanged", "skipped", "already_rated", "cached", "cost_usd", "cost_jpy")


def _rate_finish(job, summary: Summary) -> tuple[str, dict | None]:
    if summary.failed:
        return Job.Status.FAILED, None
    if summary.cancelled:
        return Job.Status.CANCELLED, None
    rows = chunk_results(job)
    total = dict(rows[0][1]["start"])
    for status, payload, result in rows:
        if status != "done":  # left by a spent budget: not asked
            total["skipped"] += len(payload["dialogues"])
            continue
        for name in _ADDED:
            total[name] += result[name]
        total["failed"] += result["failed"]
        total["run_id"] = total["run_id"] or result["run_id"]
    total["stopped_by_budget"] = budgets.exhausted(_budget_key(job))
    return Job.Status.SUCCEEDED, {**total, "batch_id": job.params.get("batch_id")}


def _rate_halted(job) -> bool:
    return budgets.exhausted(_budget_key(job))


chunked(LLM_RATE, work=_rate_chunk, finish=_rate_finish, halted=_rate_halted)


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


register_job_messages(
    (
        r"computing agreement of batch (?P<batch>.+) \((?P<n>\d+) bootstrap replicates\)",
        gettext_lazy("Computing the agreement of batch %(batch)s (%(n)s bootstrap replicates)…"),
    ),
    (r"stored agreement report (?P<id>\d+)", gettext_lazy("Stored agreement report #%(id)s.")),
    (
        r"batch (?P<batch>.+): rating with the default model",
        gettext_lazy("Batch %(batch)s: rating with the default model…"),
    ),
    (r"batch (?P<batch>.+): rating with (?P<model>.+)", gettext_lazy("Batch %(batch)s: rating with %(model)s…")),
    (r"batch (?P<batch>.+): (?P<n>\d+) dialogues to rate", gettext_lazy("Batch %(batch)s: %(n)s dialogues to rate.")),
    (r"(?P<n>\d+) dialogues rated by the LLM", gettext_lazy("%(n)s dialogues rated by the LLM.")),
)
