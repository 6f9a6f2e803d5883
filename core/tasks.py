from celery import shared_task

from core.chunks import chunks_watchdog, run_chunks  # noqa: F401 - registered with the worker here
from core.job_runner import job_run


@shared_task(name="core.run_job")
def run_job(job_id: str) -> None:
    job_run(job_id=job_id)
