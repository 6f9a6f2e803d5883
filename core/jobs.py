"""The registry of job kinds and the progress reporter handed to their handlers.

A handler is ``handler(job, progress) -> dict | None``; what it returns becomes ``Job.result``.
Apps register their kinds with ``@job_handler("app.kind")`` in a module imported from
``AppConfig.ready``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_HANDLERS: dict[str, Callable] = {}
_ON_FAILURE: dict[str, tuple[object, Callable | None]] = {}  # kind -> (what a failure keeps, on_ended)

# Returned by a handler that split its job into chunks (``core.chunks``): whoever finishes the last
# chunk writes the job's status and result, so the runner leaves them alone.
DEFERRED = object()


class JobCancelled(Exception):
    """Raised inside a handler when a user asked to cancel its job."""


def job_handler(kind: str, *, kept=None, on_ended: Callable | None = None):
    """Register ``handler(job, progress)`` for ``kind``.

    ``kept`` says in people's words (a lazy translation) what a failed job of this kind leaves stored, shown
    beside its failure. ``on_ended(job, reason)`` brings the kind's own rows and files in line when the job
    ends where its handler could not clean up: failed after its worker died or lost the database
    (``core.job_runner``, ``core.job_sweep``), or cancelled before it started. It reads ``job.status`` (failed
    or cancelled) and must be idempotent: after a handler's own failure it runs too.
    """

    def register(func: Callable) -> Callable:
        if kind in _HANDLERS and _HANDLERS[kind] is not func:
            raise ValueError(f"job kind {kind!r} is registered twice")
        _HANDLERS[kind] = func
        _ON_FAILURE[kind] = (kept, on_ended)
        return func

    return register


def failure_kept(kind: str):
    """What a failed job of ``kind`` leaves stored, in people's words (None: not said)."""
    return _ON_FAILURE.get(kind, (None, None))[0]


def ended_hook(kind: str) -> Callable | None:
    return _ON_FAILURE.get(kind, (None, None))[1]


def get_handler(kind: str) -> Callable:
    try:
        return _HANDLERS[kind]
    except KeyError:
        raise LookupError(f"no handler for job kind {kind!r}; known: {sorted(_HANDLERS)}") from None


# Parameters that only the worker needs: where an upload is kept on the server (``core.uploads``).
PRIVATE_PARAMS = frozenset({"file"})


def public_params(params: dict | None) -> dict:
    """A job's parameters as people see them (the API): without the server's own paths."""
    return {key: value for key, value in (params or {}).items() if key not in PRIVATE_PARAMS}


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
