"""The registry of job kinds and the progress reporter handed to their handlers.

A handler is ``handler(job, progress) -> dict | None``; what it returns becomes ``Job.result``.
Apps register their kinds with ``@job_handler("app.kind")`` in a module imported from
``AppConfig.ready``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_HANDLERS: dict[str, Callable] = {}

# Returned by a handler that split its job into chunks (``core.chunks``): whoever finishes the last
# chunk writes the job's status and result, so the runner leaves them alone.
DEFERRED = object()


class JobCancelled(Exception):
    """Raised inside a handler when a user asked to cancel its job."""


def job_handler(kind: str):
    def register(func: Callable) -> Callable:
        if kind in _HANDLERS and _HANDLERS[kind] is not func:
            raise ValueError(f"job kind {kind!r} is registered twice")
        _HANDLERS[kind] = func
        return func

    return register


def get_handler(kind: str) -> Callable:
    try:
        return _HANDLERS[kind]
    except KeyError:
        raise LookupError(f"no handler for job kind {kind!r}; known: {sorted(_HANDLERS)}") from None


def registered_kinds() -> list[str]:
    return sorted(_HANDLERS)


class Progress:
    """Writes progress to the job row at most every ``interval`` seconds (and always at the end).

    ``save`` and ``is_cancelled`` are callables so this class needs no ORM and can be tested alone.
    """

    def __init__(
        self,
        save: Callable[[int, int | None, str], None],
        is_cancelled: Callable[[], bool],
        *,
        interval: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._save = save
        self._is_cancelled = is_cancelled
        self._interval = interval
        self._clock = clock
        self._last = float("-inf")
        self.done = 0
        self.total: int | None = None
        self.message = ""

    def __call__(self, done: int, total: int | None = None, message: str = "", *, force: bool = False) -> None:
        self.done = done
        if total is not None:
            self.total = total
        if message:
            self.message = message
        now = self._clock()
        if force or now - self._last >= self._interval or (self.total is not None and done >= self.total):
            self._last = now
            self._save(self.done, self.total, self.message)
            if self._is_cancelled():
                raise JobCancelled
