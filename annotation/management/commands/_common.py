"""Shared bits of the annotation commands: input errors become CommandError with every problem."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError

from annotation.records import InputError


@contextmanager
def input_errors_as_command_error():
    try:
        yield
    except InputError as exc:
        raise CommandError(f"nothing was stored: {exc}") from None


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
