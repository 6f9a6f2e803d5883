"""Turns of a session run by a real Celery worker (the director.turns job kind) against the fake server."""

import time

import pytest

from core.models import Job
from core.services import job_enqueue
from director.sessions.services import session_create
from tests.director.sessions.test_turn_commands import by_speaker  # noqa: F401
from tests.llm.conftest import fake_llm  # noqa: F401


@pytest.mark.django_db(transaction=True)
def test_the_worker_runs_turns_of_a_session(celery_worker, by_speaker, researcher):  # noqa: F811
    session = session_create(scene="雨の日", speakers=("yana", "ayu"))
    job = job_enqueue(kind="director.turns", params={"session_id": session.pk, "turns": 2}, user=researcher)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status not in ("queued", "running"):
            break
        time.sleep(0.1)
    assert job.status == "succeeded", job.message
    assert [t["accepted"] for t in job.result["turns"]] == [True, True]
    session.refresh_from_db()
    assert session.state["turn"] == 2 and Job.objects.get(pk=job.pk).progress_done == 2
