"""Judge many items with one prompt: cache, cost estimate, budget guard, ledger. The only way to call an LLM.

``judge`` is synchronous (Celery tasks, management commands): it reads the cache, estimates the
cost, runs the missing calls concurrently on an asyncio loop in a helper thread, and stores each
finished call in this thread as it arrives (nothing finished is lost if the run stops later).
Without ``LLM_BASE_URL`` (or with ``backend="baseline"``) the prompt's offline baseline judge
answers instead, named ``baseline-tfidf@1`` in every result and never presented as an LLM.

No call is paid twice: a question's cache key has one ``LLMCacheEntry`` (``llm.claims``). Before
calling, a run claims the keys it misses; a key another worker is asking is waited for and its answer
taken as a cache hit at no cost, so the cost reported is the cost of the calls made. A failed call
settles its key as failed (a later run asks again); a claim whose worker died is taken over once
stale: its worker refreshes it every quarter of ``JOB_CHUNK_STALE_SECONDS`` while its calls run, however
long a call takes, so a claim not refreshed for that long is a dead worker's (the same window in which its
chunk is taken over, ``core.chunks``). ``force`` (a
regeneration) neither reads the cache nor waits: it always asks, and a good answer becomes the
key's cached answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Avg, Sum
from django.utils import timezone

from core.endpoints import endpoint_label
from llm import baseline, budgets, claims, pricing
from llm import prompt_library as _library  # noqa: F401 - registers the project's prompts
from llm.client import Gateway, GatewayConfig, Outcome, open_client
from llm.models import LLMCall, LLMRun
from llm.prompts import Prompt, get

DEFAULT_PARAMS = {"temperature": 0.0}  # seed 002 §11.3: judges run at temperature 0
CALIBRATION_WINDOW = 200


@dataclass(frozen=True)
class Item:
    key: str  # the caller's id for the item (e.g. "trial 12 / widget 3")
    variables: Mapping[str, object]


@dataclass
class Result:
    key: str
    status: str  # ok | parse_error | error | not_evaluated
    parsed: dict | None
    evaluator_model: str
    cached: bool = False
    error: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    cost_jpy: float = 0.0
    call_id: int | None = None


@dataclass(frozen=True)
class Budget:
    """What a run may spend. With ``ledger`` (an ``LLMBudget`` key) the amount is the ledger's, shared by
    every worker and every ``judge`` call that names it; without, it is this call's own."""

    amount: float
    currency: str = "JPY"  # JPY or USD
    ledger: str = ""

    def __post_init__(self):
        if self.currency not in ("JPY", "USD"):
            raise ValueError(f"budget currency {self.currency!r}: accepted JPY, USD")
        if self.amount < 0:
            raise ValueError("a budget cannot be negative")


@dataclass
class Report:
    prompt: str
    model: str
    backend: str  # llm | baseline
    results: list[Result]
    estimate: pricing.Estimate | None = None
    run_id: int | None = None
    requests: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0
    cost_jpy: float = 0.0
    stopped_by_budget: bool = False
    wall_seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


def configured() -> bool:
    return bool(settings.LLM_BASE_URL)


def gateway_config() -> GatewayConfig:
    return GatewayConfig(
        base_url=settings.LLM_BASE_URL,
        api_key=settings.LLM_API_KEY,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=settings.LLM_MAX_RETRIES,
        max_concurrency=settings.LLM_MAX_CONCURRENCY,
        requests_per_minute=settings.LLM_REQUESTS_PER_MINUTE,
        backoff_base=settings.LLM_BACKOFF_SECONDS,
        json_mode=settings.LLM_JSON_MODE,
        limits=settings.LLM_LIMITS,
        limits_redis_url=settings.LLM_LIMITS_REDIS_URL,
        limits_key_prefix=settings.LLM_LIMITS_KEY_PREFIX,
        limits_lease_seconds=settings.LLM_LIMITS_LEASE_SECONDS,
    )


def prices() -> dict[str, pricing.Price]:
    return pricing.price_table(settings.LLM_PRICES, settings.LLM_USD_JPY)


