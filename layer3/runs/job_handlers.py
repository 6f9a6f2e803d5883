"""The Layer3 job kind, split into chunks that every Celery worker takes (``core.chunks``: progress, cancellation)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.chunks import ChunkWork, Summary, chunk_results, chunked, chunks_create, work_on
from core.job_display import register_job_display, register_job_messages
from core.jobs import JobCancelled, job_handler
from core.jsonl import gc_paused
from core.models import Job, JobChunk
from layer3.models import Layer3Run, TrialLog
from layer3.runs.options import TARGET_STAGE, EvaluationOptions
from layer3.runs.reads import without_details
from layer3.runs.services import (
    layer3_run_claim,
    layer3_run_complete,
    layer3_run_evaluate_part,
    layer3_run_finish,
    layer3_run_plan,
    store_chunk,
)

EVALUATE = "layer3.evaluate"


def _ended(job, reason: str) -> None:
    """A run whose job ended outside its handler (its worker died or lost the database, or it was cancelled before
    it started) ends with it, if it is still in flight."""
    run = Layer3Run.objects.select_related("batch").filter(pk=job.params.get("run_id")).first()
    if run is None or run.status not in Layer3Run.IN_FLIGHT:
        return
    if job.status == Job.Status.CANCELLED:
        layer3_run_finish(run, Layer3Run.Status.CANCELLED)
    else:
        layer3_run_finish(run, Layer3Run.Status.FAILED, error=reason)


@job_handler(
    EVALUATE,
    kept=gettext_lazy(
        "Trials evaluated in parts that were stored keep their metrics; start a new run to evaluate the rest "
        "(judge answers already paid for come from the cache)."
    ),
    on_ended=_ended,
)
def evaluate(job, progress):
    """Execute a queued Layer3 run; params ``{"run_id": int}``.

    This worker plans the run and splits its pending trials into chunks (``core.chunks``) that every
    worker takes, this one included; whoever stores the last chunk refreshes the batch figures and ends
    the run and the job.
    """
    run = _run(job.params.get("run_id"))
    run = layer3_run_claim(run)
    options = EvaluationOptions.from_request(run.options)
    try:
        pending = layer3_run_plan(run, options)
        progress(
            0, len(pending.trials), f"batch {run.batch.name}: {len(pending.trials)} trials to evaluate", force=True
        )
        if not pending.trials:
            layer3_run_complete(run)
            return _result(run)
        payloads = [
            {
                "run": run.pk,
                "judged": pending.uses_judge,
                "trials": [[pk, list(blocks), stored] for pk, blocks, stored in part],
            }
            for part in pending.parts()
        ]
        chunks_create(job, payloads)
    except JobCancelled:
        layer3_run_finish(run, Layer3Run.Status.CANCELLED)
        raise
    except Exception as exc:
        layer3_run_finish(run, Layer3Run.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    return work_on(job.pk)


def _run(run_id) -> Layer3Run:
    run = Layer3Run.objects.select_related("batch").filter(pk=run_id).first()
    if run is None:
        raise ValueError(f"params.run_id: no Layer3 run with id {run_id!r} (its batch deleted?)")
    return run


def _work(job, payload) -> ChunkWork:
    run = _run(payload["run"])
    options = EvaluationOptions.from_request(run.options)
    part = [(pk, tuple(blocks), stored) for pk, blocks, stored in payload["trials"]]
    outcome = layer3_run_evaluate_part(run, options, part, uses_judge=payload["judged"])
    summaries = None
    if payload.get("summaries"):
        configs = outcome.model_configs
        with gc_paused():
            summaries = {"summaries": [[configs[pk], without_details(metrics)] for pk, metrics in outcome.written]}
    return ChunkWork(
        store=lambda: store_chunk(run, outcome),
        items=outcome.evaluated + len(outcome.errors) + outcome.unjudged,
        message=f"trial {outcome.last_trial}" if outcome.last_trial else "",
        result=summaries,
    )


def _finish(job, summary: Summary) -> tuple[str, dict | None]:
    run = _run(job.params.get("run_id"))
    if summary.failed:
        layer3_run_finish(run, Layer3Run.Status.FAILED, error="; ".join(summary.errors))
        return Job.Status.FAILED, None
    if summary.cancelled:
        layer3_run_finish(run, Layer3Run.Status.CANCELLED)
        return Job.Status.CANCELLED, None
    return Job.Status.SUCCEEDED, _result(layer3_run_complete(run, summaries=_written(job, run)))


def _written(job, run: Layer3Run) -> list[tuple[str, dict]] | None:
    """What the chunks wrote, in id order, if they wrote every target trial of the batch (else None: read back)."""
    rows = chunk_results(job)
    if not rows or any(status != "done" or not result for status, _payload, result in rows):
        return None
    with gc_paused():
        written = [(config, summary) for _s, _p, result in rows for config, summary in result["summaries"]]
    JobChunk.objects.filter(job=job).update(result=None)  # done with: not kept with the job
    if len(written) != TrialLog.objects.filter(batch=run.batch, stage=TARGET_STAGE).count():
        return None
    return written


def _result(run: Layer3Run) -> dict:
    run.refresh_from_db()
    return {
        "run_id": run.pk,
        "batch": run.batch.name,
        "batch_id": run.batch_id,
        "status": run.status,
        "evaluated": run.evaluated_count,
        "skipped": run.skipped_count,
        "errors": run.error_count,
        "left_for_later": run.unjudged_count,
        "judge_failures": run.judge_failures,
    }


# No halt on a spent budget: the chunks left still get their automatic blocks (their judge calls are refused
# at once and the trials counted as left for later), as in a single-process run.
chunked(EVALUATE, work=_work, finish=_finish)


def _run_summary(result: dict) -> tuple[str, str | None]:
    text = _("Batch %(batch)s evaluated: %(evaluated)s trials, %(errors)s not evaluable, %(skipped)s skipped.") % {
        "batch": result["batch"], "evaluated": result["evaluated"], "errors": result["errors"],
        "skipped": result["skipped"]}  # fmt: skip
    if result.get("judge_failures"):
        text += " " + _("The judge gave no verdict for %(n)s items after the retries.") % {
            "n": result["judge_failures"]
        }
    url = reverse("layer3:batch", args=[result["batch_id"]]) if result.get("batch_id") else None
    return text, url


register_job_display(EVALUATE, gettext_lazy("Layer3 evaluation"), _run_summary)


register_job_messages(
    (r"batch (?P<batch>.+): (?P<n>\d+) trials to evaluate", gettext_lazy("Batch %(batch)s: %(n)s trials to evaluate.")),
    (r"trial (?P<trial>\S+)", gettext_lazy("Trial %(trial)s")),
)
