"""The gateway's limits in one process (virtual time, no sleeping) and the fall-back when Redis is gone."""

import asyncio
import itertools
import logging

import pytest

from llm.client import Gateway, GatewayConfig
from llm.limits import FailSafeLimits, ProcessLimits, RedisLimits, build_limits
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.llm.limits_support import VirtualTime, most_in_window, run_async
from tests.llm.limits_worker import PROMPT

DEAD_REDIS = "redis://:pw-not-logged@127.0.0.1:9/7"  # nothing listens on port 9 (discard)


def _limits(time: VirtualTime, per_minute: int = 0, concurrency: int = 16) -> ProcessLimits:
    return ProcessLimits(per_minute, concurrency, clock=time.clock, sleep=time.sleep)


def test_starts_are_spaced_evenly_at_the_configured_rate():
    time = VirtualTime()
    limits = _limits(time, per_minute=60)  # one start a second

    async def start():
        await limits.ready()
        return time.now

    starts = time.run(*(start() for _ in range(6)))
    assert starts == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert most_in_window(starts, 60.0) == 6 and most_in_window(starts, 3.0) == 3


def test_without_a_rate_nothing_waits():
    time = VirtualTime()
    limits = _limits(time)

    async def start():
        await limits.ready()
        return time.now

    assert time.run(*(start() for _ in range(5))) == [0.0] * 5


def test_at_most_max_concurrency_requests_are_in_flight():
    time = VirtualTime()
    limits = _limits(time, concurrency=2)
    in_flight, most = 0, 0

    async def request():
        nonlocal in_flight, most
        async with limits.slot():
            await limits.ready()
            in_flight += 1
            most = max(most, in_flight)
            await time.sleep(1.0)
            in_flight -= 1
        return time.now

    finished = time.run(*(request() for _ in range(5)))
    assert most == 2 and sorted(finished) == [1.0, 1.0, 2.0, 2.0, 3.0]


def test_a_pause_holds_every_start_until_it_ends_and_only_lengthens():
    time = VirtualTime()
    limits = _limits(time)

    async def pause():
        await limits.pause(5.0)
        await limits.pause(2.0)  # a shorter pause does not cut the longer one

    async def start(after):
        await time.sleep(after)
        await limits.ready()
        return time.now

    _, *starts = time.run(pause(), start(0.0), start(1.0), start(6.0))
    assert starts == [5.0, 5.0, 6.0]


def test_starts_granted_before_a_pause_are_moved_after_it_without_a_burst():
    time = VirtualTime()
    limits = _limits(time, per_minute=60)

    async def start():
        await limits.ready()
        return time.now

    async def pause_at(moment, seconds):
        await time.sleep(moment)
        await limits.pause(seconds)

    *starts, _ = time.run(*(start() for _ in range(4)), pause_at(0.5, 3.0))
    assert starts[0] == 0.0
    assert all(s >= 3.5 for s in starts[1:])  # nobody started during the pause (0.5 → 3.5)
    gaps = [b - a for a, b in itertools.pairwise(sorted(starts))]
    assert min(gaps) >= 1.0  # and the rate holds right after it


def test_redis_limits_fall_back_to_per_process_with_one_warning(caplog):
    caplog.set_level(logging.WARNING, logger="llm")
    time = VirtualTime()
    shared = RedisLimits(DEAD_REDIS, requests_per_minute=60, max_concurrency=1, lease_seconds=5)
    limits = FailSafeLimits(shared, _limits(time, per_minute=60, concurrency=1))
    assert limits.mode == "redis"

    async def request():
        async with limits.slot():
            await limits.ready()
            await limits.pause(0.5)
            return time.now

    async def run_and_close(n):
        try:
            return await asyncio.gather(*(request() for _ in range(n)))
        finally:
            await limits.close()

    [starts] = time.run(run_and_close(3))
    assert limits.mode == "process" and starts == [0.0, 1.0, 2.0]  # per-process limits, still enforced
    warnings = [r.getMessage() for r in caplog.records if "per-process limits" in r.getMessage()]
    assert len(warnings) == 1
    assert "redis://127.0.0.1:9/7" in warnings[0] and "pw-not-logged" not in warnings[0]


def test_build_limits_chooses_the_implementation():
    assert isinstance(build_limits("process", requests_per_minute=0, max_concurrency=2), ProcessLimits)
    shared = build_limits("redis", requests_per_minute=0, max_concurrency=2, redis_url=DEAD_REDIS)
    assert isinstance(shared, FailSafeLimits) and shared.mode == "redis"
    with pytest.raises(ValueError, match="accepted process, redis"):
        build_limits("auto", requests_per_minute=0, max_concurrency=2)
    with pytest.raises(ValueError, match="needs a Redis URL"):
        build_limits("redis", requests_per_minute=0, max_concurrency=2)


def _gateway(server: FakeOpenAI, **overrides) -> Gateway:
    options = {"max_retries": 2, "backoff_base": 0.01, "timeout": 5.0, **overrides}
    return Gateway(GatewayConfig(base_url=server.base_url, api_key="sk-test-limits", **options))


def _ask_all(gateway: Gateway, n: int):
    async def run():
        try:
            messages = [[{"role": "user", "content": f"item {i}"}] for i in range(n)]
            return await asyncio.gather(*(gateway.ask(PROMPT, m, model="m", params={}) for m in messages))
        finally:
            await gateway.close()

    return run_async(run())


def test_no_item_is_lost_when_the_limits_redis_is_down(caplog):
    caplog.set_level(logging.WARNING, logger="llm")
    with FakeOpenAI(latency=0.05) as server:
        gateway = _gateway(server, limits="redis", limits_redis_url=DEAD_REDIS, max_concurrency=2)
        outcomes = _ask_all(gateway, 6)
        assert server.max_in_flight <= 2
    assert [o.status for o in outcomes] == ["ok"] * 6 and gateway.limits.mode == "process"
    assert sum("per-process limits" in r.getMessage() for r in caplog.records) == 1


def test_a_429_with_retry_after_pauses_the_other_requests_too():
    with FakeOpenAI(latency=0.02) as server:
        server.script(Reply.rate_limited(retry_after=0.6))
        gateway = _gateway(server, max_concurrency=1)  # one at a time: the 429 is answered first
        outcomes = _ask_all(gateway, 4)
        records = server.requests
    assert [o.status for o in outcomes] == ["ok"] * 4 and records[0]["status"] == 429
    # The other three items were queued behind the 429, not retrying it: none started before the pause ended.
    assert all(r["at"] >= records[0]["answered"] + 0.6 - 0.01 for r in records[1:])


def test_the_lease_of_the_shared_slots_is_the_setting_not_the_request_timeout(settings):
    from llm.services import gateway_config

    settings.LLM_TIMEOUT_SECONDS, settings.LLM_LIMITS_LEASE_SECONDS = 600.0, 7.5
    settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL = "redis", DEAD_REDIS
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"
    gateway = Gateway(gateway_config())
    try:
        assert gateway.limits.shared.lease_us == 7_500_000  # a dead worker's slots come back after 7.5 s
    finally:
        run_async(gateway.close())
