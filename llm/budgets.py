"""Budget guards for the gateway's calls: one run's in memory, or one shared by every worker in the database.

``_run_calls`` asks ``reserve()`` before each call (False: the call is not made) and ``settle()`` after
it with what it cost. ``LocalGuard`` keeps the sums in this process (one ``judge`` call); ``SharedGuard``
keeps them in an ``LLMBudget`` row, so the workers that share a run share its amount: the reservation
is one conditional ``UPDATE``, atomic under PostgreSQL's row lock and SQLite's single writer.
"""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from llm.models import LLMBudget


class NoGuard:
    def reserve(self) -> bool:
        return True

    def settle(self, cost: float) -> None:
        pass


class LocalGuard:
    def __init__(self, amount: float, per_call: float) -> None:
        self.amount, self.per_call = amount, per_call
        self.spent = self.reserved = 0.0

    def reserve(self) -> bool:
        if self.spent + self.reserved + self.per_call > self.amount:
            return False
        self.reserved += self.per_call
        return True

    def settle(self, cost: float) -> None:
        self.reserved -= self.per_call
        self.spent += cost


class SharedGuard:
    def __init__(self, ledger_key: str, per_call: float) -> None:
        self.key, self.per_call = ledger_key, per_call

    def reserve(self) -> bool:
        rows = LLMBudget.objects.filter(key=self.key, exhausted_at__isnull=True)
        taken = rows.filter(amount__gte=F("spent") + F("reserved") + self.per_call).update(
            reserved=F("reserved") + self.per_call
        )
        if not taken:
            rows.update(exhausted_at=timezone.now())
        return bool(taken)

    def settle(self, cost: float) -> None:
        LLMBudget.objects.filter(key=self.key).update(
            reserved=F("reserved") - self.per_call, spent=F("spent") + cost, calls=F("calls") + 1
        )


def shared_budget(key: str, amount: float, currency: str) -> LLMBudget:
    """The ledger row ``key`` (created with ``amount`` the first time; a resumed run keeps what it spent)."""
    ledger, _created = LLMBudget.objects.get_or_create(key=key, defaults={"amount": amount, "currency": currency})
    return ledger


def exhausted(key: str) -> bool:
    return LLMBudget.objects.filter(key=key, exhausted_at__isnull=False).exists()
