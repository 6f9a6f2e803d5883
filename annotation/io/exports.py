"""Streamed exports of stored annotations to the seed A.3 output JSONL format."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import TextIO

from annotation.axes import AXES
from annotation.io.records import format_timestamp
from annotation.selectors import annotation_rows


def annotation_lines(*, batch_name: str | None = None) -> Iterator[str]:
    """One JSON line per stored annotation, read from the database in chunks (never all at once).

    Each line is what ``json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode`` writes for the record
    ``{"id", "annotator_id", "timestamp", "annotations", "confidence", "seconds_spent"?}``, put together from
    pieces (``line_writer``): a rater's name, a time and a set of scores and confidences are each written once
    however many ratings share them.
    """
    write = line_writer()
    for dialogue_id, annotator, created_at, seconds, *values in annotation_rows(batch_name=batch_name):
        yield write(dialogue_id, annotator, created_at, seconds, values)


_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
_string = json.encoder.encode_basestring  # what that encoder writes for a text (ensure_ascii=False)
_KEYS = {name: _string(name) + ": " for name in ("id", "annotator_id", "timestamp", "annotations", "confidence",
                                                  "seconds_spent", *AXES)}  # fmt: skip


def _number(value) -> str:
    """A value as the encoder writes it: ints and finite floats by their repr, anything else through the encoder
    itself (which refuses NaN and infinities with ``ValueError``)."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return _dumps(value)


def line_writer():
    """``write(dialogue_id, annotator, created_at, seconds, values)``: a seed A.3 output line with its newline;
    ``values`` the four scores then the four confidences."""
    n = len(AXES)
    names: dict[str, str] = {}
    stamps: dict = {}
    ratings: dict[tuple, str] = {}

    def axes(numbers) -> str:
        return "{" + ", ".join(_KEYS[axis] + _number(v) for axis, v in zip(AXES, numbers, strict=True)) + "}"

    def write(dialogue_id, annotator, created_at, seconds, values) -> str:
        key = (*values, *map(type, values))  # 1 and 1.0 are equal keys but written differently
        if (scored := ratings.get(key)) is None:
            scored = ratings[key] = (", " + _KEYS["annotations"] + axes(values[:n]) + ", " + _KEYS["confidence"]
                                     + axes(values[n:]))  # fmt: skip
        if (name := names.get(annotator)) is None:
            name = names[annotator] = ", " + _KEYS["annotator_id"] + _dumps(annotator)
        moment = (created_at, created_at.utcoffset())  # one instant is written per its offset
        if (stamp := stamps.get(moment)) is None:
            stamp = stamps[moment] = ", " + _KEYS["timestamp"] + _dumps(format_timestamp(created_at))
        tail = "}\n" if seconds is None else ", " + _KEYS["seconds_spent"] + _number(seconds) + "}\n"
        return "{" + _KEYS["id"] + _dumps(dialogue_id) + name + stamp + scored + tail

    return write


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
