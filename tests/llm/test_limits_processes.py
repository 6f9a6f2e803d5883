"""Two worker processes, one set of limits in Redis, one provider (the HTTP fake) that counts what it sees.

Each process runs a Gateway (tests/llm/limits_worker.py) with the same settings and key prefix. The fake
records when each request arrives, what it answered and how many requests it handled at once; all those
times come from the fake's own clock. Skipped when no Redis answers (see tests/llm/limits_support.py).
"""

import itertools
import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.llm.limits_support import keys_without_expiry, most_in_window, redis_prefix  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]
RPM = 120
INTERVAL = 60 / RPM
# How much later than its granted start a request may reach the fake (its own way through the SDK and
# the loopback, a few ms; more on a busy machine): granted starts are >= INTERVAL apart on Redis's clock,
# arrivals may be this much closer.
JITTER = 0.15
PAUSE = 1.5  # Retry-After of the 429
REACTION = 0.25  # from the fake's answer to the pause in Redis: a few ms, more on a busy machine


def _run_workers(server: FakeOpenAI, url: str, prefix: str, **options) -> list[dict]:
    with FakeOpenAI() as warm:
        return _start_workers(server, warm, url, prefix, **options)


def _start_workers(server: FakeOpenAI, warm: FakeOpenAI, url: str, prefix: str, **options) -> list[dict]:
    processes = []
    for name in ("a", "b"):
        settings = {"name": name, "base_url": server.base_url, "warm_url": warm.base_url, **options}
        settings.update(redis_url=url, prefix=prefix)
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "tests.llm.limits_worker", json.dumps(settings)],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        for process in processes:  # both imported and ready: start them together
            assert process.stdout.readline().strip() == "ready", process.stderr.read()
        for process in processes:
            process.stdin.write("go\n")
            process.stdin.flush()
        results = []
        for process in processes:
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
        return results
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def _chat_requests(server: FakeOpenAI) -> list[dict]:
    records = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    for record in records:
        record["worker"] = record["json"]["messages"][-1]["content"].split()[0]
    return records


def test_two_workers_together_start_at_most_the_configured_requests_per_minute(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix
    with FakeOpenAI(latency=0.05) as server:
        results = _run_workers(server, url, prefix, requests_per_minute=RPM, max_concurrency=2, items=8)
        records = _chat_requests(server)
        in_flight = server.max_in_flight
    assert [r["statuses"] for r in results] == [["ok"] * 8] * 2 and {r["mode"] for r in results} == {"redis"}
    arrivals = sorted(r["at"] for r in records)
    assert len(arrivals) == 16 and {r["worker"] for r in records} == {"a", "b"}
    # The guarantee, scaled: any n·60/RPM seconds hold at most n starts (RPM in any minute). Measured at the
    # provider, each arrival comes a few ms after its start, so a window that closes on a start may catch
    # one more (+1), and a window shorter by the jitter never does.
    most = {n: most_in_window(arrivals, n * INTERVAL) for n in range(1, 17)}
    for n in range(1, 17):
        assert most_in_window(arrivals, n * INTERVAL - JITTER) <= n, (n, arrivals)
        assert most[n] <= n + 1, (n, arrivals)
    per_minute = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0]) * 60
    gap = min(later - earlier for earlier, later in itertools.pairwise(arrivals))
    span = arrivals[-1] - arrivals[0]
    shorter = {n: most_in_window(arrivals, n * INTERVAL - JITTER) for n in range(1, 17)}
    print(f"\ntwo workers at {RPM}/min: {per_minute:.1f}/min over {span:.2f} s; most per n·{INTERVAL:.2f} s: {most}")
    print(f"most per n·{INTERVAL:.2f} s - {JITTER} s: {shorter}")
    print(f"shortest gap between arrivals {gap:.3f} s; most in flight at the fake {in_flight}")
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * INTERVAL - JITTER  # the run's own rate


def test_two_workers_share_two_slots_and_a_429_pauses_both(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix
    with FakeOpenAI(latency=0.2) as server:
        server.script(*[Reply.json({"score": 1})] * 5, Reply.rate_limited(retry_after=PAUSE))
        results = _run_workers(server, url, prefix, requests_per_minute=0, max_concurrency=2, items=8)
        records = _chat_requests(server)
        in_flight = server.max_in_flight
    assert [r["statuses"] for r in results] == [["ok"] * 8] * 2
    assert in_flight == 2  # at most 2 at the provider at once across both processes (and 2 were reached)
    assert keys_without_expiry(url, prefix) == []
    [limited] = [r for r in records if r["status"] == 429]
    other = "b" if limited["worker"] == "a" else "a"
    # The pause starts when the 429 reaches its worker, a few ms after "answered", and lasts PAUSE s. Requests
    # granted before may still arrive in that reaction time; after it nobody starts, in either process.
    reaction, end = limited["answered"] + REACTION, limited["answered"] + PAUSE
    during = [(r["worker"], round(r["at"] - limited["answered"], 3)) for r in records if reaction < r["at"] < end]
    print(f"\n429 to worker {limited['worker']}; max in flight {in_flight}; arrivals during the pause: {during}")
    assert during == []
    assert any(r["worker"] == other and r["at"] < limited["at"] for r in records)  # the other one was busy...
    assert any(r["worker"] == other and r["at"] >= end for r in records)  # ...and went on after the pause
