"""Two worker processes judge the same 50 questions at once (PostgreSQL): each question is asked once, paid once.

The workers are OS processes (``tests/llm/single_flight_worker.py``) on the test database; the fake endpoint
answers after 100 ms, four calls in flight per worker, so both plan the questions before either is answered.
"""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Sum

from llm.models import LLMCacheEntry, LLMCall, LLMRun
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.llm.conftest import PRICES
from tests.worker_processes import database_url

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="two worker processes share PostgreSQL"),
]
ROOT = Path(__file__).resolve().parents[2]
N = 50
ANSWER = {"score": 2, "label": "useful", "reasoning": "具体的"}
USAGE = (100, 20)  # tokens in, out of every answer: every call costs the same
PRICE = PRICES["fake-model"]
CALL_USD = (USAGE[0] * PRICE["input_usd"] + USAGE[1] * PRICE["output_usd"]) / 1e6
CALL_JPY = (USAGE[0] * PRICE["input_jpy"] + USAGE[1] * PRICE["output_jpy"]) / 1e6


def _environment(server: FakeOpenAI, var_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(var_dir),
        DATABASE_URL=database_url(connection.settings_dict),
        LLM_BASE_URL=server.base_url, LLM_API_KEY="sk-test", LLM_MODEL="fake-model", LLM_PRICES=json.dumps(PRICES),
        LLM_MAX_CONCURRENCY="4", LLM_TIMEOUT_SECONDS="10", LLM_MAX_RETRIES="2", LLM_REQUESTS_PER_MINUTE="0",
        LOG_LEVEL="WARNING",
    )  # fmt: skip
    return env


def _run_workers(tmp_path, server, chunks_per_worker):
    """Start one process per chunk list, release them together; their JSON lines, per worker."""
    go = tmp_path / "go"
    env = _environment(server, tmp_path / "var")
    command = [sys.executable, "-m", "tests.llm.single_flight_worker"]
    workers = [
        subprocess.Popen(
            [*command, json.dumps({"go": str(go), "chunks": chunks})],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for chunks in chunks_per_worker
    ]
    try:
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready", worker.stderr.read()
        go.touch()
        outputs = [worker.communicate(timeout=120) for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    for worker, (_out, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, err
    return [[json.loads(line) for line in out.splitlines() if line.startswith("{")] for out, _err in outputs]


ONE_CALL_EACH = [[list(range(N))], [list(range(N))]]
CROSSWISE = [  # chunks of ten, in opposite orders: the workers meet in the middle
    [list(range(start, start + 10)) for start in range(0, N, 10)],
    [list(range(start, start + 10)) for start in reversed(range(0, N, 10))],
]


@pytest.mark.parametrize("chunks_per_worker", [ONE_CALL_EACH, CROSSWISE], ids=["one-call-each", "crosswise"])
def test_two_workers_judging_the_same_questions_ask_each_once_and_pay_each_once(tmp_path, chunks_per_worker):
    with FakeOpenAI(latency=0.1, default_reply=lambda request: Reply.json(ANSWER, usage=USAGE)) as server:
        reports = _run_workers(tmp_path, server, chunks_per_worker)
        asked = Counter(
            request["json"]["messages"][-1]["content"]
            for request in server.requests
            if request["path"] == "/v1/chat/completions"
        )
    lines = [line for worker in reports for line in worker]
    per_worker = [sum(line["requests"] for line in worker) for worker in reports]
    # The race happened: together the workers planned more calls than there are questions ...
    assert sum(line["planned"] for line in lines) > N, reports
    # ... yet the fake saw every question exactly once,
    assert len(asked) == N and set(asked.values()) == {1}, (asked.most_common(3), per_worker)
    # every item of both workers was answered, and what was not asked was a cache hit at no cost,
    for worker, chunks in zip(reports, chunks_per_worker, strict=True):
        assert [line["counts"] for line in worker] == [{"ok": len(chunk)} for chunk in chunks]
    assert sum(line["requests"] for line in lines) == N and sum(line["cache_hits"] for line in lines) == N
    # and the ledger holds 50 paid calls, one per cache key, whose cost is the cost reported.
    calls = LLMCall.objects.all()
    assert calls.count() == N and calls.values("cache_key").distinct().count() == N
    assert set(calls.values_list("status", flat=True)) == {"ok"}
    assert calls.aggregate(usd=Sum("cost_usd"))["usd"] == pytest.approx(N * CALL_USD)
    assert sum(line["cost_usd"] for line in lines) == pytest.approx(N * CALL_USD)
    assert sum(line["cost_jpy"] for line in lines) == pytest.approx(N * CALL_JPY)
    assert LLMRun.objects.aggregate(usd=Sum("cost_usd"))["usd"] == pytest.approx(N * CALL_USD)
    assert LLMRun.objects.aggregate(n=Sum("requests"))["n"] == N
    assert LLMCacheEntry.objects.filter(status="done").count() == N == LLMCacheEntry.objects.count()
