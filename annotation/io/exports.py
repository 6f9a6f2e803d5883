"""Streamed exports of stored annotations to the seed A.3 output JSONL format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TextIO

from annotation.axes import AXES
from annotation.io.records import format_timestamp
from annotation.selectors import annotation_rows


def annotation_lines(*, batch_name: str | None = None) -> Iterator[str]:
    """One JSON line per stored annotation, read from the database in chunks (never all at once)."""
    rows = annotation_rows(batch_name=batch_name)
    dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
    n = len(AXES)
    for dialogue_id, annotator, created_at, seconds, *values in rows:
        record = {
            "id": dialogue_id,
            "annotator_id": annotator,
            "timestamp": format_timestamp(created_at),
            "annotations": dict(zip(AXES, values[:n], strict=True)),
            "confidence": dict(zip(AXES, values[n:], strict=True)),
        }
        if seconds is not None:
            record["seconds_spent"] = seconds
        yield dumps(record) + "\n"


def write_lines(lines: Iterator[str], out: TextIO, *, buffer_lines: int = 1_000) -> int:
    """Write lines in blocks; returns the number of lines written."""
    count = 0
    block: list[str] = []
    for line in lines:
        block.append(line)
        if len(block) >= buffer_lines:
            out.write("".join(block))
            count += len(block)
            block.clear()
    out.write("".join(block))
    return count + len(block)
