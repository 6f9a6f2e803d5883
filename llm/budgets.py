"""Budget guards for the gateway's calls: one run's in memory, or one shared by every worker in the database.

``_run_calls`` asks ``reserve()`` before each call and ``settle()`` after it with what it cost.
``reserve`` answers ``TAKEN`` (make the call), ``WAIT`` (the amount is held by calls in flight, which may cost
less than their estimates: ask again when one returns) or ``SPENT`` (refused with nothing in flight: the
budget is spent, within one call of its amount). ``LocalGuard`` keeps the sums in this process (one ``judge``
call); ``SharedGuard`` keeps them in an ``LLMBudget`` row, so the workers that share a run share its amount:
the reservation is one conditional ``UPDATE``, atomic under PostgreSQL's row lock and SQLite's single writer.
"""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from llm.models import LLMBudget

TAKEN, WAIT, SPENT = "taken", "wait", "spent"


class NoGuard:
    def reserve(self) -> str:
        return TAKEN

    def settle(self, cost: float) -> None:
        pass

    def give_up(self) -> str:
        return SPENT


class LocalGuard:
    def __init__(self, amount: float, per_call: float) -> None:
        self.amount, self.per_call = amount, per_call
        self.spent = self.reserved = 0.0

    def reserve(self) -> str:
        if self.spent + self.reserved + self.per_call > self.amount:
            return WAIT if self.reserved > 1e-12 else SPENT
        self.reserved += self.per_call
        return TAKEN

    def settle(self, cost: float) -> None:
        self.reserved -= self.per_call
        self.spent += cost

    def give_up(self) -> str:
        return SPENT


class SharedGuard:
    def __init__(self, ledger_key: str, per_call: float) -> None:
        self.key, self.per_call = ledger_key, per_call

    def reserve(self) -> str:
        rows = LLMBudget.objects.filter(key=self.key, exhausted_at__isnull=True)
        if rows.filter(amount__gte=F("spent") + F("reserved") + self.per_call).update(
            reserved=F("reserved") + self.per_call
        ):
            return TAKEN
        # Refused: spent only if nobody holds a reservation (checked and marked in one statement).
        if rows.filter(reserved__lte=1e-9).update(exhausted_at=timezone.now()) or not rows.exists():
            return SPENT
        return WAIT

    def give_up(self) -> str:
        """Reservations held longer than any call lasts belong to a worker that died: the run stops here,
        never spending past its amount (what the dead worker reserved stays counted)."""
        LLMBudget.objects.filter(key=self.key, exhausted_at__isnull=True).update(exhausted_at=timezone.now())
        return SPENT

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
