"""A queued Layer3 run goes through the real broker to a real Celery worker and reports its progress."""

import time

import pytest
from django.core.management import call_command

from core.models import Job
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create


def wait_finished(run: Layer3Run, timeout: float = 60.0) -> Layer3Run:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status not in Layer3Run.IN_FLIGHT:
            return run
        time.sleep(0.1)
    raise AssertionError(f"run still {run.status} after {timeout}s")


@pytest.mark.django_db(transaction=True)
def test_the_worker_evaluates_a_queued_run(celery_worker, trials_file, researcher, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b")
    batch = Batch.objects.get(name="b")
    run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="baseline"), user=researcher, enqueue=True)
    run = wait_finished(run)
    assert (run.status, run.evaluated_count, run.error_count) == ("succeeded", 18, 1) and run.created_by == researcher
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded" and job.progress_done == job.progress_total == 19
    assert TrialLog.objects.filter(stage=3, layer3_metrics__isnull=True).count() == 0
    batch.refresh_from_db()
    assert batch.layer3_results["gvContentRelevance"]["sampleSize"] > 0
