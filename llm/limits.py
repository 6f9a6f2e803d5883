"""The LLM gateway's limits: request starts per minute, requests in flight, and a shared pause after a 429.

Pure (no Django). The ``Gateway`` wraps every HTTP request in::

    async with limits.slot():    # one of the ``max_concurrency`` requests in flight
        await limits.ready()     # the pause (Retry-After) is over and a start of the per-minute budget is ours
        ...send the request...

and calls ``limits.pause(seconds)`` when a 429/503 carries ``Retry-After``. Two implementations:

``ProcessLimits`` (``LLM_LIMITS=process``): one ``Gateway`` (one run) in this process counts on its own,
as before; N worker processes may together start N times the configured rate.

``RedisLimits`` (``LLM_LIMITS=redis``): every worker shares one set of limits through Redis. Each step
is one Lua script, atomic on the server and timed by the Redis server's clock (``TIME``), so the
workers' own clocks never meet. Keys (``{prefix}`` = ``LLM_LIMITS_KEY_PREFIX``):

- ``{prefix}next-start``: rate, by virtual scheduling (GCRA without burst). A start takes the time
  ``max(now, next-start, pause-until)`` and moves ``next-start`` 60/rpm s (rounded up to the
  microsecond) past it; the worker sleeps until its start. Granted starts are therefore at least
  60/rpm s apart, so every 60-second window holds at most rpm of them (rpm + 1 only if a window's two
  closed ends both fall on a start). What the provider sees is shifted by each request's own delay
  on the way (milliseconds). Expires when its time has passed.
- ``{prefix}leases``: concurrency, a sorted set of lease tokens scored by their expiry. A slot is
  taken when fewer than ``max_concurrency`` unexpired leases remain (expired ones are removed
  first), given back with ``ZREM``. A lease lasts ``LLM_LIMITS_LEASE_SECONDS`` (30 s) and is renewed
  every third of that while its request runs, so the slots of a crashed or killed worker come back by
  themselves within that time. The key expires when its last lease does.
- ``{prefix}queue``, ``{prefix}waiting``, ``{prefix}tickets``: waiters are served first come, first
  served (a ticket from ``INCR``), so one busy worker cannot starve another. Each process has one
  waiter in the queue at a time; it asks again every ~25 ms (at once when a slot of its own process
  is given back), and a waiter that stops asking (a crashed worker) loses its place after 2 s.
- ``{prefix}pause-until``: the end of the longest ``Retry-After`` asked for (Redis clock, capped by
  ``retry_after_cap``), expiring then. Every start waits for it; a start granted before a pause began
  is re-checked after its sleep and re-scheduled after the pause, so a pause ends without a burst.

Fail safe: ``FailSafeLimits`` wraps ``RedisLimits``. When Redis is unreachable or fails (connection,
timeout, script error), it logs one warning and the rest of that run uses ``ProcessLimits``: items
still run, nothing is lost, but the limits are per process until the next run finds Redis again.
Leases held by the failed run expire by themselves.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import functools
import logging
import math
import os
import random
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import urlsplit

from llm.limits_scripts import ACQUIRE, PAUSE, RENEW, RESERVE

logger = logging.getLogger("llm")

MODES = ("process", "redis")


@functools.cache
def redis_errors() -> tuple[type[Exception], ...]:
    """What a failing Redis raises: redis-py's errors and the OS's. redis-py (40 ms) is imported with the
    first ``RedisLimits``, not at every start of Django (``llm.services`` imports this module)."""
    from redis.exceptions import RedisError

    return (RedisError, OSError)


LEASE_SECONDS = 30.0  # how long a concurrency lease lasts unless renewed (LLM_LIMITS_LEASE_SECONDS)
DEFAULT_PREFIX = "jaiml:llm-limits:"
WAITER_SECONDS = 2.0  # a waiter that has not asked for a slot for this long loses its place in the queue
_SLOT_KEYS = ("leases", "queue", "waiting", "tickets")


def redis_label(url: str) -> str:
    """``scheme://host:port/db`` of a Redis URL, without user name, password or query."""
    parts = urlsplit(url)
    host = f"{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    return f"{parts.scheme}://{host}{parts.path.rstrip('/')}"


