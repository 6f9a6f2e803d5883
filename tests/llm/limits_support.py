"""Helpers of the limits tests: virtual time for ``ProcessLimits``, window counts, a Redis to test against."""

from __future__ import annotations

import asyncio
import heapq
import os
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

REDIS_URL = os.environ.get("LLM_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")


def run_async(coroutine):
    """``asyncio.run(coroutine)`` in a thread of its own: the test's thread may already run an event loop
    (playwright's sync API keeps one there once a browser test has run in this process)."""
    with ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, coroutine).result()


class VirtualTime:
    """A clock and a ``sleep`` for code under test: time moves only when every task waits on a sleep.

    ``run`` drives coroutines: it lets every runnable task go on until it waits, then moves the clock to
    the earliest sleeper's wake-up time and wakes it. No real time passes, so the results are exact.
    While no task sleeps and some are not done (real I/O, e.g. a refused connection), it waits for them.
    """

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future]] = []
        self._count = 0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._count += 1
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), self._count, future))
        await future

    async def _settle(self) -> None:
        for _ in range(50):  # far more loop turns than any hand-over between the tasks here takes
            await asyncio.sleep(0)

    def run(self, *coroutines):
        async def drive():
            tasks = [asyncio.ensure_future(c) for c in coroutines]
            real_waits = 0
            while True:
                await self._settle()
                if all(task.done() for task in tasks):
                    return [task.result() for task in tasks]
                if not self._sleepers:
                    await asyncio.wait([t for t in tasks if not t.done()], timeout=0.01)
                    real_waits += 1
                    if real_waits > 1000:
                        raise AssertionError("the tasks wait for something that never comes")
                    continue
                when, _, future = heapq.heappop(self._sleepers)
                self.now = max(self.now, when)
                future.set_result(None)

        return run_async(drive())


def most_in_window(times: list[float], width: float) -> int:
    """The largest number of ``times`` within any window ``(t - width, t]``."""
    ordered = sorted(times)
    most, first = 0, 0
    for last, t in enumerate(ordered):
        while t - ordered[first] >= width:
            first += 1
        most = max(most, last - first + 1)
    return most


def redis_or_skip(url: str = REDIS_URL) -> str:
    """``url`` when a Redis answers there; else the test is skipped (fails with REQUIRE_REDIS=1)."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail(f"Redis at {url} is not reachable: {exc}")
        pytest.skip(f"Redis at {url} is not reachable ({type(exc).__name__})")
    finally:
        client.close()
    return url


def keys_without_expiry(url: str, prefix: str) -> list[str]:
    """The keys under ``prefix`` that would stay in Redis for ever (there should be none)."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        return [key.decode() for key in client.scan_iter(match=prefix + "*") if client.pttl(key) < 0]
    finally:
        client.close()


@pytest.fixture
def redis_prefix():
    """A Redis URL and a key prefix of this test's own; its keys are deleted afterwards (nothing else is)."""
    import redis

    url = redis_or_skip()
    prefix = f"jaiml-test:{uuid.uuid4().hex}:llm-limits:"
    yield url, prefix
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
