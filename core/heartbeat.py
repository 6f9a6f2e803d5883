"""A sign of life written from a helper thread while a worker holds something (a job, a chunk, LLM claims).

Another process takes over, or fails, what a worker holds once its heartbeat is older than the stale window
(``JOB_CHUNK_STALE_SECONDS``), so the beat must go on while the worker is busy and survive a database hiccup:
a beat that fails (the connection was terminated, the server restarted) is logged, the thread's connection is
closed, and the next beat opens a new one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import contextmanager

from django.db import connection

logger = logging.getLogger(__name__)


def beat_interval(stale_seconds: float) -> float:
    """How often to beat so that a live worker's heartbeat is never older than ``stale_seconds``."""
    return max(0.2, stale_seconds / 4)


@contextmanager
def beating(update: Callable[[], object], *, interval: float, name: str):
    """Call ``update`` every ``interval`` seconds from a helper thread while the ``with`` body runs."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    update()
                except Exception as exc:  # a missed beat: try again with a new connection
                    logger.warning("%s: heartbeat failed (%s); trying again", name, type(exc).__name__)
                    connection.close()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"{name}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
