"""No call paid twice: a cache key is claimed before it is asked, other workers wait for its answer.

"Another worker" is a claim row written here under another token; the clock is injected (``llm.claims.clock``),
so waiting and staleness need no real sleep. Runs on SQLite and PostgreSQL.
"""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from llm import claims
from llm.models import LLMCacheEntry, LLMCall, LLMRun
from llm.prompts import get
from llm.services import Budget, Item, _plan, judge, stale_after
from tests.fakes.openai_server import Reply

pytestmark = pytest.mark.django_db
GV = "layer3.gv_relevance@1"
OTHER = "other-host:4242:0123456789ab"
ANSWER = {"score": 1, "label": "generic", "reasoning": "the other worker's answer"}


def _items(n=1):
    return [
        Item(f"item-{i}", {"concernText": "転職するか迷っています", "generatedText": f"案 {i}", "widgetType": "list"})
        for i in range(n)
    ]


def _key(item):
    return _plan(get(GV), [item], model="fake-model", force=False).pending[0].key


class FakeClock:
    """Time that moves only when someone sleeps; ``on_sleep(clock)`` plays the other workers meanwhile."""

    def __init__(self, start, on_sleep=None):
        self.current, self.slept, self.on_sleep = start, 0.0, on_sleep

    def now(self):
        return self.current

    def sleep(self, seconds):
        self.slept += seconds
        self.current += timedelta(seconds=seconds)
        if self.on_sleep is not None:
            self.on_sleep(self)


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock(timezone.now())
    monkeypatch.setattr(claims, "clock", fake)
    return fake


def _claimed_by_other(key, at):
    return LLMCacheEntry.objects.create(cache_key=key, status="pending", claimed_by=OTHER, claimed_at=at)


def _other_call(key, status="ok", parsed=ANSWER, error=""):
    return LLMCall.objects.create(
        cache_key=key, prompt=GV, model="fake-model", endpoint="x", request={}, status=status,
        parsed=parsed, error=error, attempts=1, cost_usd=0.5, cost_jpy=75.0,
    )  # fmt: skip


def _settle_as_other(key, status="ok", **call):
    def settle(_clock):
        entry = LLMCacheEntry.objects.get(cache_key=key)
        if entry.status == "pending" and entry.claimed_by == OTHER:
            made = _other_call(key, status, **call)
            entry.status, entry.call = ("done" if status == "ok" else "failed"), made
            entry.save()

    return settle


