"""Migration llm 0002 gives each cache key of the ledger one entry, choosing among duplicates deterministically."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE, AFTER = [("llm", "0001_initial")], [("llm", "0002_cache_entries")]
T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    yield
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def _ledger(apps):
    """Calls of earlier releases: repeated keys from forced regenerations, retried failures and races."""
    LLMCall = apps.get_model("llm", "LLMCall")
    made = {}

    def call(name, key, status, minutes):
        made[name] = LLMCall.objects.create(
            cache_key=key, prompt="p@1", model="m", endpoint="e", request={}, status=status, attempts=1,
            parsed={"name": name} if status == "ok" else None, cost_usd=0.01,
            created_at=T0 + timedelta(minutes=minutes),
        ).pk  # fmt: skip

    call("a-old", "a" * 64, "ok", 1)
    call("a-new", "a" * 64, "ok", 2)  # a forced regeneration: the newer answer is the cached one
    call("b-error", "b" * 64, "error", 1)
    call("b-ok", "b" * 64, "ok", 2)
    call("b-parse", "b" * 64, "parse_error", 3)  # a later failure does not displace the answer
    call("c-error", "c" * 64, "error", 1)
    call("c-parse", "c" * 64, "parse_error", 2)  # only failures: the latest, and the key stays askable
    call("d-first", "d" * 64, "ok", 5)
    call("d-second", "d" * 64, "ok", 5)  # two workers answered in the same instant: the higher id
    call("e", "e" * 64, "ok", 7)
    return made


def test_each_key_gets_one_entry_with_its_latest_answer_and_no_paid_call_is_dropped():
    made = _ledger(_migrate(BEFORE))
    apps = _migrate(AFTER)
    LLMCall, LLMCacheEntry = apps.get_model("llm", "LLMCall"), apps.get_model("llm", "LLMCacheEntry")
    entries = {e.cache_key[0]: (e.status, e.call_id) for e in LLMCacheEntry.objects.all()}
    assert entries == {
        "a": ("done", made["a-new"]),
        "b": ("done", made["b-ok"]),
        "c": ("failed", made["c-parse"]),
        "d": ("done", made["d-second"]),
        "e": ("done", made["e"]),
    }
    assert LLMCall.objects.count() == 10  # every call made stays in the ledger, with its cost
    assert round(sum(LLMCall.objects.values_list("cost_usd", flat=True)), 6) == 0.1
    when = LLMCacheEntry.objects.get(cache_key="e" * 64).claimed_at
    assert when == T0 + timedelta(minutes=7)


def test_the_migration_is_reversible_and_gives_the_same_entries_again():
    made = _ledger(_migrate(BEFORE))
    _migrate(AFTER)
    _migrate(BEFORE)
    apps = _migrate(AFTER)
    LLMCacheEntry = apps.get_model("llm", "LLMCacheEntry")
    assert dict(LLMCacheEntry.objects.values_list("cache_key", "call_id"))["a" * 64] == made["a-new"]
    assert LLMCacheEntry.objects.count() == 5
