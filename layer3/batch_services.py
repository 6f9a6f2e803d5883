"""Renaming and deleting a Layer3 batch (the batch page's "Rename" and "Delete").

Both lock the batch row as a run's start does (``layer3.runs.services.layer3_run_create``), so neither
happens while a run of the batch is queued or running, and no run starts while they happen. The LLM
cost ledger (``llm``: runs and calls) has no key to a batch: deleting one leaves every row of it.
Judge audits (annotation) name their batch: a batch they were drawn from keeps its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q

from core.judge_audits import calibration_reports
from core.models import Job
from core.validators import BatchNameValidator
from layer3.io.uploads import TRIALS_UPLOAD
from layer3.models import Batch, Layer3Run, Layer3RunProblem, TrialLog
from layer3.runs.services import runs_in_flight

# The metric blocks an LLM (or the baseline) judge fills: a trial holding either has judged results.
JUDGED_BLOCKS = ("generatedValueRelevance", "w2wrSemanticCorrectness")


class BatchBusy(Exception):
    """A run of the batch, or an upload into it, is queued or running: ``run`` or ``job`` is the one found."""

    def __init__(self, run: Layer3Run | None = None, *, job: Job | None = None) -> None:
        self.run, self.job = run, job
        if run is not None:
            super().__init__(f"run {run.pk} of this batch is {run.status}")
        else:
            super().__init__(f"an upload into this batch (job {job.pk if job else '?'}) is queued or running")


class BatchNameRefused(Exception):
    """The new name is not accepted; ``code`` says why (``invalid``, ``taken``, ``audited``), ``message`` in the
    active language for ``invalid``."""

    def __init__(self, code: str, message: str = "") -> None:
        self.code = code
        self.message = message
        super().__init__(message or code)


@dataclass(frozen=True)
class DeletionCounts:
    trials: int
    runs: int
    judged: int  # trials with judged metrics (GV or W2WR semantic)
    audits: int  # judge audits drawn from the batch (annotation keeps them)


def judged_trials(batch: Batch):
    judged = Q()
    for block in JUDGED_BLOCKS:
        judged |= Q(**{f"layer3_metrics__{block}__isnull": False})
    return TrialLog.objects.filter(batch=batch).filter(judged)


def batch_deletion_counts(batch: Batch) -> DeletionCounts:
    """What deleting ``batch`` removes (trials, runs, judged trials) and the audits that stay."""
    return DeletionCounts(
        trials=TrialLog.objects.filter(batch=batch).count(),
        runs=Layer3Run.objects.filter(batch=batch).count(),
        judged=judged_trials(batch).count(),
        audits=len(calibration_reports(batch.name)),
    )


def _locked(batch: Batch) -> Batch:
    """The batch row, locked; ``BatchBusy`` while a run of it is in flight."""
    locked = Batch.objects.select_for_update().get(pk=batch.pk)
    running = runs_in_flight(locked).first()
    if running is not None:
        raise BatchBusy(running)
    uploading = uploads_in_flight(locked.name).first()
    if uploading is not None:  # it would create a new batch under the old name, or add to a deleted one
        raise BatchBusy(job=uploading)
    return locked


def uploads_in_flight(name: str):
    """The upload jobs (``layer3.io.upload_jobs``) queued or running into the batch named ``name``."""
    in_flight = (Job.Status.QUEUED, Job.Status.RUNNING)
    return Job.objects.filter(kind=TRIALS_UPLOAD, status__in=in_flight, params__batch_name=name).order_by("created_at")


@transaction.atomic
def batch_rename(*, batch: Batch, name: str) -> Batch:
    """Give ``batch`` the name ``name`` (the import's rule: ``BatchNameValidator``, unique).

    ``BatchNameRefused`` for a name refused by the rule, taken by another batch, or for a batch judge audits
    were drawn from (they name it); ``BatchBusy`` while a run is in flight.
    """
    field = Batch._meta.get_field("name")
    try:
        BatchNameValidator(limit=field.max_length, digits_allowed=False)(name)
    except ValidationError as exc:
        raise BatchNameRefused("invalid", " ".join(exc.messages)) from None
    locked = _locked(batch)
    if name == locked.name:
        return locked
    if Batch.objects.filter(name=name).exclude(pk=locked.pk).exists():
        raise BatchNameRefused("taken")
    if calibration_reports(locked.name):
        raise BatchNameRefused("audited")
    locked.name = name
    locked.save(update_fields=["name"])
    return locked


@transaction.atomic
def batch_delete(*, batch: Batch) -> DeletionCounts:
    """Delete ``batch`` with its trials and runs (and their problems); ``BatchBusy`` while a run is in flight.

    The trials go in one statement: the ORM's cascade would load every trial (their generated specs) first.
    """
    locked = _locked(batch)
    counts = batch_deletion_counts(locked)
    Layer3RunProblem.objects.filter(run__batch=locked).delete()
    Layer3Run.objects.filter(batch=locked).delete()
    table = connection.ops.quote_name(TrialLog._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE batch_id = %s", [locked.pk])  # noqa: S608 - the table's name only
    locked.delete()
    return counts
