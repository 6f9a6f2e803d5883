"""RedisLimits against a real Redis: two limiters with one key prefix stand for two worker processes.

Skipped when no Redis answers at LLM_TEST_REDIS_URL (default redis://127.0.0.1:6379/7); each test has a
key prefix of its own and deletes only its keys.
"""

import asyncio
import itertools

import pytest
import redis
import redis.asyncio as aioredis

from llm.limits import RedisLimits
from llm.services import Item, judge
from tests.llm.limits_support import keys_without_expiry, redis_prefix, run_async  # noqa: F401 - fixture

# Never reached by a correct limiter; a "still waiting" check after this long cannot pass by chance.
HELD = 0.3


def _workers(url, prefix, n=2, **options):
    settings = {"requests_per_minute": 0, "max_concurrency": 2, "lease_seconds": 30.0, "prefix": prefix, **options}
    return [RedisLimits(url, **settings) for _ in range(n)]


async def _close(*limits):
    for limit in limits:
        await limit.close()


def test_two_workers_share_the_concurrency_limit_first_come_first_served(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        a, b = _workers(url, prefix)
        try:
            first, second = await a.acquire(), await b.acquire()
            third = asyncio.create_task(b.acquire())
            await asyncio.sleep(HELD)
            assert not third.done()  # both slots are taken, whichever worker asks
            fourth = asyncio.create_task(a.acquire())  # queued behind the third
            await asyncio.sleep(HELD)
            await b.release(second)
            token = await asyncio.wait_for(third, 5)
            assert not fourth.done()
            await a.release(first)
            await asyncio.wait_for(fourth, 5)
            async with aioredis.Redis.from_url(url) as client:
                assert await client.zcard(prefix + "leases") == 2
                assert await client.zscore(prefix + "leases", token) is not None
                assert 0 < await client.pttl(prefix + "leases") <= 30_000  # the key goes with its last lease
        finally:
            await _close(a, b)

    run_async(run())
    assert keys_without_expiry(url, prefix) == []


def test_a_crashed_workers_slots_come_back_when_their_leases_expire(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        [crashed] = _workers(url, prefix, n=1, max_concurrency=1, lease_seconds=0.5)
        [alive] = _workers(url, prefix, n=1, max_concurrency=1)
        try:
            lost = await crashed.acquire()
            await crashed.close()  # gone without giving the slot back: nothing renews or releases it
            token = await asyncio.wait_for(alive.acquire(), 5)
            async with aioredis.Redis.from_url(url) as client:
                assert await client.zrange(prefix + "leases", 0, -1) == [token.encode()]
                assert lost != token
        finally:
            await _close(alive)

    run_async(run())


def test_a_running_requests_lease_is_renewed(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        a, b = _workers(url, prefix, max_concurrency=1, lease_seconds=1.2)  # renewed every 0.4 s
        try:
            token = await a.acquire()
            waiting = asyncio.create_task(b.acquire())
            await asyncio.sleep(3.0)  # two and a half leases: only renewals keep the slot
            assert not waiting.done()
            await a.release(token)
            await asyncio.wait_for(waiting, 5)
        finally:
            await _close(a, b)

    run_async(run())


def test_rate_starts_are_granted_one_interval_apart_across_workers(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        a, b = _workers(url, prefix, requests_per_minute=60)  # one start a second
        try:
            grants = [await (a if i % 2 else b).reserve() for i in range(10)]
            async with aioredis.Redis.from_url(url) as client:
                ttl = await client.pttl(prefix + "next-start")
        finally:
            await _close(a, b)
        starts = [start for _wait, start in grants]  # only reserved: nobody sleeps in this test
        assert [later - earlier for earlier, later in itertools.pairwise(starts)] == [1_000_000] * 9
        assert grants[0][0] == 0 and all(wait > 0 for wait, _ in grants[1:])
        assert 9_000 < ttl <= 11_000  # next-start lasts until its time has passed (+1 s)

    run_async(run())


def test_a_pause_set_by_one_worker_holds_the_other(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        a, b = _workers(url, prefix)
        try:
            async with aioredis.Redis.from_url(url) as client:
                await a.pause(0.6)
                end = await client.get(prefix + "pause-until")
                await a.pause(0.05)  # a shorter pause does not cut it
                assert await client.get(prefix + "pause-until") == end
                wait, start = await b.reserve()
                assert 0 < wait <= 0.6 and start == int(end)  # b's start is the end of a's pause
                await b.ready()
                assert await client.pttl(prefix + "pause-until") <= 0  # b started only once the pause was over
        finally:
            await _close(a, b)

    run_async(run())


def test_a_start_granted_before_a_pause_waits_for_its_end(redis_prefix):  # noqa: F811
    url, prefix = redis_prefix

    async def run():
        a, b = _workers(url, prefix, requests_per_minute=60)  # one start a second
        try:
            await a.ready()  # takes the start now; b's is 1 s later
            async with aioredis.Redis.from_url(url) as client:
                first_free = int(await client.get(prefix + "next-start"))
                waiting = asyncio.create_task(b.ready())
                while int(await client.get(prefix + "next-start")) == first_free:  # until b has its start
                    await asyncio.sleep(0.01)
                await a.pause(1.5)  # begins before b's start, ends after it
                pause_end = int(await client.get(prefix + "pause-until"))
                await asyncio.wait_for(waiting, 5)
                assert await client.pttl(prefix + "pause-until") <= 0  # b did not start in the pause
                assert int(await client.get(prefix + "next-start")) >= pause_end + 1_000_000  # nor right at its end
        finally:
            await _close(a, b)

    run_async(run())


@pytest.mark.django_db
def test_judge_takes_its_starts_from_redis_when_the_limits_are_shared(fake_llm, settings, redis_prefix):  # noqa: F811
    url, prefix = redis_prefix
    settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL, settings.LLM_LIMITS_KEY_PREFIX = "redis", url, prefix
    settings.LLM_REQUESTS_PER_MINUTE = 600
    items = [Item(f"i{n}", {"concernText": "転職", "generatedText": f"案 {n}", "widgetType": "list"}) for n in range(3)]
    report = judge("layer3.gv_relevance@1", items)
    assert report.counts == {"ok": 3} and fake_llm.request_count == 3
    client = redis.Redis.from_url(url)
    try:
        assert client.pttl(prefix + "next-start") > 0  # the three starts were scheduled in Redis
        assert client.zcard(prefix + "leases") == 0  # and every slot was given back
    finally:
        client.close()
    assert keys_without_expiry(url, prefix) == []  # nothing stays in Redis after the run