class Limits(abc.ABC):
    """What the Gateway waits for before each HTTP request; see the module docstring."""

    mode = ""

    @abc.abstractmethod
    async def acquire(self) -> object:
        """Wait for a slot among the requests in flight; returns the token to give back."""

    @abc.abstractmethod
    async def release(self, token: object) -> None:
        """Give the slot back."""

    @abc.abstractmethod
    async def ready(self) -> None:
        """Wait until no pause holds and a start of the per-minute budget is this request's."""

    @abc.abstractmethod
    async def pause(self, seconds: float) -> None:
        """Nobody starts a request for ``seconds`` (a longer pause already set stays)."""

    async def close(self) -> None:  # noqa: B027 - nothing to close by default
        """Let go of connections and background tasks."""

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        token = await self.acquire()
        try:
            yield
        finally:
            await self.release(token)


class ProcessLimits(Limits):
    """The limits of one Gateway in this process (asyncio); ``clock`` and ``sleep`` can be replaced in tests."""

    mode = "process"

    def __init__(
        self,
        requests_per_minute: int,
        max_concurrency: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute > 0 else 0.0
        self.max_concurrency = max_concurrency
        self._clock, self._sleep = clock, sleep
        self._next = -math.inf
        self._pause_until = -math.inf
        self._semaphore = asyncio.Semaphore(max_concurrency)

    async def acquire(self) -> object:
        await self._semaphore.acquire()
        return None

    async def release(self, token: object) -> None:
        self._semaphore.release()

    async def ready(self) -> None:
        while True:
            now = self._clock()
            start = max(now, self._next, self._pause_until)
            if self.interval:
                self._next = start + self.interval
            if start <= now:
                return
            await self._sleep(start - now)
            if self._pause_until <= self._clock():
                return
            # A pause began while this start waited: the start is void, take a new one after the pause.

    async def pause(self, seconds: float) -> None:
        self._pause_until = max(self._pause_until, self._clock() + seconds)


class RedisLimits(Limits):
    """Limits shared by every process using the same Redis and key prefix; see the module docstring."""

    mode = "redis"

    def __init__(
        self,
        url: str,
        *,
        requests_per_minute: int,
        max_concurrency: int,
        lease_seconds: float,
        prefix: str = DEFAULT_PREFIX,
        poll_seconds: float = 0.025,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.url = url
        self.max_concurrency = max_concurrency
        self.interval_us = math.ceil(60_000_000 / requests_per_minute) if requests_per_minute > 0 else 0
        self.lease_us = max(1000, int(lease_seconds * 1_000_000))
        self.poll_seconds = poll_seconds
        self.keys = {name: prefix + name for name in ("next-start", "pause-until", *_SLOT_KEYS)}
        self.abandoned = False  # set by FailSafeLimits: pending calls stop instead of each waiting on Redis
        # One quick retry, then the caller falls back (redis-py's default retries for seconds). Every
        # script may run twice: taking the same lease again is a no-op, a second start only wastes one.
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import ConstantBackoff

        self._redis = aioredis.Redis.from_url(
            url, socket_connect_timeout=2, socket_timeout=5, retry=Retry(ConstantBackoff(0.05), 1)
        )
        self._scripts = {
            name: self._redis.register_script(text)
            for name, text in (("acquire", ACQUIRE), ("renew", RENEW), ("reserve", RESERVE), ("pause", PAUSE))
        }
        self._owner = f"{socket.gethostname()}:{os.getpid()}:"
        self._held: set[str] = set()
        self._renewer: asyncio.Task | None = None
        self._turn = asyncio.Lock()  # one waiter of this process polls Redis at a time
        self._freed = asyncio.Event()

    def _check(self) -> None:
        if self.abandoned:
            from redis.exceptions import ConnectionError as RedisConnectionError

            raise RedisConnectionError("the shared limits were given up for this run")

    async def acquire(self) -> object:
        token = self._owner + uuid.uuid4().hex
        keys = [self.keys[name] for name in _SLOT_KEYS]
        args = [self.max_concurrency, token, self.lease_us, int(WAITER_SECONDS * 1_000_000)]
        async with self._turn:
            try:
                while True:
                    self._check()
                    self._freed.clear()  # before asking: a slot given back meanwhile wakes the wait below
                    if await self._scripts["acquire"](keys=keys, args=args):
                        break
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.poll_seconds * random.uniform(1.0, 1.5)):  # noqa: S311
                            await self._freed.wait()
            except asyncio.CancelledError:
                with contextlib.suppress(*redis_errors()):  # leave the queue now rather than in WAITER_SECONDS
                    await self._redis.zrem(self.keys["queue"], token)
                raise
        self._held.add(token)
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.create_task(self._renew_leases(), name="llm-limits-renew")
        return token

    async def release(self, token: object) -> None:
        self._held.discard(token)
        self._freed.set()
        await self._redis.zrem(self.keys["leases"], token)

    async def _renew_leases(self) -> None:
        """Keep this process's leases alive while their requests run (or wait for their start)."""
        while self._held:
            await asyncio.sleep(self.lease_us / 3_000_000)
            tokens = list(self._held)
            if not tokens or self.abandoned:
                break
            try:
                kept = await self._scripts["renew"](keys=[self.keys["leases"]], args=[self.lease_us, *tokens])
            except redis_errors() as exc:
                logger.warning("llm limits: could not renew %d lease(s) in Redis: %s", len(tokens), exc)
                continue
            lost = len([t for t in tokens if t in self._held]) - int(kept)
            if lost > 0:
                logger.warning("llm limits: %d lease(s) had expired before renewal (event loop blocked?)", lost)

    async def reserve(self) -> tuple[float, int]:
        """Take the next start: (seconds to wait, the start on the Redis clock in µs)."""
        self._check()
        keys = [self.keys["next-start"], self.keys["pause-until"]]
        wait_us, start_us = await self._scripts["reserve"](keys=keys, args=[self.interval_us])
        return int(wait_us) / 1_000_000, int(start_us)

    async def ready(self) -> None:
        while True:
            wait, _start = await self.reserve()
            if wait <= 0:
                return
            await asyncio.sleep(wait)
            self._check()
            if await self._redis.pttl(self.keys["pause-until"]) <= 0:
                return
            # A pause began while this start waited: the start is void, take a new one after the pause.

    async def pause(self, seconds: float) -> None:
        self._check()
        await self._scripts["pause"](keys=[self.keys["pause-until"]], args=[max(1000, int(seconds * 1_000_000))])

    async def close(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, *redis_errors()):
                await self._renewer
        with contextlib.suppress(*redis_errors()):
            await self._redis.aclose()


class FailSafeLimits(Limits):
    """``RedisLimits`` until Redis fails, then ``ProcessLimits`` for the rest of the run (one warning)."""

    def __init__(self, shared: RedisLimits, local: ProcessLimits) -> None:
        self.shared, self.local = shared, local
        self.failed = False

    @property
    def mode(self) -> str:
        return self.local.mode if self.failed else self.shared.mode

    def _fall_back(self, exc: BaseException) -> None:
        if self.failed:
            return
        self.failed = True
        self.shared.abandoned = True
        logger.warning(
            "llm limits: Redis at %s failed (%s: %s); this run continues with per-process limits "
            "(rate and concurrency are not shared with other workers until a later run reaches Redis)",
            redis_label(self.shared.url), type(exc).__name__, exc,
        )  # fmt: skip

    async def acquire(self) -> object:
        if not self.failed:
            try:
                return ("redis", await self.shared.acquire())
            except redis_errors() as exc:
                self._fall_back(exc)
        return ("process", await self.local.acquire())

    async def release(self, token: object) -> None:
        where, inner = token
        if where == "process":
            await self.local.release(inner)
            return
        try:
            await self.shared.release(inner)
        except redis_errors() as exc:  # the lease expires by itself
            self._fall_back(exc)

    async def ready(self) -> None:
        if not self.failed:
            try:
                await self.shared.ready()
                return
            except redis_errors() as exc:
                self._fall_back(exc)
        await self.local.ready()

    async def pause(self, seconds: float) -> None:
        await self.local.pause(seconds)  # also holds this process should Redis fail later in the run
        if not self.failed:
            try:
                await self.shared.pause(seconds)
            except redis_errors() as exc:
                self._fall_back(exc)

    async def close(self) -> None:
        await self.shared.close()


def build_limits(
    mode: str,
    *,
    requests_per_minute: int,
    max_concurrency: int,
    redis_url: str = "",
    lease_seconds: float = LEASE_SECONDS,
    prefix: str = DEFAULT_PREFIX,
) -> Limits:
    """The limits for one Gateway: ``process``, or ``redis`` (fail-safe, falling back to per process)."""
    local = ProcessLimits(requests_per_minute, max_concurrency)
    if mode == "process":
        return local
    if mode != "redis":
        raise ValueError(f"limits mode {mode!r}: accepted {', '.join(MODES)}")
    if not redis_url:
        raise ValueError("limits mode 'redis' needs a Redis URL")
    shared = RedisLimits(
        redis_url,
        requests_per_minute=requests_per_minute,
        max_concurrency=max_concurrency,
        lease_seconds=lease_seconds,
        prefix=prefix,
    )
    return FailSafeLimits(shared, local)
