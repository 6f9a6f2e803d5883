"""Budget guards (``llm.budgets``): a reservation before each call, settled with its cost; shared in the database."""

import pytest

from llm import budgets
from llm.models import LLMBudget


def test_a_local_guard_waits_for_calls_in_flight_before_it_counts_the_budget_as_spent():
    guard = budgets.LocalGuard(10.0, per_call=4.0)
    assert [guard.reserve(), guard.reserve()] == [budgets.TAKEN, budgets.TAKEN]
    assert guard.reserve() == budgets.WAIT  # 8 reserved: another 4 would pass 10, but the two may cost less
    guard.settle(1.0)
    guard.settle(1.0)
    assert [guard.reserve(), guard.reserve()] == [budgets.TAKEN, budgets.TAKEN]  # 2 spent + 8 reserved
    assert guard.reserve() == budgets.WAIT
    guard.settle(4.0)
    guard.settle(4.0)
    assert (guard.spent, guard.reserved) == (10.0, 0.0)
    assert guard.reserve() == budgets.SPENT  # 10 spent, nothing in flight


@pytest.mark.django_db
def test_a_shared_guard_reserves_settles_and_marks_the_budget_spent_in_the_database():
    ledger = budgets.shared_budget("layer3.run:1", 10.0, "JPY")
    assert budgets.shared_budget("layer3.run:1", 99.0, "JPY").pk == ledger.pk  # the first amount stays
    first, second = budgets.SharedGuard("layer3.run:1", 4.0), budgets.SharedGuard("layer3.run:1", 4.0)
    assert [first.reserve(), second.reserve(), first.reserve()] == [budgets.TAKEN, budgets.TAKEN, budgets.WAIT]
    first.settle(3.5)
    second.settle(3.5)
    ledger.refresh_from_db()
    assert (ledger.spent, ledger.reserved, ledger.calls, ledger.exhausted_at) == (7.0, 0.0, 2, None)
    assert not budgets.exhausted("layer3.run:1")
    assert first.reserve() == budgets.SPENT and budgets.exhausted("layer3.run:1")
    assert second.reserve() == budgets.SPENT  # one worker's refusal stops every worker


@pytest.mark.django_db
def test_reservations_left_by_a_dead_worker_stop_the_run_rather_than_overspend():
    budgets.shared_budget("run:dead", 10.0, "USD")
    dead, alive = budgets.SharedGuard("run:dead", 6.0), budgets.SharedGuard("run:dead", 6.0)
    assert dead.reserve() == budgets.TAKEN  # and its worker is killed before it settles
    assert alive.reserve() == budgets.WAIT
    assert alive.give_up() == budgets.SPENT and budgets.exhausted("run:dead")
    assert LLMBudget.objects.get(key="run:dead").reserved == 6.0
