"""Single-flight for cacheable LLM calls: of all workers asking one question, one asks, the others wait.

A question's cache key has one ``LLMCacheEntry`` row (the key is unique). A worker claims the key by
inserting the row (``INSERT … ON CONFLICT DO NOTHING``, keys in sorted order so that two inserting
workers never deadlock) or by taking over a failed or stale claim with an update conditioned on the
state it read (one of two racing workers wins the row). Only the claimer calls the endpoint; it stores
the call and marks the row ``done`` (the answer) or ``failed`` in one transaction, or deletes the row
when the budget stopped it before the call. The others poll the row: ``done`` is their answer at no
cost, ``failed`` their failure (not asked again in this run; a later run may claim it again), a deleted
or stale row is claimed again. A claimer refreshes ``claimed_at`` while it works (``beat``); a claim
not refreshed within ``stale_after`` belonged to a worker that died, and is taken over.

Claims take effect at commit: call ``judge`` outside a transaction to share work between workers.
Time comes from ``clock`` (tests replace it to move time without sleeping).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from llm.models import LLMCacheEntry, LLMCall

_CHUNK = 500
_FIELDS = ("cache_key", "status", "claimed_by", "claimed_at", "call", "call__status", "call__parsed", "call__error")
Status = LLMCacheEntry.Status


class Clock:
    def now(self) -> datetime:
        return timezone.now()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


clock = Clock()


@dataclass
class Split:
    """The keys of one claim round: asked here, already answered (the row), or claimed by another worker."""

    mine: set[str] = field(default_factory=set)
    settled: dict[str, LLMCacheEntry] = field(default_factory=dict)  # done or failed, with ``call`` loaded
    waiting: set[str] = field(default_factory=set)


def _entries(keys: Iterable[str]) -> dict[str, LLMCacheEntry]:
    keys, found = sorted(keys), {}
    for start in range(0, len(keys), _CHUNK):
        rows = LLMCacheEntry.objects.filter(cache_key__in=keys[start : start + _CHUNK]).select_related("call")
        found.update((row.cache_key, row) for row in rows.only(*_FIELDS))
    return found


def answers(keys: Iterable[str], *, since: datetime | None = None) -> dict[str, LLMCall]:
    """The stored answer of each key that has one (the cache); with ``since``, only answers given since then."""
    return {
        key: row.call
        for key, row in _entries(keys).items()
        if row.status == Status.DONE and row.call and (since is None or row.claimed_at >= since)
    }


class Claims:
    """The claims of one ``judge`` run, under one token."""

    def __init__(self, stale_after: timedelta, *, since: datetime | None = None) -> None:
        """``since``: an answer given before then is asked again (a refresh that spans several runs)."""
        self.since = since
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"[-200:]
        self.stale_after = stale_after
        self.beat_seconds = max(0.5, stale_after.total_seconds() / 4)
        self._last_beat = clock.now()

    def _stale(self, row: LLMCacheEntry, now: datetime) -> bool:
        return row.status == Status.PENDING and row.claimed_at < now - self.stale_after

    def _claimable(self, row: LLMCacheEntry, now: datetime) -> bool:
        if row.status == Status.DONE and self.since is not None and row.claimed_at < self.since:
            return True  # answered before the refresh began
        return row.status == Status.FAILED or (row.status == Status.DONE and row.call is None) or self._stale(row, now)

    def _take_over(self, row: LLMCacheEntry, now: datetime) -> bool:
        """Claim ``row`` if it is still as read (one statement: of two racing workers, one wins)."""
        taken = LLMCacheEntry.objects.filter(
            pk=row.pk, status=row.status, claimed_by=row.claimed_by, claimed_at=row.claimed_at
        ).update(status=Status.PENDING, claimed_by=self.token, claimed_at=now, call=None)
        return taken == 1

    def claim(self, keys: Iterable[str]) -> Split:
        keys, split = sorted(set(keys)), Split()
        now = clock.now()
        for start in range(0, len(keys), _CHUNK):
            LLMCacheEntry.objects.bulk_create(
                [
                    LLMCacheEntry(cache_key=key, status=Status.PENDING, claimed_by=self.token, claimed_at=now)
                    for key in keys[start : start + _CHUNK]
                ],
                ignore_conflicts=True,
            )
        rows = _entries(keys)
        for key in keys:
            row = rows.get(key)
            if row is None:  # released between the insert and the read: the next round claims it
                split.waiting.add(key)
            elif row.status == Status.PENDING and row.claimed_by == self.token:
                split.mine.add(key)
            elif self._claimable(row, now):
                (split.mine if self._take_over(row, now) else split.waiting).add(key)
            elif row.status == Status.PENDING:
                split.waiting.add(key)
            else:
                split.settled[key] = row
        self._last_beat = now
        return split

    def beat(self) -> None:
        """Refresh this run's open claims when due, so that other workers keep waiting for them."""
        now = clock.now()
        if (now - self._last_beat).total_seconds() >= self.beat_seconds:
            LLMCacheEntry.objects.filter(claimed_by=self.token, status=Status.PENDING).update(claimed_at=now)
            self._last_beat = now

    def finish(self, key: str, call: LLMCall) -> None:
        """The claimer's call is stored (same transaction): its answer, or its failure, settles the key."""
        status = Status.DONE if call.status == LLMCall.Status.OK else Status.FAILED
        LLMCacheEntry.objects.filter(cache_key=key, claimed_by=self.token, status=Status.PENDING).update(
            status=status, call=call, claimed_at=clock.now()
        )

    def release(self, keys: Iterable[str]) -> None:
        """Give back claims that were not asked (the budget stopped them): another worker may ask."""
        keys = sorted(keys)
        for start in range(0, len(keys), _CHUNK):
            LLMCacheEntry.objects.filter(
                cache_key__in=keys[start : start + _CHUNK], claimed_by=self.token, status=Status.PENDING
            ).delete()

    def release_all(self) -> None:
        LLMCacheEntry.objects.filter(claimed_by=self.token, status=Status.PENDING).delete()

    def record_forced(self, key: str, call: LLMCall) -> None:
        """A forced call (cache bypassed) that succeeded becomes the key's answer, unless a claim is open."""
        if call.status != LLMCall.Status.OK:
            return  # the earlier answer, if any, stays
        now = clock.now()
        with transaction.atomic():
            updated = (
                LLMCacheEntry.objects.filter(cache_key=key)
                .exclude(status=Status.PENDING)
                .update(status=Status.DONE, call=call, claimed_by=self.token, claimed_at=now)
            )
            if not updated:
                answer = LLMCacheEntry(cache_key=key, status=Status.DONE, call=call, claimed_by=self.token)
                answer.claimed_at = now
                LLMCacheEntry.objects.bulk_create([answer], ignore_conflicts=True)

    def wait(self, keys: Iterable[str], *, poll: float = 0.05, poll_max: float = 1.0):
        """Poll other workers' claims on ``keys``: ``(settled rows by key, keys to claim again)``.

        A key is settled when its row is done or failed; it is to be claimed again when its row was
        released (deleted) or went stale. The wait is bounded by the claimers' lives: a claim not
        refreshed within ``stale_after`` ends it.
        """
        left, settled, again = set(keys), {}, set()
        while left:
            now = clock.now()
            rows = _entries(left)
            for key in sorted(left):
                row = rows.get(key)
                if row is None or self._stale(row, now) or (row.status == Status.DONE and row.call is None):
                    again.add(key)
                elif row.status != Status.PENDING:
                    settled[key] = row
            left -= again | set(settled)
            if left:
                clock.sleep(poll)
                poll = min(poll_max, poll * 1.5)
        return settled, again
