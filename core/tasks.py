from celery import shared_task

from core.job_runner import job_run


@shared_task(name="core.run_job")
def run_job(job_id: str) -> None:
    job_run(job_id=job_id)


@shared_task(name="core.run_chunks")
def run_chunks(job_id: str) -> None:
    """Join a chunked job (``core.chunks``): claim its chunks until none is left."""
    from core.chunks import work_on

    work_on(job_id)


@shared_task(name="core.chunks_watchdog")
def chunks_watchdog() -> list[str]:
    """Call workers into chunked jobs whose chunks nobody works on (a worker died with its check)."""
    from core.chunks import watchdog

    return watchdog()