def cache_key(*, endpoint: str, model: str, prompt: Prompt, messages: list[dict], params: Mapping) -> str:
    payload = {"endpoint": endpoint, "model": model, "prompt": prompt.ref, "messages": messages, "params": params}
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def stale_after() -> timedelta:
    """How long a claim may go without a sign of life before another worker takes it over: the window in which a
    dead worker's chunk is taken over (its claims are refreshed every quarter of it while its calls run)."""
    return timedelta(seconds=settings.JOB_CHUNK_STALE_SECONDS)


def longest_call() -> float:
    """Seconds one call may take with its retries: a budget reservation held longer belonged to a worker that died."""
    return settings.LLM_TIMEOUT_SECONDS * (settings.LLM_MAX_RETRIES + 1)


def _recent_ok_calls(**filters):
    """The latest ``CALIBRATION_WINDOW`` successful calls matching ``filters``, ready to aggregate."""
    recent = LLMCall.objects.filter(status=LLMCall.Status.OK, **filters).order_by("-created_at")
    return LLMCall.objects.filter(pk__in=recent.values("pk")[:CALIBRATION_WINDOW])


def calibration(model: str) -> float:
    """Actual / estimated input tokens over the model's recent calls (1.0 without history)."""
    totals = _recent_ok_calls(model=model, estimated_tokens_in__gt=0).aggregate(
        actual=Sum("tokens_in"), estimated=Sum("estimated_tokens_in")
    )
    if not totals["estimated"]:
        return 1.0
    return min(5.0, max(0.2, totals["actual"] / totals["estimated"]))


def output_tokens_per_call(prompt: Prompt, model: str) -> float:
    average = _recent_ok_calls(prompt=prompt.ref, model=model).aggregate(n=Avg("tokens_out"))["n"]
    return float(average) if average else prompt.max_tokens / 2


@dataclass
class _Pending:
    item: Item
    messages: list[dict]
    key: str
    estimated_tokens_in: int


@dataclass
class _Plan:
    """A run before it starts: rendered items, cache hits, the calls still to make and their estimate."""

    prompt: Prompt
    model: str
    endpoint: str
    params: dict
    price: pricing.Price | None
    pending: list[_Pending]
    hits: dict[str, LLMCall]
    misses: list[_Pending]
    estimate: pricing.Estimate
    force: bool = False
    fresh_since: object = None  # datetime: answers given before then are asked again, once


def _plan(prompt: Prompt, items: list[Item], *, model: str, force: bool, fresh_since=None) -> _Plan:
    params = {**DEFAULT_PARAMS, "max_tokens": prompt.max_tokens}
    endpoint = endpoint_label(settings.LLM_BASE_URL)
    pending = []
    for item in items:
        messages = prompt.render(item.variables)
        key = cache_key(endpoint=endpoint, model=model, prompt=prompt, messages=messages, params=params)
        pending.append(_Pending(item, messages, key, pricing.estimate_tokens(messages)))
    hits = {} if force else claims.answers({p.key for p in pending}, since=fresh_since)
    # The same question twice in one run (a generic sample value under the same concern) is asked once.
    misses, asked = [], set(hits)
    for p in pending:
        if p.key not in asked:
            asked.add(p.key)
            misses.append(p)
    price = pricing.price_for(prices(), model)
    estimate = pricing.estimate_cost(
        [p.estimated_tokens_in for p in misses],
        cached=len(pending) - len(misses),
        output_tokens_per_call=output_tokens_per_call(prompt, model),
        calibration=calibration(model),
        price=price,
    )
    return _Plan(prompt, model, endpoint, params, price, pending, hits, misses, estimate, force, fresh_since)


def estimate(prompt_ref: str, items: Iterable[Item], *, model: str | None = None, force: bool = False):
    """What a run would cost before it runs: requests (cache hits excluded), tokens, USD and JPY."""
    return _plan(get(prompt_ref), list(items), model=model or settings.LLM_MODEL, force=force).estimate


