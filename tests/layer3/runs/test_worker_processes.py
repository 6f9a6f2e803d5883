"""One Layer3 run, two Celery worker processes (PostgreSQL + Redis): chunks shared, limits and budget shared.

The workers are real ``celery worker`` processes (``tests/worker_processes.py``) on the test database and
the Redis broker; the provider is the HTTP fake in this process, which records when each request
arrived (its own clock). Chunks are five trials each, so the twenty-trial batch makes four judged chunks.
"""

import json
import time
from collections import Counter
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum

from core.models import Job, JobChunk
from layer3.models import Batch, Layer3Run, Layer3RunProblem, TrialLog
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import budget_key, layer3_run_create
from llm.models import LLMBudget, LLMCacheEntry, LLMCall
from tests.layer3.conftest import judge_reply
from tests.llm.conftest import PRICES
from tests.worker_processes import celery_workers, database_url, wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not django_settings.CELERY_BROKER_URL.startswith("redis://"),
        reason="worker processes share PostgreSQL and a Redis broker",
    ),
]
RPM = 600  # one start every 0.1 s across both workers
USAGE = (400, 40)  # tokens in, out of every answer: every call costs the same
CALL_JPY = (USAGE[0] * PRICES["fake-model"]["input_jpy"] + USAGE[1] * PRICES["fake-model"]["output_jpy"]) / 1e6
# How much closer two arrivals may be than the limit grants their starts (each request's own way to the fake:
# milliseconds, more on a busy machine). Not cumulative: k requests span at least k intervals minus this.
JITTER = 0.3
CLAIM_STALE = 4  # JOB_CHUNK_STALE_SECONDS of the claims test: a dead worker's chunk and claims are taken over after it


def shortest_spans_respect_the_rate(arrivals: list[float]) -> bool:
    """Every k + 1 consecutive arrivals span at least k × 60/RPM s (less one jitter): at most RPM a minute,
    and RPM/60 a second, whatever window of the run is measured."""
    ordered = sorted(arrivals)
    for k in range(1, len(ordered)):
        shortest = min(b - a for a, b in zip(ordered, ordered[k:], strict=False))
        assert shortest >= k * 60 / RPM - JITTER, (k, shortest)
    return True


def answer(request):
    reply = judge_reply(request)
    reply.usage = USAGE
    return reply


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b")
    return Batch.objects.get(name="b")


@pytest.fixture
def workers(fake_llm, settings, tmp_path, request):
    """Two worker processes on this test's database, queue and fake; ``fake_llm`` answers after 50 ms."""
    with _two_workers(fake_llm, settings, tmp_path, request) as started:
        yield started


@pytest.fixture
def patient_workers(fake_llm, settings, tmp_path, request):
    """As ``workers``, with the default patience for one call: 60 s, four retries (a call may take 300 s)."""
    overrides = {"LLM_TIMEOUT_SECONDS": "60", "LLM_MAX_RETRIES": "4", "JOB_CHUNK_STALE_SECONDS": str(CLAIM_STALE)}
    with _two_workers(fake_llm, settings, tmp_path, request, **overrides) as started:
        yield started


@contextmanager
def _two_workers(fake_llm, settings, tmp_path, request, **overrides):
    from config.celery import app

    fake_llm.latency = 0.05
    fake_llm.default_reply = answer
    app.control.purge()  # tasks earlier tests queued without a worker belong to no test now
    broker = urlsplit(settings.CELERY_BROKER_URL)
    env = {
        "DATABASE_URL": database_url(connection.settings_dict), "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "DEBUG": "1", "VAR_DIR": str(tmp_path / "var"), "LOG_LEVEL": "WARNING",
        "LLM_BASE_URL": fake_llm.base_url, "LLM_API_KEY": "sk-test", "LLM_MODEL": "fake-model",
        "LLM_PRICES": json.dumps(PRICES), "LLM_MAX_CONCURRENCY": "4", "LLM_REQUESTS_PER_MINUTE": str(RPM),
        "LLM_TIMEOUT_SECONDS": "2", "LLM_MAX_RETRIES": "0", "LLM_BACKOFF_SECONDS": "0.01",
        "LLM_LIMITS": "redis", "LLM_LIMITS_REDIS_URL": f"redis://{broker.netloc}/7",
        "LLM_LIMITS_KEY_PREFIX": f"test-{request.node.name[:40]}-{tmp_path.name}:",
        "LAYER3_JUDGED_CHUNK_SIZE": "5", "JOB_CHUNK_STALE_SECONDS": "3",
        "LLM_LIMITS_LEASE_SECONDS": "3",  # the killed worker's slots come back as soon as its chunk does
        **overrides,
    }  # fmt: skip
    queue = app.conf.task_default_queue
    with celery_workers(2, env=env, queue=queue, log_dir=tmp_path / "logs") as started:
        yield started


