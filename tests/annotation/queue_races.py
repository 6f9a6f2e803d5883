"""What the PostgreSQL race tests of the quota share: an import run in a thread of its own, and the queue's
next-item statement held open on an item's entry while that import recounts it."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from datetime import timedelta

from django.db import connection, connections, transaction
from django.utils import timezone

from annotation.models import Assignment, QueueEntry

WAIT = 30  # seconds: a bound on waiting for the other thread, never a pause


def in_thread(work, outcome: dict) -> threading.Thread:
    """A thread running ``work()`` on its own connection: ``outcome`` gets its backend ``pid``, then its result as
    ``summary`` or its exception as ``error`` (the main thread asserts on them)."""

    def run():
        try:
            outcome["pid"] = connection.cursor().connection.info.backend_pid
            outcome["summary"] = work()
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connections.close_all()

    return threading.Thread(target=run)


def waiting_for_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted", [pid])
        return cursor.fetchone() is not None


@contextmanager
def reservation_in_flight(entry: QueueEntry, batch, holder):
    """The queue's next-item statement for ``holder``, held open inside the ``with``: it has locked ``entry``,
    reserved its item and counted 2; it commits when the ``with`` ends."""
    locked, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def queue_in_flight():  # what the queue's next-item statement does, held open
        try:
            with transaction.atomic():
                QueueEntry.objects.select_for_update().get(pk=entry.pk)
                Assignment.objects.create(dialogue_id=entry.pk, batch=batch, annotator=holder,
                                          expires_at=timezone.now() + timedelta(hours=1))  # fmt: skip
                QueueEntry.objects.filter(pk=entry.pk).update(taken_count=2)
                locked.set()
                assert release.wait(WAIT)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    queue = threading.Thread(target=queue_in_flight)
    queue.start()
    assert locked.wait(WAIT)
    try:
        yield
    finally:
        release.set()
        queue.join(WAIT)
    assert not errors, errors


def wait_until_blocked(outcome: dict, thread: threading.Thread) -> None:
    """Until the thread's statement waits for a row lock (its recount meets the entry held open)."""
    deadline = time.monotonic() + WAIT
    while not ("pid" in outcome and waiting_for_a_lock(outcome["pid"])):
        assert time.monotonic() < deadline and thread.is_alive(), outcome