def test_a_question_another_worker_is_asking_is_waited_for_and_answered_at_no_cost(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    _claimed_by_other(key, clock.now())
    clock.on_sleep = _settle_as_other(key)
    report = judge(GV, [item])
    [result] = report.results
    assert fake_llm.request_count == 0 and clock.slept > 0  # it waited, it did not ask
    assert result.status == "ok" and result.cached and result.parsed == ANSWER and result.cost_usd == 0
    assert result.call_id == LLMCall.objects.get().pk
    assert report.requests == 0 and report.cost_usd == 0 and report.cache_hits == 1
    run = LLMRun.objects.get()
    assert run.cache_hits == 1 and run.requests == 0 and run.cost_usd == 0 and run.succeeded == 1


def test_only_the_missing_questions_are_asked_while_the_others_are_waited_for(fake_llm, clock):
    items = _items(4)
    waited = [_key(item) for item in items[:2]]
    for key in waited:
        _claimed_by_other(key, clock.now())
    settle = [_settle_as_other(key) for key in waited]
    clock.on_sleep = lambda c: [s(c) for s in settle]
    report = judge(GV, items)
    assert fake_llm.request_count == 2 and report.requests == 2
    assert [r.cached for r in report.results] == [True, True, False, False] and report.cache_hits == 2
    paid = LLMCall.objects.filter(run_id=report.run_id)
    assert paid.count() == 2 and report.cost_usd == pytest.approx(sum(c.cost_usd for c in paid))
    assert set(LLMCacheEntry.objects.values_list("status", flat=True)) == {"done"}


def test_a_failure_of_the_other_worker_is_this_items_failure_and_a_later_run_asks_again(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    _claimed_by_other(key, clock.now())
    clock.on_sleep = _settle_as_other(key, "error", parsed=None, error="InternalServerError: down")
    [result] = judge(GV, [item]).results
    assert result.status == "error" and "down" in result.error and not result.cached and result.cost_usd == 0
    assert fake_llm.request_count == 0
    assert LLMCacheEntry.objects.get().status == "failed"
    [again] = judge(GV, [item]).results  # the failure released the key: the next run claims it and asks
    assert again.status == "ok" and not again.cached and fake_llm.request_count == 1
    entry = LLMCacheEntry.objects.get()
    assert entry.status == "done" and entry.call_id == again.call_id


def test_a_claim_given_back_while_waiting_is_claimed_and_asked_here(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    _claimed_by_other(key, clock.now())
    clock.on_sleep = lambda c: LLMCacheEntry.objects.filter(cache_key=key, claimed_by=OTHER).delete()
    [result] = judge(GV, [item]).results
    assert result.status == "ok" and not result.cached and fake_llm.request_count == 1
    assert LLMCacheEntry.objects.get().call_id == result.call_id


def test_a_stale_claim_is_taken_over_at_once(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    _claimed_by_other(key, clock.now() - stale_after() - timedelta(seconds=1))  # its worker died
    [result] = judge(GV, [item]).results
    assert result.status == "ok" and not result.cached and fake_llm.request_count == 1 and clock.slept == 0
    entry = LLMCacheEntry.objects.get()
    assert entry.status == "done" and entry.claimed_by != OTHER and entry.call_id == result.call_id


def test_a_claim_that_stops_showing_life_is_waited_for_until_stale_then_taken_over(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    claimed = clock.now()
    _claimed_by_other(key, claimed)
    seen = []
    clock.on_sleep = lambda c: seen.append((c.now() - claimed, fake_llm.request_count))
    started = time.monotonic()
    [result] = judge(GV, [item]).results
    assert result.status == "ok" and fake_llm.request_count == 1
    assert all(asked == 0 for _waited, asked in seen)  # nothing asked while the claim was alive
    assert seen[-1][0] > stale_after() and clock.slept >= stale_after().total_seconds()
    assert time.monotonic() - started < 5  # the clock moved, nobody slept


def test_a_claim_kept_alive_is_not_taken_over(fake_llm, clock):
    [item] = _items()
    key = _key(item)
    _claimed_by_other(key, clock.now())
    settle = _settle_as_other(key)

    def alive(c):  # the other worker's heartbeat, for twice the stale window, then its answer
        if c.slept < 2 * stale_after().total_seconds():
            LLMCacheEntry.objects.filter(cache_key=key).update(claimed_at=c.now())
        else:
            settle(c)

    clock.on_sleep = alive
    [result] = judge(GV, [item]).results
    assert result.cached and result.parsed == ANSWER and fake_llm.request_count == 0


def test_the_claimer_refreshes_its_claims_while_it_works(clock):
    flight = claims.Claims(timedelta(seconds=40))
    split = flight.claim(["k1", "k2"])
    assert split.mine == {"k1", "k2"}
    before = LLMCacheEntry.objects.get(cache_key="k1").claimed_at
    clock.current += timedelta(seconds=5)
    flight.beat()  # not due yet
    assert LLMCacheEntry.objects.get(cache_key="k1").claimed_at == before
    clock.current += timedelta(seconds=6)
    flight.beat()
    assert set(LLMCacheEntry.objects.values_list("claimed_at", flat=True)) == {clock.now()}


def test_of_two_workers_taking_over_one_stale_claim_one_wins(clock):
    _claimed_by_other("k", clock.now())
    clock.current += timedelta(minutes=30)
    first, second = claims.Claims(timedelta(seconds=10)), claims.Claims(timedelta(seconds=10))
    row = LLMCacheEntry.objects.get()
    assert first._take_over(row, clock.now()) is True
    assert second._take_over(row, clock.now()) is False  # it read the row before the first took it
    split = second.claim(["k"])
    assert split.waiting == {"k"} and not split.mine
    assert LLMCacheEntry.objects.get().claimed_by == first.token


def test_claims_the_budget_stopped_are_given_back(fake_llm):
    report = judge(GV, _items(3), budget=Budget(0.0, "USD"))
    assert report.counts == {"not_evaluated": 3} and fake_llm.request_count == 0
    assert not LLMCacheEntry.objects.exists()


def test_a_run_stopped_by_an_exception_gives_its_claims_back(fake_llm):
    def stop(done, total):
        if done == 1:
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError, match="stopped"):
        judge(GV, _items(3), progress=stop)
    assert not LLMCacheEntry.objects.filter(status="pending").exists()


def test_a_failed_call_settles_its_key_as_failed_with_the_call(fake_llm):
    fake_llm.script(Reply.bad_request("no"))
    [result] = judge(GV, _items()).results
    entry = LLMCacheEntry.objects.get()
    assert result.status == "error" and entry.status == "failed" and entry.call_id == result.call_id


def test_force_asks_again_without_waiting_and_its_answer_is_the_cached_one(fake_llm, clock):
    [item] = _items()
    first = judge(GV, [item]).results[0]
    fake_llm.script(Reply.json(ANSWER))
    forced = judge(GV, [item], force=True).results[0]
    assert fake_llm.request_count == 2 and forced.parsed == ANSWER and forced.call_id != first.call_id
    assert LLMCacheEntry.objects.get().call_id == forced.call_id
    assert judge(GV, [item]).results[0].call_id == forced.call_id and fake_llm.request_count == 2


def test_force_does_not_wait_for_nor_overwrite_another_workers_open_claim(fake_llm, clock):
    [item] = _items()
    _claimed_by_other(_key(item), clock.now())
    [result] = judge(GV, [item], force=True).results
    assert result.status == "ok" and fake_llm.request_count == 1 and clock.slept == 0
    entry = LLMCacheEntry.objects.get()
    assert entry.status == "pending" and entry.claimed_by == OTHER and entry.call is None
