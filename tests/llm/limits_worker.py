"""One worker process of the two-process limits test: a Gateway with shared limits asks N items.

    python -m tests.llm.limits_worker '{"name": "a", "base_url": ..., "redis_url": ..., "prefix": ...,
                                        "requests_per_minute": 120, "max_concurrency": 2, "items": 8}'

No Django. First asks one item of ``warm_url`` (another fake, with per-process limits): the SDK's first
request in a process spends ~0.1-0.5 s on first-use imports and caches after its start was granted, which
is the client's delay, not the limiter's. Then prints ``ready``, waits for a line on stdin (so that both
workers start together), asks every item at once (the limits make them wait), and prints one JSON line:
``{"name", "statuses", "mode"}``. Each request's user message names the worker (``<name> item <i>``).
"""

from __future__ import annotations

import asyncio
import json
import sys

from llm.client import Gateway, GatewayConfig
from llm.prompts import Prompt

PROMPT = Prompt(
    "tests.limits",
    1,
    "Reply with one JSON object.",
    "{{text}}",
    {"type": "object", "required": ["score"], "properties": {"score": {"type": "integer"}}},
)


def _message(options: dict, i: int) -> list[dict]:
    return [{"role": "user", "content": f"{options['name']} item {i}"}]


async def warm_up(options: dict) -> None:
    gateway = Gateway(GatewayConfig(base_url=options["warm_url"], api_key="sk-test-limits", max_retries=0))
    try:
        await gateway.ask(PROMPT, _message(options, -1), model="m", params={})
    finally:
        await gateway.close()


async def run(options: dict) -> dict:
    config = GatewayConfig(
        base_url=options["base_url"],
        api_key="sk-test-limits",
        timeout=10.0,
        max_retries=3,
        max_concurrency=options["max_concurrency"],
        requests_per_minute=options["requests_per_minute"],
        backoff_base=0.01,
        limits=options.get("limits", "redis"),
        limits_redis_url=options["redis_url"],
        limits_key_prefix=options["prefix"],
    )
    gateway = Gateway(config)
    try:
        asks = (gateway.ask(PROMPT, _message(options, i), model="m", params={}) for i in range(options["items"]))
        outcomes = await asyncio.gather(*asks)
        return {"name": options["name"], "statuses": [o.status for o in outcomes], "mode": gateway.limits.mode}
    finally:
        await gateway.close()


def main() -> None:
    options = json.loads(sys.argv[1])
    asyncio.run(warm_up(options))
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(asyncio.run(run(options))), flush=True)


if __name__ == "__main__":
    main()
