"""One Layer3 run over 1, 2 and 4 Celery worker processes (PostgreSQL + Redis): throughput and ratios.

Targets (issue #29): an LLM-judged run of at least 2,000 judge calls, the fake endpoint answering after
200 ms, each worker keeping ``--per-worker`` calls in flight (``LLM_WORKER_CONCURRENCY``) under a site
limit that does not bind: ≥ 1.8× with 2 workers and ≥ 3.2× with 4. Then the same with 4 workers under a
requests-per-minute limit that binds (``--binding-rpm``): the fake must see the limit, no more, and the
trace of what it saw per second is printed. Then the automatic metrics of ``--trials`` trials with 1 and
2 workers: ≥ 1.6× on a 2-core machine.

Every run is the whole job as a user starts it: ``layer3_run_create(enqueue=True)`` here, the workers
(started and answering a ping beforehand) plan, split, evaluate, store and finish it; the time is from
the enqueue to the job's end as this process sees it. Each judged run asks every question again, once
(the ledger is emptied and ``--force`` is set), so every configuration pays the same calls. The fake
endpoint runs in this process; its arrival times are its own clock.

    .venv/bin/python bench/workers.py [--postgres postgres://postgres@127.0.0.1:5432/]
        [--redis redis://127.0.0.1:6379/13] [--items 2000] [--trials 100000] [--per-worker 8]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import postgres_database  # noqa: E402

PRICES = {"fake-model": {"input_usd": 1.0, "output_usd": 2.0, "input_jpy": 150.0, "output_jpy": 300.0}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--items", type=int, default=2000, help="judge calls of the judged run (at least)")
    parser.add_argument("--trials", type=int, default=100_000, help="trials of the automatic-metrics run")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--per-worker", type=int, default=8, help="calls in flight per worker process")
    parser.add_argument("--binding-rpm", type=int, default=3000)
    parser.add_argument("--only", choices=("judged", "automatic"), help="run one part only")
    args = parser.parse_args()

    created = postgres_database(args.postgres)
    if created is None:
        print("bench/workers.py needs PostgreSQL (--postgres)")
        return 2
    url, drop = created
    var = Path(tempfile.mkdtemp(prefix="jaiml-workers-bench-"))
    base_env = {
        "DATABASE_URL": url, "CELERY_BROKER_URL": args.redis, "DEBUG": "0", "VAR_DIR": str(var),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "LOG_LEVEL": "WARNING", "CELERY_QUEUE": f"bench-workers-{os.getpid()}",
        "LLM_API_KEY": "sk-bench", "LLM_MODEL": "fake-model", "LLM_PRICES": json.dumps(PRICES),
        "LLM_LIMITS": "redis", "LLM_LIMITS_REDIS_URL": args.redis, "LLM_TIMEOUT_SECONDS": "30",
        "LLM_MAX_RETRIES": "2", "LLM_MAX_CONCURRENCY": "256", "LLM_WORKER_CONCURRENCY": str(args.per_worker),
        "LLM_REQUESTS_PER_MINUTE": "0",
    }  # fmt: skip
    try:
        return _bench(args, base_env, var)
    finally:
        from django.db import connections

        connections.close_all()
        drop()


def _bench(args, base_env: dict, var: Path) -> int:
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI(latency=args.latency, default_reply=_answer) as fake:
        base_env["LLM_BASE_URL"] = fake.base_url
        os.environ.update(base_env)
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        if args.only != "automatic":
            _judged_part(args, base_env, var, fake)
        if args.only != "judged":
            _automatic_part(args, base_env, var, fake)
    return 0


def _judged_part(args, base_env: dict, var: Path, fake) -> None:
    from tests.llm.limits_support import most_in_window

    judged = _judged_batch(args.items, var)
    print(f"judged batch: {judged.trials} trials, {judged.calls} judge calls a run; fake latency {args.latency} s,")
    print(f"  {args.per_worker} calls in flight per worker, no binding rate limit\n")
    rates = {}
    for workers in (1, 2, 4):
        seconds, calls, arrivals = _run(judged.batch, "llm", workers, base_env, var, fake)
        rates[workers] = calls / seconds
        print(f"  {workers} worker(s): {seconds:6.2f} s, {calls} calls, {rates[workers]:6.1f} calls/s"
              f"  ({rates[workers] / rates[1]:.2f}x)  in flight at most {fake.max_in_flight}")  # fmt: skip
    print(f"  ratio 2 workers: {rates[2] / rates[1]:.2f}x (target >= 1.8x); "
          f"4 workers: {rates[4] / rates[1]:.2f}x (target >= 3.2x)")  # fmt: skip

    limit = args.binding_rpm
    env = {**base_env, "LLM_REQUESTS_PER_MINUTE": str(limit)}
    seconds, calls, arrivals = _run(judged.batch, "llm", 4, env, var, fake)
    steady = _steady_rate(arrivals)
    print(f"\n4 workers under LLM_REQUESTS_PER_MINUTE={limit} ({limit / 60:.1f}/s): {seconds:.2f} s, {calls} calls")
    print(f"  the fake saw {steady:.2f} requests/s between its 10th and its last request"
          f" ({steady / (limit / 60):.3f} of the limit); most in any 60 s window: {most_in_window(arrivals, 60)}"
          f", in any 1 s window: {most_in_window(arrivals, 1)} (limit {limit / 60:.0f})")  # fmt: skip
    print("  trace (requests per second, by the fake's clock): " + " ".join(str(n) for n in _per_second(arrivals)))


def _automatic_part(args, base_env: dict, var: Path, fake) -> None:
    automatic = _automatic_batch(args.trials, var)
    print(f"\nautomatic metrics of {automatic.trials} trials (no judge), every trial recomputed:")
    _run(automatic.batch, "none", 1, base_env, var, fake)  # once unmeasured: both runs replace stored records
    times = {}
    for workers in (1, 2):
        seconds, _calls, _ = _run(automatic.batch, "none", workers, base_env, var, fake)
        times[workers] = seconds
        print(f"  {workers} worker(s): {seconds:6.2f} s, {automatic.trials / seconds:8.0f} trials/s"
              f"  ({times[1] / seconds:.2f}x)")  # fmt: skip
    print(f"  ratio 2 workers: {times[1] / times[2]:.2f}x (target >= 1.6x on 2 cores; this machine has "
          f"{os.cpu_count()} CPUs)")  # fmt: skip


class _Batch:
    def __init__(self, batch, trials: int, calls: int = 0) -> None:
        self.batch, self.trials, self.calls = batch, trials, calls


def _answer(request):
    from tests.fakes.openai_server import Reply

    user = "\n".join(message["content"] for message in request["messages"])
    if "連携接続" in user:
        return Reply.json({"score": 2, "label": "correct", "reasoning": "logical flow"}, usage=(400, 40))
    return Reply.json({"score": 2, "label": "useful", "reasoning": "specific"}, usage=(400, 40))


def _import(name: str, count: int, seed: int, var: Path):
    from django.core.management import call_command

    from layer3.demo.generator import generate_trials
    from layer3.models import Batch

    path = var / f"{name}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for trial in generate_trials(count, seed=seed, broken_share=0.0):
            out.write(json.dumps(trial, ensure_ascii=False) + "\n")
    call_command("import_trials", str(path), "--batch", name, verbosity=0)
    return Batch.objects.get(name=name)


def _judged_batch(items: int, var: Path) -> _Batch:
    from layer3.runs.options import EvaluationOptions
    from layer3.runs.services import run_cost_estimate

    options = EvaluationOptions(judge="llm")
    probe = _import("probe", 100, 11, var)
    per_trial = run_cost_estimate(batch=probe, options=options).calls / 100
    count = math.ceil(items / per_trial)
    batch = _import("judged", count, 12, var)
    calls = run_cost_estimate(batch=batch, options=options).calls
    while calls < items:  # the probe's trials asked more questions each: a larger batch (the same trials first)
        batch.delete()
        count = math.ceil(count * items / calls * 1.02)
        batch = _import("judged", count, 12, var)
        calls = run_cost_estimate(batch=batch, options=options).calls
    return _Batch(batch, count, calls)


def _automatic_batch(count: int, var: Path) -> _Batch:
    return _Batch(_import("automatic", count, 13, var), count)


def _run(batch, judge: str, workers: int, env: dict, var: Path, fake) -> tuple[float, int, list[float]]:
    from config.celery import app
    from core.models import Job
    from layer3.models import Layer3Run
    from layer3.runs.options import EvaluationOptions
    from layer3.runs.services import layer3_run_create
    from llm.models import LLMBudget, LLMCacheEntry, LLMCall, LLMRun
    from tests.worker_processes import celery_workers, wait_until

    LLMCacheEntry.objects.all().delete()
    LLMCall.objects.all().delete()
    LLMRun.objects.all().delete()
    LLMBudget.objects.all().delete()
    fake.reset()
    options = EvaluationOptions(judge=judge, force=True)  # the ledger is empty: every question is asked once
    with celery_workers(workers, env=env, queue=env["CELERY_QUEUE"], log_dir=var / "logs") as started:
        wait_until(lambda: len(app.control.ping(timeout=0.5)) >= workers, timeout=60, what="the workers answering")
        begun, cpu_before, by_process_before = time.monotonic(), _cpu(), _cpu_by_process()
        run = layer3_run_create(batch=batch, options=options, enqueue=True)

        def done():
            run.refresh_from_db()
            return run.status not in Layer3Run.IN_FLIGHT and Job.objects.get(pk=run.job_id).is_finished

        try:
            wait_until(done, timeout=1800, interval=0.1, what="the run")
        except AssertionError:
            print(started.output())
            raise
        seconds = time.monotonic() - begun
        busy, total = (after - before for after, before in zip(_cpu(), cpu_before, strict=True))
        spent = _cpu_by_process(since=by_process_before)
        shares = ", ".join(f"{name} {100 * spent.get(name, 0) / total:.0f} %" for name in _CPU_GROUPS)
        print(f"    ({workers} worker(s): the machine's CPUs were {100 * busy / total:.0f} % busy: {shares})")
    if run.status != "succeeded":
        raise SystemExit(f"run {run.pk} ended {run.status}: {run.error}")
    print("    " + _phases(Job.objects.get(pk=run.job_id)))
    arrivals = [r["at"] for r in fake.requests if r["path"] == "/v1/chat/completions"]
    calls = len(arrivals)
    if judge == "llm" and calls != run.judge_requests:
        raise SystemExit(f"the fake saw {calls} calls, the run reports {run.judge_requests}")
    if (
        judge == "llm"
        and max(Counter(json.dumps(r["json"]["messages"]) for r in fake.requests if r.get("json")).values()) > 1
    ):
        raise SystemExit("a question was asked twice")
    return seconds, calls, arrivals


def _phases(job) -> str:
    """Where the run's time went, by the workers' timestamps: the plan (before any chunk was stored), the
    chunks (first to last stored), the finish (the figures, after the last chunk)."""
    from django.db.models import Count, Max, Min

    chunks = job.chunks.aggregate(first=Min("finished_at"), last=Max("finished_at"), n=Count("pk"))
    if not chunks["n"]:
        return "(no chunks)"
    start = job.started_at
    return (
        f"(phases: {chunks['n']} chunks; first stored +{(chunks['first'] - start).total_seconds():.1f} s, "
        f"last +{(chunks['last'] - start).total_seconds():.1f} s, "
        f"job finished +{(job.finished_at - start).total_seconds():.1f} s after it started)"
    )


def _cpu() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs so far (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


_CPU_GROUPS = ("workers", "PostgreSQL", "Redis", "this process (the fake)", "other")


def _cpu_by_process(since: dict | None = None) -> dict:
    """CPU jiffies (user + system) spent by the workers, PostgreSQL, Redis, this process (which serves the
    fake endpoint) and the rest; with ``since``, spent since then. ``{(group, pid, start): jiffies}`` without
    ``since``. A process's own time and that of its children that ended count in its group, so a PostgreSQL
    backend that ended meanwhile is counted through the postmaster."""
    me = os.getpid()
    seen: dict = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
            with open(f"/proc/{entry}/cmdline", "rb") as cmd:
                command = cmd.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        name, fields = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
        pid = int(entry)
        if pid == me:
            group = "this process (the fake)"
        elif "celery" in command and "worker" in command:
            group = "workers"
        elif name.startswith("postgres"):
            group = "PostgreSQL"
        elif name.startswith("redis"):
            group = "Redis"
        else:
            group = "other"
        seen[(group, pid, fields[19])] = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    if since is None:
        return seen
    spent: Counter = Counter()
    for key, jiffies in seen.items():
        spent[key[0]] += jiffies
    for key, jiffies in since.items():
        spent[key[0]] -= jiffies
    return spent


def _steady_rate(arrivals: list[float]) -> float:
    ordered = sorted(arrivals)
    if len(ordered) < 20:
        return float("nan")
    return (len(ordered) - 10) / (ordered[-1] - ordered[9])


def _per_second(arrivals: list[float]) -> list[int]:
    if not arrivals:
        return []
    start = min(arrivals)
    counts = Counter(int(t - start) for t in arrivals)
    return [counts.get(second, 0) for second in range(max(counts) + 1)]


if __name__ == "__main__":
    raise SystemExit(main())