def judge(
    prompt_ref: str,
    items: Iterable[Item],
    *,
    model: str | None = None,
    backend: str = "auto",
    force: bool = False,
    budget: Budget | None = None,
    progress: Callable[[int, int], None] | None = None,
    fresh_since=None,
) -> Report:
    """Judge every item; never raises for one item's failure (see ``Result.status``).

    ``force`` bypasses reading the cache (the new answers are still stored). ``fresh_since`` (a datetime)
    refreshes across several calls: an answer given before then is asked again, once, and one given
    since (by this or another worker) is a cache hit, so a refresh split into chunks pays each question
    once. ``budget`` stops the
    run before a call that could exceed it; the remaining items are ``not_evaluated``. A question
    another worker is asking is waited for, then answered from its call (``cached``, no cost).
    """
    prompt, items = get(prompt_ref), list(items)
    if backend == "auto":
        backend = "llm" if configured() else "baseline"
    if backend == "baseline":
        return _judge_baseline(prompt, items, progress)
    if backend != "llm":
        raise ValueError(f"backend {backend!r}: accepted auto, llm, baseline")
    if not configured():
        raise RuntimeError("LLM_BASE_URL is not set: configure an endpoint or use the baseline backend")
    model = model or settings.LLM_MODEL
    if not model:
        raise RuntimeError("no model: pass one or set LLM_MODEL")
    started = time.monotonic()
    plan = _plan(prompt, items, model=model, force=force, fresh_since=fresh_since)
    report = Report(prompt=prompt.ref, model=model, backend="llm", results=[], estimate=plan.estimate)
    run = LLMRun.objects.create(
        prompt=prompt.ref,
        model=model,
        endpoint=plan.endpoint,
        items=len(items),
        estimated_cost_usd=report.estimate.cost_usd,
        estimated_cost_jpy=report.estimate.cost_jpy,
        budget=budget.amount if budget else None,
        budget_currency=budget.currency if budget else "",
    )
    report.run_id = run.pk
    results: dict[str, Result] = {}
    for p in plan.pending:
        if p.key in plan.hits:
            row = plan.hits[p.key]
            results[p.item.key] = Result(p.item.key, "ok", row.parsed, model, cached=True, call_id=row.pk)
    report.cache_hits = len(results)
    done = len(results)
    if progress:
        progress(done, len(items))
    answers = _answer_misses(run, plan, budget, report)
    try:
        for p, result in answers:
            results[p.item.key] = result
            report.cache_hits += result.cached
            done += 1
            if progress:
                progress(done, len(items))
    finally:
        answers.close()  # a run stopped early gives its open claims back now, not when collected
    by_cache_key = {p.key: results[p.item.key] for p in plan.misses if p.item.key in results}
    for p in plan.pending:
        if p.item.key not in results:  # a repeated question: the answer of its first asking, at no cost
            first = by_cache_key[p.key]
            results[p.item.key] = Result(
                p.item.key,
                first.status,
                first.parsed,
                model,
                cached=first.status == "ok",
                error=first.error,
                call_id=first.call_id,
            )
            report.cache_hits += first.status == "ok"
    report.results = [results[item.key] for item in items]
    report.counts = counts = dict(Counter(result.status for result in report.results))
    report.stopped_by_budget = counts.get("not_evaluated", 0) > 0
    report.wall_seconds = time.monotonic() - started
    LLMRun.objects.filter(pk=run.pk).update(
        requests=report.requests,
        cache_hits=report.cache_hits,
        succeeded=counts.get("ok", 0),
        parse_errors=counts.get("parse_error", 0),
        errors=counts.get("error", 0),
        not_evaluated=counts.get("not_evaluated", 0),
        cost_usd=report.cost_usd,
        cost_jpy=report.cost_jpy,
        stopped_by_budget=report.stopped_by_budget,
        finished_at=timezone.now(),
    )
    return report


def _per_call_estimate(estimate: pricing.Estimate, budget: Budget | None) -> float:
    if budget is None or not estimate.calls:
        return 0.0
    total = estimate.cost_jpy if budget.currency == "JPY" else estimate.cost_usd
    return total / estimate.calls


def _left(budget: Budget | None, report: Report) -> Budget | None:
    if budget is None or budget.ledger:  # a shared ledger counts what was spent itself
        return budget
    spent = report.cost_jpy if budget.currency == "JPY" else report.cost_usd
    return Budget(max(0.0, budget.amount - spent), budget.currency)


