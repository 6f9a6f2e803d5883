"""A long list worked on in several processes, the results in the list's order (pure: no Django).

    for result in map_chunks(make_worker, (path, language), items, jobs=4, local=worker):
        ...  # one result per chunk, the chunks in the order of ``items``

``items`` is cut into consecutive chunks of at least ``min_chunk`` items, about four per process so
that a slow chunk does not leave the other processes idle. Each process (started with ``spawn``: a
fresh interpreter, so nothing of the caller's state, threads or open connections is shared) calls
``make_worker(*args)`` once, e.g. to load a rule set and an analyser, and then applies what it returned
to each chunk it is given. ``make_worker`` and ``args`` must pickle: a module-level function and plain
values. When one process would do (``jobs`` is 1, or ``items`` make a single chunk) nothing is started:
``local`` (or ``make_worker(*args)``) runs here.

An exception raised by ``make_worker`` in a process is raised again, as itself, from the first chunk
that process is given (not as the pool's ``BrokenProcessPool``); one raised by a worker is raised
from its chunk. Either way the results before it have been yielded and none after it are.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_CHUNK = 250  # items: below this a chunk costs more to send to a process than to work on here
CHUNKS_PER_PROCESS = 4

_worker: Callable[[Any], Any] | None = None
_failure: BaseException | None = None


def chunk_bounds(count: int, *, jobs: int, min_chunk: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each chunk of ``count`` items for ``jobs`` processes, in order, covering all."""
    if min_chunk is None:
        min_chunk = MIN_CHUNK
    if jobs < 1:
        raise ValueError(f"jobs: expected 1 or more, got {jobs}")
    if count == 0:
        return []
    size = max(min_chunk, math.ceil(count / (jobs * CHUNKS_PER_PROCESS)), 1)
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def processes_for(count: int, *, jobs: int, min_chunk: int | None = None) -> int:
    """How many processes ``map_chunks`` runs for ``count`` items (1: none is started)."""
    return max(1, min(jobs, len(chunk_bounds(count, jobs=jobs, min_chunk=min_chunk))))


def map_chunks(
    make_worker: Callable[..., Callable[[Sequence[T]], R]],
    args: tuple,
    items: Sequence[T],
    *,
    jobs: int,
    local: Callable[[Sequence[T]], R] | None = None,
    min_chunk: int | None = None,
) -> Iterator[R]:
    """Each chunk's result, in the order of ``items`` (module docstring)."""
    chunks = [items[start:end] for start, end in chunk_bounds(len(items), jobs=jobs, min_chunk=min_chunk)]
    processes = processes_for(len(items), jobs=jobs, min_chunk=min_chunk)
    if processes <= 1:
        worker = local if local is not None else make_worker(*args)
        for chunk in chunks:
            yield worker(chunk)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context, initializer=_start, initargs=(make_worker, args)) as pool:
        try:
            yield from pool.map(_run, chunks)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _start(make_worker: Callable[..., Callable], args: tuple) -> None:
    """In each process, once: its worker, or the exception to raise from its chunks."""
    global _worker, _failure
    try:
        _worker = make_worker(*args)
    except Exception as exc:
        _failure = exc


def _run(chunk: Sequence) -> Any:
    if _failure is not None:
        raise _failure
    assert _worker is not None  # set by _start before any chunk
    return _worker(chunk)
