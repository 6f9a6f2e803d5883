"""core.parallel: chunks in order, in spawned processes, each process's worker made once."""

import os
from functools import partial

import pytest

from core.parallel import chunk_bounds, map_chunks, processes_for


def _scaled(factor, chunk):
    if 57 in chunk:
        raise ValueError("57 is not welcome")
    return [(os.getpid(), item * factor) for item in chunk]


def scaler(factor):
    """A worker factory (module level: the processes import it by name)."""
    return partial(_scaled, factor)


def broken(factor):
    raise LookupError(f"no worker for {factor}")


@pytest.mark.parametrize(("count", "jobs", "min_chunk"), [(0, 2, 5), (1, 4, 5), (10, 2, 5), (1001, 3, 7), (40, 8, 1)])
def test_chunks_cover_the_items_in_order(count, jobs, min_chunk):
    bounds = chunk_bounds(count, jobs=jobs, min_chunk=min_chunk)
    ends = [0] + [end for _, end in bounds]
    assert [start for start, _ in bounds] == ends[:-1] and ends[-1] == count
    assert all(end - start >= min_chunk for start, end in bounds[:-1])
    assert processes_for(count, jobs=jobs, min_chunk=min_chunk) == max(1, min(jobs, len(bounds)))


def test_a_short_list_is_one_chunk_and_large_ones_about_four_per_process():
    assert chunk_bounds(200, jobs=4) == [(0, 200)]  # under MIN_CHUNK (250): no process is started
    assert processes_for(200, jobs=4) == 1
    assert len(chunk_bounds(20_000, jobs=2)) == 8
    with pytest.raises(ValueError, match="jobs: expected 1 or more"):
        chunk_bounds(10, jobs=0)


def test_results_come_in_input_order_from_other_processes():
    chunks = list(map_chunks(scaler, (3,), [n for n in range(120) if n != 57], jobs=2, min_chunk=10))
    assert [value for chunk in chunks for _, value in chunk] == [3 * n for n in range(120) if n != 57]
    pids = {pid for chunk in chunks for pid, _ in chunk}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_one_process_runs_here_with_the_local_worker():
    made = []
    chunks = list(map_chunks(made.append, ("unused",), list(range(30)), jobs=1, local=scaler(2), min_chunk=10))
    assert made == [] and [value for chunk in chunks for _, value in chunk] == [2 * n for n in range(30)]
    assert {pid for chunk in chunks for pid, _ in chunk} == {os.getpid()}


def test_a_factory_error_is_raised_as_itself():
    with pytest.raises(LookupError, match="no worker for 5"):
        list(map_chunks(broken, (5,), list(range(40)), jobs=2, min_chunk=10))


def test_a_worker_error_comes_after_the_chunks_before_it():
    seen = []
    with pytest.raises(ValueError, match="57 is not welcome"):
        for chunk in map_chunks(scaler, (1,), list(range(100)), jobs=2, min_chunk=10):
            seen.extend(value for _, value in chunk)
    failing_start = next(start for start, end in chunk_bounds(100, jobs=2, min_chunk=10) if start <= 57 < end)
    assert seen == list(range(failing_start))  # every chunk before the one holding 57, none after