def _answer_misses(run, plan: _Plan, budget: Budget | None, report: Report):
    """Yield ``(pending, result)`` for each miss: asked here, or answered by the worker that claimed it."""
    flight = claims.Claims(stale_after(), since=plan.fresh_since)
    if plan.force:  # a regeneration: always asked, never waited for
        for p, outcome, cost in _run_calls(plan, plan.misses, budget):
            yield p, _store(run, plan, p, outcome, cost, report, flight.record_forced)
        return
    todo = plan.misses
    try:
        while todo:
            split = flight.claim(p.key for p in todo)
            for p in todo:
                if p.key in split.settled:
                    yield p, _settled(p, split.settled[p.key], plan.model)
            unasked = []
            calls = [p for p in todo if p.key in split.mine]
            for p, outcome, cost in _run_calls(plan, calls, _left(budget, report), tick=flight.beat):
                if outcome is None:
                    unasked.append(p.key)
                yield p, _store(run, plan, p, outcome, cost, report, flight.finish)
            flight.release(unasked)
            settled, again = flight.wait(p.key for p in todo if p.key in split.waiting)
            for p in todo:
                if p.key in settled:
                    yield p, _settled(p, settled[p.key], plan.model)
            todo = [p for p in todo if p.key in again]
    finally:
        flight.release_all()  # claims of a run that stopped early are given back


def _settled(p: _Pending, entry, model: str) -> Result:
    """The result of a question another worker asked: its answer (a cache hit) or its failure, at no cost."""
    call = entry.call
    if entry.status == claims.Status.DONE:
        return Result(p.item.key, "ok", call.parsed, model, cached=True, call_id=call.pk)
    return Result(p.item.key, call.status, call.parsed, model, error=call.error, call_id=call.pk)


def _store(run, plan: _Plan, p: _Pending, outcome: Outcome | None, cost, report: Report, settle) -> Result:
    """Record the call made for ``p`` in the ledger and ``settle(key, call)`` its cache key, in one transaction."""
    model = plan.model
    if outcome is None:
        return Result(p.item.key, "not_evaluated", None, model, error="budget reached before this item")
    usd, jpy = cost
    report.requests += outcome.attempts
    report.cost_usd += usd
    report.cost_jpy += jpy
    with transaction.atomic():
        call = _record(run, plan, p, outcome, usd, jpy)
        settle(p.key, call)
    return Result(
        p.item.key,
        outcome.status,
        outcome.parsed,
        model,
        error=outcome.error,
        tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out,
        cost_usd=usd,
        cost_jpy=jpy,
        call_id=call.pk,
    )


def _record(run, plan: _Plan, p: _Pending, outcome: Outcome, usd: float, jpy: float) -> LLMCall:
    return LLMCall.objects.create(
        cache_key=p.key,
        run=run,
        prompt=plan.prompt.ref,
        model=plan.model,
        endpoint=plan.endpoint,
        request={"messages": p.messages, "params": plan.params, "attempts": outcome.log},
        response_raw=outcome.raw,
        parsed=outcome.parsed,
        status=outcome.status,
        error=outcome.error,
        attempts=outcome.attempts,
        json_mode=outcome.json_mode,
        tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out,
        estimated_tokens_in=p.estimated_tokens_in,
        latency_ms=outcome.latency_ms,
        cost_usd=usd,
        cost_jpy=jpy,
        finished_at=timezone.now(),
    )


def _guard(plan: _Plan, budget: Budget | None):
    per_call = _per_call_estimate(plan.estimate, budget)
    if budget is None:
        return budgets.NoGuard()
    if budget.ledger:
        return budgets.SharedGuard(budget.ledger, per_call)
    return budgets.LocalGuard(budget.amount, per_call)