def finished(run: Layer3Run, workers, timeout: float = 90.0) -> Layer3Run:
    def done():
        run.refresh_from_db()
        return run.status not in Layer3Run.IN_FLIGHT and Job.objects.get(pk=run.job_id).is_finished

    try:
        wait_until(done, timeout=timeout, what=f"run {run.pk} finishing")
    except AssertionError:
        raise AssertionError(workers.output()) from None
    return run


def chat_requests(server) -> list[dict]:
    return [r for r in server.requests if r["path"] == "/v1/chat/completions"]


def question(record: dict) -> str:
    return json.dumps(record["json"]["messages"], ensure_ascii=False, sort_keys=True)


def claimers(run: Layer3Run) -> Counter:
    """Chunks stored per worker process (the pid in the claim token)."""
    tokens = JobChunk.objects.filter(job_id=run.job_id, status="done").values_list("token", flat=True)
    return Counter(token.split(":")[1] for token in tokens)


def test_two_workers_share_a_judged_run_under_one_rate_limit_and_ask_each_question_once(batch, workers, fake_llm):
    run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="llm"), enqueue=True)
    run = finished(run, workers)
    assert (run.status, run.evaluated_count, run.error_count, run.skipped_count) == ("succeeded", 18, 1, 0)
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded" and job.progress_done == job.progress_total == 19
    assert job.result["evaluated"] == 18
    # Both worker processes stored chunks of this one batch.
    by_worker = claimers(run)
    assert sum(by_worker.values()) == 4 and len(by_worker) == 2, by_worker
    assert set(by_worker) <= {str(pid) for pid in workers.pids}
    # The provider saw at most the configured rate across both, measured over the run ...
    arrivals = [r["at"] for r in chat_requests(fake_llm)]
    assert len(arrivals) > 20
    assert shortest_spans_respect_the_rate(arrivals)
    # ... never the same question twice, and every question asked is one paid call in the ledger.
    asked = Counter(question(r) for r in chat_requests(fake_llm))
    assert set(asked.values()) == {1}
    calls = LLMCall.objects.all()
    assert calls.count() == len(asked) == run.judge_requests
    assert (
        run.cost_jpy
        == pytest.approx(calls.aggregate(jpy=Sum("cost_jpy"))["jpy"])
        == pytest.approx(len(asked) * CALL_JPY)
    )
    assert TrialLog.objects.filter(stage=3, layer3_metrics__isnull=True).count() == 0
    batch.refresh_from_db()
    assert batch.layer3_results["gvContentRelevance"]["sampleSize"] > 0


def test_a_worker_killed_mid_chunk_loses_that_chunk_only_and_the_run_completes_exactly(batch, workers, fake_llm):
    fake_llm.latency = 0.4  # long enough to catch a worker in the middle of a chunk
    run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="llm"), enqueue=True)
    victim = workers.pids[1]

    def victim_mid_chunk():
        return JobChunk.objects.filter(job_id=run.job_id, status="running", token__contains=f":{victim}:").first()

    chunk = wait_until(victim_mid_chunk, timeout=60, what="the second worker claiming a chunk")
    wait_until(lambda: len(chat_requests(fake_llm)) > 2, timeout=30, what="judge calls in flight")
    workers.kill(1)
    run = finished(run, workers)
    assert (run.status, run.evaluated_count, run.error_count, run.skipped_count) == ("succeeded", 18, 1, 0)
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded" and job.progress_done == job.progress_total == 19
    chunk.refresh_from_db()
    assert chunk.status == "done" and chunk.attempts == 2 and f":{victim}:" not in chunk.token
    assert JobChunk.objects.filter(job_id=run.job_id).exclude(status="done").count() == 0
    # No duplicate rows: one problem row for the broken trial, each trial's metrics once, one ledger
    # answer per question (a call the dead worker had in flight was asked again: it was never recorded).
    assert Layer3RunProblem.objects.filter(run=run).count() == 1
    assert TrialLog.objects.filter(stage=3, layer3_metrics__isnull=True).count() == 0
    ok = LLMCall.objects.filter(status="ok")
    assert ok.count() == ok.values("cache_key").distinct().count()
    assert run.judge_requests == LLMCall.objects.count()


