"""LLM gateway throughput: 1,250 judge calls (seed 002 §11.2's estimate) against a fake endpoint.

The fake OpenAI server (tests/fakes/openai_server.py, real HTTP on 127.0.0.1) answers every chat
request after 200 ms; the gateway runs with 32 calls in flight through the real ``openai`` SDK,
stores every call in the ledger (SQLite in a temporary directory, or PostgreSQL with --postgres),
then runs the same items again, which must be answered from the cache with zero requests.
Target: the first run in <= 15 s (the seed estimates 30-60 min for this load done one by one).

    .venv/bin/python bench/llm_throughput.py [--calls 1250] [--latency 0.2] [--concurrency 32] [--postgres URL]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._targets import Targets  # noqa: E402

TARGET_SECONDS = 15.0
SEED_ESTIMATE = "30-60 min"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1250)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--postgres", help="PostgreSQL server URL (a temporary database is created there)")
    args = parser.parse_args()

    from tests.fakes.openai_server import FakeOpenAI

    var = tempfile.mkdtemp(prefix="jaiml-llm-bench-")
    database_name = None
    if args.postgres:
        import psycopg

        database_name = f"jaiml_llm_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(args.postgres.rstrip("/") + "/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{database_name}"')
        database_url = args.postgres.rstrip("/") + "/" + database_name
    else:
        database_url = f"sqlite:///{var}/bench.sqlite3"
    server = FakeOpenAI(latency=args.latency).start()
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": database_url,
            "VAR_DIR": var,
            "DEBUG": "0",
            "SECRET_KEY": "bench-only-" + "0" * 32,
            "LOG_LEVEL": "WARNING",
            "LLM_BASE_URL": server.base_url,
            "LLM_API_KEY": "sk-bench",
            "LLM_MODEL": "fake-model",
            "LLM_MAX_CONCURRENCY": str(args.concurrency),
            "LLM_PRICES": '{"fake-model": {"input_usd": 2.5, "output_usd": 10.0}}',  # priced like gpt-4o
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    from llm.models import LLMCall
    from llm.services import Item, estimate, judge

    try:
        call_command("migrate", verbosity=0)
        items = [
            Item(
                f"trial-{i // 5}/item-{i % 5}",
                {
                    "concernText": f"転職するか今の会社に残るか迷っています（ケース{i // 25}）。夜も眠れません。",
                    "generatedText": f"転職した場合のメリット {i}: 年収アップの可能性",
                    "widgetType": "matrix",
                },
            )
            for i in range(args.calls)
        ]
        before = estimate("layer3.gv_relevance@1", items)
        started = time.perf_counter()
        first = judge("layer3.gv_relevance@1", items)
        first_wall = time.perf_counter() - started
        first_requests = server.request_count
        started = time.perf_counter()
        second = judge("layer3.gv_relevance@1", items)
        second_wall = time.perf_counter() - started
        second_requests = server.request_count - first_requests
        stored = LLMCall.objects.count()
    finally:
        server.stop()
        if database_name:
            from django.db import connections

            connections.close_all()
            with psycopg.connect(args.postgres.rstrip("/") + "/postgres", autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{database_name}" WITH (FORCE)')

    ok = first.counts.get("ok", 0)
    print(
        f"fake endpoint latency {args.latency * 1000:.0f} ms, {args.concurrency} calls in flight, "
        f"ledger on {'PostgreSQL' if database_name else 'SQLite'}"
    )
    print(
        f"first run:  {args.calls} judge calls in {first_wall:.2f} s ({args.calls / first_wall:.0f} calls/s), "
        f"{first_requests} requests seen by the server, {ok} ok, {stored} stored in the ledger"
    )
    sequential = args.calls * args.latency
    print(
        f"            one at a time this would take >= {sequential:.0f} s at this latency "
        f"({sequential / first_wall:.1f}x slower); the seed estimates {SEED_ESTIMATE} for this load"
    )
    print(
        f"cost: estimated before the run {before.cost_jpy:.0f} JPY (${before.cost_usd:.2f}), "
        f"actual {first.cost_jpy:.0f} JPY (${first.cost_usd:.2f})"
    )
    print(
        f"second run: {second_wall:.2f} s, {second_requests} requests seen by the server, "
        f"{second.cache_hits} cache hits, cost {second.cost_jpy:.0f} JPY"
    )
    targets = Targets()
    targets.record(f"every one of {args.calls} calls answered", ok == args.calls, f"{ok} ok")
    targets.at_most("first run", first_wall, TARGET_SECONDS)
    targets.at_most("requests on the second run (all cached)", second_requests, 0, unit="", digits=0)
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