def _run_calls(plan: _Plan, calls: list[_Pending], budget: Budget | None, tick: Callable[[], None] | None = None):
    """Yield ``(pending, outcome or None if the budget stopped it, (usd, jpy))`` in completion order.

    The calls run on an asyncio loop in a helper thread; this thread reserves each call's estimate
    before handing it over (so a shared budget's database row is written from here only) and settles
    it with the actual cost when it returns. At most twice the concurrency limit is handed over at
    once, so the budget check sees real costs. ``tick`` is called in this thread at least every second
    while the calls run (claims' heartbeat).
    """
    if not calls:
        return
    guard = _guard(plan, budget)
    price = plan.price or pricing.FREE
    currency = budget.currency if budget is not None else "USD"
    finished: queue.Queue = queue.Queue()
    config = gateway_config()
    loop = _call_loop()
    gateway = asyncio.run_coroutine_threadsafe(_open_gateway(config), loop).result()

    per_worker = settings.LLM_WORKER_CONCURRENCY or config.max_concurrency
    slots = asyncio.run_coroutine_threadsafe(_semaphore(min(per_worker, config.max_concurrency)), loop).result()

    async def one(p: _Pending) -> None:
        try:
            async with slots:
                outcome = await gateway.ask(plan.prompt, p.messages, model=plan.model, params=plan.params)
        except BaseException as exc:  # handed back so this thread raises it
            finished.put((p, exc, None))
            raise
        finished.put((p, outcome, price.cost(outcome.tokens_in, outcome.tokens_out)))

    window = min(per_worker, config.max_concurrency) * 2
    futures = []
    next_call, in_flight, waiting = 0, 0, False
    waited_since = None  # when this worker began waiting for other workers' reservations alone
    held_too_long = longest_call()
    try:
        while next_call < len(calls) or in_flight:
            while next_call < len(calls) and in_flight < window:
                answer = guard.reserve()
                alone = answer == budgets.WAIT and in_flight == 0 and waited_since is not None
                if alone and time.monotonic() - waited_since > held_too_long:  # held by a worker that died
                    answer = guard.give_up()
                if answer == budgets.WAIT:  # held by calls in flight: ask again when one returns
                    waiting = True
                    break
                waiting, waited_since = False, None
                p = calls[next_call]
                next_call += 1
                if answer == budgets.SPENT:
                    yield p, None, (0.0, 0.0)
                    for rest in calls[next_call:]:
                        yield rest, None, (0.0, 0.0)
                    next_call = len(calls)
                    break
                futures.append(asyncio.run_coroutine_threadsafe(one(p), loop))
                in_flight += 1
            if not in_flight:
                if waiting:  # other workers' calls hold the amount
                    waited_since = waited_since or time.monotonic()
                    time.sleep(0.05)
                    if tick is not None:
                        tick()
                    continue
                break
            try:
                p, outcome, cost = finished.get(timeout=1.0)
            except queue.Empty:
                if tick is not None:
                    tick()
                continue
            if tick is not None:
                tick()
            in_flight -= 1
            if isinstance(outcome, BaseException):
                raise outcome
            guard.settle(cost[1] if currency == "JPY" else cost[0])
            yield p, outcome, cost
    finally:
        for future in futures:
            future.cancel()
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(gateway.close(), loop).result(timeout=10)


# The calls of every run in this process go through one event loop in a helper thread, and each endpoint
# through one HTTP client on it: a run's TLS context and connections are not made again for each run
# (with chunked jobs a worker makes many short runs). A forked child starts its own loop.
_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0
_clients: dict[tuple, object] = {}


def _call_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid() or _loop.is_closed():
            _loop, _loop_pid = asyncio.new_event_loop(), os.getpid()
            _clients.clear()
            threading.Thread(target=_loop.run_forever, name="llm-calls", daemon=True).start()
        return _loop


async def _open_gateway(config: GatewayConfig) -> Gateway:
    key = (config.base_url, config.api_key, config.timeout)
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = open_client(config)
    return Gateway(config, client=client)


async def _semaphore(size: int) -> asyncio.Semaphore:
    return asyncio.Semaphore(size)


def _judge_baseline(prompt: Prompt, items: list[Item], progress) -> Report:
    if prompt.baseline is None:
        raise RuntimeError(f"{prompt.ref} has no offline baseline: configure LLM_BASE_URL to run it")
    started = time.monotonic()
    results = []
    for index, item in enumerate(items, start=1):
        value = prompt.baseline(item.variables)
        parsed = {key: value[key] for key in ("score", "label", "reasoning")}
        results.append(Result(item.key, "ok", parsed, baseline.BASELINE_MODEL))
        if progress:
            progress(index, len(items))
    return Report(
        prompt=prompt.ref,
        model=baseline.BASELINE_MODEL,
        backend="baseline",
        results=results,
        wall_seconds=time.monotonic() - started,
        counts={"ok": len(results)} if results else {},
    )