def test_a_budget_shared_by_two_workers_stops_the_run_within_one_call_of_it(batch, workers, fake_llm):
    amount = 40 * CALL_JPY  # about a third of what the batch's questions cost
    options = EvaluationOptions(judge="llm", budget=amount, budget_currency="JPY")
    run = layer3_run_create(batch=batch, options=options, enqueue=True)
    run = finished(run, workers)
    assert run.status == "stopped_by_budget" and run.unjudged_count > 0
    assert run.evaluated_count + run.error_count + run.unjudged_count == 19
    ledger = LLMBudget.objects.get(key=budget_key(run))
    paid = LLMCall.objects.aggregate(jpy=Sum("cost_jpy"))["jpy"]
    # Within one call of the budget, whatever worker made the last call; the ledger, the run and the
    # budget agree to the yen.
    assert abs(paid - amount) <= CALL_JPY + 1e-9, (paid, amount, CALL_JPY)
    assert round(ledger.spent) == round(paid) == round(run.cost_jpy) and ledger.reserved == pytest.approx(0)
    assert ledger.calls == LLMCall.objects.count() == run.judge_requests
    assert len(claimers(run)) == 2
    job = Job.objects.get(pk=run.job_id)
    assert job.status == "succeeded" and job.result["left_for_later"] == run.unjudged_count


def test_a_killed_workers_llm_claims_are_taken_over_with_its_chunk_not_after_the_longest_call(
    batch, patient_workers, fake_llm
):
    """Issue 41: a worker SIGKILLed while it holds claims on questions. With one call allowed 60 s and four retries,
    its claims used to block those questions for 300 s; now they go stale with its chunk (JOB_CHUNK_STALE_SECONDS),
    so the run resumes within that window plus a few seconds, and no answered question is asked again."""
    workers = patient_workers
    fake_llm.latency = 0.5  # long enough to catch the worker holding claims
    run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="llm"), enqueue=True)
    victim = workers.pids[1]

    def victim_holds_claims():
        return LLMCacheEntry.objects.filter(status="pending", claimed_by__contains=f":{victim}:").exists()

    wait_until(victim_holds_claims, timeout=60, what="the second worker claiming questions")
    workers.kill(1)
    killed = time.monotonic()
    held = set(LLMCacheEntry.objects.filter(status="pending", claimed_by__contains=f":{victim}:")
               .values_list("cache_key", flat=True))  # fmt: skip
    in_flight = {question(r) for r in chat_requests(fake_llm) if "answered" not in r}
    assert held
    run = finished(run, workers, timeout=120)
    assert (run.status, run.evaluated_count, run.error_count, run.skipped_count) == ("succeeded", 18, 1, 0)
    # Every question the dead worker had claimed was answered, by the survivor, soon after the takeover window.
    calls = {call.cache_key: call for call in LLMCall.objects.filter(cache_key__in=held, status="ok")}
    assert set(calls) == held
    asked_again = [
        r["at"] - killed for r in chat_requests(fake_llm)
        if r["at"] > killed and question(r) in {_question_of(call) for call in calls.values()}
    ]  # fmt: skip
    assert asked_again, "the survivor asked the dead worker's questions"
    resumed = min(asked_again)
    assert resumed < CLAIM_STALE + 8, f"resumed {resumed:.1f} s after the kill"
    # No question answered once was asked again; only the calls in flight at the kill could be.
    asked = Counter(question(r) for r in chat_requests(fake_llm))
    twice = {q for q, n in asked.items() if n > 1}
    assert twice <= in_flight, twice - in_flight
    ok = LLMCall.objects.filter(status="ok")
    assert ok.count() == ok.values("cache_key").distinct().count()


def _question_of(call: LLMCall) -> str:
    return json.dumps(call.request["messages"], ensure_ascii=False, sort_keys=True)
