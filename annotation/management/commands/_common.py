"""Shared bits of the annotation commands: input errors become CommandError with every problem."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError

from annotation.dataset import RatingSet, rating_set
from annotation.records import InputError, ProblemLog, load_annotations, readable_paths


@contextmanager
def input_errors_as_command_error():
    try:
        yield
    except InputError as exc:
        raise CommandError(f"nothing was stored or written: {exc}") from None


@contextmanager
def atomic_output(path: str | Path, *, mode: str = "w"):
    """Write to a temporary file next to ``path`` and move it into place only when complete."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding="utf-8", newline="\n") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, data) -> None:
    """Strict JSON (no NaN/Infinity), UTF-8, written atomically."""
    with atomic_output(path) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, allow_nan=False)
        handle.write("\n")


def write_jsonl(path: str | Path, rows) -> int:
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
    count = 0
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(encode(row) + "\n")
            count += 1
    return count


def add_float_option(parser, name: str, default: float, help: str) -> None:
    """``--min_kappa`` as in the seed, and ``--min-kappa`` as is usual; both set the same value."""
    dashed = name.replace("_", "-")
    flags = [f"--{name}"] + ([f"--{dashed}"] if dashed != name else [])
    parser.add_argument(*flags, dest=name, type=float, default=default, help=f"{help} (default {default})")


def read_rating_files(paths: list[str]) -> RatingSet:
    """Ratings of seed A.3 output files as arrays; any problem in any file stops the command."""
    with input_errors_as_command_error():
        log = ProblemLog()
        records = load_annotations(readable_paths(paths, log), log=log)
        log.raise_if_any()
    if not records:
        raise CommandError(f"no ratings in {', '.join(paths)}")
    return rating_set(records)
