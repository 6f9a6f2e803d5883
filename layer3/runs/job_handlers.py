"""The Layer3 job kind, run by a Celery worker through the core job system (progress, cancellation)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.job_display import register_job_display
from core.jobs import job_handler
from layer3.models import Layer3Run
from layer3.runs.services import RunObserver, layer3_run_execute

EVALUATE = "layer3.evaluate"


class JobProgress(RunObserver):
    """Reports each stored chunk to the job row (the progress bar, cancellation at the next chunk)."""

    def __init__(self, progress) -> None:
        self.progress = progress
        self.pending = 0
        self.done = 0

    def started(self, run, *, pending, not_targets, plan=None):
        self.pending = pending
        self.progress(0, pending, f"batch {run.batch.name}: {pending} trials to evaluate", force=True)

    def chunk(self, run, outcome):
        self.done += outcome.evaluated + len(outcome.errors) + outcome.unjudged
        self.progress(self.done, self.pending, f"trial {outcome.last_trial}" if outcome.last_trial else "")


@job_handler(EVALUATE)
def evaluate(job, progress) -> dict:
    """Execute a queued Layer3 run; params ``{"run_id": int}``."""
    run_id = job.params.get("run_id")
    run = Layer3Run.objects.select_related("batch").filter(pk=run_id).first()
    if run is None:
        raise ValueError(f"params.run_id: no Layer3 run with id {run_id!r} (its batch deleted?)")
    run = layer3_run_execute(run=run, observer=JobProgress(progress))
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
